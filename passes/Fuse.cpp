//===- Fuse.cpp ----------------------------------------------------------===//
#include "passes/Passes.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_FUSE
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
struct FusePass : public dlc::impl::FuseBase<FusePass> {
  using FuseBase::FuseBase;
  void runOnOperation() override {}
};
} // namespace
