# Regenerates the example models into OUT and compares them with EXAMPLES.
file(MAKE_DIRECTORY ${OUT})
execute_process(
  COMMAND ${PYTHON} ${EXAMPLES}/gen_examples.py --out ${OUT}
  RESULT_VARIABLE status OUTPUT_QUIET)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "examples/gen_examples.py failed (${status})")
endif()
foreach(model mlp layernorm_gelu attention encoder_layer reshape_transpose)
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${model}.mlir ${EXAMPLES}/${model}.mlir
    RESULT_VARIABLE different)
  if(different)
    message(FATAL_ERROR "examples/${model}.mlir differs from what "
                        "examples/gen_examples.py generates; rerun it")
  endif()
endforeach()
