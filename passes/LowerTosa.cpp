//===- LowerTosa.cpp - TOSA to dlc ----------------------------------------===//
//
// Rewrites TOSA operations (MLIR 19 syntax) into dlc operations with the same
// meaning. The rewrite is a single walk over the function in program order:
// every TOSA operation maps to a short, fixed sequence of dlc operations and
// the value types stay the same, so no conversion framework is needed, and
// every failure can be reported once, at the operation that caused it.
//
//===----------------------------------------------------------------------===//
#include "ir/ElementType.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>

#define DEBUG_TYPE "dlc-lower-tosa"

namespace mlir::dlc {
#define GEN_PASS_DEF_LOWERTOSA
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

static bool isSupportedElementType(Type type) {
  return dtypeOf(type).has_value();
}

/// Checks that `type` (named `what` in diagnostics) is a statically shaped
/// tensor of an element type dlc computes with.
static LogicalResult checkValueType(Operation *op, Type type,
                                    const Twine &what) {
  auto tensor = dyn_cast<TensorType>(type);
  if (!tensor)
    return op->emitOpError() << "dlc requires tensor values, but " << what
                             << " has type " << type;
  if (!tensor.hasStaticShape())
    return op->emitOpError() << "dlc requires static shapes, but " << what
                             << " has type " << type;
  if (!isSupportedElementType(tensor.getElementType()))
    return op->emitOpError()
           << "dlc does not support element type " << tensor.getElementType()
           << " (" << what << " has type " << type
           << "); supported element types are f32, f16, bf16, i32, i64 and i1";
  return success();
}

static LogicalResult checkOperandAndResultTypes(Operation *op) {
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(checkValueType(op, v.getType(), "operand #" + Twine(i))))
      return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (failed(checkValueType(op, v.getType(), "result #" + Twine(i))))
      return failure();
  return success();
}

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// The integer elements of a constant operand, or failure.
static FailureOr<SmallVector<int64_t>> constantInts(Value v) {
  DenseIntElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return failure();
  SmallVector<int64_t> values;
  for (const APInt &x : attr.getValues<APInt>())
    values.push_back(x.getSExtValue());
  return values;
}

/// The value of an element attribute as a double (booleans as 0/1).
static double attrToDouble(Attribute attr) {
  if (auto f = dyn_cast<FloatAttr>(attr))
    return f.getValueAsDouble();
  auto i = cast<IntegerAttr>(attr);
  if (i.getType().isInteger(1))
    return i.getValue().getBoolValue() ? 1.0 : 0.0;
  return static_cast<double>(i.getValue().getSExtValue());
}

namespace {

/// Lowers the TOSA operations of one function.
class TosaLowering {
public:
  explicit TosaLowering(MLIRContext *context) : rewriter(context) {}

  /// Lowers `op`. Returns std::nullopt when no lowering exists (no
  /// diagnostic emitted), failure after emitting a diagnostic.
  std::optional<LogicalResult> lower(Operation *op);

  /// Erases constants that only served as attributes of lowered operations
  /// (transpose permutations, pad amounts, zero biases) and are now unused.
  void eraseDeadAttributeConstants() {
    for (Operation *op : attributeConstants)
      if (op->use_empty())
        op->erase();
    attributeConstants.clear();
  }

private:
  using Lowering = std::function<LogicalResult()>;
  Lowering select(Operation *op);

  //===--- Building blocks ------------------------------------------------===//

  /// Reshapes `v` to `rank` dimensions by prepending 1s (TOSA's implicit
  /// rank broadcast; dlc only broadcasts between equal ranks).
  Value expandRank(Location loc, Value v, int64_t rank) {
    auto type = tensorType(v);
    if (type.getRank() >= rank)
      return v;
    SmallVector<int64_t> shape(rank - type.getRank(), 1);
    llvm::append_range(shape, type.getShape());
    return rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(shape, type.getElementType()), v);
  }

  Value reshape(Location loc, Value v, ArrayRef<int64_t> shape) {
    auto type = tensorType(v);
    if (type.getShape() == shape)
      return v;
    return rewriter.create<ReshapeOp>(
        loc, RankedTensorType::get(shape, type.getElementType()), v);
  }

  Value castTo(Location loc, Value v, Type elementType) {
    auto type = tensorType(v);
    if (type.getElementType() == elementType)
      return v;
    return rewriter.create<CastOp>(loc, type.clone(elementType), v);
  }

  /// A splat constant of shape [1, ..., 1] (`rank` ones) that broadcasts
  /// against any tensor of that rank.
  Value splat(Location loc, int64_t rank, Type elementType, double value) {
    auto type =
        RankedTensorType::get(SmallVector<int64_t>(rank, 1), elementType);
    Attribute element;
    if (auto f = dyn_cast<FloatType>(elementType))
      element = rewriter.getFloatAttr(f, value);
    else
      element =
          rewriter.getIntegerAttr(elementType, static_cast<int64_t>(value));
    return rewriter.create<ConstantOp>(loc, type,
                                       DenseElementsAttr::get(type, element));
  }

  /// Brings `operands` to the rank of `result` and checks that their
  /// broadcast is the result shape.
  FailureOr<SmallVector<Value>> broadcastOperands(Operation *op,
                                                  ValueRange operands,
                                                  RankedTensorType result) {
    SmallVector<int64_t> shape;
    for (auto [i, v] : llvm::enumerate(operands)) {
      auto type = tensorType(v);
      if (type.getRank() > result.getRank())
        return op->emitOpError()
               << "operand #" << i << " has rank " << type.getRank()
               << ", more than the result's rank " << result.getRank();
      SmallVector<int64_t> expanded(result.getRank() - type.getRank(), 1);
      llvm::append_range(expanded, type.getShape());
      if (i == 0) {
        shape = expanded;
        continue;
      }
      auto merged = broadcastShapes(shape, expanded);
      if (failed(merged))
        return op->emitOpError()
               << "operand shapes " << formatShape(shape) << " and "
               << formatShape(expanded) << " are not broadcast-compatible";
      shape = *merged;
    }
    if (ArrayRef<int64_t>(shape) != result.getShape())
      return op->emitOpError() << "expects result shape " << formatShape(shape)
                               << " (the broadcast of the operands), but got "
                               << formatShape(result.getShape());
    SmallVector<Value> expandedOperands;
    for (Value v : operands)
      expandedOperands.push_back(expandRank(op->getLoc(), v, result.getRank()));
    return expandedOperands;
  }

  void replace(Operation *op, Value v) { rewriter.replaceOp(op, v); }

  //===--- Lowerings ------------------------------------------------------===//

