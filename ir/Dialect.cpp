//===- Dialect.cpp - The dlc dialect and its operations -------------------===//
#include "ir/Dialect.h"
#include "ir/Attributes.h"
#include "ir/ElementType.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

using namespace mlir;
using namespace mlir::dlc;

#include "ir/DlcDialect.cpp.inc"
#include "ir/DlcEnums.cpp.inc"

namespace {
/// Every dlc op may be inlined: the ops are pure tensor computations (or
/// kernels of them) that refer to nothing outside their operands, so the
/// body of a called function can take the call's place (dlc-inline-calls).
struct DlcInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void DlcDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ir/DlcOps.cpp.inc"
      >();
  addInterfaces<DlcInlinerInterface>();
}

Operation *DlcDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return builder.create<ConstantOp>(loc, type, elements);
}

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

bool mlir::dlc::compare(CmpPredicate predicate, double a, double b) {
  switch (predicate) {
  case CmpPredicate::eq:
    return a == b;
  case CmpPredicate::ne:
    return a != b;
  case CmpPredicate::lt:
    return a < b;
  case CmpPredicate::le:
    return a <= b;
  case CmpPredicate::gt:
    return a > b;
  case CmpPredicate::ge:
    return a >= b;
  }
  return false;
}

std::string mlir::dlc::formatShape(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += std::to_string(d);
  }
  return s + "]";
}

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

FailureOr<SmallVector<int64_t>>
mlir::dlc::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  if (a.size() != b.size())
    return failure();
  SmallVector<int64_t> out;
  for (auto [x, y] : llvm::zip(a, b)) {
    if (x != y && x != 1 && y != 1)
      return failure();
    out.push_back(x == 1 ? y : x);
  }
  return out;
}

LogicalResult
mlir::dlc::verifyBroadcastElementwise(Operation *op,
                                      bool sameResultElementType) {
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> shape;
  Type elementType;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    auto type = tensorType(operand);
    if (type.getRank() != resultType.getRank())
      return op->emitOpError()
             << "expects operands of the result's rank " << resultType.getRank()
             << ", but operand #" << i << " has rank " << type.getRank()
             << " (insert a dlc.reshape to change rank)";
    if (i == 0) {
      shape.assign(type.getShape().begin(), type.getShape().end());
    } else {
      auto merged = broadcastShapes(shape, type.getShape());
      if (failed(merged))
        return op->emitOpError() << "operand shapes " << formatShape(shape)
                                 << " and " << formatShape(type.getShape())
                                 << " are not broadcast-compatible";
      shape = *merged;
    }
  }
  if (ArrayRef<int64_t>(shape) != resultType.getShape())
    return op->emitOpError() << "expects result shape " << formatShape(shape)
                             << " (the broadcast of the operands), but got "
                             << formatShape(resultType.getShape());
  if (sameResultElementType) {
    for (Value operand : op->getOperands()) {
      elementType = tensorType(operand).getElementType();
      if (elementType != resultType.getElementType())
        return op->emitOpError()
               << "expects operands and result of one element type, but got "
               << elementType << " and " << resultType.getElementType()
               << " (insert a dlc.cast)";
    }
  }
  return success();
}

LogicalResult mlir::dlc::verifyFloatElements(Operation *op) {
  Type type = tensorType(op->getOperand(0)).getElementType();
  if (!isa<FloatType>(type))
    return op->emitOpError() << "expects a floating-point tensor, but got "
                                "element type "
                             << type;
  return success();
}

bool mlir::dlc::isWithinTensorSizeLimit(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return true;
  int64_t bytes = elementBytes(tensor.getElementType());
  for (int64_t d : tensor.getShape()) {
    if (d <= 1) // 0, 1 and dynamic extents
      continue;
    if (bytes > kMaxTensorBytes / d)
      return false;
    bytes *= d;
  }
  return true;
}

LogicalResult mlir::dlc::checkTensorSizes(Operation *root) {
  bool ok = true;
  auto report = [&](Operation *op, Type type, const Twine &what) {
    if (isWithinTensorSizeLimit(type))
      return;
    op->emitOpError() << what << " has type " << type
                      << ", which is larger than the 2^40 bytes (1 TiB) dlc "
                         "supports for one tensor";
    ok = false;
  };
  root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          report(op, arg.getType(), "argument #" + Twine(arg.getArgNumber()));
    for (OpResult result : op->getResults())
      report(op, result.getType(),
             "result #" + Twine(result.getResultNumber()));
  });
  return success(ok);
}

/// Verifiers compute with shapes; they first require every operand and
/// result to be within kMaxTensorBytes (the limit the passes check too), so
/// that no product or sum of extents overflows 64-bit integers.
LogicalResult mlir::dlc::verifyTensorSizes(Operation *op) {
  auto check = [&](Type type, const Twine &what) -> LogicalResult {
    if (isWithinTensorSizeLimit(type))
      return success();
    return op->emitOpError() << what << " has type " << type
                             << ", which is larger than the 2^40 bytes (1 TiB) "
                                "dlc supports for one tensor";
  };
  for (OpOperand &operand : op->getOpOperands())
    if (failed(check(operand.get().getType(),
                     "operand #" + Twine(operand.getOperandNumber()))))
      return failure();
  for (OpResult result : op->getResults())
    if (failed(check(result.getType(),
                     "result #" + Twine(result.getResultNumber()))))
      return failure();
  return success();
}

int64_t mlir::dlc::operandAndResultBytes(Operation *op) {
  int64_t bytes = 0;
  auto add = [&](Type type) {
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      if (tensor.hasStaticShape())
        bytes += tensorBytes(tensor);
  };
  for (Type type : op->getOperandTypes())
    add(type);
  for (Type type : op->getResultTypes())
    add(type);
  return bytes;
}

/// The diagnostic for attribute values (multiples, pads, strides) whose
/// arithmetic with the shape overflows 64-bit integers.
static LogicalResult attributeOverflowError(Operation *op) {
  return op->emitOpError()
         << "has attribute values whose arithmetic with the input shape "
            "overflows 64-bit integers";
}

/// Checks that the single result of a data-movement op has the element type
/// of its input.
static LogicalResult verifyResultElementType(Operation *op, Type expected) {
  Type actual = cast<ShapedType>(op->getResult(0).getType()).getElementType();
  if (actual != expected)
    return op->emitOpError() << "expects result element type " << expected
                             << " (the input's), but got " << actual;
  return success();
}

static LogicalResult checkResultShape(Operation *op,
                                      ArrayRef<int64_t> expected) {
  auto actual = cast<RankedTensorType>(op->getResult(0).getType()).getShape();
  if (actual != expected)
    return op->emitOpError() << "expects result shape " << formatShape(expected)
                             << ", but got " << formatShape(actual);
  return success();
}

