# Turns codegen/Prelude.cuh into a C++ source that defines it as a string
# (as runtime/sim/EmbedShim.cmake does for the sim shim), without the .cuh's
# own header: everything up to and including its first line of the form
# "//===---...---===//". Run as: cmake -DINPUT=... -DOUTPUT=... -P EmbedPrelude.cmake
file(READ "${INPUT}" content)
set(rule "//===----------------------------------------------------------------------===//\n")
string(FIND "${content}" "${rule}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${INPUT} has no header rule '${rule}'")
endif()
string(LENGTH "${rule}" ruleLength)
math(EXPR at "${at} + ${ruleLength}")
string(SUBSTRING "${content}" ${at} -1 content)
set(delim "dlcprelude")
string(FIND "${content}" ")${delim}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter ')${delim}\"'")
endif()
file(WRITE "${OUTPUT}.tmp"
"// Generated from codegen/Prelude.cuh by codegen/EmbedPrelude.cmake.\n"
"namespace mlir::dlc {\n"
"extern const char kCudaPrelude[];\n"
"const char kCudaPrelude[] = R\"${delim}(${content})${delim}\";\n"
"} // namespace mlir::dlc\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
