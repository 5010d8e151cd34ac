//===- AssignPrecision.cpp - Mixed-precision assignment ------------------===//
//
// Chooses each value's storage type from its producer's precision class
// (PrecisionPolicyOpInterface; the classes live with the ops in
// ir/Policies.cpp and DlcOps.td): matrix products, attention and
// convolutions store in the low type, what needs range or long sums in f32,
// the rest in the widest type of its operands. See Passes.td and
// docs/precision.md.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

#define DEBUG_TYPE "dlc-assign-precision"

namespace mlir::dlc {
#define GEN_PASS_DEF_ASSIGNPRECISION
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// The element type of a float tensor value; null otherwise.
FloatType floatElement(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type ? dyn_cast<FloatType>(type.getElementType()) : FloatType();
}

bool isLow(FloatType t) { return t && (t.isBF16() || t.isF16()); }

RankedTensorType withElement(Type type, Type element) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), element,
                               tensor.getEncoding());
}

/// Calls `fn(i, v)` with every element of a float constant, in order, as
/// an APFloat of its type: a dense attribute (splat or not) or a
/// dense_resource of f32, f16 or bf16 elements. False (and no call) for a
/// constant of another form or a blob of the wrong size.
bool forEachFloat(ElementsAttr value,
                  llvm::function_ref<void(int64_t, const APFloat &)> fn) {
  auto type = cast<RankedTensorType>(value.getType());
  auto element = dyn_cast<FloatType>(type.getElementType());
  if (!element)
    return false;
  const int64_t n = type.getNumElements();
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value)) {
    if (dense.isSplat()) {
      APFloat v = dense.getSplatValue<APFloat>();
      for (int64_t i = 0; i < n; ++i)
        fn(i, v);
    } else {
      int64_t i = 0;
      for (const APFloat &v : dense.getValues<APFloat>())
        fn(i++, v);
    }
    return true;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  const unsigned width = element.getWidth();
  if (!blob || !(width == 32 || width == 16) ||
      blob->getData().size() != size_t(n) * (width / 8))
    return false;
  const char *in = blob->getData().data();
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits = 0;
    if (width == 32) {
      std::memcpy(&bits, in + i * 4, 4);
    } else {
      uint16_t half;
      std::memcpy(&half, in + i * 2, 2);
      bits = half;
    }
    fn(i, APFloat(element.getFloatSemantics(), APInt(width, bits)));
  }
  return true;
}

/// A constant of `type` holding `bytes` (one stored element after
/// another): a dense_resource named after `like`'s blob when `like` is
/// one, a dense attribute otherwise.
ElementsAttr makeConstant(RankedTensorType type, ElementsAttr like,
                          std::vector<char> bytes, StringRef suffix) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(like)) {
    AsmResourceBlob out =
        HeapAsmResourceBlob::allocateAndCopyWithAlign(ArrayRef<char>(bytes), 8);
    std::string key = resource.getRawHandle().getKey().str() + suffix.str();
    return DenseResourceElementsAttr::get(type, key, std::move(out));
  }
  return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(bytes));
}

/// `value` (a constant of f32 elements) converted to `to` (round to nearest
/// even, as a cast does); null if it is of another form.
ElementsAttr convertConstant(ElementsAttr value, FloatType to) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.getElementType().isF32())
    return {};
  RankedTensorType result = withElement(type, to);
  const llvm::fltSemantics &semantics = to.getFloatSemantics();
  auto convert = [&](APFloat v) {
    bool lost = false;
    v.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
    return v.bitcastToAPInt();
  };
  // A dense constant stays one (mapValues keeps a splat a splat).
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value))
    return dense.mapValues(to, convert);
  const int64_t n = type.getNumElements();
  std::vector<char> bytes(size_t(n) * sizeof(uint16_t));
  if (!forEachFloat(value, [&](int64_t i, const APFloat &v) {
        uint16_t bits = uint16_t(convert(v).getZExtValue());
        std::memcpy(bytes.data() + i * sizeof(uint16_t), &bits, sizeof(bits));
      }))
    return {};
  return makeConstant(result, value, std::move(bytes),
                      to.isBF16() ? "_bf16" : "_f16");
}