static LogicalResult verifyAxis(Operation *op, int64_t axis, int64_t rank,
                                StringRef what) {
  if (axis < 0 || axis >= rank)
    return op->emitOpError()
           << what << " " << axis << " is out of range for a tensor of rank "
           << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// ConstantOp
//===----------------------------------------------------------------------===//

// AllTypesMatch<["value", "result"]> (ODS) verifies the value's type.
OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult ClampOp::verify() {
  if (getMin().convertToDouble() > getMax().convertToDouble())
    return emitOpError() << "expects min <= max, but got min = "
                         << getMin().convertToDouble()
                         << " and max = " << getMax().convertToDouble();
  return success();
}

LogicalResult CmpOp::verify() {
  if (tensorType(getLhs()).getElementType() !=
      tensorType(getRhs()).getElementType())
    return emitOpError() << "expects operands of one element type, but got "
                         << tensorType(getLhs()).getElementType() << " and "
                         << tensorType(getRhs()).getElementType();
  return verifyBroadcastElementwise(*this, /*sameResultElementType=*/false);
}

LogicalResult SelectOp::verify() {
  Type a = tensorType(getOnTrue()).getElementType();
  Type b = tensorType(getOnFalse()).getElementType();
  Type r = getType().getElementType();
  if (a != b || a != r)
    return emitOpError() << "expects both choices and the result to have one "
                            "element type, but got "
                         << a << ", " << b << " and " << r;
  return verifyBroadcastElementwise(*this, /*sameResultElementType=*/false);
}

LogicalResult DropoutOp::verify() {
  if (failed(verifyFloatElements(*this)))
    return failure();
  auto input = tensorType(getInput());
  if (getType() != input)
    return emitOpError() << "expects the result type " << getType()
                         << " to equal the input type " << input;
  auto offset = tensorType(getOffset());
  if (!offset.getElementType().isInteger(64) ||
      offset.getRank() != input.getRank() || offset.getNumElements() != 1)
    return emitOpError() << "expects an i64 offset of one element and rank "
                         << input.getRank() << " (all dimensions 1), but got "
                         << offset;
  double ratio = getRatio().convertToDouble();
  if (!(ratio >= 0 && ratio <= 1))
    return emitOpError() << "expects a ratio in [0, 1], but got " << ratio;
  return success();
}

uint32_t DropoutOp::getKeepThreshold() {
  double t = std::ceil(getRatio().convertToDouble() * 16777216.0);
  return uint32_t(std::clamp(t, 0.0, 16777216.0));
}

float DropoutOp::getKeptScale() {
  double ratio = getRatio().convertToDouble();
  return ratio >= 1 ? 0.0f : float(1.0 / (1.0 - ratio));
}

std::pair<uint32_t, uint32_t> DropoutOp::getKey() {
  auto seed = uint64_t(getSeed());
  return {uint32_t(seed), uint32_t(seed >> 32) ^ uint32_t(getStream())};
}

int64_t DropoutOp::getOpsPerElement() {
  // Philox4x32-10: ten rounds of two 32x32->64 products and a few xors.
  return 40;
}

/// A multiply and an add per term of each result element's dot product
/// over the contracted extent (2 m n k per batch in all).
int64_t MatmulOp::getOpsPerElement() {
  auto lhs = tensorType(getLhs());
  return 2 * lhs.getDimSize(lhs.getRank() - (getTransposeA() ? 2 : 1));
}

/// Each result element is a dot product over the filter's C/groups x R x S
/// window (a KRSC filter).
int64_t ConvOp::getOpsPerElement() {
  auto filter = tensorType(getFilter());
  return 2 * filter.getNumElements() /
         std::max<int64_t>(filter.getDimSize(0), 1);
}

LogicalResult CastOp::verify() {
  if (tensorType(getInput()).getShape() != getType().getShape())
    return emitOpError() << "expects the result shape "
                         << formatShape(getType().getShape())
                         << " to equal the input shape "
                         << formatShape(tensorType(getInput()).getShape());
  if (FloatAttr scale = getScaleAttr()) {
    Type in = tensorType(getInput()).getElementType();
    if (!(in.isF32() || in.isF16() || in.isBF16()) ||
        !getType().getElementType().isFloat8E4M3FN())
      return emitOpError() << "has a scale, which is for casts from f32, f16 "
                              "or bf16 to f8E4M3FN only";
    double v = scale.getValueAsDouble();
    if (!std::isfinite(v) || v <= 0)
      return emitOpError() << "scale must be positive and finite, but is " << v;
  }
  return success();
}

/// Converts one element as dlc.cast does, or returns null where the result
/// is not fully specified (NaN to integer, narrowing an integer that does not
/// fit).
static Attribute castElement(Attribute value, Type to) {
  if (auto f = dyn_cast<FloatAttr>(value)) {
    // f32, f16, bf16 and f8E4M3FN values are exact doubles.
    double d = f.getValueAsDouble();
    // E4M3 saturates (APFloat's conversion would give NaN).
    if (to.isFloat8E4M3FN())
      return FloatAttr::get(to, roundToFloat(rt::DType::F8E4M3, d));
    if (auto toFloat = dyn_cast<FloatType>(to)) {
      APFloat converted = f.getValue();
      bool losesInfo;
      converted.convert(toFloat.getFloatSemantics(),
                        APFloat::rmNearestTiesToEven, &losesInfo);
      return FloatAttr::get(to, converted);
    }
    if (to.isInteger(1))
      return IntegerAttr::get(to, d != 0.0 ? 1 : 0);
    if (std::isnan(d))
      return {};
    // Round half to even (the default rounding mode), then saturate.
    unsigned width = to.getIntOrFloatBitWidth();
    double limit = std::ldexp(1.0, width - 1);
    double rounded = std::nearbyint(d);
    if (rounded >= limit)
      return IntegerAttr::get(to, APInt::getSignedMaxValue(width));
    if (rounded < -limit)
      return IntegerAttr::get(to, APInt::getSignedMinValue(width));
    return IntegerAttr::get(to, static_cast<int64_t>(rounded));
  }
  auto i = dyn_cast<IntegerAttr>(value);
  if (!i)
    return {};
  // Booleans are 0/1, the other integers signed.
  bool isSigned = !i.getType().isInteger(1);
  APInt v = i.getValue();
  if (auto toFloat = dyn_cast<FloatType>(to)) {
    APFloat converted(toFloat.getFloatSemantics());
    converted.convertFromAPInt(v, isSigned, APFloat::rmNearestTiesToEven);
    return FloatAttr::get(to, converted);
  }
  unsigned width = to.getIntOrFloatBitWidth();
  if (width == 1)
    return IntegerAttr::get(to, v.isZero() ? 0 : 1);
  if (width >= v.getBitWidth())
    return IntegerAttr::get(to, isSigned ? v.sext(width) : v.zext(width));
  if (!v.isSignedIntN(width))
    return {};
  return IntegerAttr::get(to, v.trunc(width));
}

/// Whether every value of `from` survives a round trip through `via`.
static bool castIsLossless(Type from, Type via) {
  if (from == via || from.isInteger(1))
    return true;
  if (from.isF16() || from.isBF16())
    return via.isF32();
  // Every E4M3 value is an f16, a bf16 and an f32.
  if (from.isFloat8E4M3FN())
    return via.isF32() || via.isF16() || via.isBF16();
  return from.isInteger(32) && via.isInteger(64);
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  // A scaled cast changes values; the rules below are for plain ones.
  if (getScaleAttr())
    return {};
  if (getInput().getType() == getType())
    return getInput();
  // cast(cast(x : A -> B) -> A) is x when B holds every value of A.
  if (auto inner = getInput().getDefiningOp<CastOp>()) {
    if (inner.getInput().getType() == getType() &&
        castIsLossless(getType().getElementType(),
                       getInput().getType().getElementType()))
      return inner.getInput();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput());
      dense && dense.isSplat()) {
    Attribute element = castElement(dense.getSplatValue<Attribute>(),
                                    getType().getElementType());
    if (element)
      return DenseElementsAttr::get(getType(), element);
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

LogicalResult ReduceOp::verify() {
  auto in = tensorType(getInput());
  if (getAxes().empty())
    return emitOpError() << "expects at least one axis";
  SmallVector<int64_t> expected(in.getShape());
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t axis : getAxes()) {
    if (failed(verifyAxis(*this, axis, in.getRank(), "axis")))
      return failure();
    if (!seen.insert(axis).second)
      return emitOpError() << "axis " << axis << " appears twice";
    expected[axis] = 1;
  }
  if (ArrayRef<int64_t>(expected) != getType().getShape())
    return emitOpError() << "expects result shape " << formatShape(expected)
                         << " (reduced axes kept as 1), but got "
                         << formatShape(getType().getShape());
  if (in.getElementType() != getType().getElementType())
    return emitOpError() << "expects the result element type "
                         << in.getElementType() << ", but got "
                         << getType().getElementType();
  if (in.getElementType().isInteger(1))
    return emitOpError() << "cannot reduce a boolean tensor";
  return success();
}

LogicalResult ArgMaxOp::verify() {
  auto in = tensorType(getInput());
  if (failed(verifyAxis(*this, getAxis(), in.getRank(), "axis")))
    return failure();
  SmallVector<int64_t> expected(in.getShape());
  expected[getAxis()] = 1;
  if (ArrayRef<int64_t>(expected) != getType().getShape())
    return emitOpError() << "expects result shape " << formatShape(expected)
                         << ", but got " << formatShape(getType().getShape());
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  auto a = tensorType(getLhs()), b = tensorType(getRhs());
  if (a.getRank() < 2 || a.getRank() != b.getRank())
    return emitOpError() << "expects operands of one rank, at least 2, but got "
                         << a.getRank() << " and " << b.getRank();
  // FP8 operands give a 16-bit float result; other products' result is of
  // their operands' type.
  const bool fp8 = a.getElementType().isFloat8E4M3FN();
  Type resultElement = getType().getElementType();
  if (a.getElementType() != b.getElementType() ||
      (!fp8 && a.getElementType() != resultElement))
    return emitOpError() << "expects operands and result of one element "
                            "type, but got "
                         << a.getElementType() << ", " << b.getElementType()
                         << " and " << resultElement;
  if (fp8 && !resultElement.isBF16() && !resultElement.isF16())
    return emitOpError() << "expects a bf16 or f16 result for f8E4M3FN "
                            "operands, but got "
                         << resultElement;
  if (fp8 && (getTransposeA() || !getTransposeB()))
    return emitOpError() << "expects f8E4M3FN operands with transpose_b and "
                            "without transpose_a (cuBLASLt's FP8 layout)";
  for (auto [name, scale] : {std::pair{"lhs_scale", getLhsScaleAttr()},
                             std::pair{"rhs_scale", getRhsScaleAttr()}}) {
    if (!scale)
      continue;
    if (!fp8)
      return emitOpError() << name << " is for f8E4M3FN operands only";
    double v = scale.getValueAsDouble();
    if (!std::isfinite(v) || v <= 0)
      return emitOpError() << name << " must be positive and finite, but is "
                           << v;
  }
  if (a.getElementType().isInteger(1))
    return emitOpError() << "cannot multiply boolean matrices";
  int64_t r = a.getRank();
  int64_t m = a.getDimSize(r - 2), ka = a.getDimSize(r - 1);
  if (getTransposeA())
    std::swap(m, ka);
  int64_t kb = b.getDimSize(r - 2), n = b.getDimSize(r - 1);
  if (getTransposeB())
    std::swap(kb, n);
  if (ka != kb)
    return emitOpError() << "contraction sizes differ: " << ka << " (lhs) vs "
                         << kb << " (rhs)";
  auto batch =
      broadcastShapes(a.getShape().drop_back(2), b.getShape().drop_back(2));
  if (failed(batch))
    return emitOpError() << "batch dimensions "
                         << formatShape(a.getShape().drop_back(2)) << " and "
                         << formatShape(b.getShape().drop_back(2))
                         << " are not broadcast-compatible";
  SmallVector<int64_t> expected = *batch;
  expected.push_back(m);
  expected.push_back(n);
  if (ArrayRef<int64_t>(expected) != getType().getShape())
    return emitOpError() << "expects result shape " << formatShape(expected)
                         << ", but got " << formatShape(getType().getShape());
  if (auto acc = getAccType()) {
    if (!isa<FloatType>(*acc) || !isa<FloatType>(a.getElementType()))
      return emitOpError() << "acc_type must be a float type for a float "
                              "product";
  }
  if (Value bias = getBias()) {
    auto t = tensorType(bias);
    if (t.getElementType() != getType().getElementType())
      return emitOpError() << "expects a bias of the result's element type "
                           << getType().getElementType() << ", but got "
                           << t.getElementType();
    // A vector along the last dimension, broadcast over all others: what
    // cuBLASLt's bias epilogue adds.
    ArrayRef<int64_t> shape = t.getShape();
    bool vector =
        !shape.empty() && (int64_t)shape.size() <= r && shape.back() == n &&
        llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; });
    if (!vector)
      return emitOpError() << "expects a bias of shape [" << n
                           << "] or [1, ..., 1, " << n << "] (at most rank "
                           << r << "), but got " << formatShape(shape);
  }
  if (Value addend = getAddend()) {
    if (addend.getType() != getType())
      return emitOpError() << "expects an addend of the result type "
                           << getType() << ", but got " << addend.getType();
  }
  if (getEpilogue() == EpilogueKind::gelu_tanh &&
      !isa<FloatType>(getType().getElementType()))
    return emitOpError() << "cannot apply gelu_tanh to a "
                         << getType().getElementType() << " product";
  return success();
}