  template <typename DlcOp> LogicalResult lowerBinary(Operation *op) {
    auto result = tensorType(op->getResult(0));
    auto operands = broadcastOperands(op, op->getOperands(), result);
    if (failed(operands))
      return failure();
    replace(op, rewriter.create<DlcOp>(op->getLoc(), result, (*operands)[0],
                                       (*operands)[1]));
    return success();
  }

  LogicalResult lowerCompare(Operation *op, CmpPredicate predicate) {
    auto result = tensorType(op->getResult(0));
    auto operands = broadcastOperands(op, op->getOperands(), result);
    if (failed(operands))
      return failure();
    replace(op, rewriter.create<CmpOp>(op->getLoc(), result, predicate,
                                       (*operands)[0], (*operands)[1]));
    return success();
  }

  template <typename DlcOp>
  LogicalResult lowerUnary(Operation *op, bool floatOnly) {
    Type element = tensorType(op->getResult(0)).getElementType();
    if (floatOnly && !isa<FloatType>(element))
      return op->emitOpError()
             << "dlc supports this operation only on floating-point tensors, "
                "but got element type "
             << element;
    if (op->getOperand(0).getType() != op->getResult(0).getType())
      return op->emitOpError()
             << "expects the result type " << op->getResult(0).getType()
             << " to equal the operand type " << op->getOperand(0).getType();
    replace(op, rewriter.create<DlcOp>(op->getLoc(), op->getResult(0).getType(),
                                       op->getOperand(0)));
    return success();
  }

  LogicalResult rejectQuantized(Operation *op) {
    if (op->hasAttr("quantization_info"))
      return op->emitOpError() << "dlc does not support quantized operations";
    return success();
  }

  LogicalResult lowerMul(tosa::MulOp op);
  LogicalResult lowerClamp(tosa::ClampOp op);
  template <typename OpTy> LogicalResult lowerConstant(OpTy op) {
    return lowerConstantValue(op, op.getValue());
  }
  LogicalResult lowerConstantValue(Operation *op, Attribute value);
  template <typename OpTy> LogicalResult lowerReduce(OpTy op, ReduceKind kind) {
    return lowerReduceAxis(op, kind, op.getAxis());
  }
  LogicalResult lowerReduceAxis(Operation *op, ReduceKind kind, uint32_t axis);
  template <typename OpTy>
  LogicalResult lowerBoolReduce(OpTy op, ReduceKind kind) {
    return lowerBoolReduceAxis(op, kind, op.getAxis());
  }
  LogicalResult lowerBoolReduceAxis(Operation *op, ReduceKind kind,
                                    uint32_t axis);
  LogicalResult lowerArgMax(tosa::ArgMaxOp op);
  LogicalResult lowerMatmul(tosa::MatMulOp op);
  LogicalResult lowerFullyConnected(tosa::FullyConnectedOp op);
  LogicalResult lowerTranspose(tosa::TransposeOp op);
  LogicalResult lowerSlice(tosa::SliceOp op);
  LogicalResult lowerConcat(tosa::ConcatOp op);
  LogicalResult lowerPad(tosa::PadOp op);
  LogicalResult lowerTile(tosa::TileOp op);
  LogicalResult lowerConv(Operation *op, bool depthwise);
  LogicalResult lowerTransposeConv(tosa::TransposeConv2DOp op);
  LogicalResult lowerPool(Operation *op, PoolKind kind);
  LogicalResult lowerGather(tosa::GatherOp op);
  LogicalResult lowerResize(tosa::ResizeOp op);

  /// NHWC <-> NCHW.
  Value toNchw(Location loc, Value v) { return permute(loc, v, {0, 3, 1, 2}); }
  Value toNhwc(Location loc, Value v) { return permute(loc, v, {0, 2, 3, 1}); }
  Value permute(Location loc, Value v, ArrayRef<int64_t> perm) {
    auto type = tensorType(v);
    SmallVector<int64_t> shape;
    for (int64_t p : perm)
      shape.push_back(type.getDimSize(p));
    return rewriter.create<TransposeOp>(loc, type.clone(shape), v, perm);
  }
  /// Adds the 1-D `bias` of a convolution to its NCHW result (nothing for
  /// a constant zero bias).
  Value addBias(Location loc, Value nchw, Value bias);

  IRRewriter rewriter;
  llvm::SmallPtrSet<Operation *, 8> attributeConstants;
};

} // namespace

std::optional<LogicalResult> TosaLowering::lower(Operation *op) {
  Lowering lowering = select(op);
  if (!lowering)
    return std::nullopt;
  if (failed(checkOperandAndResultTypes(op)))
    return failure();
  rewriter.setInsertionPoint(op);
  return lowering();
}

