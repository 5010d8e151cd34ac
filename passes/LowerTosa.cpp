//===- LowerTosa.cpp ----------------------------------------------------------===//
#include "passes/Passes.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_LOWERTOSA
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
struct LowerTosaPass : public dlc::impl::LowerTosaBase<LowerTosaPass> {
  using LowerTosaBase::LowerTosaBase;
  void runOnOperation() override {}
};
} // namespace