/// fp16's largest finite value.
constexpr double kF16Max = 65504;
/// A value whose calibrated magnitude passes this keeps f32 storage under
/// fp16: other inputs than the calibration ones may go twice as far.
constexpr double kF16RangeLimit = kF16Max / 2;

/// The largest magnitude among the elements of a float constant (NaN
/// counts as infinite); nullopt for a constant of another form.
std::optional<double> constantAmax(ElementsAttr value) {
  double amax = 0;
  if (!forEachFloat(value, [&](int64_t, const APFloat &f) {
        double v = toDouble(f);
        amax = std::isnan(v) ? HUGE_VAL : std::max(amax, std::fabs(v));
      }))
    return std::nullopt;
  return amax;
}

/// E4M3's largest finite value: a quantizing scale maps a value's
/// calibrated largest magnitude to it (scale = 448 / amax, margin 0, as
/// Transformer Engine computes it).
constexpr double kE4M3Max = 448;

/// `value` (a float constant of shape [1, ..., 1, K, N], or [.., N, K] when
/// `transposed`) quantized to f8E4M3FN with `scale` (each element times
/// the scale in f32, rounded to nearest even, saturating), laid out
/// [1, ..., 1, N, K] (cuBLASLt's FP8 operand layout); null if the
/// constant is of another form.
ElementsAttr quantizeWeights(ElementsAttr value, bool transposed,
                             double scale) {
  auto type = cast<RankedTensorType>(value.getType());
  ArrayRef<int64_t> shape = type.getShape();
  const int64_t rank = shape.size();
  const int64_t rows = shape[rank - 2], cols = shape[rank - 1];
  SmallVector<int64_t> outShape(shape);
  if (!transposed)
    std::swap(outShape[rank - 2], outShape[rank - 1]);
  auto f8 = Float8E4M3FNType::get(type.getContext());
  auto result = RankedTensorType::get(outShape, f8, type.getEncoding());
  std::vector<char> bytes(size_t(rows * cols));
  const float s = float(scale);
  const llvm::fltSemantics &semantics = f8.getFloatSemantics();
  if (!forEachFloat(value, [&](int64_t i, const APFloat &v) {
        // Element (r, c) of [rows, cols] goes to (c, r) unless the
        // constant is already [N, K].
        int64_t r = i / cols, c = i % cols;
        int64_t to = transposed ? i : c * rows + r;
        // The scale multiplies in f32, as a quantizing dlc.cast.
        APFloat q(
            roundToFloat(rt::DType::F8E4M3, double(float(toDouble(v)) * s)));
        bool lost = false;
        q.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
        bytes[size_t(to)] = char(q.bitcastToAPInt().getZExtValue());
      }))
    return {};
  return makeConstant(result, value, std::move(bytes), "_f8");
}

} // namespace

void mlir::dlc::castSignature(func::FuncOp func, FloatType low) {
  if (func.isExternal())
    return;
  Block &entry = func.getBody().front();
  FunctionType type = func.getFunctionType();
  auto lowered = [&](Type t) -> Type {
    auto tensor = dyn_cast<RankedTensorType>(t);
    return tensor && tensor.getElementType().isF32() ? withElement(t, low) : t;
  };
  OpBuilder b(func.getContext());
  b.setInsertionPointToStart(&entry);
  for (BlockArgument arg : entry.getArguments()) {
    Type wanted = lowered(arg.getType());
    if (wanted == arg.getType())
      continue;
    Type declared = arg.getType();
    arg.setType(wanted);
    auto widen = b.create<CastOp>(arg.getLoc(), declared, arg);
    arg.replaceAllUsesExcept(widen.getResult(), widen);
    // The argument's calibrated range is its widened copy's.
    if (std::optional<double> amax = getAmax(arg))
      setAmax(widen, *amax);
  }
  SmallVector<Type> results;
  for (Type t : type.getResults())
    results.push_back(lowered(t));
  if (auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator())) {
    b.setInsertionPoint(ret);
    for (auto [operand, wanted] :
         llvm::zip_equal(ret->getOpOperands(), results))
      if (operand.get().getType() != wanted)
        operand.set(b.create<CastOp>(ret.getLoc(), wanted, operand.get()));
  }
  func.setType(
      FunctionType::get(func.getContext(), entry.getArgumentTypes(), results));
}

