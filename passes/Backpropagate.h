//===- Backpropagate.h - The reverse sweep of autodiff ----------*- C++ -*-===//
//
// Shared by dlc-autodiff and dlc-test-gradient: the gradients of a loss
// carried back through a block's ops by their GradientOpInterface rules.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_BACKPROPAGATE_H
#define DLC_PASSES_BACKPROPAGATE_H

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::dlc {

/// Carries `seeds` (the loss's gradient with respect to some values) back
/// through `forward` (ops of one block, in program order) in reverse order:
/// each op reached by a gradient adds its operands' gradients with its rule,
/// at `builder`'s insertion point, and the gradients of a value used
/// several times are summed. Returns the gradient of each of `wrt` (null
/// where the loss does not depend on it); an op on the path without a rule,
/// or a rule that fails, is an error at the op.
FailureOr<SmallVector<Value>>
backpropagate(OpBuilder &builder, ArrayRef<Operation *> forward,
              const llvm::DenseMap<Value, Value> &seeds, ArrayRef<Value> wrt);

/// A splat constant of `type` (a float tensor) holding `value`.
Value splatConstant(OpBuilder &builder, Location loc, Type type, double value);

} // namespace mlir::dlc

#endif // DLC_PASSES_BACKPROPAGATE_H