LogicalResult AttentionOp::verify() {
  auto q = tensorType(getQ()), k = tensorType(getK()), v = tensorType(getV());
  auto result = getType();
  int64_t r = q.getRank();
  if (r < 2 || k.getRank() != r || v.getRank() != r)
    return emitOpError() << "expects q, k and v of one rank, at least 2, but "
                            "got "
                         << r << ", " << k.getRank() << " and " << v.getRank();
  Type element = q.getElementType();
  if (!isa<FloatType>(element))
    return emitOpError() << "expects f32, f16 or bf16 operands, but got "
                         << element;
  if (k.getElementType() != element || v.getElementType() != element ||
      result.getElementType() != element)
    return emitOpError() << "expects q, k, v and the result of one element "
                            "type, but got "
                         << element << ", " << k.getElementType() << ", "
                         << v.getElementType() << " and "
                         << result.getElementType();
  if (isHeadsLayout())
    return verifyHeadsLayout();
  if (getSeqFirst())
    return emitOpError() << "expects seq_first only with head_offsets";
  if (getKvGroups())
    return emitOpError() << "expects kv_groups only with head_offsets";
  int64_t sq = q.getDimSize(r - 2), d = q.getDimSize(r - 1);
  int64_t sk = k.getDimSize(r - 2), dv = v.getDimSize(r - 1);
  if (k.getDimSize(r - 1) != d)
    return emitOpError() << "expects q and k of one head size (last "
                            "dimension), but got "
                         << d << " and " << k.getDimSize(r - 1);
  if (v.getDimSize(r - 2) != sk)
    return emitOpError() << "expects v with one row per key (" << sk
                         << "), but got " << v.getDimSize(r - 2);
  auto batch =
      broadcastShapes(q.getShape().drop_back(2), k.getShape().drop_back(2));
  if (succeeded(batch))
    batch = broadcastShapes(*batch, v.getShape().drop_back(2));
  if (failed(batch))
    return emitOpError() << "batch dimensions "
                         << formatShape(q.getShape().drop_back(2)) << ", "
                         << formatShape(k.getShape().drop_back(2)) << " and "
                         << formatShape(v.getShape().drop_back(2))
                         << " of q, k and v are not broadcast-compatible";
  SmallVector<int64_t> expected = *batch;
  expected.push_back(sq);
  expected.push_back(dv);
  if (ArrayRef<int64_t>(expected) != result.getShape())
    return emitOpError() << "expects result shape " << formatShape(expected)
                         << ", but got " << formatShape(result.getShape());
  SmallVector<int64_t> scores = *batch;
  scores.push_back(sq);
  scores.push_back(sk);
  return verifyMaskAndScale(scores);
}

