//===- RecordSourceOps.cpp - Count the ops before fusion ------------------===//
//
// The last step of the lowering pipeline: each function's number of dlc
// compute ops as dlc.source_ops, the baseline `dlc compile` compares the
// kernel count with. A pass rather than the driver's doing, so that dlc-opt's
// pipeline gives the IR `dlc compile --emit` prints.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "passes/Passes.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dlc-record-source-ops"

namespace mlir::dlc {
#define GEN_PASS_DEF_RECORDSOURCEOPS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

struct RecordSourceOpsPass
    : public mlir::dlc::impl::RecordSourceOpsBase<RecordSourceOpsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    int64_t count = 0;
    func.walk([&](Operation *op) {
      if (isa_and_nonnull<DlcDialect>(op->getDialect()) && !isa<ConstantOp>(op))
        ++count;
    });
    LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE ": " << func.getSymName() << ": "
                            << count << " ops\n");
    setSourceOpCount(func, count);
  }
};

} // namespace
