//===- TestGradient.cpp - Test pass: gradients through the op rules -------===//
//
// Builds the reverse-mode gradient of a function's single float result
// (summed) with respect to its float arguments from each op's
// GradientOpInterface, so that lit tests check the rules of ir/Gradients.cpp.
//
//===----------------------------------------------------------------------===//
#include "ir/ElementType.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "dlc-test-gradient"

namespace mlir::dlc {
#define GEN_PASS_DEF_TESTGRADIENT
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

Value splatLike(OpBuilder &b, Location loc, Type type, double value) {
  auto tensor = cast<RankedTensorType>(type);
  return b.create<ConstantOp>(
      loc, tensor,
      DenseElementsAttr::get(tensor,
                             b.getFloatAttr(tensor.getElementType(), value)));
}

struct TestGradientPass
    : public mlir::dlc::impl::TestGradientBase<TestGradientPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &block = func.getBody().front();
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    if (ret.getNumOperands() != 1 ||
        !isFloatElement(ret.getOperand(0).getType())) {
      func.emitError() << "dlc-test-gradient expects one float result";
      return signalPassFailure();
    }
    OpBuilder b(ret);
    Location loc = func.getLoc();
    llvm::DenseMap<Value, Value> grads;
    grads[ret.getOperand(0)] =
        splatLike(b, loc, ret.getOperand(0).getType(), 1.0);
    auto accumulate = [&](Value value, Value grad) {
      Value &slot = grads[value];
      slot = slot
                 ? b.create<AddOp>(loc, value.getType(), slot, grad).getResult()
                 : grad;
    };
    SmallVector<Operation *> forward;
    for (Operation &op : block.without_terminator())
      forward.push_back(&op);
    for (Operation *op : llvm::reverse(forward)) {
      SmallVector<Value> resultGrads;
      bool any = false;
      for (Value r : op->getResults()) {
        resultGrads.push_back(grads.lookup(r));
        any |= bool(resultGrads.back());
      }
      // Constants are leaves: nothing to pass on.
      if (!any || op->getNumOperands() == 0)
        continue;
      auto rule = dyn_cast<GradientOpInterface>(op);
      if (!rule) {
        op->emitOpError() << "has no gradient rule";
        return signalPassFailure();
      }
      SmallVector<Value> operandGrads;
      if (failed(rule.buildGradient(b, resultGrads, operandGrads)))
        return signalPassFailure();
      LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE ": " << op->getName() << "\n");
      for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads))
        if (grad)
          accumulate(operand, grad);
    }
    SmallVector<Value> results{ret.getOperand(0)};
    for (BlockArgument arg : block.getArguments()) {
      if (!isFloatElement(arg.getType()))
        continue;
      Value grad = grads.lookup(arg);
      results.push_back(grad ? grad : splatLike(b, loc, arg.getType(), 0.0));
    }
    b.create<func::ReturnOp>(ret.getLoc(), results);
    ret.erase();
    func.setFunctionType(FunctionType::get(&getContext(),
                                           func.getArgumentTypes(),
                                           ValueRange(results).getTypes()));
  }
};

} // namespace