LogicalResult AttentionOp::verifyMaskAndScale(ArrayRef<int64_t> scores) {
  if (Value maskValue = getMask()) {
    auto mask = tensorType(maskValue);
    Type element = getType().getElementType();
    if (mask.getElementType() != element && !mask.getElementType().isF32())
      return emitOpError() << "expects a mask of element type " << element
                           << " or f32, but got " << mask.getElementType();
    int64_t r = scores.size();
    bool fits = mask.getRank() == r;
    for (int64_t i = 0; fits && i < r; ++i)
      fits = mask.getDimSize(i) == 1 || mask.getDimSize(i) == scores[i];
    if (!fits)
      return emitOpError() << "expects a mask that broadcasts to the scores "
                           << formatShape(scores) << ", but got shape "
                           << formatShape(mask.getShape());
  }
  if (!std::isfinite(getScale().convertToDouble()))
    return emitOpError() << "expects a finite scale, but got "
                         << getScaleAttr();
  return success();
}

/// The `[B, S, heads, D]` (or, `seq_first`, `[S, B, heads, D]`) form: see
/// the op's description.
LogicalResult AttentionOp::verifyHeadsLayout() {
  auto q = tensorType(getQ()), k = tensorType(getK()), v = tensorType(getV());
  auto result = getType();
  const char *layout = getSeqFirst() ? "[S, B, heads, D]" : "[B, S, heads, D]";
  if (q.getRank() != 4 || result.getRank() != 4)
    return emitOpError() << "with head_offsets expects q, k, v and the "
                            "result of rank 4 ("
                         << layout << "), but got " << q.getRank() << " and "
                         << result.getRank();
  ArrayRef<int64_t> offsets = *getHeadOffsets();
  if (offsets.size() != 3)
    return emitOpError() << "expects head_offsets of 3 entries (q, k, v), "
                            "but got "
                         << offsets.size();
  int64_t heads = result.getDimSize(2);
  int64_t groups = kvGroupSize();
  if (groups < 1 || heads % groups != 0)
    return emitOpError() << "expects kv_groups to divide the " << heads
                         << " result heads, but got " << groups;
  const char *names[3] = {"q", "k", "v"};
  RankedTensorType types[3] = {q, k, v};
  for (int i = 0; i < 3; ++i) {
    // k and v have one head per group of query heads.
    int64_t used = i == 0 ? heads : heads / groups;
    if (offsets[i] < 0 || offsets[i] > types[i].getDimSize(2) - used)
      return emitOpError() << "head offset " << offsets[i] << " of " << names[i]
                           << " with " << used << " heads used exceeds its "
                           << types[i].getDimSize(2) << " heads";
  }
  int64_t sd = seqDim(), bd = batchDim();
  int64_t sq = q.getDimSize(sd), d = q.getDimSize(3);
  int64_t sk = k.getDimSize(sd), dv = v.getDimSize(3);
  if (k.getDimSize(3) != d)
    return emitOpError() << "expects q and k of one head size (last "
                            "dimension), but got "
                         << d << " and " << k.getDimSize(3);
  if (v.getDimSize(sd) != sk)
    return emitOpError() << "expects v with one row per key (" << sk
                         << "), but got " << v.getDimSize(sd);
  auto batch = broadcastShapes({q.getDimSize(bd)}, {k.getDimSize(bd)});
  if (succeeded(batch))
    batch = broadcastShapes(*batch, {v.getDimSize(bd)});
  if (failed(batch))
    return emitOpError() << "batch dimensions " << q.getDimSize(bd) << ", "
                         << k.getDimSize(bd) << " and " << v.getDimSize(bd)
                         << " of q, k and v are not broadcast-compatible";
  int64_t b = (*batch)[0];
  SmallVector<int64_t> expected = {b, sq, heads, dv};
  if (getSeqFirst())
    std::swap(expected[0], expected[1]);
  if (ArrayRef<int64_t>(expected) != result.getShape())
    return emitOpError() << "expects result shape " << formatShape(expected)
                         << ", but got " << formatShape(result.getShape());
  return verifyMaskAndScale({b, heads, sq, sk});
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  auto in = tensorType(getInput());
  ArrayRef<int64_t> perm = getPerm();
  if ((int64_t)perm.size() != in.getRank())
    return emitOpError() << "expects a permutation of " << in.getRank()
                         << " dimensions, but got " << perm.size();
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> expected;
  for (int64_t p : perm) {
    if (p < 0 || p >= in.getRank() || seen[p])
      return emitOpError() << "perm " << formatShape(perm)
                           << " is not a permutation";
    seen[p] = true;
    expected.push_back(in.getDimSize(p));
  }
  if (ArrayRef<int64_t>(expected) != getType().getShape())
    return emitOpError() << "expects result shape " << formatShape(expected)
                         << ", but got " << formatShape(getType().getShape());
  if (in.getElementType() != getType().getElementType())
    return emitOpError() << "changes the element type";
  return success();
}

bool TransposeOp::movesOnlyUnitDims() {
  ArrayRef<int64_t> shape = tensorType(getInput()).getShape();
  int64_t last = -1;
  for (int64_t p : getPerm()) {
    if (shape[p] == 1)
      continue;
    if (p < last)
      return false;
    last = p;
  }
  return true;
}

Value mlir::dlc::transposeOf(OpBuilder &b, Location loc, Value value,
                             ArrayRef<int64_t> perm) {
  SmallVector<int64_t> composed(perm);
  while (auto inner = value.getDefiningOp<TransposeOp>()) {
    for (int64_t &p : composed)
      p = inner.getPerm()[p];
    value = inner.getInput();
  }
  if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size())))
    return value;
  return b.createOrFold<TransposeOp>(
      loc, permuteType(value.getType(), composed), value, composed);
}

/// A constant (dense, or a dense_resource with its blob) rearranged into
/// `resultType`: the result's elements in row-major order are the input's
/// elements at the row-major positions `sourcePos` gives for each result
/// index. Null when `input` is not such a constant, is too large to fold
/// (2^24 elements; a splat of any size folds), or is a bit-packed resource.
/// Constant weights in another layout (TOSA's NHWC filters, a filter made KRSC
/// for a library convolution, an ONNX initializer's dense_resource, a filter
/// split along its contraction) are rearranged once here rather than by a
/// kernel on every run. A resource stays a resource, named `input`'s key +
/// `suffix`.
static Attribute
rearrangeConstant(Attribute input, RankedTensorType inType,
                  RankedTensorType resultType,
                  llvm::function_ref<int64_t(ArrayRef<int64_t>)> sourcePos,
                  StringRef suffix) {
  auto dense = dyn_cast_or_null<DenseElementsAttr>(input);
  auto resource = dyn_cast_or_null<DenseResourceElementsAttr>(input);
  if (dense && dense.isSplat())
    return dense.resizeSplat(resultType);
  constexpr int64_t kMaxFoldedElements = int64_t(1) << 24;
  Type element = inType.getElementType();
  if (!(dense || resource) || inType.getNumElements() > kMaxFoldedElements ||
      (resource && element.isInteger(1)))
    return {};
  ArrayRef<int64_t> outShape = resultType.getShape();
  // Visits the result in order; `pos` is the source element.
  auto forEachSource = [&](auto fn) {
    SmallVector<int64_t> idx(outShape.size(), 0);
    for (int64_t n = 0, e = resultType.getNumElements(); n < e; ++n) {
      fn(sourcePos(idx));
      for (int64_t d = (int64_t)idx.size() - 1; d >= 0; --d) {
        if (++idx[d] < outShape[d])
          break;
        idx[d] = 0;
      }
    }
  };
  if (dense && element.isInteger(1)) { // bit-packed storage
    SmallVector<bool> values(dense.getValues<bool>());
    SmallVector<bool> gathered;
    forEachSource([&](int64_t pos) { gathered.push_back(values[pos]); });
    return DenseElementsAttr::get(resultType, ArrayRef<bool>(gathered));
  }
  // Raw bytes, element by element: no attribute per value.
  size_t bytes = elementBytes(element);
  ArrayRef<char> raw;
  if (dense) {
    raw = dense.getRawData();
  } else if (AsmResourceBlob *blob = resource.getRawHandle().getBlob();
             blob && resourceSizeError(inType, blob->getData().size(),
                                       resource.getRawHandle().getKey())
                         .empty()) {
    raw = blob->getData();
  }
  if (raw.empty() && inType.getNumElements() != 0)
    return {};
  if (dense) {
    std::vector<char> gathered;
    gathered.reserve(resultType.getNumElements() * bytes);
    forEachSource([&](int64_t pos) {
      gathered.insert(gathered.end(), raw.begin() + pos * bytes,
                      raw.begin() + (pos + 1) * bytes);
    });
    return DenseElementsAttr::getFromRawBuffer(resultType, gathered);
  }
  // A resource stays a resource (large weights are not printed inline).
  AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
      resultType.getNumElements() * bytes, std::max<size_t>(bytes, 8));
  char *out = blob.getMutableData().data();
  forEachSource([&](int64_t pos) {
    std::memcpy(out, raw.data() + pos * bytes, bytes);
    out += bytes;
  });
  return DenseResourceElementsAttr::get(
      resultType, resource.getRawHandle().getKey().str() + suffix.str(),
      std::move(blob));
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> rowMajorStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  auto inType = tensorType(getInput());
  SmallVector<int64_t> inStrides = rowMajorStrides(inType.getShape());
  ArrayRef<int64_t> perm = getPerm();
  if (Attribute folded = rearrangeConstant(
          adaptor.getInput(), inType, getType(),
          [&](ArrayRef<int64_t> idx) {
            int64_t pos = 0;
            for (size_t d = 0; d < idx.size(); ++d)
              pos += idx[d] * inStrides[perm[d]];
            return pos;
          },
          "_t"))
    return folded;
  for (auto [i, p] : llvm::enumerate(perm))
    if ((int64_t)i != p)
      return {};
  return getInput();
}

