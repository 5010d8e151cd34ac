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
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value))
    return dense.mapValues(to, convert);
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  if (!resource)
    return {};
  AsmResourceBlob *blob = resource.getRawHandle().getBlob();
  const int64_t n = type.getNumElements();
  if (!blob || blob->getData().size() != size_t(n) * sizeof(float))
    return {};
  ArrayRef<char> in = blob->getData();
  AsmResourceBlob out =
      HeapAsmResourceBlob::allocate(size_t(n) * sizeof(uint16_t), 8);
  MutableArrayRef<char> bytes = out.getMutableData();
  for (int64_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, in.data() + i * sizeof(float), sizeof(float));
    uint16_t bits = uint16_t(convert(APFloat(f)).getZExtValue());
    std::memcpy(bytes.data() + i * sizeof(uint16_t), &bits, sizeof(bits));
  }
  std::string key =
      resource.getRawHandle().getKey().str() + (to.isBF16() ? "_bf16" : "_f16");
  return DenseResourceElementsAttr::get(result, key, std::move(out));
}

/// fp16's largest finite value.
constexpr double kF16Max = 65504;
/// A value whose calibrated magnitude passes this keeps f32 storage under
/// fp16: other inputs than the calibration ones may go twice as far.
constexpr double kF16RangeLimit = kF16Max / 2;

/// The largest magnitude among the elements of an f32 constant (NaN counts
/// as infinite); nullopt for a constant of another form.
std::optional<double> constantAmax(ElementsAttr value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.getElementType().isF32())
    return std::nullopt;
  double amax = 0;
  auto see = [&](double v) {
    amax = std::isnan(v) ? HUGE_VAL : std::max(amax, std::fabs(v));
  };
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value)) {
    if (dense.isSplat())
      see(dense.getSplatValue<APFloat>().convertToDouble());
    else
      for (const APFloat &v : dense.getValues<APFloat>())
        see(v.convertToDouble());
    return amax;
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(value);
  AsmResourceBlob *blob =
      resource ? resource.getRawHandle().getBlob() : nullptr;
  const int64_t n = type.getNumElements();
  if (!blob || blob->getData().size() != size_t(n) * sizeof(float))
    return std::nullopt;
  for (int64_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, blob->getData().data() + i * sizeof(float), sizeof(float));
    see(f);
  }
  return amax;
}

struct AssignPrecisionPass
    : public ::mlir::dlc::impl::AssignPrecisionBase<AssignPrecisionPass> {
  using AssignPrecisionBase::AssignPrecisionBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (precision == "f32" || precision == "tf32")
      return;
    MLIRContext *context = &getContext();
    if (precision == "bf16")
      low = BFloat16Type::get(context);
    else if (precision == "fp16")
      low = Float16Type::get(context);
    else {
      func.emitError() << "unknown precision '" << precision
                       << "'; expected f32, tf32, bf16 or fp16";
      return signalPassFailure();
    }
    f32 = Float32Type::get(context);
    // What an earlier function left (a pass instance may run on several).
    converted.clear();
    constantRanges.clear();
    original.clear();
    if (func.isExternal())
      return;
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
    // f32 weights that only their converted copies replace.
    for (Operation *op : ops)
      if (isa<ConstantOp>(op) && op->use_empty())
        op->erase();
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
      target = llvm::any_of(
                   floats,
                   [&](OpOperand *o) { return isLow(floatElement(o->get())); })
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
    if (!target)
      return;
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
      auto [found, inserted] = constantRanges.try_emplace(constant, 0.0);
      if (inserted)
        found->second = constantAmax(constant.getValue()).value_or(0.0);
      if (found->second > kF16Max) {
        os << "operand #" << o->getOperandNumber() << " is a constant of "
           << found->second << ", beyond fp16's largest value (65504)";
        return why;
      }
    }
    return why;
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
    if (auto cast = value.getDefiningOp<CastOp>();
        cast && cast.getInput().getType() == type) {
      result = cast.getInput();
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
  llvm::DenseMap<std::pair<Value, Type>, Value> converted;
  /// The largest magnitude of each f32 constant asked about.
  llvm::DenseMap<Operation *, double> constantRanges;
  /// The former element types of the results this pass changed.
  llvm::DenseMap<Value, FloatType> original;
};

} // namespace