/// Picks the lowering of `op`; a null function when there is none.
TosaLowering::Lowering TosaLowering::select(Operation *op) {
  // Every case returns a closure so that the caller can check the operand
  // types of supported operations before anything is rewritten.
  return llvm::TypeSwitch<Operation *, Lowering>(op)
      // Elementwise binary.
      .Case([&](tosa::AddOp) { return [=] { return lowerBinary<AddOp>(op); }; })
      .Case([&](tosa::SubOp) { return [=] { return lowerBinary<SubOp>(op); }; })
      .Case([&](tosa::MulOp o) { return [=] { return lowerMul(o); }; })
      .Case([&](tosa::IntDivOp) {
        return [=] { return lowerBinary<DivOp>(op); };
      })
      .Case([&](tosa::MaximumOp) {
        return [=] { return lowerBinary<MaxOp>(op); };
      })
      .Case([&](tosa::MinimumOp) {
        return [=] { return lowerBinary<MinOp>(op); };
      })
      .Case([&](tosa::PowOp) { return [=] { return lowerBinary<PowOp>(op); }; })
      .Case<tosa::LogicalAndOp, tosa::BitwiseAndOp>(
          [&](Operation *) { return [=] { return lowerBinary<AndOp>(op); }; })
      .Case<tosa::LogicalOrOp, tosa::BitwiseOrOp>(
          [&](Operation *) { return [=] { return lowerBinary<OrOp>(op); }; })
      // Comparisons; xor of booleans is inequality.
      .Case([&](tosa::GreaterOp) {
        return [=] { return lowerCompare(op, CmpPredicate::gt); };
      })
      .Case([&](tosa::GreaterEqualOp) {
        return [=] { return lowerCompare(op, CmpPredicate::ge); };
      })
      .Case([&](tosa::EqualOp) {
        return [=] { return lowerCompare(op, CmpPredicate::eq); };
      })
      .Case([&](tosa::LogicalXorOp) {
        return [=] { return lowerCompare(op, CmpPredicate::ne); };
      })
      .Case([&](tosa::SelectOp) {
        return [=]() -> LogicalResult {
          auto result = tensorType(op->getResult(0));
          auto operands = broadcastOperands(op, op->getOperands(), result);
          if (failed(operands))
            return failure();
          replace(op, rewriter.create<SelectOp>(op->getLoc(), result,
                                                (*operands)[0], (*operands)[1],
                                                (*operands)[2]));
          return success();
        };
      })
      // Elementwise unary.
      .Case([&](tosa::ExpOp) {
        return [=] { return lowerUnary<ExpOp>(op, /*floatOnly=*/true); };
      })
      .Case([&](tosa::LogOp) {
        return [=] { return lowerUnary<LogOp>(op, /*floatOnly=*/true); };
      })
      .Case([&](tosa::TanhOp) {
        return [=] { return lowerUnary<TanhOp>(op, /*floatOnly=*/true); };
      })
      .Case([&](tosa::SigmoidOp) {
        return [=] { return lowerUnary<SigmoidOp>(op, /*floatOnly=*/true); };
      })
      .Case([&](tosa::ErfOp) {
        return [=] { return lowerUnary<ErfOp>(op, /*floatOnly=*/true); };
      })
      .Case([&](tosa::RsqrtOp) {
        return [=] { return lowerUnary<RsqrtOp>(op, /*floatOnly=*/true); };
      })
      .Case([&](tosa::ReciprocalOp) {
        return [=] { return lowerUnary<ReciprocalOp>(op, /*floatOnly=*/true); };
      })
      .Case([&](tosa::AbsOp) {
        return [=] { return lowerUnary<AbsOp>(op, /*floatOnly=*/false); };
      })
      .Case([&](tosa::NegateOp) {
        return [=]() -> LogicalResult {
          if (failed(rejectQuantized(op)))
            return failure();
          return lowerUnary<NegOp>(op, /*floatOnly=*/false);
        };
      })
      .Case([&](tosa::LogicalNotOp) {
        return [=] { return lowerUnary<NotOp>(op, /*floatOnly=*/false); };
      })
      .Case([&](tosa::ClampOp o) { return [=] { return lowerClamp(o); }; })
      .Case([&](tosa::CastOp) {
        return [=]() -> LogicalResult {
          if (tensorType(op->getOperand(0)).getShape() !=
              tensorType(op->getResult(0)).getShape())
            return op->emitOpError() << "expects the result shape to equal "
                                        "the input shape";
          replace(op, rewriter.create<CastOp>(op->getLoc(),
                                              op->getResult(0).getType(),
                                              op->getOperand(0)));
          return success();
        };
      })
      .Case([&](tosa::IdentityOp) {
        return [=]() -> LogicalResult {
          if (op->getOperand(0).getType() != op->getResult(0).getType())
            return op->emitOpError() << "expects the result type to equal the "
                                        "operand type";
          replace(op, op->getOperand(0));
          return success();
        };
      })
      // Constants.
      .Case([&](tosa::ConstOp o) { return [=] { return lowerConstant(o); }; })
      .Case([&](arith::ConstantOp o) -> Lowering {
        // Only tensor constants have a dlc meaning.
        if (!isa<TensorType>(o.getType()))
          return nullptr;
        return [=] { return lowerConstant(o); };
      })
      // Reductions.
      .Case([&](tosa::ReduceSumOp o) {
        return [=] { return lowerReduce(o, ReduceKind::sum); };
      })
      .Case([&](tosa::ReduceMaxOp o) {
        return [=] { return lowerReduce(o, ReduceKind::max); };
      })
      .Case([&](tosa::ReduceMinOp o) {
        return [=] { return lowerReduce(o, ReduceKind::min); };
      })
      .Case([&](tosa::ReduceProdOp o) {
        return [=] { return lowerReduce(o, ReduceKind::prod); };
      })
      .Case([&](tosa::ReduceAllOp o) {
        return [=] { return lowerBoolReduce(o, ReduceKind::min); };
      })
      .Case([&](tosa::ReduceAnyOp o) {
        return [=] { return lowerBoolReduce(o, ReduceKind::max); };
      })
      .Case([&](tosa::ArgMaxOp o) { return [=] { return lowerArgMax(o); }; })
      // Matrix products.
      .Case([&](tosa::MatMulOp o) { return [=] { return lowerMatmul(o); }; })
      .Case([&](tosa::FullyConnectedOp o) {
        return [=] { return lowerFullyConnected(o); };
      })
      // Data movement.
      .Case([&](tosa::TransposeOp o) {
        return [=] { return lowerTranspose(o); };
      })
      .Case([&](tosa::ReshapeOp) {
        return [=]() -> LogicalResult {
          auto in = tensorType(op->getOperand(0));
          auto out = tensorType(op->getResult(0));
          if (in.getNumElements() != out.getNumElements())
            return op->emitOpError()
                   << "cannot reshape " << in.getNumElements()
                   << " elements into " << out.getNumElements();
          replace(op, reshape(op->getLoc(), op->getOperand(0), out.getShape()));
          return success();
        };
      })
      .Case([&](tosa::SliceOp o) { return [=] { return lowerSlice(o); }; })
      .Case([&](tosa::ConcatOp o) { return [=] { return lowerConcat(o); }; })
      .Case([&](tosa::PadOp o) { return [=] { return lowerPad(o); }; })
      .Case([&](tosa::TileOp o) { return [=] { return lowerTile(o); }; })
      // Convolution, pooling, gather, resize.
      .Case([&](tosa::Conv2DOp) {
        return [=] { return lowerConv(op, /*depthwise=*/false); };
      })
      .Case([&](tosa::DepthwiseConv2DOp) {
        return [=] { return lowerConv(op, /*depthwise=*/true); };
      })
      .Case([&](tosa::TransposeConv2DOp o) {
        return [=] { return lowerTransposeConv(o); };
      })
      .Case([&](tosa::MaxPool2dOp) {
        return [=] { return lowerPool(op, PoolKind::max); };
      })
      .Case([&](tosa::AvgPool2dOp) {
        return [=] { return lowerPool(op, PoolKind::avg); };
      })
      .Case([&](tosa::GatherOp o) { return [=] { return lowerGather(o); }; })
      .Case([&](tosa::ResizeOp o) { return [=] { return lowerResize(o); }; })
      .Default([](Operation *) { return nullptr; });
}