LogicalResult ReshapeOp::verify() {
  auto in = tensorType(getInput());
  if (in.getNumElements() != getType().getNumElements())
    return emitOpError() << "cannot reshape " << in.getNumElements()
                         << " elements " << formatShape(in.getShape())
                         << " into " << getType().getNumElements()
                         << " elements " << formatShape(getType().getShape());
  if (in.getElementType() != getType().getElementType())
    return emitOpError() << "changes the element type";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  if (auto dense = dyn_cast_or_null<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getType());
  // A weight blob in the new shape: the same bytes, so the same handle
  // (the bias vectors of imported models reach their adds this way).
  if (auto blob =
          dyn_cast_or_null<DenseResourceElementsAttr>(adaptor.getInput()))
    return DenseResourceElementsAttr::get(getType(), blob.getRawHandle());
  return {};
}

LogicalResult SliceOp::verify() {
  auto in = tensorType(getInput());
  ArrayRef<int64_t> start = getStart();
  if ((int64_t)start.size() != in.getRank() ||
      getType().getRank() != in.getRank())
    return emitOpError() << "expects start and result of the input's rank "
                         << in.getRank();
  SmallVector<int64_t> strides(in.getRank(), 1);
  if (auto given = getStrides()) {
    if ((int64_t)given->size() != in.getRank())
      return emitOpError() << "expects " << in.getRank() << " strides, but got "
                           << given->size();
    for (auto [d, s] : llvm::enumerate(*given)) {
      if (s < 1)
        return emitOpError()
               << "expects positive strides, but got " << formatShape(*given);
      strides[d] = s;
    }
  }
  for (int64_t d = 0; d < in.getRank(); ++d) {
    int64_t size = getType().getDimSize(d);
    // The last element read is start + (size - 1) * stride.
    int64_t end = start[d];
    if (size != 0) {
      std::optional<int64_t> last =
          llvm::checkedMulAdd(size - 1, strides[d], start[d]);
      if (!last || *last == std::numeric_limits<int64_t>::max())
        return attributeOverflowError(*this);
      end = *last + 1;
    }
    if (start[d] < 0 || end > in.getDimSize(d)) {
      if (strides[d] == 1)
        return emitOpError()
               << "slice [" << start[d] << ", " << end << ") of dimension " << d
               << " is out of bounds for size " << in.getDimSize(d);
      return emitOpError() << "slice of " << size << " elements from "
                           << start[d] << " with stride " << strides[d]
                           << " of dimension " << d
                           << " is out of bounds for size " << in.getDimSize(d);
    }
  }
  if (in.getElementType() != getType().getElementType())
    return emitOpError() << "changes the element type";
  // A view (dlc-fuse) reads its block in place: one contiguous, aligned
  // block of the operand's buffer.
  if ((*this)->hasAttr(attr::kView)) {
    std::optional<int64_t> offset = contiguousOffset();
    if (!offset)
      return emitOpError() << "expects '" << attr::kView
                           << "' on a dlc.slice that selects a contiguous "
                              "block of its operand";
    std::optional<int64_t> bytes =
        llvm::checkedMul(*offset, elementBytes(getType()));
    if (!bytes || *bytes % attr::kViewAlignment != 0)
      return emitOpError() << "is a view ('" << attr::kView
                           << "') at element offset " << *offset
                           << ", which is not a multiple of "
                           << attr::kViewAlignment << " bytes";
  }
  return success();
}

std::optional<int64_t> SliceOp::contiguousOffset() {
  auto in = tensorType(getInput());
  if (!in.hasStaticShape() || !getType().hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> inShape = in.getShape(), shape = getType().getShape();
  ArrayRef<int64_t> start = getStart();
  std::optional<ArrayRef<int64_t>> strides = getStrides();
  int64_t rank = in.getRank();
  // d: the first dimension read with more than one element.
  int64_t d = 0;
  while (d < rank && shape[d] == 1)
    ++d;
  if (d < rank && strides && (*strides)[d] != 1)
    return std::nullopt;
  for (int64_t e = d + 1; e < rank; ++e)
    if (shape[e] != inShape[e])
      return std::nullopt; // whole: start 0 and, with stride 1, every element
  int64_t offset = 0, stride = 1;
  for (int64_t e = rank - 1; e >= 0; --e) {
    std::optional<int64_t> o = llvm::checkedMulAdd(start[e], stride, offset);
    std::optional<int64_t> s = llvm::checkedMul(stride, inShape[e]);
    if (!o || !s)
      return std::nullopt;
    offset = *o;
    stride = *s;
  }
  return offset;
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  // Same type: start is 0 and every read stride-1 or of a size-1 dimension.
  if (getInput().getType() == getType() &&
      llvm::all_of(getStart(), [](int64_t s) { return s == 0; }))
    return getInput();
  // A constant's slice (a weight split along its contraction,
  // dlc-split-concat-product) is folded like a transpose.
  auto inType = tensorType(getInput());
  SmallVector<int64_t> inStrides = rowMajorStrides(inType.getShape());
  ArrayRef<int64_t> start = getStart();
  std::optional<ArrayRef<int64_t>> strides = getStrides();
  return rearrangeConstant(
      adaptor.getInput(), inType, getType(),
      [&](ArrayRef<int64_t> idx) {
        int64_t pos = 0;
        for (size_t d = 0; d < idx.size(); ++d)
          pos += (start[d] + idx[d] * (strides ? (*strides)[d] : 1)) *
                 inStrides[d];
        return pos;
      },
      "_s");
}

LogicalResult ConcatOp::verify() {
  if (getInputs().empty())
    return emitOpError() << "expects at least one input";
  auto first = tensorType(getInputs()[0]);
  if (failed(verifyAxis(*this, getAxis(), first.getRank(), "axis")))
    return failure();
  SmallVector<int64_t> expected(first.getShape());
  expected[getAxis()] = 0;
  for (auto [i, v] : llvm::enumerate(getInputs())) {
    auto t = tensorType(v);
    if (t.getRank() != first.getRank() ||
        t.getElementType() != first.getElementType())
      return emitOpError() << "input #" << i
                           << " differs in rank or element type";
    for (int64_t d = 0; d < t.getRank(); ++d)
      if (d != (int64_t)getAxis() && t.getDimSize(d) != first.getDimSize(d))
        return emitOpError()
               << "input #" << i << " has size " << t.getDimSize(d)
               << " in dimension " << d << ", expected " << first.getDimSize(d);
    expected[getAxis()] += t.getDimSize(getAxis());
  }
  if (failed(verifyResultElementType(*this, first.getElementType())))
    return failure();
  return checkResultShape(*this, expected);
}

LogicalResult PadOp::verify() {
  auto in = tensorType(getInput());
  if ((int64_t)getLow().size() != in.getRank() ||
      (int64_t)getHigh().size() != in.getRank())
    return emitOpError() << "expects low and high of the input's rank "
                         << in.getRank();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (getLow()[d] < 0 || getHigh()[d] < 0)
      return emitOpError() << "expects non-negative padding, but dimension "
                           << d << " has low " << getLow()[d] << " and high "
                           << getHigh()[d];
    std::optional<int64_t> size =
        llvm::checkedAdd(in.getDimSize(d), getLow()[d]);
    if (size)
      size = llvm::checkedAdd(*size, getHigh()[d]);
    if (!size)
      return attributeOverflowError(*this);
    expected.push_back(*size);
  }
  if (failed(verifyResultElementType(*this, in.getElementType())))
    return failure();
  return checkResultShape(*this, expected);
}

