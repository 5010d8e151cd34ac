//===- TestGradient.cpp - Test pass: gradients through the op rules -------===//
//
// Builds the reverse-mode gradient of a function's single float result
// (summed) with respect to its float arguments from each op's
// GradientOpInterface, so that lit tests check the rules of ir/Gradients.cpp.
//
//===----------------------------------------------------------------------===//
#include "ir/ElementType.h"
#include "passes/Backpropagate.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_TESTGRADIENT
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

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
    SmallVector<Operation *> forward;
    for (Operation &op : block.without_terminator())
      forward.push_back(&op);
    OpBuilder b(ret);
    Location loc = func.getLoc();
    Value result = ret.getOperand(0);
    SmallVector<Value> wrt;
    for (BlockArgument arg : block.getArguments())
      if (isFloatElement(arg.getType()))
        wrt.push_back(arg);
    FailureOr<SmallVector<Value>> grads = backpropagate(
        b, forward, {{result, splatConstant(b, loc, result.getType(), 1.0)}},
        wrt);
    if (failed(grads))
      return signalPassFailure();
    SmallVector<Value> results{result};
    for (auto [arg, grad] : llvm::zip(wrt, *grads))
      results.push_back(grad ? grad
                             : splatConstant(b, loc, arg.getType(), 0.0));
    b.create<func::ReturnOp>(ret.getLoc(), results);
    ret.erase();
    func.setFunctionType(FunctionType::get(&getContext(),
                                           func.getArgumentTypes(),
                                           ValueRange(results).getTypes()));
  }
};

} // namespace