namespace {

struct AssignPrecisionPass
    : public ::mlir::dlc::impl::AssignPrecisionBase<AssignPrecisionPass> {
  using AssignPrecisionBase::AssignPrecisionBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (ioPrecision != "declared" && ioPrecision != "low") {
      func.emitError() << "unknown io-precision '" << ioPrecision
                       << "'; expected declared or low";
      return signalPassFailure();
    }
    if (precision == "f32" || precision == "tf32") {
      if (ioPrecision == "low") {
        func.emitError() << "io-precision=low needs a low precision (bf16, "
                            "fp16 or fp8), not '"
                         << precision << "'";
        return signalPassFailure();
      }
      return;
    }
    MLIRContext *context = &getContext();
    // fp8: FP8 matrix products where they can be, bf16 elsewhere.
    fp8 = precision == "fp8";
    if (precision == "bf16" || fp8)
      low = BFloat16Type::get(context);
    else if (precision == "fp16")
      low = Float16Type::get(context);
    else {
      func.emitError() << "unknown precision '" << precision
                       << "'; expected f32, tf32, bf16, fp16 or fp8";
      return signalPassFailure();
    }
    f32 = Float32Type::get(context);
    // What an earlier function left (a pass instance may run on several).
    converted.clear();
    constantRanges.clear();
    quantized.clear();
    original.clear();
    if (func.isExternal())
      return;
    if (ioPrecision == "low")
      castSignature(func, low);
    SmallVector<Operation *> ops;
    for (Operation &op : func.getBody().front())
      ops.push_back(&op);
    for (Operation *op : ops) {
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        // The declared result types.
        for (auto [operand, type] : llvm::zip_equal(
                 ret->getOpOperands(), func.getFunctionType().getResults()))
          if (auto wanted = dyn_cast<RankedTensorType>(type);
              wanted && operand.get().getType() != wanted)
            if (auto element = dyn_cast<FloatType>(wanted.getElementType()))
              operand.set(convert(operand.get(), element));
        continue;
      }
      if (isa<ConstantOp, CastOp>(op) || op->getNumRegions() != 0)
        continue;
      assign(op);
    }
    // f32 weights that only their converted copies replace (before the
    // casts below are erased: `ops` may hold them).
    for (Operation *op : ops)
      if (isa<ConstantOp>(op) && op->use_empty())
        op->erase();
    // Casts whose input now has their type (io-precision=low's casts
    // before the return, of values that became low).
    func.walk([](CastOp cast) {
      if (!cast.getScaleAttr() && cast.getInput().getType() == cast.getType()) {
        cast.getResult().replaceAllUsesWith(cast.getInput());
        cast->erase();
      }
    });
  }