LogicalResult TileOp::verify() {
  auto in = tensorType(getInput());
  if ((int64_t)getMultiples().size() != in.getRank())
    return emitOpError() << "expects " << in.getRank() << " multiples, but got "
                         << getMultiples().size();
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    if (getMultiples()[d] < 1)
      return emitOpError() << "expects positive multiples, but dimension " << d
                           << " has " << getMultiples()[d];
    std::optional<int64_t> size =
        llvm::checkedMul(in.getDimSize(d), getMultiples()[d]);
    if (!size)
      return attributeOverflowError(*this);
    expected.push_back(*size);
  }
  if (failed(verifyResultElementType(*this, in.getElementType())))
    return failure();
  return checkResultShape(*this, expected);
}

//===----------------------------------------------------------------------===//
// Convolution, pooling, gather, resize
//===----------------------------------------------------------------------===//

/// Checks strides (2, positive), pads (4, non-negative), dilations (2,
/// positive) and, when given, the kernel size (2, positive).
static LogicalResult verifyWindow(Operation *op, ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> pads,
                                  ArrayRef<int64_t> dilations,
                                  std::optional<ArrayRef<int64_t>> kernel) {
  auto positivePair = [&](ArrayRef<int64_t> a,
                          StringRef what) -> LogicalResult {
    if (a.size() != 2 || a[0] < 1 || a[1] < 1)
      return op->emitOpError()
             << "expects " << what << " to be two positive values, but got "
             << formatShape(a);
    return success();
  };
  if (kernel && failed(positivePair(*kernel, "kernel")))
    return failure();
  if (failed(positivePair(strides, "strides")) ||
      failed(positivePair(dilations, "dilations")))
    return failure();
  if (pads.size() != 4 || llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return op->emitOpError()
           << "expects pads to be four non-negative values [top, left, "
              "bottom, right], but got "
           << formatShape(pads);
  return success();
}

/// The diagnostic for window arithmetic (sizes, pads, dilations) that
/// overflows 64-bit integers: such attributes describe no real model.
static LogicalResult overflowError(Operation *op) {
  return op->emitOpError() << "has sizes, pads, strides or dilations whose "
                              "arithmetic overflows 64-bit integers";
}

/// The floor-mode output size of a window over `size` elements, or a
/// diagnostic when the dilated window does not fit the padded input.
static FailureOr<int64_t> windowOutputSize(Operation *op, StringRef dim,
                                           int64_t size, int64_t padLow,
                                           int64_t padHigh, int64_t window,
                                           int64_t stride, int64_t dilation) {
  if (window < 1)
    return op->emitOpError() << "expects a window of at least one element "
                             << "along the " << dim << ", but got " << window;
  std::optional<int64_t> span =
      llvm::checkedMulAdd(dilation, window - 1, int64_t(1));
  std::optional<int64_t> padded = llvm::checkedAdd(size, padLow);
  if (padded)
    padded = llvm::checkedAdd(*padded, padHigh);
  if (!span || !padded)
    return overflowError(op);
  if (*span > *padded)
    return op->emitOpError()
           << "has a window spanning " << *span << " " << dim << " (kernel "
           << window << ", dilation " << dilation << "), more than the "
           << *padded << " of the padded input";
  return (*padded - *span) / stride + 1;
}

static LogicalResult verifyFloatWindowTypes(Operation *op, ValueRange operands,
                                            RankedTensorType result) {
  for (auto [i, v] : llvm::enumerate(operands)) {
    auto type = tensorType(v);
    if (type.getRank() != 4)
      return op->emitOpError()
             << "expects rank-4 NCHW tensors, but operand #" << i
             << " has shape " << formatShape(type.getShape());
    if (type.getElementType() != result.getElementType())
      return op->emitOpError()
             << "expects operands and result of one element type, but got "
             << type.getElementType() << " and " << result.getElementType();
  }
  if (!isa<FloatType>(result.getElementType()))
    return op->emitOpError() << "expects floating-point tensors, but got "
                                "element type "
                             << result.getElementType();
  return success();
}

/// Checks the channel split into `groups` and returns the conv output
/// spatial size.
static FailureOr<std::pair<int64_t, int64_t>>
convOutputSize(Operation *op, ArrayRef<int64_t> in, int64_t kh, int64_t kw,
               ArrayRef<int64_t> strides, ArrayRef<int64_t> pads,
               ArrayRef<int64_t> dilations) {
  FailureOr<int64_t> oh = windowOutputSize(op, "rows", in[2], pads[0], pads[2],
                                           kh, strides[0], dilations[0]);
  if (failed(oh))
    return failure();
  FailureOr<int64_t> ow = windowOutputSize(
      op, "columns", in[3], pads[1], pads[3], kw, strides[1], dilations[1]);
  if (failed(ow))
    return failure();
  return std::make_pair(*oh, *ow);
}

LogicalResult Conv2DOp::verify() {
  if (failed(verifyFloatWindowTypes(*this, getOperands(), getType())) ||
      failed(verifyWindow(*this, getStrides(), getPads(), getDilations(),
                          std::nullopt)))
    return failure();
  ArrayRef<int64_t> in = tensorType(getInput()).getShape();
  ArrayRef<int64_t> w = tensorType(getFilter()).getShape();
  int64_t g = getGroups();
  if (g < 1 || in[1] % g != 0 || w[0] % g != 0)
    return emitOpError() << "expects groups (" << g
                         << ") to be positive and to divide the " << in[1]
                         << " input channels and the " << w[0]
                         << " output channels";
  if (w[1] != in[1] / g)
    return emitOpError() << "expects a filter of shape [OC, C/groups, KH, KW] "
                         << "with C/groups = " << in[1] / g << ", but got "
                         << formatShape(w);
  auto size = convOutputSize(*this, in, w[2], w[3], getStrides(), getPads(),
                             getDilations());
  if (failed(size))
    return failure();
  if (failed(checkResultShape(*this, {in[0], w[0], size->first, size->second})))
    return failure();
  if (auto acc = getAccType(); acc && !isa<FloatType>(*acc))
    return emitOpError() << "acc_type must be a float type, but got " << *acc;
  return success();
}

LogicalResult ConvOp::verify() {
  auto result = getType();
  if (failed(
          verifyFloatWindowTypes(*this, {getInput(), getFilter()}, result)) ||
      failed(verifyWindow(*this, getStrides(), getPads(), getDilations(),
                          std::nullopt)))
    return failure();
  Type element = result.getElementType();
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return emitOpError() << "convolves " << element
                         << " tensors; library convolutions take f32, f16 "
                            "and bf16";
  ArrayRef<int64_t> in = tensorType(getInput()).getShape();
  ArrayRef<int64_t> w = tensorType(getFilter()).getShape();
  ArrayRef<int64_t> p = getPads();
  if (p[0] != p[2] || p[1] != p[3])
    return emitOpError() << "expects symmetric pads (top = bottom, left = "
                            "right), but got "
                         << formatShape(p);
  int64_t g = getGroups(), c = in[3], oc = w[0];
  if (g < 1 || c % g != 0 || oc % g != 0)
    return emitOpError() << "expects groups (" << g
                         << ") to be positive and to divide the " << c
                         << " input channels and the " << oc
                         << " output channels";
  if (w[3] != c / g)
    return emitOpError() << "expects a filter of shape [OC, KH, KW, C/groups] "
                         << "with C/groups = " << c / g << ", but got "
                         << formatShape(w);
  // The output size as for NCHW: the spatial dimensions moved.
  SmallVector<int64_t> nchw{in[0], in[3], in[1], in[2]};
  auto size =
      convOutputSize(*this, nchw, w[1], w[2], getStrides(), p, getDilations());
  if (failed(size) ||
      failed(checkResultShape(*this, {in[0], size->first, size->second, oc})))
    return failure();
  if (Value bias = getBias()) {
    auto type = tensorType(bias);
    if (type.getElementType() != element ||
        type.getShape() != ArrayRef<int64_t>{oc})
      return emitOpError() << "expects a bias of " << oc << " " << element
                           << " elements, but got " << type;
  }
  if (Value addend = getAddend(); addend && addend.getType() != result)
    return emitOpError() << "expects an addend of the result's type " << result
                         << ", but got " << addend.getType();
  if (getEpilogue() != EpilogueKind::none &&
      getEpilogue() != EpilogueKind::relu)
    return emitOpError() << "takes a relu epilogue or none, not "
                         << stringifyEpilogueKind(getEpilogue());
  return success();
}

bool Conv2DOp::isDirect() {
  constexpr int64_t kMaxDirectOutputsPerGroup = 4;
  auto filter = cast<RankedTensorType>(getFilter().getType());
  return filter.getDimSize(1) == 1 &&
         filter.getDimSize(0) / getGroups() <= kMaxDirectOutputsPerGroup;
}

bool Conv2DOp::isGrouped() {
  auto filter = cast<RankedTensorType>(getFilter().getType());
  return getGroups() > 1 && filter.getDimSize(1) > 1;
}

LogicalResult ConvTranspose2DOp::verify() {
  if (failed(verifyFloatWindowTypes(*this, getOperands(), getType())) ||
      failed(verifyWindow(*this, getStrides(), getPads(), getDilations(),
                          std::nullopt)))
    return failure();
  ArrayRef<int64_t> in = tensorType(getInput()).getShape();
  ArrayRef<int64_t> w = tensorType(getFilter()).getShape();
  int64_t g = getGroups();
  if (g < 1 || in[1] % g != 0)
    return emitOpError() << "expects groups (" << g
                         << ") to be positive and to divide the " << in[1]
                         << " input channels";
  if (w[0] != in[1])
    return emitOpError() << "expects a filter of shape [C, OC/groups, KH, KW] "
                         << "with C = " << in[1] << ", but got "
                         << formatShape(w);
  ArrayRef<int64_t> op = getOutputPadding();
  ArrayRef<int64_t> s = getStrides(), d = getDilations(), p = getPads();
  if (op.size() != 2 || op[0] < 0 || op[1] < 0 ||
      op[0] >= std::max(s[0], d[0]) || op[1] >= std::max(s[1], d[1]))
    return emitOpError() << "expects output_padding to be two non-negative "
                            "values below the stride or dilation, but got "
                         << formatShape(op);
  // OH = s*(H-1) + output_padding + (KH-1)*d + 1 - top - bottom.
  auto outputSize = [&](int dim) -> std::optional<int64_t> {
    if (in[2 + dim] < 1 || w[2 + dim] < 1)
      return 0;
    std::optional<int64_t> a = llvm::checkedMul(s[dim], in[2 + dim] - 1);
    std::optional<int64_t> b = llvm::checkedMul(d[dim], w[2 + dim] - 1);
    std::optional<int64_t> pads = llvm::checkedAdd(p[dim], p[dim + 2]);
    if (!a || !b || !pads)
      return std::nullopt;
    std::optional<int64_t> sum = llvm::checkedAdd(*a, *b);
    if (sum)
      sum = llvm::checkedAdd(*sum, op[dim] + 1);
    if (!sum)
      return std::nullopt;
    return *sum - *pads;
  };
  std::optional<int64_t> ohOr = outputSize(0), owOr = outputSize(1);
  std::optional<int64_t> oc = llvm::checkedMul(w[1], g);
  if (!ohOr || !owOr || !oc)
    return overflowError(*this);
  int64_t oh = *ohOr, ow = *owOr;
  if (oh < 1 || ow < 1)
    return emitOpError() << "pads " << formatShape(p)
                         << " leave no output (computed size "
                         << formatShape({oh, ow}) << ")";
  if (failed(checkResultShape(*this, {in[0], *oc, oh, ow})))
    return failure();
  if (auto acc = getAccType(); acc && !isa<FloatType>(*acc))
    return emitOpError() << "acc_type must be a float type, but got " << *acc;
  return success();
}

LogicalResult Pool2DOp::verify() {
  if (failed(verifyFloatWindowTypes(*this, getOperation()->getOperands(),
                                    getType())))
    return failure();
  SmallVector<int64_t, 2> dilations = getDilationValues();
  if (failed(
          verifyWindow(*this, getStrides(), getPads(), dilations, getKernel())))
    return failure();
  if (getCountIncludePad() && getKind() != PoolKind::avg)
    return emitOpError() << "count_include_pad applies to avg pooling only";
  ArrayRef<int64_t> in = tensorType(getInput()).getShape();
  ArrayRef<int64_t> out = getType().getShape();
  ArrayRef<int64_t> k = getKernel(), s = getStrides(), p = getPads();
  auto size = convOutputSize(*this, in, k[0], k[1], s, p, dilations);
  if (failed(size))
    return failure();
  // Ceil mode: one more window, which must start inside the padded input.
  auto fits = [&](int64_t o, int64_t floorSize, int64_t d) {
    if (o == floorSize)
      return true;
    // (o - 1) * s < H + top + bottom, which convOutputSize computed without
    // overflow; the product is checked here.
    std::optional<int64_t> start = llvm::checkedMul(o - 1, s[d]);
    return o == floorSize + 1 && start && *start < in[2 + d] + p[d] + p[d + 2];
  };
  if (out[0] != in[0] || out[1] != in[1] || !fits(out[2], size->first, 0) ||
      !fits(out[3], size->second, 1))
    return emitOpError() << "expects result shape "
                         << formatShape(
                                {in[0], in[1], size->first, size->second})
                         << " (or one larger in H or W for ceil mode, where "
                            "that window starts inside the padded input), but "
                            "got "
                         << formatShape(out);
  return success();
}

LogicalResult GatherOp::verify() {
  auto data = tensorType(getData());
  auto indices = tensorType(getIndices());
  if (failed(verifyAxis(*this, getAxis(), data.getRank(), "axis")))
    return failure();
  int64_t axis = getAxis();
  SmallVector<int64_t> expected(data.getShape().take_front(axis));
  llvm::append_range(expected, indices.getShape());
  llvm::append_range(expected, data.getShape().drop_front(axis + 1));
  if (failed(checkResultShape(*this, expected)))
    return failure();
  if (data.getElementType() != getType().getElementType())
    return emitOpError() << "changes the element type";
  if (data.getDimSize(axis) == 0 && indices.getNumElements() != 0)
    return emitOpError() << "gathers from an empty axis";
  return success();
}

LogicalResult ResizeOp::verify() {
  auto in = tensorType(getInput());
  if (getMode() != "nearest" && getMode() != "linear")
    return emitOpError() << "expects mode \"nearest\" or \"linear\", but got \""
                         << getMode() << "\"";
  StringRef cm = getCoordinateMode();
  if (cm != "half_pixel" && cm != "asymmetric" && cm != "align_corners" &&
      cm != "pytorch_half_pixel")
    return emitOpError() << "expects coordinate_mode half_pixel, asymmetric, "
                            "align_corners or pytorch_half_pixel, but got \""
                         << cm << "\"";
  StringRef nm = getNearestMode();
  if (nm != "round_prefer_floor" && nm != "round_prefer_ceil" &&
      nm != "floor" && nm != "ceil")
    return emitOpError() << "expects nearest_mode round_prefer_floor, "
                            "round_prefer_ceil, floor or ceil, but got \""
                         << nm << "\"";
  if (in.getRank() != getType().getRank() ||
      in.getElementType() != getType().getElementType())
    return emitOpError() << "expects a result of the input's rank and element "
                            "type";
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (in.getDimSize(d) == 0 && getType().getDimSize(d) != 0)
      return emitOpError() << "cannot resize the empty dimension " << d
                           << " to " << getType().getDimSize(d);
  if (getMode() == "linear" && !isa<FloatType>(in.getElementType()))
    return emitOpError() << "linear mode expects a floating-point tensor, but "
                            "got element type "
                         << in.getElementType();
  return success();
}

LogicalResult Im2ColOp::verify() {
  auto inType = tensorType(getInput());
  if (inType.getRank() != 4 ||
      inType.getElementType() != getType().getElementType())
    return emitOpError() << "expects a rank-4 NCHW input of the result's "
                            "element type";
  if (failed(verifyWindow(*this, getStrides(), getPads(), getDilations(),
                          getKernel())))
    return failure();
  ArrayRef<int64_t> in = inType.getShape(), k = getKernel();
  int64_t g = getGroups();
  if (g < 1 || in[1] % g != 0)
    return emitOpError() << "expects groups (" << g
                         << ") to be positive and to divide the " << in[1]
                         << " input channels";
  auto size = convOutputSize(*this, in, k[0], k[1], getStrides(), getPads(),
                             getDilations());
  if (failed(size))
    return failure();
  std::optional<int64_t> rows = llvm::checkedMul(in[1] / g, k[0]);
  if (rows)
    rows = llvm::checkedMul(*rows, k[1]);
  std::optional<int64_t> cols = llvm::checkedMul(size->first, size->second);
  if (!rows || !cols)
    return overflowError(*this);
  return checkResultShape(*this, {in[0], g, *rows, *cols});
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

void KernelOp::build(OpBuilder &builder, OperationState &state,
                     TypeRange resultTypes, ValueRange inputs) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value v : inputs)
    block->addArgument(v.getType(), v.getLoc());
}

