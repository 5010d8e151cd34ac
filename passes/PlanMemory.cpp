//===- PlanMemory.cpp ----------------------------------------------------------===//
#include "passes/Passes.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_PLANMEMORY
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {
struct PlanMemoryPass : public dlc::impl::PlanMemoryBase<PlanMemoryPass> {
  using PlanMemoryBase::PlanMemoryBase;
  void runOnOperation() override {}
};
} // namespace
