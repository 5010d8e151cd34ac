//===- Dialect.h - The dlc dialect and its operations -------------*- C++
//-*-===//
#ifndef DLC_IR_DIALECT_H
#define DLC_IR_DIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ir/DlcDialect.h.inc"
#include "ir/DlcEnums.h.inc"
#include "ir/Traits.h"

namespace dlc::rt {}
namespace mlir::dlc {
/// The runtime's types (rt::Package, rt::HostTensor) as seen from the compiler.
namespace rt = ::dlc::rt;

/// Checks that every operand and the result have the same rank and that each
/// dimension pair is equal or 1, with the result taking the larger size.
/// With `sameResultElementType`, also that all element types agree.
LogicalResult verifyBroadcastElementwise(Operation *op,
                                         bool sameResultElementType);
/// Checks that the first operand has a floating-point element type.
LogicalResult verifyFloatElements(Operation *op);
/// `value` with its dimensions permuted (new dimension i is old dimension
/// perm[i]): a chain of transposes is composed into one, the identity is
/// `value` itself and a constant is folded.
Value transposeOf(OpBuilder &b, Location loc, Value value,
                  ArrayRef<int64_t> perm);
/// The broadcast shape of two equal-rank shapes, or failure.
FailureOr<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b);
/// The result of `dlc.cmp <predicate>` on two values.
bool compare(CmpPredicate predicate, double a, double b);
/// "[2, 3, 4]": shapes in diagnostics.
std::string formatShape(ArrayRef<int64_t> shape);
/// The largest tensor dlc compiles, in bytes (1 TiB). Every size, stride and
/// offset the passes and code generation compute then fits in int64_t with
/// room to add many of them up.
constexpr int64_t kMaxTensorBytes = int64_t(1) << 40;
/// Whether a ranked tensor type's extents (a zero extent counts as one, as
/// strides still multiply the others) times its element size stay within
/// kMaxTensorBytes. Other types pass.
bool isWithinTensorSizeLimit(Type type);
/// Reports, at the op, every block argument and result inside `root` whose
/// type exceeds kMaxTensorBytes. The passes check this first, so that no
/// arithmetic on shapes can overflow.
LogicalResult checkTensorSizes(Operation *root);
} // namespace mlir::dlc

#include "ir/DlcInterfaces.h.inc"

#define GET_OP_CLASSES
#include "ir/DlcOps.h.inc"

#endif // DLC_IR_DIALECT_H