bool KernelOp::isCastOnly() {
  bool cast = false;
  for (Operation &op : getBodyBlock().without_terminator()) {
    if (isa<CastOp>(op))
      cast = true;
    else if (!isa<ReshapeOp>(op))
      return false;
  }
  return cast;
}

bool KernelOp::isDataMovementOnly() {
  bool moves = false;
  for (Operation &op : getBodyBlock().without_terminator()) {
    if (!op.hasTrait<trait::DataMovement>())
      return false;
    moves |= !isa<ReshapeOp>(op);
  }
  return moves;
}

void KernelOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  for (Value r : getResults())
    setNameFn(r, "k");
}

Operation *KernelOp::nonElementwiseReader(Value value,
                                          ArrayRef<int64_t> shape) {
  SmallVector<Value> worklist{value};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (isa<YieldOp>(user) || !seen.insert(user).second)
        continue;
      auto type = user->getNumResults() == 1
                      ? dyn_cast<RankedTensorType>(user->getResult(0).getType())
                      : RankedTensorType();
      if (!user->hasTrait<trait::Elementwise>() || !type ||
          type.getShape() != shape)
        return user;
      worklist.push_back(user->getResult(0));
    }
  }
  return nullptr;
}

/// The one matrix product a kernel may compute (a generated GEMM): its
/// operands are the kernel's inputs, its element types the generated main
/// loop's (f32, f16, bf16 with f32 accumulation), and every use of its
/// result is elementwise at the product's shape, so the epilogue reads each
/// element where the main loop left it.
static LogicalResult verifyKernelProduct(MatmulOp matmul, Block &block) {
  for (Value operand : matmul->getOperands()) {
    auto arg = dyn_cast<BlockArgument>(operand);
    if (!arg || arg.getOwner() != &block)
      return matmul.emitOpError()
             << "in a dlc.kernel must read the kernel's inputs only";
  }
  Type element = getElementTypeOrSelf(matmul.getLhs().getType());
  if (!element.isF32() && !element.isF16() && !element.isBF16())
    return matmul.emitOpError()
           << "in a dlc.kernel must have f32, f16 or bf16 operands, not "
           << element;
  if (matmul.getLhsScale() || matmul.getRhsScale())
    return matmul.emitOpError() << "in a dlc.kernel cannot have scales";
  if (auto acc = matmul.getAccType(); acc && !acc->isF32())
    return matmul.emitOpError()
           << "in a dlc.kernel must accumulate in f32, not " << *acc;
  if (Operation *user = KernelOp::nonElementwiseReader(
          matmul.getResult(),
          cast<RankedTensorType>(matmul.getType()).getShape()))
    return user->emitOpError()
           << "reads the kernel's matrix product but is not elementwise "
              "at its shape";
  return success();
}