private:
  /// One op: its compute type from its class, its operands cast to it, its
  /// float results stored in it.
  void assign(Operation *op) {
    SmallVector<OpOperand *> floats;
    for (OpOperand &operand : op->getOpOperands())
      if (FloatType t = floatElement(operand.get()))
        floats.push_back(&operand);
    if (floats.empty())
      return;
    PrecisionClass kind = PrecisionClass::Deny;
    if (auto policy = dyn_cast<PrecisionPolicyOpInterface>(op))
      kind = policy.getPrecisionClass();
    // An op pinned to f32 (dlc.precision) computes and stores like one
    // that denies low precision.
    if (keepsF32(op))
      kind = PrecisionClass::Deny;
    if (fp8 && kind == PrecisionClass::Prefer)
      if (auto matmul = dyn_cast<MatmulOp>(op); matmul && assignFp8(matmul))
        return;
    FloatType target;
    // The model's type of the operands (before this pass changed their
    // producers): results of that type follow the op.
    FloatType before = originalElement(floats.front()->get());
    switch (kind) {
    case PrecisionClass::Prefer:
      // Only f32 (or already low) products become low ones.
      target = llvm::all_of(floats,
                            [&](OpOperand *o) {
                              FloatType t = floatElement(o->get());
                              return t == f32 || t == low;
                            })
                   ? low
                   : FloatType();
      break;
    case PrecisionClass::Deny:
      // f32 when it reads a low value or was written for one (its operands
      // may be f32 now that their producers are).
      target =
          isLow(before) || llvm::any_of(floats,
                                        [&](OpOperand *o) {
                                          return isLow(floatElement(o->get()));
                                        })
              ? f32
              : FloatType();
      break;
    case PrecisionClass::Allow: {
      // The widest type among the operands that are not constants.
      for (OpOperand *o : floats) {
        if (o->get().getDefiningOp<ConstantOp>())
          continue;
        FloatType t = floatElement(o->get());
        if (!target || t.getWidth() > target.getWidth())
          target = t;
      }
      break;
    }
    }
    // fp16 has f32's precision needs but not its range: a result that
    // would come near fp16's largest value on the calibration inputs, or
    // an op fed a constant beyond it, stays f32.
    if (target && target == low && low.isF16()) {
      if (std::string why = rangeProblem(op, floats); !why.empty()) {
        op->emitRemark() << "stays f32 under fp16: " << why;
        LLVM_DEBUG(llvm::dbgs() << "f32 for range: " << *op << "\n");
        target = llvm::any_of(floats,
                              [&](OpOperand *o) {
                                return isLow(floatElement(o->get()));
                              })
                     ? f32
                     : FloatType();
      }
    }
    if (!target) {
      // The op keeps its types: operands whose producers changed type are
      // converted back to the ones it was written for.
      for (OpOperand *o : floats)
        if (FloatType was = originalElement(o->get());
            was != floatElement(o->get()))
          o->set(convert(o->get(), was));
      return;
    }
    for (OpOperand *o : floats)
      if (floatElement(o->get()) != target)
        o->set(convert(o->get(), target));
    // Results of the operands' former type take the new one.
    for (OpResult result : op->getResults())
      if (FloatType t = floatElement(result); t && t == before && t != target) {
        original.try_emplace(result, t);
        result.setType(withElement(result.getType(), target));
      }
  }

  /// Makes `op` an FP8 product if it can be one: a plain product of an
  /// activation whose range was calibrated and a constant weight matrix
  /// (cuBLASLt's FP8 layout and alignment: K and N multiples of 16), both
  /// quantized to E4M3 with per-tensor scales, the result in bf16. Returns
  /// false, with a remark saying why, for a product that stays bf16.
  bool assignFp8(MatmulOp op) {
    std::string why = fp8Problem(op);
    if (!why.empty()) {
      op->emitRemark() << "stays bf16 under fp8: " << why;
      return false;
    }
    auto weights = op.getRhs().getDefiningOp<ConstantOp>();
    double amaxX = *getAmax(op.getLhs());
    double amaxW = *rangeOf(weights);
    // An all-zero tensor quantizes exactly with any scale.
    double scaleX = amaxX > 0 ? kE4M3Max / amaxX : 1.0;
    double scaleW = amaxW > 0 ? kE4M3Max / amaxW : 1.0;
    Value &rhs = quantized[{weights, unsigned(op.getTransposeB())}];
    if (!rhs) {
      ElementsAttr data =
          quantizeWeights(weights.getValue(), op.getTransposeB(), scaleW);
      if (!data) {
        op->emitRemark() << "stays bf16 under fp8: its weights cannot be read";
        return false;
      }
      OpBuilder b(weights);
      b.setInsertionPointAfter(weights);
      rhs = b.create<ConstantOp>(weights.getLoc(), data).getResult();
    }
    Builder attrs(op->getContext());
    auto f8 = Float8E4M3FNType::get(op->getContext());
    // The activation's quantizing cast, shared by every product of it.
    auto key = std::make_pair(op.getLhs(), Type(f8));
    Value lhs = converted.lookup(key);
    if (!lhs) {
      OpBuilder at(op->getContext());
      at.setInsertionPointAfterValue(op.getLhs());
      auto cast = at.create<CastOp>(op.getLhs().getLoc(),
                                    withElement(op.getLhs().getType(), f8),
                                    op.getLhs());
      cast.setScaleAttr(attrs.getF64FloatAttr(scaleX));
      lhs = cast.getResult();
      converted[key] = lhs;
    }
    op.getLhsMutable().assign(lhs);
    op.getRhsMutable().assign(rhs);
    op.setTransposeB(true);
    op.setLhsScaleAttr(attrs.getF64FloatAttr(amaxX / kE4M3Max));
    op.setRhsScaleAttr(attrs.getF64FloatAttr(amaxW / kE4M3Max));
    OpResult result = op->getResult(0);
    if (FloatType t = floatElement(result); t != low) {
      original.try_emplace(result, t);
      result.setType(withElement(result.getType(), low));
    }
    return true;
  }

  /// Why quantizing `value` would take a kernel whose only work is the
  /// cast (its producer is a flash-attention kernel or a cuBLAS call, which
  /// store bf16), or "".
  std::string unfusedProducer(Value value) {
    // Views and plain casts fuse into whatever kernel the quantizing cast
    // joins.
    while (Operation *def = value.getDefiningOp()) {
      auto cast = dyn_cast<CastOp>(def);
      if (!isa<ReshapeOp, TransposeOp>(def) && !(cast && !cast.getScaleAttr()))
        break;
      value = def->getOperand(0);
    }
    Operation *def = value.getDefiningOp();
    if (!def)
      return "";
    if (isa<AttentionOp>(def))
      return "its activation is an attention's result (the flash-attention "
             "kernel stores bf16; quantizing it would be a kernel of its own)";
    // The product whose epilogue (bias, residual, activation) would end at
    // `value`, among the producers a few ops up.
    SmallVector<Operation *> worklist = {def};
    llvm::SmallPtrSet<Operation *, 16> seen;
    while (!worklist.empty() && seen.size() < 16) {
      Operation *op = worklist.pop_back_val();
      if (!seen.insert(op).second)
        continue;
      if (auto matmul = dyn_cast<MatmulOp>(op)) {
        if (epilogueEnd(matmul) == value)
          return "its activation is a matrix product's result (a cuBLAS "
                 "call stores bf16; quantizing it would be a kernel of its "
                 "own)";
        continue;
      }
      if (op->getNumResults() != 1 || op->getNumRegions() != 0)
        continue;
      for (Value operand : op->getOperands())
        if (Operation *producer = operand.getDefiningOp())
          worklist.push_back(producer);
    }
    return "";
  }

  /// Why `op` cannot be an FP8 product, or "".
  std::string fp8Problem(MatmulOp op) {
    if (op.hasEpilogue())
      return "it already has an epilogue";
    if (op.getTransposeA())
      return "its activation is transposed (cuBLASLt's FP8 layout has it "
             "row-major)";
    FloatType a = floatElement(op.getLhs()), w = floatElement(op.getRhs());
    if (!a || !w || isa<Float8E4M3FNType>(a))
      return "its operands are not f32, f16 or bf16";
    auto weights = op.getRhs().getDefiningOp<ConstantOp>();
    if (!weights)
      return "its second operand is not a constant (FP8 is for weights)";
    auto type = cast<RankedTensorType>(op.getRhs().getType());
    ArrayRef<int64_t> shape = type.getShape();
    if (llvm::any_of(shape.drop_back(2), [](int64_t d) { return d != 1; }))
      return "its weights have batch dimensions";
    int64_t k = shape[shape.size() - 2], n = shape.back();
    if (op.getTransposeB())
      std::swap(k, n);
    if (k % 16 != 0 || n % 16 != 0)
      return "its sizes K=" + std::to_string(k) +
             " and N=" + std::to_string(n) +
             " are not both multiples of 16 (cuBLASLt's FP8 alignment)";
    if (std::string why = unfusedProducer(op.getLhs()); !why.empty())
      return why;
    std::optional<double> amax = getAmax(op.getLhs());
    if (!amax)
      return "its activation has no calibrated range";
    if (!std::isfinite(*amax))
      return "its activation is not finite on the calibration inputs";
    std::optional<double> weightAmax = rangeOf(weights);
    if (!weightAmax)
      return "its weights are a constant of a form dlc cannot read";
    if (!std::isfinite(*weightAmax))
      return "its weights are not finite";
    return "";
  }

  /// Why `op`'s result cannot be stored in fp16 (its calibrated range or a
  /// constant operand's values), or "".
  std::string rangeProblem(Operation *op, ArrayRef<OpOperand *> floats) {
    std::string why;
    llvm::raw_string_ostream os(why);
    if (std::optional<double> amax = getAmax(op);
        amax && *amax > kF16RangeLimit) {
      os << "its values reach " << *amax
         << " on the calibration inputs, more than half of fp16's largest "
            "value (65504)";
      return why;
    }
    for (OpOperand *o : floats) {
      auto constant = o->get().getDefiningOp<ConstantOp>();
      if (!constant)
        continue;
      double amax = rangeOf(constant).value_or(0.0);
      if (amax > kF16Max) {
        os << "operand #" << o->getOperandNumber() << " is a constant of "
           << amax << ", beyond fp16's largest value (65504)";
        return why;
      }
    }
    return why;
  }

  /// The largest magnitude of constant `c`'s elements (constantAmax), read
  /// once per constant.
  std::optional<double> rangeOf(ConstantOp c) {
    auto [found, inserted] = constantRanges.try_emplace(c, std::nullopt);
    if (inserted)
      found->second = constantAmax(c.getValue());
    return found->second;
  }

  /// The element type `value` had before this pass.
  FloatType originalElement(Value value) {
    auto found = original.find(value);
    return found != original.end() ? found->second : floatElement(value);
  }

  /// `value` in element type `to`: a constant converted now, the input of
  /// a cast from `to`, or one shared dlc.cast after its definition.
  Value convert(Value value, FloatType to) {
    auto key = std::make_pair(value, Type(to));
    if (Value done = converted.lookup(key))
      return done;
    Type type = withElement(value.getType(), to);
    Value result;
    auto widened = [&](Value v) {
      auto cast = v.getDefiningOp<CastOp>();
      return cast && !cast.getScaleAttr() &&
                     floatElement(cast.getInput()) == to &&
                     floatElement(v).getWidth() > to.getWidth()
                 ? cast.getInput()
                 : Value();
    };
    if (auto cast = value.getDefiningOp<CastOp>();
        cast && !cast.getScaleAttr() && cast.getInput().getType() == type) {
      result = cast.getInput();
    } else if (auto reshape = value.getDefiningOp<ReshapeOp>();
               reshape && widened(reshape.getInput())) {
      // A view of a widened value (an argument under io-precision=low):
      // the same view of the narrow one, not a cast back.
      OpBuilder b(reshape);
      result = b.create<ReshapeOp>(reshape.getLoc(), type,
                                   widened(reshape.getInput()));
    } else if (auto constant = value.getDefiningOp<ConstantOp>()) {
      OpBuilder b(constant->getContext());
      b.setInsertionPointAfter(constant);
      if (ElementsAttr attr = convertConstant(constant.getValue(), to))
        result = b.create<ConstantOp>(constant.getLoc(), attr);
      else
        result = b.create<CastOp>(constant.getLoc(), type, value);
    } else {
      OpBuilder b(value.getContext());
      b.setInsertionPointAfterValue(value);
      result = b.create<CastOp>(value.getLoc(), type, value);
    }
    converted[key] = result;
    return result;
  }

  FloatType low, f32;
  /// --precision=fp8: FP8 products where they can be, low (bf16) elsewhere.
  bool fp8 = false;
  llvm::DenseMap<std::pair<Value, Type>, Value> converted;
  /// The largest magnitude of each f32 constant asked about.
  llvm::DenseMap<Operation *, std::optional<double>> constantRanges;
  /// The FP8 copy of each weight constant (by its transposition), shared by
  /// the products that read it.
  llvm::DenseMap<std::pair<Operation *, unsigned>, Value> quantized;
  /// The former element types of the results this pass changed.
  llvm::DenseMap<Value, FloatType> original;
};

} // namespace