/// TOSA MUL: a plain product, except that an i32 product with a shift is
/// `(a * b + 2^(shift-1)) >> shift` computed in 64 bits with an arithmetic
/// (flooring) right shift.
LogicalResult TosaLowering::lowerMul(tosa::MulOp op) {
  int64_t shift = op.getShiftAttr().getInt();
  auto result = tensorType(op.getOutput());
  Type element = result.getElementType();
  if (shift == 0)
    return lowerBinary<MulOp>(op);
  if (isa<FloatType>(element))
    return op.emitOpError() << "expects shift 0 for a floating-point multiply, "
                               "but got "
                            << shift;
  if (!element.isSignlessInteger(32))
    return op.emitOpError() << "supports a nonzero shift only for i32, but "
                               "the element type is "
                            << element;
  if (shift < 0 || shift > 63)
    return op.emitOpError() << "expects a shift in [0, 63], but got " << shift;
  auto operands = broadcastOperands(op, op->getOperands(), result);
  if (failed(operands))
    return failure();

  Location loc = op.getLoc();
  int64_t rank = result.getRank();
  Type i64 = rewriter.getI64Type();
  auto wide = result.clone(i64);
  Value a = castTo(loc, (*operands)[0], i64);
  Value b = castTo(loc, (*operands)[1], i64);
  Value product = rewriter.create<MulOp>(loc, wide, a, b);
  Value rounded = rewriter.create<AddOp>(
      loc, wide, product,
      splat(loc, rank, i64, static_cast<double>(int64_t(1) << (shift - 1))));
  // dlc.div truncates toward zero; the shift floors, so step down by one
  // where the truncated quotient left a negative remainder.
  Value divisor =
      splat(loc, rank, i64, static_cast<double>(int64_t(1) << shift));
  Value quotient = rewriter.create<DivOp>(loc, wide, rounded, divisor);
  Value remainder = rewriter.create<SubOp>(
      loc, wide, rounded, rewriter.create<MulOp>(loc, wide, quotient, divisor));
  Value negative = rewriter.create<CmpOp>(
      loc, result.clone(rewriter.getI1Type()), CmpPredicate::lt, remainder,
      splat(loc, rank, i64, 0));
  Value floored =
      rewriter.create<SubOp>(loc, wide, quotient, castTo(loc, negative, i64));
  replace(op, castTo(loc, floored, element));
  return success();
}

LogicalResult TosaLowering::lowerClamp(tosa::ClampOp op) {
  auto type = tensorType(op.getOutput());
  Type element = type.getElementType();
  if (op.getInput().getType() != type)
    return op.emitOpError() << "expects the result type to equal the operand "
                               "type";
  double lo, hi;
  if (isa<FloatType>(element)) {
    lo = op.getMinFpAttr().getValueAsDouble();
    hi = op.getMaxFpAttr().getValueAsDouble();
    if (std::isnan(lo) || std::isnan(hi))
      return op.emitOpError() << "expects non-NaN clamp bounds";
  } else {
    // The bounds travel as f64: limit them to the element type's range, and
    // for i64 to the largest doubles inside that range.
    unsigned width = element.getIntOrFloatBitWidth();
    int64_t typeMin, typeMax;
    if (width == 1) {
      typeMin = 0;
      typeMax = 1;
    } else if (width == 32) {
      typeMin = std::numeric_limits<int32_t>::min();
      typeMax = std::numeric_limits<int32_t>::max();
    } else {
      typeMin = std::numeric_limits<int64_t>::min();
      typeMax = std::numeric_limits<int64_t>::max() - 1023;
    }
    int64_t minInt = op.getMinIntAttr().getInt();
    int64_t maxInt = op.getMaxIntAttr().getInt();
    if (minInt <= typeMin && maxInt >= typeMax && minInt <= maxInt) {
      // Clamping to the whole range of the type changes nothing.
      replace(op, op.getInput());
      return success();
    }
    lo = static_cast<double>(std::clamp(minInt, typeMin, typeMax));
    hi = static_cast<double>(std::clamp(maxInt, typeMin, typeMax));
  }
  if (lo > hi)
    return op.emitOpError()
           << "expects min <= max, but got min = " << lo << " and max = " << hi;
  replace(op, rewriter.create<ClampOp>(op.getLoc(), type, op.getInput(),
                                       llvm::APFloat(lo), llvm::APFloat(hi)));
  return success();
}

LogicalResult TosaLowering::lowerConstantValue(Operation *op, Attribute value) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != op->getResult(0).getType())
    return op->emitOpError() << "expects a value of the result type "
                             << op->getResult(0).getType();
  replace(op, rewriter.create<ConstantOp>(
                  op->getLoc(), op->getResult(0).getType(), elements));
  return success();
}

LogicalResult TosaLowering::lowerReduceAxis(Operation *op, ReduceKind kind,
                                            uint32_t axis) {
  auto in = tensorType(op->getOperand(0));
  auto out = tensorType(op->getResult(0));
  if (axis >= in.getRank())
    return op->emitOpError()
           << "axis " << axis << " is out of range for a tensor of rank "
           << in.getRank();
  if (in.getElementType().isInteger(1))
    return op->emitOpError() << "cannot reduce a boolean tensor";
  SmallVector<int64_t> expected(in.getShape());
  expected[axis] = 1;
  if (ArrayRef<int64_t>(expected) != out.getShape() ||
      out.getElementType() != in.getElementType())
    return op->emitOpError() << "expects result type " << in.clone(expected)
                             << ", but got " << out;
  replace(op,
          rewriter.create<ReduceOp>(op->getLoc(), out, kind, op->getOperand(0),
                                    ArrayRef<int64_t>{int64_t(axis)}));
  return success();
}

/// reduce_all / reduce_any: booleans as 0/1 integers reduced with min / max.
LogicalResult TosaLowering::lowerBoolReduceAxis(Operation *op, ReduceKind kind,
                                                uint32_t axis) {
  auto in = tensorType(op->getOperand(0));
  auto out = tensorType(op->getResult(0));
  if (axis >= in.getRank())
    return op->emitOpError()
           << "axis " << axis << " is out of range for a tensor of rank "
           << in.getRank();
  SmallVector<int64_t> expected(in.getShape());
  expected[axis] = 1;
  if (!in.getElementType().isInteger(1) || out != in.clone(expected))
    return op->emitOpError()
           << "expects an i1 input and result type " << in.clone(expected);
  Location loc = op->getLoc();
  Type i32 = rewriter.getI32Type();
  Value asInt = castTo(loc, op->getOperand(0), i32);
  Value reduced = rewriter.create<ReduceOp>(loc, out.clone(i32), kind, asInt,
                                            ArrayRef<int64_t>{int64_t(axis)});
  replace(op, rewriter.create<CmpOp>(loc, out, CmpPredicate::ne, reduced,
                                     splat(loc, in.getRank(), i32, 0)));
  return success();
}

