//===- KernelEntry.cpp - The entry of a generated kernel ------------------===//
#include "codegen/KernelEntry.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

using namespace mlir::dlc;

void mlir::dlc::writeKernelEntry(std::string &source, llvm::StringRef name,
                                 llvm::ArrayRef<KernelParam> params,
                                 llvm::StringRef body, unsigned launchBounds) {
  llvm::SmallVector<std::string> decls, casts;
  for (auto [i, p] : llvm::enumerate(params)) {
    decls.push_back(fmt::format("{}* __restrict__ {}", p.pointee, p.name));
    casts.push_back(fmt::format("({}*)args[{}]", p.pointee, i));
  }
  std::string bounds =
      launchBounds ? fmt::format("__launch_bounds__({}) ", launchBounds) : "";
  source +=
      fmt::format("extern \"C\" __global__ void {}{}({}) {{\n{}}}\n", bounds,
                  name.str(), llvm::join(decls, ", "), body.str());
  source +=
      fmt::format("#ifdef DLC_SIM\nextern \"C\" void "
                  "dlc_sim_entry_{0}(void* const* args) {{\n  {0}({1});\n}}"
                  "\n#endif\n",
                  name.str(), llvm::join(casts, ", "));
}
