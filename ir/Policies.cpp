//===- Policies.cpp - Precision and layout classes of dlc ops -------------===//
//
// The ops that override a default of PrecisionPolicyOpInterface or
// LayoutOpInterface (DlcInterfaces.td); the others take it from DlcOps.td.
//
//===----------------------------------------------------------------------===//
#include "ir/Dialect.h"

using namespace mlir;
using namespace mlir::dlc;

// Tensor-core products are where reduced precision pays.
PrecisionClass MatmulOp::getPrecisionClass() { return PrecisionClass::Prefer; }
PrecisionClass AttentionOp::getPrecisionClass() {
  return PrecisionClass::Prefer;
}
PrecisionClass Conv2DOp::getPrecisionClass() { return PrecisionClass::Prefer; }
PrecisionClass ConvOp::getPrecisionClass() { return PrecisionClass::Prefer; }
PrecisionClass ConvTranspose2DOp::getPrecisionClass() {
  return PrecisionClass::Prefer;
}

// These name dimensions in attributes (axes, perm, start, low/high,
// multiples): a layout change permutes them.
LayoutClass ReduceOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass ArgMaxOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass TransposeOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass SliceOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass ConcatOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass PadOp::getLayoutClass() { return LayoutClass::Axes; }
LayoutClass TileOp::getLayoutClass() { return LayoutClass::Axes; }

LayoutClass Conv2DOp::getLayoutClass() { return LayoutClass::Spatial; }
LayoutClass ConvTranspose2DOp::getLayoutClass() { return LayoutClass::Spatial; }
LayoutClass Pool2DOp::getLayoutClass() { return LayoutClass::Spatial; }
LayoutClass ResizeOp::getLayoutClass() { return LayoutClass::Spatial; }

//===--- Permuted forms (LayoutOpInterface::permuteLayout) ---------------===//
// `perm` maps new dimensions to old ones: new dimension i is old dimension
// perm[i]. Attributes that list a value per dimension are permuted the same
// way; attributes that name a dimension are renamed by the inverse.

Type mlir::dlc::permuteType(Type type, ArrayRef<int64_t> perm) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(tensor.getDimSize(d));
  return RankedTensorType::get(shape, tensor.getElementType());
}

namespace {

/// Whether `perm` is a permutation of the rank of every operand and result.
bool fitsRank(Operation *op, ArrayRef<int64_t> perm, ValueRange operands) {
  auto rankIs = [&](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getRank() == int64_t(perm.size());
  };
  SmallVector<bool> seen(perm.size(), false);
  for (int64_t d : perm) {
    if (d < 0 || d >= int64_t(perm.size()) || seen[d])
      return false;
    seen[d] = true;
  }
  return operands.size() == op->getNumOperands() &&
         llvm::all_of(operands, rankIs) &&
         llvm::all_of(op->getResults(), rankIs);
}

/// A copy of `op` on `operands` with permuted result types.
Operation *clonePermuted(Operation *op, OpBuilder &b, ArrayRef<int64_t> perm,
                         ValueRange operands) {
  Operation *clone = b.clone(*op);
  clone->setOperands(operands);
  for (OpResult r : clone->getResults())
    r.setType(permuteType(r.getType(), perm));
  return clone;
}

SmallVector<int64_t> permuteList(ArrayRef<int64_t> values,
                                 ArrayRef<int64_t> perm) {
  SmallVector<int64_t> out;
  for (int64_t d : perm)
    out.push_back(values[d]);
  return out;
}

/// The new position of old dimension `axis`.
int64_t renameAxis(int64_t axis, ArrayRef<int64_t> perm) {
  return llvm::find(perm, axis) - perm.begin();
}

} // namespace

Operation *mlir::dlc::permuteAgnosticOp(Operation *op, OpBuilder &b,
                                        ArrayRef<int64_t> perm,
                                        ValueRange operands) {
  auto layout = dyn_cast<LayoutOpInterface>(op);
  if (!layout || layout.getLayoutClass() != LayoutClass::Agnostic ||
      !fitsRank(op, perm, operands))
    return nullptr;
  return clonePermuted(op, b, perm, operands);
}

Operation *ReduceOp::permuteLayout(OpBuilder &b, ArrayRef<int64_t> perm,
                                   ValueRange operands) {
  if (!fitsRank(*this, perm, operands))
    return nullptr;
  SmallVector<int64_t> axes;
  for (int64_t a : getAxes())
    axes.push_back(renameAxis(a, perm));
  llvm::sort(axes);
  auto op = cast<ReduceOp>(clonePermuted(*this, b, perm, operands));
  op.setAxes(axes);
  return op;
}

Operation *ArgMaxOp::permuteLayout(OpBuilder &b, ArrayRef<int64_t> perm,
                                   ValueRange operands) {
  if (!fitsRank(*this, perm, operands))
    return nullptr;
  auto op = cast<ArgMaxOp>(clonePermuted(*this, b, perm, operands));
  op.setAxis(renameAxis(getAxis(), perm));
  return op;
}

Operation *TransposeOp::permuteLayout(OpBuilder &b, ArrayRef<int64_t> perm,
                                      ValueRange operands) {
  if (!fitsRank(*this, perm, operands))
    return nullptr;
  // result = input permuted by Q; the new input is the old permuted by P and
  // the new result the old result permuted by P: Q'[i] = P^-1[Q[P[i]]].
  ArrayRef<int64_t> q = getPerm();
  SmallVector<int64_t> composed;
  for (int64_t d : perm)
    composed.push_back(renameAxis(q[d], perm));
  auto op = cast<TransposeOp>(clonePermuted(*this, b, perm, operands));
  op.setPerm(composed);
  return op;
}

Operation *SliceOp::permuteLayout(OpBuilder &b, ArrayRef<int64_t> perm,
                                  ValueRange operands) {
  if (!fitsRank(*this, perm, operands))
    return nullptr;
  auto op = cast<SliceOp>(clonePermuted(*this, b, perm, operands));
  op.setStart(permuteList(getStart(), perm));
  if (std::optional<ArrayRef<int64_t>> strides = getStrides())
    op.setStrides(permuteList(*strides, perm));
  return op;
}

Operation *ConcatOp::permuteLayout(OpBuilder &b, ArrayRef<int64_t> perm,
                                   ValueRange operands) {
  if (!fitsRank(*this, perm, operands))
    return nullptr;
  auto op = cast<ConcatOp>(clonePermuted(*this, b, perm, operands));
  op.setAxis(renameAxis(getAxis(), perm));
  return op;
}

Operation *PadOp::permuteLayout(OpBuilder &b, ArrayRef<int64_t> perm,
                                ValueRange operands) {
  if (!fitsRank(*this, perm, operands))
    return nullptr;
  auto op = cast<PadOp>(clonePermuted(*this, b, perm, operands));
  op.setLow(permuteList(getLow(), perm));
  op.setHigh(permuteList(getHigh(), perm));
  return op;
}

Operation *TileOp::permuteLayout(OpBuilder &b, ArrayRef<int64_t> perm,
                                 ValueRange operands) {
  if (!fitsRank(*this, perm, operands))
    return nullptr;
  auto op = cast<TileOp>(clonePermuted(*this, b, perm, operands));
  op.setMultiples(permuteList(getMultiples(), perm));
  return op;
}