/// TOSA's argmax drops the axis; dlc.argmax keeps it as size 1.
LogicalResult TosaLowering::lowerArgMax(tosa::ArgMaxOp op) {
  auto in = tensorType(op.getInput());
  auto out = tensorType(op.getOutput());
  uint32_t axis = op.getAxis();
  if (axis >= in.getRank())
    return op.emitOpError()
           << "axis " << axis << " is out of range for a tensor of rank "
           << in.getRank();
  Type index = out.getElementType();
  if (!index.isSignlessInteger(32) && !index.isSignlessInteger(64))
    return op.emitOpError() << "expects an i32 or i64 result, but got " << out;
  SmallVector<int64_t> kept(in.getShape());
  kept[axis] = 1;
  SmallVector<int64_t> dropped(in.getShape());
  dropped.erase(dropped.begin() + axis);
  if (ArrayRef<int64_t>(dropped) != out.getShape())
    return op.emitOpError() << "expects result shape " << formatShape(dropped)
                            << ", but got " << formatShape(out.getShape());
  Value arg = rewriter.create<ArgMaxOp>(
      op.getLoc(), RankedTensorType::get(kept, index), op.getInput(), axis);
  replace(op, reshape(op.getLoc(), arg, out.getShape()));
  return success();
}

/// [N, H, C] x [N, C, W] -> [N, H, W]. Where TOSA widens the result type
/// (f16 inputs, f32 result), the inputs are widened first: the conversion is
/// exact, and the product is then computed at the result's precision.
LogicalResult TosaLowering::lowerMatmul(tosa::MatMulOp op) {
  if (failed(rejectQuantized(op)))
    return failure();
  auto a = tensorType(op.getA()), b = tensorType(op.getB());
  auto c = tensorType(op.getC());
  if (a.getElementType() != b.getElementType())
    return op.emitOpError() << "expects operands of one element type";
  Type element = c.getElementType();
  if (element != a.getElementType() &&
      !(isa<FloatType>(element) && isa<FloatType>(a.getElementType())))
    return op.emitOpError() << "cannot compute a " << element << " product of "
                            << a.getElementType() << " operands";
  if (a.getElementType().isInteger(1))
    return op.emitOpError() << "cannot multiply boolean matrices";
  if (a.getDimSize(2) != b.getDimSize(1) ||
      c.getShape() !=
          ArrayRef<int64_t>{std::max(a.getDimSize(0), b.getDimSize(0)),
                            a.getDimSize(1), b.getDimSize(2)})
    return op.emitOpError()
           << "has incompatible shapes " << a << " x " << b << " -> " << c;
  Location loc = op.getLoc();
  Value lhs = castTo(loc, op.getA(), element);
  Value rhs = castTo(loc, op.getB(), element);
  replace(op, rewriter.create<MatmulOp>(loc, c, lhs, rhs,
                                        /*transpose_a=*/false,
                                        /*transpose_b=*/false,
                                        /*acc_type=*/TypeAttr()));
  return success();
}

/// input [N, IC], weight [OC, IC], bias [OC] -> input * weight^T + bias.
LogicalResult TosaLowering::lowerFullyConnected(tosa::FullyConnectedOp op) {
  if (failed(rejectQuantized(op)))
    return failure();
  auto in = tensorType(op.getInput()), weight = tensorType(op.getWeight());
  auto bias = tensorType(op.getBias()), out = tensorType(op.getOutput());
  Type element = out.getElementType();
  if (in.getElementType() != weight.getElementType())
    return op.emitOpError() << "expects input and weight of one element type";
  if (element != in.getElementType() &&
      !(isa<FloatType>(element) && isa<FloatType>(in.getElementType())))
    return op.emitOpError() << "cannot compute a " << element << " product of "
                            << in.getElementType() << " operands";
  if (in.getElementType().isInteger(1))
    return op.emitOpError() << "cannot multiply boolean matrices";
  int64_t oc = weight.getDimSize(0);
  if (in.getDimSize(1) != weight.getDimSize(1) ||
      out.getShape() != ArrayRef<int64_t>{in.getDimSize(0), oc})
    return op.emitOpError() << "has incompatible shapes " << in << " x "
                            << weight << "^T -> " << out;
  if (bias.getDimSize(0) != oc && bias.getDimSize(0) != 1)
    return op.emitOpError() << "expects a bias of " << oc
                            << " elements (or 1), but got " << bias;
  Location loc = op.getLoc();
  Value lhs = castTo(loc, op.getInput(), element);
  Value rhs = castTo(loc, op.getWeight(), element);
  Value product = rewriter.create<MatmulOp>(loc, out, lhs, rhs,
                                            /*transpose_a=*/false,
                                            /*transpose_b=*/true,
                                            /*acc_type=*/TypeAttr());
  // A bias of zeros (common in converted models) needs no addition.
  DenseElementsAttr biasValue;
  if (matchPattern(op.getBias(), m_Constant(&biasValue)) &&
      biasValue.isSplat() &&
      attrToDouble(biasValue.getSplatValue<Attribute>()) == 0.0) {
    if (Operation *def = op.getBias().getDefiningOp())
      attributeConstants.insert(def);
    replace(op, product);
    return success();
  }
  Value row =
      reshape(loc, castTo(loc, op.getBias(), element), {1, bias.getDimSize(0)});
  replace(op, rewriter.create<AddOp>(loc, out, product, row));
  return success();
}

