# Debian's MLIR targets link the LLVM shared library. dlc's tools must run on
# machines without LLVM installed, so every reference to the `LLVM` dylib is
# replaced with the static component libraries MLIR actually needs.
set(DLC_STATIC_LLVM_LIBS LLVMSupport)

# LLVMSupport's exported interface names libz3, which dlc never calls.
set_target_properties(LLVMSupport PROPERTIES
  INTERFACE_LINK_LIBRARIES "rt;dl;m;pthread;ZLIB::ZLIB;zstd::libzstd_shared;LLVMDemangle")

get_property(_dlc_mlir_targets DIRECTORY PROPERTY IMPORTED_TARGETS)
foreach(_t ${_dlc_mlir_targets})
  if(_t MATCHES "^MLIR")
    get_target_property(_libs ${_t} INTERFACE_LINK_LIBRARIES)
    if(_libs)
      list(TRANSFORM _libs REPLACE "^LLVM$" "${DLC_STATIC_LLVM_LIBS}")
      set_target_properties(${_t} PROPERTIES INTERFACE_LINK_LIBRARIES "${_libs}")
    endif()
  endif()
endforeach()
set(LLVM_LINK_LLVM_DYLIB OFF)