LogicalResult KernelOp::verify() {
  Block &block = getBodyBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size()
                         << " inputs but its body takes "
                         << block.getNumArguments() << " arguments";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(getInputs(), block.getArguments()))) {
    auto [operand, arg] = pair;
    if (operand.getType() != arg.getType())
      return emitOpError() << "input #" << i << " has type "
                           << operand.getType() << " but body argument #" << i
                           << " has type " << arg.getType();
  }
  // The op's verifier runs before the region's (which would report this):
  // a body must not be assumed to end in dlc.yield.
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return emitOpError() << "expects its body to end in 'dlc.yield'";
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values whose types differ from its "
                         << getNumResults() << " results";
  if (getNumResults() == 0)
    return emitOpError() << "expects at least one result";
  MatmulOp product;
  for (Operation &op : block.without_terminator()) {
    if (auto matmul = dyn_cast<MatmulOp>(op)) {
      if (product)
        return matmul.emitOpError()
               << "is a second matrix product in one dlc.kernel; a kernel "
                  "computes at most one";
      product = matmul;
      if (failed(verifyKernelProduct(matmul, block)))
        return failure();
      continue;
    }
    if (!isKernelBodyOp(&op))
      return op.emitOpError() << "cannot be fused into a dlc.kernel";
  }
  return success();
}

#include "ir/DlcInterfaces.cpp.inc"

#define GET_OP_CLASSES
#include "ir/DlcOps.cpp.inc"