LogicalResult TosaLowering::lowerTranspose(tosa::TransposeOp op) {
  auto in = tensorType(op.getInput1());
  auto out = tensorType(op.getOutput());
  auto perm = constantInts(op.getPerms());
  if (failed(perm))
    return op.emitOpError() << "expects the permutation to be a constant "
                               "(tosa.const)";
  SmallVector<bool> seen(in.getRank(), false);
  bool valid = (int64_t)perm->size() == in.getRank();
  SmallVector<int64_t> expected;
  for (int64_t p : *perm) {
    if (!valid || p < 0 || p >= in.getRank() || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
    expected.push_back(in.getDimSize(p));
  }
  if (!valid)
    return op.emitOpError()
           << "perms " << formatShape(*perm) << " is not a permutation of "
           << in.getRank() << " dimensions";
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return op.emitOpError() << "expects result shape " << formatShape(expected)
                            << ", but got " << formatShape(out.getShape());
  if (Operation *def = op.getPerms().getDefiningOp())
    attributeConstants.insert(def);
  replace(op, rewriter.create<TransposeOp>(op.getLoc(), out, op.getInput1(),
                                           *perm));
  return success();
}

LogicalResult TosaLowering::lowerSlice(tosa::SliceOp op) {
  auto in = tensorType(op.getInput());
  auto out = tensorType(op.getOutput());
  ArrayRef<int64_t> start = op.getStart(), size = op.getSize();
  if ((int64_t)start.size() != in.getRank() || size != out.getShape())
    return op.emitOpError() << "expects " << in.getRank()
                            << " start indices and a size equal to the "
                               "result shape "
                            << formatShape(out.getShape());
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (start[d] < 0 || start[d] + size[d] > in.getDimSize(d))
      return op.emitOpError()
             << "slice [" << start[d] << ", " << start[d] + size[d]
             << ") of dimension " << d << " is out of bounds for size "
             << in.getDimSize(d);
  replace(op, rewriter.create<SliceOp>(op.getLoc(), out, op.getInput(), start,
                                       /*strides=*/DenseI64ArrayAttr()));
  return success();
}

LogicalResult TosaLowering::lowerConcat(tosa::ConcatOp op) {
  auto out = tensorType(op.getOutput());
  uint32_t axis = op.getAxis();
  if (axis >= out.getRank())
    return op.emitOpError()
           << "axis " << axis << " is out of range for a tensor of rank "
           << out.getRank();
  int64_t total = 0;
  for (Value v : op.getInput1()) {
    auto t = tensorType(v);
    if (t.getRank() != out.getRank())
      return op.emitOpError() << "expects inputs of the result's rank "
                              << out.getRank() << ", but got " << t;
    total += t.getDimSize(axis);
  }
  if (total != out.getDimSize(axis))
    return op.emitOpError()
           << "inputs add up to " << total << " elements along axis " << axis
           << ", but the result has " << out.getDimSize(axis);
  if (op.getInput1().size() == 1) {
    replace(op, op.getInput1()[0]);
    return success();
  }
  replace(op, rewriter.create<ConcatOp>(op.getLoc(), out, op.getInput1(),
                                        uint64_t(axis)));
  return success();
}

/// The padding operand holds (low, high) pairs per dimension, as a [rank, 2]
/// or flat [2 * rank] constant; the optional pad_const operand is a scalar
/// constant (zero when absent).
LogicalResult TosaLowering::lowerPad(tosa::PadOp op) {
  if (failed(rejectQuantized(op)))
    return failure();
  auto in = tensorType(op.getInput1());
  auto out = tensorType(op.getOutput());
  auto padding = constantInts(op.getPadding());
  if (failed(padding))
    return op.emitOpError() << "expects the padding to be a constant "
                               "(tosa.const)";
  if ((int64_t)padding->size() != 2 * in.getRank())
    return op.emitOpError() << "expects " << 2 * in.getRank()
                            << " padding amounts, but got " << padding->size();
  double value = 0.0;
  if (Value padConst = op.getPadConst()) {
    DenseElementsAttr attr;
    if (!matchPattern(padConst, m_Constant(&attr)) ||
        attr.getNumElements() != 1)
      return op.emitOpError() << "expects the pad value to be a scalar "
                                 "constant (tosa.const)";
    value = attrToDouble(*attr.value_begin<Attribute>());
    if (Operation *def = padConst.getDefiningOp())
      attributeConstants.insert(def);
  }
  SmallVector<int64_t> low, high, expected;
  for (int64_t d = 0; d < in.getRank(); ++d) {
    low.push_back((*padding)[2 * d]);
    high.push_back((*padding)[2 * d + 1]);
    if (low.back() < 0 || high.back() < 0)
      return op.emitOpError()
             << "expects non-negative padding, but dimension " << d
             << " has low " << low.back() << " and high " << high.back();
    expected.push_back(in.getDimSize(d) + low.back() + high.back());
  }
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return op.emitOpError() << "expects result shape " << formatShape(expected)
                            << ", but got " << formatShape(out.getShape());
  if (Operation *def = op.getPadding().getDefiningOp())
    attributeConstants.insert(def);
  replace(op, rewriter.create<PadOp>(op.getLoc(), out, op.getInput1(), low,
                                     high, llvm::APFloat(value)));
  return success();
}

LogicalResult TosaLowering::lowerTile(tosa::TileOp op) {
  auto in = tensorType(op.getInput1());
  auto out = tensorType(op.getOutput());
  ArrayRef<int64_t> multiples = op.getMultiples();
  SmallVector<int64_t> expected;
  bool valid = (int64_t)multiples.size() == in.getRank();
  for (int64_t d = 0; valid && d < in.getRank(); ++d) {
    valid = multiples[d] >= 1;
    expected.push_back(in.getDimSize(d) * multiples[d]);
  }
  if (!valid || ArrayRef<int64_t>(expected) != out.getShape())
    return op.emitOpError() << "multiples " << formatShape(multiples)
                            << " do not tile " << in << " into " << out;
  replace(op,
          rewriter.create<TileOp>(op.getLoc(), out, op.getInput1(), multiples));
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution, pooling, gather, resize (TOSA is NHWC, dlc NCHW)
//===----------------------------------------------------------------------===//

Value TosaLowering::addBias(Location loc, Value nchw, Value bias) {
  auto type = tensorType(nchw);
  Type element = type.getElementType();
  DenseElementsAttr biasValue;
  if (matchPattern(bias, m_Constant(&biasValue)) && biasValue.isSplat() &&
      attrToDouble(biasValue.getSplatValue<Attribute>()) == 0.0) {
    if (Operation *def = bias.getDefiningOp())
      attributeConstants.insert(def);
    return nchw;
  }
  int64_t n = tensorType(bias).getDimSize(0);
  Value b = reshape(loc, castTo(loc, bias, element), {1, n, 1, 1});
  return rewriter.create<AddOp>(loc, type, nchw, b);
}

/// TOSA conv2d: input [N, H, W, C], weight [OC, KH, KW, C], bias [OC], pad
/// [top, bottom, left, right]. depthwise_conv2d: weight [KH, KW, C, M], C*M
/// outputs, output channel c*M + m.
LogicalResult TosaLowering::lowerConv(Operation *op, bool depthwise) {
  if (failed(rejectQuantized(op)))
    return failure();
  Value input = op->getOperand(0), weight = op->getOperand(1),
        bias = op->getOperand(2);
  auto in = tensorType(input), w = tensorType(weight),
       out = tensorType(op->getResult(0));
  Type element = out.getElementType();
  if (!isa<FloatType>(element) || !isa<FloatType>(in.getElementType()) ||
      !isa<FloatType>(w.getElementType()))
    return op->emitOpError() << "dlc supports floating-point convolutions "
                                "only, but got "
                             << in << " and " << w << " -> " << out;
  auto pad = op->getAttrOfType<DenseI64ArrayAttr>("pad").asArrayRef();
  auto stride = op->getAttrOfType<DenseI64ArrayAttr>("stride").asArrayRef();
  auto dilation = op->getAttrOfType<DenseI64ArrayAttr>("dilation").asArrayRef();
  int64_t c = in.getDimSize(3);
  int64_t groups = 1;
  Location loc = op->getLoc();
  Value x = toNchw(loc, castTo(loc, input, element));
  Value filter = castTo(loc, weight, element);
  if (depthwise) {
    if (w.getDimSize(2) != c)
      return op->emitOpError() << "expects a weight of shape [KH, KW, " << c
                               << ", M], but got " << w;
    // [KH, KW, C, M] -> [C, M, KH, KW] -> [C*M, 1, KH, KW].
    filter = permute(loc, filter, {2, 3, 0, 1});
    filter =
        reshape(loc, filter,
                {c * w.getDimSize(3), 1, w.getDimSize(0), w.getDimSize(1)});
    groups = c;
  } else {
    if (w.getDimSize(3) != c)
      return op->emitOpError() << "expects a weight of shape [OC, KH, KW, " << c
                               << "], but got " << w;
    filter = permute(loc, filter, {0, 3, 1, 2});
  }
  auto filterType = tensorType(filter);
  SmallVector<int64_t> pads{pad[0], pad[2], pad[1], pad[3]};
  SmallVector<int64_t> expected{in.getDimSize(0), in.getDimSize(1),
                                in.getDimSize(2), filterType.getDimSize(0)};
  for (int d = 0; d < 2; ++d) {
    int64_t span = dilation[d] * (filterType.getDimSize(2 + d) - 1) + 1;
    int64_t padded = in.getDimSize(1 + d) + pad[2 * d] + pad[2 * d + 1];
    if (stride[d] < 1 || dilation[d] < 1 || pad[2 * d] < 0 ||
        pad[2 * d + 1] < 0 || span > padded)
      return op->emitOpError()
             << "has a window (stride " << formatShape(stride) << ", dilation "
             << formatShape(dilation) << ", pad " << formatShape(pad)
             << ") that dlc cannot apply to " << in;
    expected[1 + d] = (padded - span) / stride[d] + 1;
  }
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return op->emitOpError() << "expects result shape " << formatShape(expected)
                             << ", but got " << formatShape(out.getShape());
  auto nchw = RankedTensorType::get(
      {expected[0], expected[3], expected[1], expected[2]}, element);
  Value y = rewriter.create<Conv2DOp>(loc, nchw, x, filter, stride, pads,
                                      dilation, groups, TypeAttr());
  y = addBias(loc, y, bias);
  replace(op, toNhwc(loc, y));
  return success();
}

/// TOSA transpose_conv2d: out[n, iy*sy + out_pad_top + ky, ...] +=
/// in[n, iy, ix, ic] * filter[oc, ky, kx, ic]; that is ONNX ConvTranspose
/// with pads = -out_pad (a positive bottom/right out_pad below the stride
/// is ONNX's output_padding).
LogicalResult TosaLowering::lowerTransposeConv(tosa::TransposeConv2DOp op) {
  if (failed(rejectQuantized(op)))
    return failure();
  auto in = tensorType(op.getInput()), w = tensorType(op.getFilter()),
       out = tensorType(op.getOutput());
  Type element = out.getElementType();
  if (!isa<FloatType>(element) || !isa<FloatType>(in.getElementType()))
    return op.emitOpError() << "dlc supports floating-point convolutions only";
  if (w.getDimSize(3) != in.getDimSize(3))
    return op.emitOpError() << "expects a filter of shape [OC, KH, KW, "
                            << in.getDimSize(3) << "], but got " << w;
  ArrayRef<int64_t> outPad = op.getOutPad(), stride = op.getStride();
  SmallVector<int64_t> pads(4), outputPadding(2);
  for (int d = 0; d < 2; ++d) {
    int64_t lo = outPad[2 * d], hi = outPad[2 * d + 1];
    if (stride[d] < 1 || lo > 0 || hi >= stride[d])
      return op.emitOpError()
             << "has out_pad " << formatShape(outPad) << " and stride "
             << formatShape(stride)
             << "; dlc supports only cropping (out_pad <= 0) and a bottom or "
                "right out_pad below the stride";
    pads[d] = -lo;
    pads[d + 2] = hi < 0 ? -hi : 0;
    outputPadding[d] = hi > 0 ? hi : 0;
  }
  SmallVector<int64_t> expected{in.getDimSize(0), 0, 0, w.getDimSize(0)};
  for (int d = 0; d < 2; ++d)
    expected[1 + d] = (in.getDimSize(1 + d) - 1) * stride[d] + outPad[2 * d] +
                      outPad[2 * d + 1] + w.getDimSize(1 + d);
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return op.emitOpError() << "expects result shape " << formatShape(expected)
                            << ", but got " << formatShape(out.getShape());
  Location loc = op.getLoc();
  Value x = toNchw(loc, castTo(loc, op.getInput(), element));
  // [OC, KH, KW, IC] -> [IC, OC, KH, KW].
  Value filter =
      permute(loc, castTo(loc, op.getFilter(), element), {3, 0, 1, 2});
  auto nchw = RankedTensorType::get(
      {expected[0], expected[3], expected[1], expected[2]}, element);
  SmallVector<int64_t> dilations{1, 1};
  Value y = rewriter.create<ConvTranspose2DOp>(loc, nchw, x, filter, stride,
                                               pads, dilations, outputPadding,
                                               /*groups=*/1, TypeAttr());
  y = addBias(loc, y, op.getBias());
  replace(op, toNhwc(loc, y));
  return success();
}

/// max_pool2d / avg_pool2d: kernel, stride, pad [top, bottom, left, right];
/// padding never counts (avg divides by the in-bounds count).
LogicalResult TosaLowering::lowerPool(Operation *op, PoolKind kind) {
  if (failed(rejectQuantized(op)))
    return failure();
  auto in = tensorType(op->getOperand(0)), out = tensorType(op->getResult(0));
  Type element = out.getElementType();
  if (!isa<FloatType>(element) || in.getElementType() != element)
    return op->emitOpError() << "dlc supports floating-point pooling of one "
                                "element type only, but got "
                             << in << " -> " << out;
  auto kernel = op->getAttrOfType<DenseI64ArrayAttr>("kernel").asArrayRef();
  auto stride = op->getAttrOfType<DenseI64ArrayAttr>("stride").asArrayRef();
  auto pad = op->getAttrOfType<DenseI64ArrayAttr>("pad").asArrayRef();
  SmallVector<int64_t> expected{in.getDimSize(0), 0, 0, in.getDimSize(3)};
  for (int d = 0; d < 2; ++d) {
    int64_t padded = in.getDimSize(1 + d) + pad[2 * d] + pad[2 * d + 1];
    if (kernel[d] < 1 || stride[d] < 1 || pad[2 * d] < 0 ||
        pad[2 * d + 1] < 0 || kernel[d] > padded)
      return op->emitOpError()
             << "has a window (kernel " << formatShape(kernel) << ", stride "
             << formatShape(stride) << ", pad " << formatShape(pad)
             << ") that dlc cannot apply to " << in;
    expected[1 + d] = (padded - kernel[d]) / stride[d] + 1;
  }
  if (ArrayRef<int64_t>(expected) != out.getShape())
    return op->emitOpError() << "expects result shape " << formatShape(expected)
                             << ", but got " << formatShape(out.getShape());
  Location loc = op->getLoc();
  auto nchw = RankedTensorType::get(
      {expected[0], expected[3], expected[1], expected[2]}, element);
  SmallVector<int64_t> pads{pad[0], pad[2], pad[1], pad[3]};
  Value y = rewriter.create<Pool2DOp>(
      loc, nchw, kind, toNchw(loc, op->getOperand(0)), kernel, stride, pads,
      /*dilations=*/DenseI64ArrayAttr(), /*count_include_pad=*/false);
  replace(op, toNhwc(loc, y));
  return success();
}

/// TOSA gather: values [N, K, C], indices [N, W] -> [N, W, C] with
/// out[n, w] = values[n, indices[n, w]]. Batch n's rows start at n*K of the
/// values viewed as [N*K, C].
LogicalResult TosaLowering::lowerGather(tosa::GatherOp op) {
  auto values = tensorType(op.getValues()),
       indices = tensorType(op.getIndices()), out = tensorType(op.getOutput());
  int64_t n = values.getDimSize(0), k = values.getDimSize(1),
          c = values.getDimSize(2), w = indices.getDimSize(1);
  if (indices.getDimSize(0) != n ||
      out.getShape() != ArrayRef<int64_t>{n, w, c} ||
      out.getElementType() != values.getElementType())
    return op.emitOpError() << "expects result type " << values.clone({n, w, c})
                            << ", but got " << out;
  Location loc = op.getLoc();
  Value flat = reshape(loc, op.getValues(), {n * k, c});
  Value index = op.getIndices();
  if (n > 1) {
    Type i32 = indices.getElementType();
    auto offsetType = RankedTensorType::get({n, 1}, i32);
    SmallVector<APInt> offsets;
    for (int64_t b = 0; b < n; ++b)
      offsets.push_back(APInt(i32.getIntOrFloatBitWidth(), b * k));
    Value offset = rewriter.create<ConstantOp>(
        loc, offsetType, DenseElementsAttr::get(offsetType, offsets));
    index = rewriter.create<AddOp>(loc, indices, index, offset);
  }
  replace(op, rewriter.create<GatherOp>(loc, out, flat, index, /*axis=*/0));
  return success();
}

/// TOSA resize maps output row y to input row (y*d + offset) / n with scale
/// [n_y, d_y, n_x, d_x]: offset 0 is ONNX's asymmetric mode, 2*offset = d - n
/// is half_pixel. NEAREST_NEIGHBOR rounds halves up; BILINEAR is linear.
LogicalResult TosaLowering::lowerResize(tosa::ResizeOp op) {
  auto in = tensorType(op.getInput()), out = tensorType(op.getOutput());
  if (!isa<FloatType>(in.getElementType()) ||
      in.getElementType() != out.getElementType())
    return op.emitOpError() << "dlc supports floating-point resize of one "
                               "element type only (integer resize is "
                               "quantized), but got "
                            << in << " -> " << out;
  ArrayRef<int64_t> scale = op.getScale(), offset = op.getOffset();
  if (out.getDimSize(0) != in.getDimSize(0) ||
      out.getDimSize(3) != in.getDimSize(3))
    return op.emitOpError() << "expects the batch and channel sizes to stay";
  std::optional<StringRef> mode;
  for (int d = 0; d < 2; ++d) {
    int64_t num = scale[2 * d], den = scale[2 * d + 1];
    int64_t inSize = in.getDimSize(1 + d), outSize = out.getDimSize(1 + d);
    StringRef m;
    if (offset[d] == 0)
      m = "asymmetric";
    else if (2 * offset[d] == den - num)
      m = "half_pixel";
    bool sameRatio = num > 0 && den > 0 && num * inSize == den * outSize;
    if (m.empty() || !sameRatio || (mode && *mode != m))
      return op.emitOpError()
             << "has scale " << formatShape(scale) << " and offset "
             << formatShape(offset) << " for " << in << " -> " << out
             << "; dlc supports scales equal to the size ratio with offset "
                "0 (asymmetric) or (d - n) / 2 (half pixel) in both "
                "dimensions";
    mode = m;
  }
  bool nearest = op.getMode() == "NEAREST_NEIGHBOR";
  Location loc = op.getLoc();
  auto nchw = RankedTensorType::get({out.getDimSize(0), out.getDimSize(3),
                                     out.getDimSize(1), out.getDimSize(2)},
                                    out.getElementType());
  Value y = rewriter.create<ResizeOp>(
      loc, nchw, toNchw(loc, op.getInput()), nearest ? "nearest" : "linear",
      *mode, nearest ? "round_prefer_ceil" : "round_prefer_floor");
  replace(op, toNhwc(loc, y));
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct LowerTosaPass : public mlir::dlc::impl::LowerTosaBase<LowerTosaPass> {
  using LowerTosaBase::LowerTosaBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(checkTensorSizes(func)))
      return signalPassFailure();
    bool failedAny = false;

    FunctionType signature = func.getFunctionType();
    for (auto [i, type] : llvm::enumerate(signature.getInputs()))
      if (failed(checkValueType(func, type, "argument #" + Twine(i))))
        failedAny = true;
    for (auto [i, type] : llvm::enumerate(signature.getResults()))
      if (failed(checkValueType(func, type, "result #" + Twine(i))))
        failedAny = true;

    // Collect first: lowering replaces operations. The regions of operations
    // that are not dlc or func operations are not entered, since those
    // operations are reported themselves.
    SmallVector<Operation *> worklist;
    func.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      worklist.push_back(op);
      if (op->getNumRegions() &&
          !isa_and_nonnull<DlcDialect, func::FuncDialect>(op->getDialect()))
        return WalkResult::skip();
      return WalkResult::advance();
    });

    TosaLowering lowering(&getContext());
    for (Operation *op : worklist) {
      if (isa_and_nonnull<DlcDialect, func::FuncDialect>(op->getDialect()))
        continue;
      // The lowering may erase `op`: name it first.
      LLVM_DEBUG(llvm::dbgs()
                 << DEBUG_TYPE ": " << op->getName() << " at " << op->getLoc());
      std::optional<LogicalResult> result = lowering.lower(op);
      LLVM_DEBUG(llvm::dbgs()
                 << (result ? (succeeded(*result) ? " lowered\n" : " failed\n")
                            : " has no lowering\n"));
      if (!result) {
        emitError(op->getLoc())
            << "dlc cannot lower '" << op->getName() << "' yet";
        failedAny = true;
        continue;
      }
      if (failed(*result))
        failedAny = true;
    }
    if (failedAny)
      return signalPassFailure();
    lowering.eraseDeadAttributeConstants();
  }
};
} // namespace
