//===- Traits.h - C++ side of the traits in DlcInterfaces.td -----*- C++
//-*-===//
#ifndef DLC_IR_TRAITS_H
#define DLC_IR_TRAITS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::dlc {

/// Checks that every operand and result of `op` is within kMaxTensorBytes.
LogicalResult verifyTensorSizes(Operation *op);
/// Bytes of every tensor operand and result of `op`, each counted once.
int64_t operandAndResultBytes(Operation *op);

/// How an op may run under reduced precision (PrecisionPolicyOpInterface).
enum class PrecisionClass { Allow, Prefer, Deny };
/// How an op depends on the order of dimensions (LayoutOpInterface).
enum class LayoutClass { Agnostic, Axes, Spatial, Fixed };
/// `type` (a ranked tensor) with its dimensions permuted: new dimension
/// `i` is old dimension `perm[i]`.
Type permuteType(Type type, ArrayRef<int64_t> perm);
/// LayoutOpInterface::permuteLayout of an op without its own: for an
/// Agnostic op, a clone on `operands` with results permuted by `perm`; null
/// for the others.
Operation *permuteAgnosticOp(Operation *op, OpBuilder &builder,
                             ArrayRef<int64_t> perm, ValueRange operands);

namespace trait {

template <typename ConcreteType>
class KernelBody : public OpTrait::TraitBase<ConcreteType, KernelBody> {};
template <typename ConcreteType>
class Elementwise : public OpTrait::TraitBase<ConcreteType, Elementwise> {};
template <typename ConcreteType>
class DataMovement : public OpTrait::TraitBase<ConcreteType, DataMovement> {};
template <typename ConcreteType>
class Window : public OpTrait::TraitBase<ConcreteType, Window> {};
template <typename ConcreteType>
class Reduction : public OpTrait::TraitBase<ConcreteType, Reduction> {};

template <typename ConcreteType>
class TensorSizeLimit
    : public OpTrait::TraitBase<ConcreteType, TensorSizeLimit> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyTensorSizes(op);
  }
};

} // namespace trait

/// Whether `op` may stand inside a dlc.kernel's body.
inline bool isKernelBodyOp(Operation *op) {
  return op->hasTrait<trait::KernelBody>();
}

} // namespace mlir::dlc

#endif // DLC_IR_TRAITS_H
