# Turns runtime/sim/SimShim.h into a C++ source that defines it as a string,
# so an installed dlc can write the shim next to the code it compiles without
# needing the source tree. Run as: cmake -DINPUT=... -DOUTPUT=... -P EmbedShim.cmake
file(READ "${INPUT}" content)
set(delim "dlcshim")
string(FIND "${content}" ")${delim}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter ')${delim}\"'")
endif()
file(WRITE "${OUTPUT}.tmp"
"// Generated from runtime/sim/SimShim.h by runtime/sim/EmbedShim.cmake.\n"
"#include <cstddef>\n"
"namespace dlc::rt {\n"
"extern const char kSimShimSource[];\n"
"extern const size_t kSimShimSourceSize;\n"
"const char kSimShimSource[] = R\"${delim}(${content})${delim}\";\n"
"const size_t kSimShimSourceSize = sizeof(kSimShimSource) - 1;\n"
"} // namespace dlc::rt\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
