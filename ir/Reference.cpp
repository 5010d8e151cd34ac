//===- Reference.cpp - Double-precision reference interpreter -------------===//
//
// Each value is a row-major vector of doubles. Integers (i32, i64, i1) are
// stored as exact integral doubles; floating-point values of f32 ops keep full
// double precision, values of f16/bf16 ops are rounded to their type.
//
// Conversions to and from the runtime's byte layout are done here with
// llvm::APFloat rather than with the runtime's helpers so that the reference
// does not share code (and bugs) with what it checks.
//
//===----------------------------------------------------------------------===//
#include "ir/Reference.h"
#include "ir/ElementType.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>

using namespace mlir;
using namespace mlir::dlc;

namespace {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

/// Element types are the runtime's dtypes (ir/ElementType.h maps them).
using Elem = rt::DType;

std::optional<Elem> elemOf(Type type) { return mlir::dlc::dtypeOf(type); }

size_t byteSize(Elem e) { return rt::dtypeSize(e); }

/// The two's-complement value of the low bits of `v` for the integer type `e`.
/// i1 is treated as an unsigned 1-bit integer (0 or 1), as it is stored.
int64_t wrapInt(Elem e, uint64_t v) {
  switch (e) {
  case Elem::I32:
    return static_cast<int32_t>(static_cast<uint32_t>(v));
  case Elem::I1:
    return static_cast<int64_t>(v & 1);
  default:
    return static_cast<int64_t>(v);
  }
}

/// A stored integer value as int64 (its double is exact and in range).
int64_t asInt(double v) {
  if (v >= 9223372036854775807.0)
    return std::numeric_limits<int64_t>::max();
  if (v <= -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

/// Round half to even, written out rather than relying on the FP environment.
double roundHalfEven(double v) {
  double lower = std::floor(v);
  double diff = v - lower;
  if (diff > 0.5)
    return lower + 1;
  if (diff < 0.5)
    return lower;
  return std::fmod(lower, 2.0) == 0 ? lower : lower + 1;
}

/// Converts `v` (a value of type `from`) to type `to` with dlc.cast semantics:
/// float to float rounds to nearest even; float to integer rounds to nearest
/// even and saturates (NaN gives 0); anything to i1 is `v != 0`; integer to
/// integer wraps.
double convertValue(Elem from, Elem to, double v) {
  if (to == Elem::I1)
    return v != 0 ? 1.0 : 0.0;
  if (isFloat(to))
    return roundToFloat(to, v);
  if (!isFloat(from))
    return static_cast<double>(wrapInt(to, static_cast<uint64_t>(asInt(v))));
  if (std::isnan(v))
    return 0;
  double r = roundHalfEven(v);
  double lo = to == Elem::I32 ? -2147483648.0 : -9223372036854775808.0;
  // 2^63 - 1 is not a double; asInt() saturates 2^63 when it is stored.
  double hi = to == Elem::I32 ? 2147483647.0 : 9223372036854775807.0;
  return std::min(std::max(r, lo), hi);
}

/// Converts an f64 attribute (clamp bounds, pad value) to the element type,
/// with the dlc.cast rules for a floating-point source.
double convertScalar(Elem to, double v) {
  // Only whether the source is a float matters to convertValue; rounding to
  // a float `to` is done from the full double value.
  return convertValue(/*from=*/Elem::F32, to, v);
}

//===----------------------------------------------------------------------===//
// Tensors and index helpers
//===----------------------------------------------------------------------===//

struct Tensor {
  SmallVector<int64_t> shape;
  std::vector<double> data;
};
using TensorPtr = std::shared_ptr<const Tensor>;

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = (int64_t)shape.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Calls `fn(index, flat)` for every multi-index of `shape` in row-major
/// order, `flat` being its row-major position.
template <typename Fn> void forEachIndex(ArrayRef<int64_t> shape, Fn fn) {
  int64_t n = numElements(shape);
  SmallVector<int64_t> idx(shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    fn(ArrayRef<int64_t>(idx), flat);
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (++idx[d] < shape[d])
        break;
      idx[d] = 0;
    }
  }
}

/// For every element of `outShape`, the flat position of the element of a
/// tensor of shape `inShape` (same rank, each dimension equal or 1) that it
/// reads under broadcasting.
std::vector<int64_t> broadcastMap(ArrayRef<int64_t> inShape,
                                  ArrayRef<int64_t> outShape) {
  SmallVector<int64_t> strides = stridesOf(inShape);
  std::vector<int64_t> map(numElements(outShape));
  forEachIndex(outShape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    int64_t pos = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      pos += (inShape[d] == 1 ? 0 : idx[d]) * strides[d];
    map[flat] = pos;
  });
  return map;
}

//===----------------------------------------------------------------------===//
// Host tensor conversion
//===----------------------------------------------------------------------===//

double decodeElement(Elem e, const uint8_t *p) {
  switch (e) {
  case Elem::F32: {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  case Elem::F16:
  case Elem::BF16: {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return llvm::APFloat(floatSemantics(e), llvm::APInt(16, bits))
        .convertToDouble();
  }
  case Elem::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case Elem::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return static_cast<double>(v);
  }
  case Elem::I1:
    return *p != 0 ? 1.0 : 0.0;
  case Elem::F8E4M3:
    return llvm::APFloat(floatSemantics(e), llvm::APInt(8, *p))
        .convertToDouble();
  }
  return 0;
}

void encodeElement(Elem e, double v, uint8_t *p) {
  switch (e) {
  case Elem::F32: {
    // Exact: the rounded value is a float (or an infinity or NaN).
    float f = static_cast<float>(roundToFloat(Elem::F32, v));
    std::memcpy(p, &f, 4);
    return;
  }
  case Elem::F16:
  case Elem::BF16: {
    llvm::APFloat f(v);
    bool losesInfo = false;
    f.convert(floatSemantics(e), llvm::APFloat::rmNearestTiesToEven,
              &losesInfo);
    uint16_t bits = static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
    std::memcpy(p, &bits, 2);
    return;
  }
  case Elem::I32: {
    int32_t x = static_cast<int32_t>(wrapInt(Elem::I32, asInt(v)));
    std::memcpy(p, &x, 4);
    return;
  }
  case Elem::I64: {
    int64_t x = asInt(v);
    std::memcpy(p, &x, 8);
    return;
  }
  case Elem::I1:
    *p = v != 0 ? 1 : 0;
    return;
  case Elem::F8E4M3: {
    // Saturating, as dlc.cast.
    llvm::APFloat f(roundToFloat(e, v));
    bool losesInfo = false;
    f.convert(floatSemantics(e), llvm::APFloat::rmNearestTiesToEven,
              &losesInfo);
    *p = static_cast<uint8_t>(f.bitcastToAPInt().getZExtValue());
    return;
  }
  }
}

/// "f32[2, 3]" (spelled here so that the reference needs no runtime code).
std::string describeTensor(rt::DType dtype, ArrayRef<int64_t> shape) {
  static const char *const names[] = {"f32", "f16", "bf16",  "i32",
                                      "i64", "i1",  "f8e4m3"};
  unsigned index = static_cast<unsigned>(dtype);
  std::string s = index < 7 ? names[index] : "<unknown dtype>";
  s += "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

//===----------------------------------------------------------------------===//
// The interpreter
//===----------------------------------------------------------------------===//

class Interpreter {
public:
  /// Evaluates the ops of `block` (whose arguments are already bound) up to
  /// its terminator and returns the terminator's operand values.
  FailureOr<SmallVector<TensorPtr>> runBlock(Block &block);

  void bind(Value v, TensorPtr t) { env[v] = std::move(t); }

  /// Evaluates one op whose operands are bound; its result's value.
  FailureOr<TensorPtr> evaluate(Operation *op) {
    if (failed(evalOp(op)))
      return failure();
    return env.lookup(op->getResult(0));
  }

  /// Sees every op result (evaluateReference's observer), or null.
  ReferenceObserver observe = nullptr;

private:
  LogicalResult evalOp(Operation *op);
  FailureOr<Tensor> evalKernel(KernelOp op);
  FailureOr<Tensor> evalConstant(ConstantOp op);
  FailureOr<Tensor> evalUnary(Operation *op, Elem e);
  FailureOr<Tensor> evalBinary(Operation *op, Elem e);
  Tensor evalCmp(CmpOp op);
  Tensor evalSelect(SelectOp op);
  Tensor evalDropout(DropoutOp op);
  Tensor evalReduce(ReduceOp op, Elem e);
  Tensor evalArgMax(ArgMaxOp op);
  Tensor evalMatmul(MatmulOp op, Elem e);
  Tensor evalAttention(AttentionOp op);
  Tensor evalTranspose(TransposeOp op);
  Tensor evalSlice(SliceOp op);
  Tensor evalConcat(ConcatOp op);
  Tensor evalPad(PadOp op, Elem e);
  Tensor evalTile(TileOp op);
  Tensor evalConv2D(Conv2DOp op);
  Tensor evalConv(ConvOp op);
  Tensor evalConvTranspose2D(ConvTranspose2DOp op);
  Tensor evalPool2D(Pool2DOp op);
  Tensor evalIm2Col(Im2ColOp op);
  FailureOr<Tensor> evalGather(GatherOp op);
  Tensor evalResize(ResizeOp op);

  const Tensor &get(Value v) const { return *env.lookup(v); }

  /// Values of the ops evaluated so far. Shared pointers keep references
  /// stable while the map grows and let reshape and kernel arguments alias.
  llvm::DenseMap<Value, TensorPtr> env;

public:
  /// Elements of every tensor made so far (inputs and op results; values
  /// are kept to the end): at most kReferenceElementBudget.
  int64_t elements = 0;
};

/// The largest tensor the interpreter evaluates (8 GiB of doubles).
constexpr int64_t kMaxReferenceElements = int64_t(1) << 30;

/// A tensor of the shape of `v`'s type with zero-filled data.
Tensor emptyLike(Value v) {
  Tensor t;
  auto type = cast<RankedTensorType>(v.getType());
  t.shape.assign(type.getShape().begin(), type.getShape().end());
  t.data.assign(numElements(t.shape), 0.0);
  return t;
}

Elem elemOfValue(Value v) {
  return *elemOf(cast<RankedTensorType>(v.getType()).getElementType());
}

FailureOr<SmallVector<TensorPtr>> Interpreter::runBlock(Block &block) {
  for (Operation &op : block) {
    if (isa<func::ReturnOp, YieldOp>(op)) {
      SmallVector<TensorPtr> results;
      for (Value v : op.getOperands())
        results.push_back(env.lookup(v));
      return results;
    }
    if (failed(evalOp(&op)))
      return failure();
  }
  // Every other op is a dlc op that is not a terminator, or evalOp rejects
  // it; a verified block of only those ends in func.return or dlc.yield.
  llvm_unreachable("block without func.return or dlc.yield");
}

LogicalResult Interpreter::evalOp(Operation *op) {
  if (!isa_and_nonnull<DlcDialect>(op->getDialect()))
    return op->emitOpError()
           << "is not a dlc operation; the reference interpreter evaluates "
              "dlc IR only (lower the model with the dlc-lower pipeline first)";
  // dlc ops take and give static tensors of dlc element types (ODS), and
  // their operands were computed before them: by dominance they are
  // arguments or results of earlier dlc ops (any other op was rejected).
  assert(llvm::all_of(op->getOperands(),
                      [&](Value v) { return env.count(v) != 0; }) &&
         "operand not computed");
  // Every value is a vector of doubles: a tensor that fits the device (even
  // one fused away inside a kernel) may not fit here.
  for (Value v : op->getResults()) {
    int64_t n = cast<RankedTensorType>(v.getType()).getNumElements();
    if (n > kMaxReferenceElements)
      return op->emitOpError()
             << "has a result of " << n
             << " elements; the reference interpreter evaluates tensors of at "
                "most "
             << kMaxReferenceElements << " elements";
    // All values together, so that a model of many large constants cannot
    // make the interpreter allocate without bound either. (A kernel's
    // results are its body's values, counted there.)
    if (isa<KernelOp>(op))
      continue;
    if (n > kReferenceElementBudget - elements)
      return op->emitOpError()
             << "has a result of " << n << " elements, which would bring the "
             << "reference interpreter's tensors to " << elements + n
             << " elements; it evaluates models whose values hold at most "
             << kReferenceElementBudget << " elements in all";
    elements += n;
  }

  if (auto kernel = dyn_cast<KernelOp>(op)) {
    // A kernel has several results: evaluate the body and bind them all.
    for (auto [arg, input] :
         llvm::zip(kernel.getBodyBlock().getArguments(), kernel.getInputs()))
      bind(arg, env.lookup(input));
    FailureOr<SmallVector<TensorPtr>> results = runBlock(kernel.getBodyBlock());
    if (failed(results))
      return failure();
    for (auto [result, value] : llvm::zip(kernel.getResults(), *results))
      bind(result, value);
    return success();
  }
  // Every dlc op but dlc.kernel and dlc.yield has one result.
  assert(op->getNumResults() == 1 && "dlc op with several results");
  Value result = op->getResult(0);
  Elem e = elemOfValue(result);
  FailureOr<Tensor> out = failure();
  if (auto c = dyn_cast<ConstantOp>(op)) {
    out = evalConstant(c);
  } else if (isa<ExpOp, LogOp, TanhOp, SigmoidOp, ErfOp, RsqrtOp, SqrtOp,
                 ReciprocalOp, AbsOp, NegOp, NotOp, ClampOp, CastOp>(op)) {
    out = evalUnary(op, e);
  } else if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, AndOp, OrOp>(
                 op)) {
    out = evalBinary(op, e);
  } else if (auto cmp = dyn_cast<CmpOp>(op)) {
    out = evalCmp(cmp);
  } else if (auto sel = dyn_cast<SelectOp>(op)) {
    out = evalSelect(sel);
  } else if (auto dropout = dyn_cast<DropoutOp>(op)) {
    out = evalDropout(dropout);
  } else if (auto reduce = dyn_cast<ReduceOp>(op)) {
    out = evalReduce(reduce, e);
  } else if (auto argmax = dyn_cast<ArgMaxOp>(op)) {
    out = evalArgMax(argmax);
  } else if (auto matmul = dyn_cast<MatmulOp>(op)) {
    out = evalMatmul(matmul, e);
  } else if (auto attention = dyn_cast<AttentionOp>(op)) {
    out = evalAttention(attention);
  } else if (auto transpose = dyn_cast<TransposeOp>(op)) {
    out = evalTranspose(transpose);
  } else if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    Tensor t = emptyLike(result);
    t.data = get(reshape.getInput()).data;
    out = std::move(t);
  } else if (auto slice = dyn_cast<SliceOp>(op)) {
    out = evalSlice(slice);
  } else if (auto concat = dyn_cast<ConcatOp>(op)) {
    out = evalConcat(concat);
  } else if (auto pad = dyn_cast<PadOp>(op)) {
    out = evalPad(pad, e);
  } else if (auto tile = dyn_cast<TileOp>(op)) {
    out = evalTile(tile);
  } else if (auto conv = dyn_cast<Conv2DOp>(op)) {
    out = evalConv2D(conv);
  } else if (auto conv = dyn_cast<ConvOp>(op)) {
    out = evalConv(conv);
  } else if (auto convT = dyn_cast<ConvTranspose2DOp>(op)) {
    out = evalConvTranspose2D(convT);
  } else if (auto pool = dyn_cast<Pool2DOp>(op)) {
    out = evalPool2D(pool);
  } else if (auto im2col = dyn_cast<Im2ColOp>(op)) {
    out = evalIm2Col(im2col);
  } else if (auto gather = dyn_cast<GatherOp>(op)) {
    out = evalGather(gather);
  } else if (auto resize = dyn_cast<ResizeOp>(op)) {
    out = evalResize(resize);
  } else {
    return op->emitOpError() << "is not supported by the reference interpreter";
  }
  if (failed(out))
    return failure();
  // The device stores every f16/bf16/f8 intermediate in its type.
  if (e == Elem::F16 || e == Elem::BF16 || e == Elem::F8E4M3)
    for (double &x : out->data)
      x = roundToFloat(e, x);
  if (observe)
    observe(cast<OpResult>(result), out->data);
  bind(result, std::make_shared<const Tensor>(std::move(*out)));
  return success();
}

FailureOr<Tensor> Interpreter::evalConstant(ConstantOp op) {
  Tensor t = emptyLike(op.getResult());
  Elem e = elemOfValue(op.getResult());
  Attribute value = op.getValue();
  int64_t n = t.data.size();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    int64_t i = 0;
    if (isFloat(e)) {
      for (const APFloat &f : dense.getValues<APFloat>())
        t.data[i++] = f.convertToDouble();
    } else {
      for (const APInt &v : dense.getValues<APInt>())
        t.data[i++] = e == Elem::I1 ? (v.isZero() ? 0.0 : 1.0)
                                    : static_cast<double>(v.getSExtValue());
    }
    return t;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return op.emitOpError()
             << "refers to the resource '" << resource.getRawHandle().getKey()
             << "', whose data is not loaded";
    ArrayRef<char> bytes = blob->getData();
    if (std::string wrong =
            resourceSizeError(cast<ShapedType>(op.getType()), bytes.size(),
                              resource.getRawHandle().getKey());
        !wrong.empty())
      return op.emitOpError() << wrong;
    for (int64_t i = 0; i < n; ++i)
      t.data[i] = decodeElement(
          e, reinterpret_cast<const uint8_t *>(bytes.data()) + i * byteSize(e));
    return t;
  }
  return op.emitOpError()
         << "has a value attribute the reference interpreter cannot read "
            "(expected dense or dense_resource elements)";
}

/// Logistic function written to avoid overflow of exp for large |x|.
double sigmoid(double x) {
  if (x >= 0)
    return 1.0 / (1.0 + std::exp(-x));
  double z = std::exp(x);
  return z / (1.0 + z);
}

FailureOr<Tensor> Interpreter::evalUnary(Operation *op, Elem e) {
  const Tensor &in = get(op->getOperand(0));
  Elem inElem = elemOfValue(op->getOperand(0));
  Tensor out = emptyLike(op->getResult(0));
  std::function<double(double)> fn;
  if (isa<ExpOp>(op)) {
    fn = [](double x) { return std::exp(x); };
  } else if (isa<LogOp>(op)) {
    fn = [](double x) { return std::log(x); };
  } else if (isa<TanhOp>(op)) {
    fn = [](double x) { return std::tanh(x); };
  } else if (isa<SigmoidOp>(op)) {
    fn = sigmoid;
  } else if (isa<ErfOp>(op)) {
    fn = [](double x) { return std::erf(x); };
  } else if (isa<RsqrtOp>(op)) {
    fn = [](double x) { return 1.0 / std::sqrt(x); };
  } else if (isa<SqrtOp>(op)) {
    fn = [](double x) { return std::sqrt(x); };
  } else if (isa<ReciprocalOp>(op)) {
    fn = [](double x) { return 1.0 / x; };
  } else if (isa<AbsOp>(op)) {
    if (isFloat(e))
      fn = [](double x) { return std::fabs(x); };
    else // |INT_MIN| wraps to INT_MIN, like the device.
      fn = [e](double x) {
        int64_t v = asInt(x);
        uint64_t u = static_cast<uint64_t>(v);
        return static_cast<double>(wrapInt(e, v < 0 ? 0 - u : u));
      };
  } else if (isa<NegOp>(op)) {
    if (isFloat(e))
      fn = [](double x) { return -x; };
    else
      fn = [e](double x) {
        return static_cast<double>(
            wrapInt(e, 0 - static_cast<uint64_t>(asInt(x))));
      };
  } else if (isa<NotOp>(op)) {
    fn = [](double x) { return x != 0 ? 0.0 : 1.0; };
  } else if (auto clamp = dyn_cast<ClampOp>(op)) {
    double lo = convertScalar(e, clamp.getMin().convertToDouble());
    double hi = convertScalar(e, clamp.getMax().convertToDouble());
    // fmax/fmin (CUDA's fmaxf/fminf): a NaN input gives the lower bound.
    fn = [lo, hi](double x) { return std::fmin(std::fmax(x, lo), hi); };
  } else {
    // evalOp dispatches only the unary ops above and dlc.cast here.
    assert(isa<CastOp>(op) && "not a unary op");
    if (FloatAttr scale = cast<CastOp>(op).getScaleAttr()) {
      // The quantization scale multiplies in f32, then the value rounds.
      float s = float(scale.getValueAsDouble());
      fn = [inElem, e, s](double x) {
        return convertValue(inElem, e, double(float(x) * s));
      };
    } else {
      fn = [inElem, e](double x) { return convertValue(inElem, e, x); };
    }
  }
  for (size_t i = 0; i < in.data.size(); ++i)
    out.data[i] = fn(in.data[i]);
  return out;
}

/// `base` to the power `exp` with wrap-around; negative exponents truncate
/// toward zero like integer division (1/base^|exp|).
int64_t intPow(Elem e, int64_t base, int64_t exp) {
  if (exp < 0) {
    if (base == 1)
      return 1;
    if (base == -1)
      return (exp % 2 == 0) ? 1 : wrapInt(e, static_cast<uint64_t>(-1));
    return 0;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  while (exp > 0) {
    if (exp & 1)
      result *= b;
    b *= b;
    exp >>= 1;
  }
  return wrapInt(e, result);
}

FailureOr<Tensor> Interpreter::evalBinary(Operation *op, Elem e) {
  const Tensor &lhs = get(op->getOperand(0));
  const Tensor &rhs = get(op->getOperand(1));
  Tensor out = emptyLike(op->getResult(0));
  std::vector<int64_t> lmap = broadcastMap(lhs.shape, out.shape);
  std::vector<int64_t> rmap = broadcastMap(rhs.shape, out.shape);

  if (isFloat(e)) {
    std::function<double(double, double)> fn;
    if (isa<AddOp>(op))
      fn = [](double a, double b) { return a + b; };
    else if (isa<SubOp>(op))
      fn = [](double a, double b) { return a - b; };
    else if (isa<MulOp>(op))
      fn = [](double a, double b) { return a * b; };
    else if (isa<DivOp>(op))
      fn = [](double a, double b) { return a / b; };
    else if (isa<MaxOp>(op))
      fn = [](double a, double b) { return std::fmax(a, b); };
    else if (isa<MinOp>(op))
      fn = [](double a, double b) { return std::fmin(a, b); };
    else if (isa<PowOp>(op))
      fn = [](double a, double b) { return std::pow(a, b); };
    else
      return op->emitOpError()
             << "is not defined on floating-point tensors (it needs i1 or "
                "integer operands)";
    for (size_t i = 0; i < out.data.size(); ++i)
      out.data[i] = fn(lhs.data[lmap[i]], rhs.data[rmap[i]]);
    return out;
  }

  // Integers: compute on uint64 so that overflow wraps, then truncate to the
  // element width.
  for (size_t i = 0; i < out.data.size(); ++i) {
    int64_t a = asInt(lhs.data[lmap[i]]), b = asInt(rhs.data[rmap[i]]);
    uint64_t ua = static_cast<uint64_t>(a), ub = static_cast<uint64_t>(b);
    int64_t r;
    if (isa<AddOp>(op)) {
      r = wrapInt(e, ua + ub);
    } else if (isa<SubOp>(op)) {
      r = wrapInt(e, ua - ub);
    } else if (isa<MulOp>(op)) {
      r = wrapInt(e, ua * ub);
    } else if (isa<DivOp>(op)) {
      if (b == 0)
        return op->emitOpError()
               << "divides by zero (element " << i << " of the result)";
      // INT64_MIN / -1 overflows in C++; its wrapped quotient is INT64_MIN.
      if (b == -1)
        r = wrapInt(e, 0 - ua);
      else
        r = wrapInt(e, static_cast<uint64_t>(a / b));
    } else if (isa<MaxOp>(op)) {
      r = std::max(a, b);
    } else if (isa<MinOp>(op)) {
      r = std::min(a, b);
    } else if (isa<PowOp>(op)) {
      r = intPow(e, a, b);
    } else if (isa<AndOp>(op)) {
      r = wrapInt(e, ua & ub);
    } else {
      // evalOp dispatches only the binary ops above and dlc.or here.
      assert(isa<OrOp>(op) && "not a binary op");
      r = wrapInt(e, ua | ub);
    }
    out.data[i] = static_cast<double>(r);
  }
  return out;
}

Tensor Interpreter::evalCmp(CmpOp op) {
  const Tensor &lhs = get(op.getLhs());
  const Tensor &rhs = get(op.getRhs());
  Tensor out = emptyLike(op.getResult());
  std::vector<int64_t> lmap = broadcastMap(lhs.shape, out.shape);
  std::vector<int64_t> rmap = broadcastMap(rhs.shape, out.shape);
  CmpPredicate pred = op.getPredicate();
  for (size_t i = 0; i < out.data.size(); ++i) {
    double a = lhs.data[lmap[i]], b = rhs.data[rmap[i]];
    bool r = compare(pred, a, b);
    out.data[i] = r ? 1.0 : 0.0;
  }
  return out;
}

Tensor Interpreter::evalSelect(SelectOp op) {
  const Tensor &cond = get(op.getCond());
  const Tensor &onTrue = get(op.getOnTrue());
  const Tensor &onFalse = get(op.getOnFalse());
  Tensor out = emptyLike(op.getResult());
  std::vector<int64_t> cmap = broadcastMap(cond.shape, out.shape);
  std::vector<int64_t> tmap = broadcastMap(onTrue.shape, out.shape);
  std::vector<int64_t> fmap = broadcastMap(onFalse.shape, out.shape);
  for (size_t i = 0; i < out.data.size(); ++i)
    out.data[i] =
        cond.data[cmap[i]] != 0 ? onTrue.data[tmap[i]] : onFalse.data[fmap[i]];
  return out;
}

/// Element i (row-major) is kept when Philox's first word for counter
/// (i, offset) has its top 24 bits at or above the threshold.
Tensor Interpreter::evalDropout(DropoutOp op) {
  const Tensor &in = get(op.getInput());
  auto offset = static_cast<uint64_t>(asInt(get(op.getOffset()).data[0]));
  Tensor out = emptyLike(op.getResult());
  uint32_t threshold = op.getKeepThreshold();
  double scale = op.getKeptScale();
  auto [k0, k1] = op.getKey();
  for (size_t i = 0; i < out.data.size(); ++i) {
    uint64_t index = i;
    uint32_t r = philox4x32({uint32_t(index), uint32_t(index >> 32),
                             uint32_t(offset), uint32_t(offset >> 32)},
                            {k0, k1})[0];
    // x * mask * scale: a dropped NaN stays NaN, as in PyTorch.
    out.data[i] = in.data[i] * ((r >> 8) >= threshold ? scale : 0.0);
  }
  return out;
}

Tensor Interpreter::evalReduce(ReduceOp op, Elem e) {
  const Tensor &in = get(op.getInput());
  Tensor out = emptyLike(op.getResult());
  ReduceKind kind = op.getKind();
  // Position in the result of every input element: reduced axes collapse.
  std::vector<int64_t> outPos(in.data.size());
  SmallVector<int64_t> outStrides = stridesOf(out.shape);
  forEachIndex(in.shape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    int64_t pos = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      pos += (out.shape[d] == 1 ? 0 : idx[d]) * outStrides[d];
    outPos[flat] = pos;
  });

  if (isFloat(e)) {
    double init = 0;
    if (kind == ReduceKind::prod)
      init = 1;
    else if (kind == ReduceKind::max)
      init = -std::numeric_limits<double>::infinity();
    else if (kind == ReduceKind::min)
      init = std::numeric_limits<double>::infinity();
    std::fill(out.data.begin(), out.data.end(), init);
    for (size_t i = 0; i < in.data.size(); ++i) {
      double &acc = out.data[outPos[i]];
      double x = in.data[i];
      switch (kind) {
      case ReduceKind::sum:
        acc += x;
        break;
      case ReduceKind::prod:
        acc *= x;
        break;
      case ReduceKind::max:
        acc = std::fmax(acc, x);
        break;
      case ReduceKind::min:
        acc = std::fmin(acc, x);
        break;
      }
    }
    return out;
  }

  std::vector<uint64_t> acc(out.data.size());
  std::vector<bool> seen(out.data.size(), false);
  for (size_t i = 0; i < in.data.size(); ++i) {
    int64_t pos = outPos[i];
    int64_t x = asInt(in.data[i]);
    if (!seen[pos]) {
      acc[pos] = static_cast<uint64_t>(x);
      seen[pos] = true;
      continue;
    }
    int64_t a = static_cast<int64_t>(acc[pos]);
    switch (kind) {
    case ReduceKind::sum:
      acc[pos] += static_cast<uint64_t>(x);
      break;
    case ReduceKind::prod:
      acc[pos] *= static_cast<uint64_t>(x);
      break;
    case ReduceKind::max:
      acc[pos] = static_cast<uint64_t>(std::max(a, x));
      break;
    case ReduceKind::min:
      acc[pos] = static_cast<uint64_t>(std::min(a, x));
      break;
    }
  }
  // An empty reduction gives the identity of the combiner.
  for (size_t i = 0; i < out.data.size(); ++i) {
    if (!seen[i]) {
      out.data[i] = kind == ReduceKind::prod ? 1 : 0;
      continue;
    }
    out.data[i] = static_cast<double>(wrapInt(e, acc[i]));
  }
  return out;
}

Tensor Interpreter::evalArgMax(ArgMaxOp op) {
  const Tensor &in = get(op.getInput());
  Tensor out = emptyLike(op.getResult());
  int64_t axis = op.getAxis();
  int64_t size = in.shape[axis];
  SmallVector<int64_t> inStrides = stridesOf(in.shape);
  int64_t stride = inStrides[axis];
  forEachIndex(out.shape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    int64_t base = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      base += idx[d] * inStrides[d];
    // Strictly greater: ties keep the first index (NaNs are never chosen
    // unless they come first).
    int64_t best = 0;
    for (int64_t k = 1; k < size; ++k)
      if (in.data[base + k * stride] > in.data[base + best * stride])
        best = k;
    out.data[flat] = static_cast<double>(best);
  });
  return out;
}

Tensor Interpreter::evalMatmul(MatmulOp op, Elem e) {
  const Tensor &a = get(op.getLhs());
  const Tensor &b = get(op.getRhs());
  Tensor out = emptyLike(op.getResult());
  int64_t rank = out.shape.size();
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  int64_t m = out.shape[rank - 2], n = out.shape[rank - 1];
  int64_t k = ta ? a.shape[rank - 2] : a.shape[rank - 1];
  ArrayRef<int64_t> outBatch = ArrayRef<int64_t>(out.shape).drop_back(2);
  ArrayRef<int64_t> aBatch = ArrayRef<int64_t>(a.shape).drop_back(2);
  ArrayRef<int64_t> bBatch = ArrayRef<int64_t>(b.shape).drop_back(2);
  // Matrix index within each operand's batch for every result batch index.
  std::vector<int64_t> aMap = broadcastMap(aBatch, outBatch);
  std::vector<int64_t> bMap = broadcastMap(bBatch, outBatch);
  // acc_type is not modelled: float products accumulate in double. FP8
  // operands' scales multiply the sum.
  bool fp = isFloat(e);
  double scale = 1.0;
  if (FloatAttr s = op.getLhsScaleAttr())
    scale *= s.getValueAsDouble();
  if (FloatAttr s = op.getRhsScaleAttr())
    scale *= s.getValueAsDouble();
  for (size_t batch = 0; batch < aMap.size(); ++batch) {
    const double *A = a.data.data() + aMap[batch] * m * k;
    const double *B = b.data.data() + bMap[batch] * k * n;
    double *C = out.data.data() + batch * m * n;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double facc = 0;
        uint64_t iacc = 0;
        for (int64_t p = 0; p < k; ++p) {
          // A is stored [k, m] when transposed, [m, k] otherwise; B is
          // stored [n, k] when transposed, [k, n] otherwise.
          double x = ta ? A[p * m + i] : A[i * k + p];
          double y = tb ? B[j * k + p] : B[p * n + j];
          if (fp)
            facc += x * y;
          else
            iacc += static_cast<uint64_t>(asInt(x)) *
                    static_cast<uint64_t>(asInt(y));
        }
        C[i * n + j] =
            fp ? facc * scale : static_cast<double>(wrapInt(e, iacc));
      }
    }
  }
  // The epilogue: + bias (a vector along the last dimension) + addend, then
  // the activation; f16/bf16 results are rounded once, by evalOp.
  const Tensor *bias = op.getBias() ? &get(op.getBias()) : nullptr;
  const Tensor *addend = op.getAddend() ? &get(op.getAddend()) : nullptr;
  EpilogueKind act = op.getEpilogue();
  if (!bias && !addend && act == EpilogueKind::none)
    return out;
  for (size_t i = 0; i < out.data.size(); ++i) {
    double v = out.data[i];
    if (fp) {
      if (bias)
        v += bias->data[i % n];
      if (addend)
        v += addend->data[i];
    } else {
      uint64_t x = static_cast<uint64_t>(asInt(v));
      if (bias)
        x += static_cast<uint64_t>(asInt(bias->data[i % n]));
      if (addend)
        x += static_cast<uint64_t>(asInt(addend->data[i]));
      v = static_cast<double>(wrapInt(e, x));
    }
    if (act == EpilogueKind::relu)
      v = std::fmax(v, 0.0); // as dlc.max: max(NaN, 0) is 0
    else if (act == EpilogueKind::gelu_tanh)
      v = 0.5 * v *
          (1.0 + std::tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    out.data[i] = v;
  }
  return out;
}

/// The softmax of each query's scores over the keys it sees, in double; a
/// query that sees no key with a score above -inf gets a row of zeros (the
/// op's definition, where the decomposed softmax would give NaN).
Tensor Interpreter::evalAttention(AttentionOp op) {
  const Tensor &q = get(op.getQ());
  const Tensor &k = get(op.getK());
  const Tensor &v = get(op.getV());
  const Tensor *mask = op.getMask() ? &get(op.getMask()) : nullptr;
  Tensor out = emptyLike(op.getResult());
  int64_t rank = out.shape.size();
  double scale = op.getScale().convertToDouble();
  bool causal = op.getCausal();
  // Each result matrix [Sq, Dv] (one per batch index, and per head in the
  // heads layout): where its q, k, v, mask and output rows start, and the
  // distance between consecutive rows of each.
  struct Matrix {
    int64_t q, k, v, mask, out;
  };
  std::vector<Matrix> matrices;
  int64_t sq, d, sk, dv, qPitch, kPitch, vPitch, outPitch;
  int64_t maskRowStride = 0, maskColStride = 0;
  if (op.isHeadsLayout()) {
    // [B, S, heads, D] (or [S, B, heads, D]); the mask broadcasts to
    // [B, H, Sq, Sk]. Strides of dimensions 0 and 1 of a rank-4 tensor t.
    ArrayRef<int64_t> offsets = *op.getHeadOffsets();
    int64_t sd = op.seqDim(), bd = op.batchDim();
    auto stride = [](const Tensor &t, int64_t dim) {
      return dim == 0 ? t.shape[1] * t.shape[2] * t.shape[3]
                      : t.shape[2] * t.shape[3];
    };
    auto batchStride = [&](const Tensor &t) {
      return t.shape[bd] == 1 ? 0 : stride(t, bd);
    };
    sq = q.shape[sd], d = q.shape[3], sk = k.shape[sd], dv = v.shape[3];
    int64_t batches = out.shape[bd], heads = out.shape[2];
    qPitch = stride(q, sd), kPitch = stride(k, sd), vPitch = stride(v, sd);
    outPitch = stride(out, sd);
    SmallVector<int64_t> ms = mask ? SmallVector<int64_t>(mask->shape)
                                   : SmallVector<int64_t>{1, 1, 1, 1};
    maskColStride = ms[3] == 1 ? 0 : 1;
    maskRowStride = ms[2] == 1 ? 0 : ms[3];
    const int64_t groups = op.kvGroupSize();
    for (int64_t b = 0; b < batches; ++b)
      for (int64_t h = 0; h < heads; ++h) {
        Matrix m;
        m.q = b * batchStride(q) + (offsets[0] + h) * d;
        m.k = b * batchStride(k) + (offsets[1] + h / groups) * d;
        m.v = b * batchStride(v) + (offsets[2] + h / groups) * dv;
        m.mask = ((ms[0] == 1 ? 0 : b) * ms[1] + (ms[1] == 1 ? 0 : h)) * ms[2] *
                 ms[3];
        m.out = b * stride(out, bd) + h * dv;
        matrices.push_back(m);
      }
  } else {
    sq = q.shape[rank - 2], d = q.shape[rank - 1];
    sk = k.shape[rank - 2], dv = v.shape[rank - 1];
    qPitch = d, kPitch = d, vPitch = dv, outPitch = dv;
    ArrayRef<int64_t> outBatch = ArrayRef<int64_t>(out.shape).drop_back(2);
    std::vector<int64_t> qMap =
        broadcastMap(ArrayRef<int64_t>(q.shape).drop_back(2), outBatch);
    std::vector<int64_t> kMap =
        broadcastMap(ArrayRef<int64_t>(k.shape).drop_back(2), outBatch);
    std::vector<int64_t> vMap =
        broadcastMap(ArrayRef<int64_t>(v.shape).drop_back(2), outBatch);
    // The mask's element offsets: its batch matrix, then stride 0 along a
    // broadcast query or key dimension.
    std::vector<int64_t> maskMap(qMap.size(), 0);
    if (mask) {
      ArrayRef<int64_t> ms = mask->shape;
      maskMap = broadcastMap(ms.drop_back(2), outBatch);
      maskColStride = ms[rank - 1] == 1 ? 0 : 1;
      maskRowStride = ms[rank - 2] == 1 ? 0 : ms[rank - 1];
      for (int64_t &m : maskMap)
        m *= ms[rank - 2] * ms[rank - 1];
    }
    for (size_t b = 0; b < qMap.size(); ++b)
      matrices.push_back({qMap[b] * sq * d, kMap[b] * sk * d, vMap[b] * sk * dv,
                          maskMap[b], int64_t(b) * sq * dv});
  }
  std::vector<double> scores(sk);
  for (const Matrix &mat : matrices) {
    const double *Q = q.data.data() + mat.q;
    const double *K = k.data.data() + mat.k;
    const double *V = v.data.data() + mat.v;
    double *O = out.data.data() + mat.out;
    for (int64_t i = 0; i < sq; ++i) {
      // Keys past i + (sk - sq) are hidden under `causal`.
      int64_t visible =
          causal ? std::clamp<int64_t>(i + sk - sq + 1, 0, sk) : sk;
      double max = -std::numeric_limits<double>::infinity();
      for (int64_t j = 0; j < visible; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < d; ++c)
          dot += Q[i * qPitch + c] * K[j * kPitch + c];
        double s = scale * dot;
        if (mask)
          s += mask->data[mat.mask + i * maskRowStride + j * maskColStride];
        scores[j] = s;
        max = std::max(max, s);
      }
      if (max == -std::numeric_limits<double>::infinity())
        continue; // a row of zeros
      double sum = 0;
      for (int64_t j = 0; j < visible; ++j) {
        scores[j] = std::exp(scores[j] - max);
        sum += scores[j];
      }
      for (int64_t c = 0; c < dv; ++c) {
        double acc = 0;
        for (int64_t j = 0; j < visible; ++j)
          acc += scores[j] * V[j * vPitch + c];
        O[i * outPitch + c] = acc / sum;
      }
    }
  }
  return out;
}

Tensor Interpreter::evalTranspose(TransposeOp op) {
  const Tensor &in = get(op.getInput());
  Tensor out = emptyLike(op.getResult());
  ArrayRef<int64_t> perm = op.getPerm();
  SmallVector<int64_t> inStrides = stridesOf(in.shape);
  // Result dimension k is input dimension perm[k].
  forEachIndex(out.shape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    int64_t pos = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      pos += idx[d] * inStrides[perm[d]];
    out.data[flat] = in.data[pos];
  });
  return out;
}

Tensor Interpreter::evalSlice(SliceOp op) {
  const Tensor &in = get(op.getInput());
  Tensor out = emptyLike(op.getResult());
  ArrayRef<int64_t> start = op.getStart();
  SmallVector<int64_t> steps(start.size(), 1);
  if (auto given = op.getStrides())
    steps.assign(given->begin(), given->end());
  SmallVector<int64_t> inStrides = stridesOf(in.shape);
  forEachIndex(out.shape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    int64_t pos = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      pos += (start[d] + idx[d] * steps[d]) * inStrides[d];
    out.data[flat] = in.data[pos];
  });
  return out;
}

Tensor Interpreter::evalConcat(ConcatOp op) {
  Tensor out = emptyLike(op.getResult());
  int64_t axis = op.getAxis();
  SmallVector<int64_t> outStrides = stridesOf(out.shape);
  int64_t offset = 0;
  for (Value v : op.getInputs()) {
    const Tensor &in = get(v);
    forEachIndex(in.shape, [&](ArrayRef<int64_t> idx, int64_t flat) {
      int64_t pos = 0;
      for (size_t d = 0; d < idx.size(); ++d)
        pos += (idx[d] + ((int64_t)d == axis ? offset : 0)) * outStrides[d];
      out.data[pos] = in.data[flat];
    });
    offset += in.shape[axis];
  }
  return out;
}

Tensor Interpreter::evalPad(PadOp op, Elem e) {
  const Tensor &in = get(op.getInput());
  Tensor out = emptyLike(op.getResult());
  std::fill(out.data.begin(), out.data.end(),
            convertScalar(e, op.getValue().convertToDouble()));
  ArrayRef<int64_t> low = op.getLow();
  SmallVector<int64_t> outStrides = stridesOf(out.shape);
  forEachIndex(in.shape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    int64_t pos = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      pos += (idx[d] + low[d]) * outStrides[d];
    out.data[pos] = in.data[flat];
  });
  return out;
}

Tensor Interpreter::evalTile(TileOp op) {
  const Tensor &in = get(op.getInput());
  Tensor out = emptyLike(op.getResult());
  SmallVector<int64_t> inStrides = stridesOf(in.shape);
  forEachIndex(out.shape, [&](ArrayRef<int64_t> idx, int64_t flat) {
    int64_t pos = 0;
    for (size_t d = 0; d < idx.size(); ++d)
      pos += (idx[d] % in.shape[d]) * inStrides[d];
    out.data[flat] = in.data[pos];
  });
  return out;
}

/// Element [n, c, h, w] of an NCHW tensor, 0 outside its rows and columns
/// (zero padding).
double at4(const Tensor &t, int64_t n, int64_t c, int64_t h, int64_t w) {
  if (h < 0 || h >= t.shape[2] || w < 0 || w >= t.shape[3])
    return 0.0;
  return t.data[((n * t.shape[1] + c) * t.shape[2] + h) * t.shape[3] + w];
}

Tensor Interpreter::evalConv2D(Conv2DOp op) {
  const Tensor &x = get(op.getInput());
  const Tensor &w = get(op.getFilter());
  Tensor out = emptyLike(op.getResult());
  ArrayRef<int64_t> s = op.getStrides(), p = op.getPads(),
                    d = op.getDilations();
  int64_t ocPerGroup = out.shape[1] / op.getGroups();
  int64_t cPerGroup = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  forEachIndex(out.shape, [&](ArrayRef<int64_t> i, int64_t flat) {
    int64_t g = i[1] / ocPerGroup;
    double acc = 0;
    for (int64_t c = 0; c < cPerGroup; ++c)
      for (int64_t a = 0; a < kh; ++a)
        for (int64_t b = 0; b < kw; ++b)
          acc += at4(x, i[0], g * cPerGroup + c, i[2] * s[0] - p[0] + a * d[0],
                     i[3] * s[1] - p[1] + b * d[1]) *
                 w.data[((i[1] * cPerGroup + c) * kh + a) * kw + b];
    out.data[flat] = acc;
  });
  return out;
}

/// conv2d's sum in NHWC with a KRSC filter, then the epilogue (bias,
/// addend, relu); f16/bf16 results are rounded once, by evalOp.
Tensor Interpreter::evalConv(ConvOp op) {
  const Tensor &x = get(op.getInput());
  const Tensor &w = get(op.getFilter());
  const Tensor *bias = op.getBias() ? &get(op.getBias()) : nullptr;
  const Tensor *addend = op.getAddend() ? &get(op.getAddend()) : nullptr;
  Tensor out = emptyLike(op.getResult());
  ArrayRef<int64_t> s = op.getStrides(), p = op.getPads(),
                    d = op.getDilations();
  int64_t h = x.shape[1], wd = x.shape[2], c = x.shape[3];
  int64_t oc = out.shape[3], ocPerGroup = oc / op.getGroups();
  int64_t kh = w.shape[1], kw = w.shape[2], cPerGroup = w.shape[3];
  forEachIndex(out.shape, [&](ArrayRef<int64_t> i, int64_t flat) {
    int64_t g = i[3] / ocPerGroup;
    double acc = 0;
    for (int64_t a = 0; a < kh; ++a)
      for (int64_t b = 0; b < kw; ++b) {
        int64_t y = i[1] * s[0] - p[0] + a * d[0];
        int64_t z = i[2] * s[1] - p[1] + b * d[1];
        if (y < 0 || y >= h || z < 0 || z >= wd)
          continue;
        for (int64_t ch = 0; ch < cPerGroup; ++ch)
          acc += x.data[((i[0] * h + y) * wd + z) * c + g * cPerGroup + ch] *
                 w.data[((i[3] * kh + a) * kw + b) * cPerGroup + ch];
      }
    if (bias)
      acc += bias->data[i[3]];
    if (addend)
      acc += addend->data[flat];
    if (op.getEpilogue() == EpilogueKind::relu)
      acc = std::fmax(acc, 0.0);
    out.data[flat] = acc;
  });
  return out;
}

Tensor Interpreter::evalConvTranspose2D(ConvTranspose2DOp op) {
  const Tensor &x = get(op.getInput());
  const Tensor &w = get(op.getFilter());
  Tensor out = emptyLike(op.getResult());
  ArrayRef<int64_t> s = op.getStrides(), p = op.getPads(),
                    d = op.getDilations();
  int64_t groups = op.getGroups();
  int64_t cPerGroup = x.shape[1] / groups, ocPerGroup = w.shape[1];
  int64_t kh = w.shape[2], kw = w.shape[3];
  // Scatter form, the definition: each input element adds to a window of
  // the result.
  forEachIndex(x.shape, [&](ArrayRef<int64_t> i, int64_t flat) {
    int64_t g = i[1] / cPerGroup;
    for (int64_t o = 0; o < ocPerGroup; ++o)
      for (int64_t a = 0; a < kh; ++a)
        for (int64_t b = 0; b < kw; ++b) {
          int64_t y = i[2] * s[0] - p[0] + a * d[0];
          int64_t z = i[3] * s[1] - p[1] + b * d[1];
          if (y < 0 || y >= out.shape[2] || z < 0 || z >= out.shape[3])
            continue;
          int64_t oc = g * ocPerGroup + o;
          out.data[((i[0] * out.shape[1] + oc) * out.shape[2] + y) *
                       out.shape[3] +
                   z] += x.data[flat] *
                         w.data[((i[1] * ocPerGroup + o) * kh + a) * kw + b];
        }
  });
  return out;
}

Tensor Interpreter::evalPool2D(Pool2DOp op) {
  const Tensor &x = get(op.getInput());
  Tensor out = emptyLike(op.getResult());
  ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(), p = op.getPads();
  SmallVector<int64_t, 2> d = op.getDilationValues();
  bool isMax = op.getKind() == PoolKind::max;
  bool includePad = op.getCountIncludePad();
  int64_t h = x.shape[2], w = x.shape[3];
  forEachIndex(out.shape, [&](ArrayRef<int64_t> i, int64_t flat) {
    double acc = isMax ? -std::numeric_limits<double>::infinity() : 0.0;
    int64_t count = 0;
    for (int64_t a = 0; a < k[0]; ++a) {
      int64_t y = i[2] * s[0] - p[0] + a * d[0];
      for (int64_t b = 0; b < k[1]; ++b) {
        int64_t z = i[3] * s[1] - p[1] + b * d[1];
        bool inside = y >= 0 && y < h && z >= 0 && z < w;
        // Explicit padding counts with count_include_pad; the ceil-mode
        // overhang past the padded input never does.
        bool inPadded =
            y >= -p[0] && y < h + p[2] && z >= -p[1] && z < w + p[3];
        if (inside || (includePad && inPadded))
          ++count;
        if (!inside)
          continue;
        double v = x.data[((i[0] * x.shape[1] + i[1]) * h + y) * w + z];
        acc = isMax ? std::fmax(acc, v) : acc + v;
      }
    }
    out.data[flat] = isMax ? acc : acc / static_cast<double>(count);
  });
  return out;
}

Tensor Interpreter::evalIm2Col(Im2ColOp op) {
  const Tensor &x = get(op.getInput());
  Tensor out = emptyLike(op.getResult());
  ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(), p = op.getPads(),
                    d = op.getDilations();
  int64_t cPerGroup = x.shape[1] / op.getGroups();
  int64_t ow = (x.shape[3] + p[1] + p[3] - d[1] * (k[1] - 1) - 1) / s[1] + 1;
  forEachIndex(out.shape, [&](ArrayRef<int64_t> i, int64_t flat) {
    int64_t c = i[2] / (k[0] * k[1]), a = i[2] / k[1] % k[0], b = i[2] % k[1];
    int64_t y = i[3] / ow, z = i[3] % ow;
    out.data[flat] =
        at4(x, i[0], i[1] * cPerGroup + c, y * s[0] - p[0] + a * d[0],
            z * s[1] - p[1] + b * d[1]);
  });
  return out;
}

FailureOr<Tensor> Interpreter::evalGather(GatherOp op) {
  const Tensor &data = get(op.getData());
  const Tensor &indices = get(op.getIndices());
  Tensor out = emptyLike(op.getResult());
  int64_t axis = op.getAxis();
  int64_t rankI = indices.shape.size();
  int64_t size = data.shape[axis];
  SmallVector<int64_t> dataStrides = stridesOf(data.shape);
  SmallVector<int64_t> indexStrides = stridesOf(indices.shape);
  std::optional<int64_t> bad;
  forEachIndex(out.shape, [&](ArrayRef<int64_t> i, int64_t flat) {
    int64_t at = 0;
    for (int64_t j = 0; j < rankI; ++j)
      at += i[axis + j] * indexStrides[j];
    int64_t index = asInt(indices.data[at]);
    if (index < 0)
      index += size;
    if (index < 0 || index >= size) {
      if (!bad)
        bad = asInt(indices.data[at]);
      return;
    }
    int64_t pos = index * dataStrides[axis];
    for (int64_t dim = 0; dim < axis; ++dim)
      pos += i[dim] * dataStrides[dim];
    for (int64_t dim = axis + 1; dim < (int64_t)data.shape.size(); ++dim)
      pos += i[dim + rankI - 1] * dataStrides[dim];
    out.data[flat] = data.data[pos];
  });
  if (bad)
    return op.emitOpError() << "index " << *bad << " is out of range for axis "
                            << axis << " of size " << size;
  return out;
}

/// One result position's source along a resized dimension: nearest reads
/// i0 only; linear reads (1 - weight) * in[i0] + weight * in[i1].
struct ResizeTap {
  int64_t i0 = 0, i1 = 0;
  double weight = 0;
};

ResizeTap resizeTap(ResizeOp op, int64_t x, int64_t in, int64_t out) {
  StringRef cm = op.getCoordinateMode();
  double scale = static_cast<double>(out) / static_cast<double>(in);
  double c;
  if (cm == "align_corners")
    c = out == 1 ? 0.0 : x * static_cast<double>(in - 1) / (out - 1);
  else if (cm == "asymmetric")
    c = x / scale;
  else if (cm == "pytorch_half_pixel" && out == 1)
    c = -0.5;
  else
    c = (x + 0.5) / scale - 0.5;
  auto clampIndex = [&](double v) {
    return static_cast<int64_t>(std::min(std::max(v, 0.0), double(in - 1)));
  };
  ResizeTap tap;
  if (op.getMode() == "nearest") {
    StringRef nm = op.getNearestMode();
    double f = std::floor(c), r;
    if (nm == "floor")
      r = f;
    else if (nm == "ceil")
      r = std::ceil(c);
    else if (c - f == 0.5)
      r = nm == "round_prefer_floor" ? f : f + 1;
    else
      r = std::round(c);
    tap.i0 = tap.i1 = clampIndex(r);
    return tap;
  }
  double f = std::floor(c);
  tap.i0 = clampIndex(f);
  tap.i1 = clampIndex(f + 1);
  tap.weight = c - f;
  return tap;
}

Tensor Interpreter::evalResize(ResizeOp op) {
  const Tensor &x = get(op.getInput());
  Tensor out = emptyLike(op.getResult());
  int64_t rank = out.shape.size();
  SmallVector<int64_t> inStrides = stridesOf(x.shape);
  forEachIndex(out.shape, [&](ArrayRef<int64_t> i, int64_t flat) {
    SmallVector<ResizeTap> taps;
    for (int64_t dim = 0; dim < rank; ++dim)
      taps.push_back(resizeTap(op, i[dim], x.shape[dim], out.shape[dim]));
    // Sum over the 2^rank corners (weights of nearest taps are 0).
    double acc = 0;
    for (int64_t corner = 0; corner < (int64_t(1) << rank); ++corner) {
      double weight = 1;
      int64_t pos = 0;
      for (int64_t dim = 0; dim < rank; ++dim) {
        bool upper = (corner >> dim) & 1;
        const ResizeTap &t = taps[dim];
        weight *= upper ? t.weight : 1 - t.weight;
        pos += (upper ? t.i1 : t.i0) * inStrides[dim];
      }
      if (weight != 0)
        acc += weight * x.data[pos];
    }
    out.data[flat] = acc;
  });
  return out;
}

} // namespace

/// The values of `op`'s single result, a static tensor of at most
/// `maxElements` elements of a type the interpreter knows, evaluated after
/// `producers` (the constants among its operands). The interpreter's
/// diagnostics (a refused value) are not the user's: they are dropped.
static FailureOr<std::vector<double>>
evaluateQuietly(Operation *op, ArrayRef<ConstantOp> producers,
                int64_t maxElements) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() || !elemOf(type.getElementType()) ||
      type.getNumElements() > maxElements)
    return failure();
  ScopedDiagnosticHandler quiet(op->getContext(),
                                [](Diagnostic &) { return success(); });
  Interpreter interp;
  for (ConstantOp constant : producers)
    if (failed(interp.evaluate(constant)))
      return failure();
  FailureOr<TensorPtr> value = interp.evaluate(op);
  if (failed(value) || int64_t((*value)->data.size()) != type.getNumElements())
    return failure();
  return std::move((*value)->data);
}

FailureOr<DenseElementsAttr>
mlir::dlc::evaluateOnConstants(Operation *op, int64_t maxElements) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      !isa_and_nonnull<DlcDialect>(op->getDialect()) || isa<ConstantOp>(op))
    return failure();
  SmallVector<ConstantOp> producers;
  for (Value operand : op->getOperands()) {
    auto constant = operand.getDefiningOp<ConstantOp>();
    if (!constant || constant.getType().getNumElements() > maxElements)
      return failure();
    producers.push_back(constant);
  }
  FailureOr<std::vector<double>> values =
      evaluateQuietly(op, producers, maxElements);
  if (failed(values))
    return failure();
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Elem e = *elemOf(type.getElementType());
  const std::vector<double> &data = *values;
  if (e == rt::DType::I1) {
    SmallVector<bool> bits;
    for (double v : data)
      bits.push_back(v != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  // Equal elements make a splat (one element's bytes), which later rewrites
  // recognize as a scalar.
  size_t count = data.size();
  if (llvm::all_of(data, [&](double v) {
        return std::memcmp(&v, &data[0], sizeof v) == 0;
      }))
    count = 1;
  std::vector<char> bytes(count * byteSize(e));
  for (size_t j = 0; j < count; ++j)
    encodeElement(e, data[j],
                  reinterpret_cast<uint8_t *>(bytes.data()) + j * byteSize(e));
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

FailureOr<std::vector<double>> mlir::dlc::constantValues(ConstantOp op,
                                                         int64_t maxElements) {
  return evaluateQuietly(op, {}, maxElements);
}

FailureOr<std::vector<rt::HostTensor>>
mlir::dlc::evaluateReference(func::FuncOp func,
                             const std::vector<rt::HostTensor> &inputs) {
  return evaluateReference(func, inputs, nullptr);
}

FailureOr<std::vector<rt::HostTensor>>
mlir::dlc::evaluateReference(func::FuncOp func,
                             const std::vector<rt::HostTensor> &inputs,
                             ReferenceObserver observe) {
  if (func.isExternal())
    return func.emitOpError() << "has no body to evaluate";
  if (!func.getBody().hasOneBlock())
    return func.emitOpError()
           << "has several blocks; the reference interpreter evaluates "
              "single-block functions";
  FunctionType type = func.getFunctionType();
  if (inputs.size() != type.getNumInputs())
    return func.emitOpError()
           << "expects " << type.getNumInputs() << " inputs, but "
           << inputs.size() << " were given";

  auto checkType = [&](Type t, StringRef what,
                       unsigned i) -> FailureOr<RankedTensorType> {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape() || !elemOf(tensor.getElementType()))
      return func.emitOpError()
             << what << " #" << i << " has type " << t
             << "; the reference interpreter needs static-shape tensors of "
                "f32, f16, bf16, f8E4M3FN, i32, i64 or i1";
    return tensor;
  };

  Interpreter interp;
  interp.observe = observe;
  Block &body = func.getBody().front();
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    FailureOr<RankedTensorType> argType =
        checkType(arg.getType(), "argument", i);
    if (failed(argType))
      return failure();
    Elem e = *elemOf(argType->getElementType());
    const rt::HostTensor &host = inputs[i];
    ArrayRef<int64_t> shape = argType->getShape();
    if (host.dtype != e || ArrayRef<int64_t>(host.shape) != shape) {
      return func.emitOpError()
             << "input #" << i << " is "
             << describeTensor(host.dtype, host.shape)
             << ", but the function expects " << describeTensor(e, shape);
    }
    int64_t n = numElements(shape);
    if (n > kReferenceElementBudget - interp.elements)
      return func.emitOpError()
             << "input #" << i << " has " << n
             << " elements; the reference interpreter evaluates models whose "
                "values hold at most "
             << kReferenceElementBudget << " elements in all";
    interp.elements += n;
    if (host.data.size() != (size_t)n * byteSize(e))
      return func.emitOpError()
             << "input #" << i << " holds " << host.data.size()
             << " bytes, but " << n * byteSize(e) << " are needed";
    auto t = std::make_shared<Tensor>();
    t->shape.assign(shape.begin(), shape.end());
    t->data.resize(n);
    for (int64_t j = 0; j < n; ++j)
      t->data[j] = decodeElement(e, host.data.data() + j * byteSize(e));
    interp.bind(arg, std::move(t));
  }

  for (auto [i, t] : llvm::enumerate(type.getResults()))
    if (failed(checkType(t, "result", i)))
      return failure();

  FailureOr<SmallVector<TensorPtr>> results = interp.runBlock(body);
  if (failed(results))
    return failure();

  std::vector<rt::HostTensor> outputs;
  for (auto [value, t] : llvm::zip(*results, type.getResults())) {
    auto tensorType = cast<RankedTensorType>(t);
    Elem e = *elemOf(tensorType.getElementType());
    rt::HostTensor host;
    host.dtype = e;
    host.shape.assign(tensorType.getShape().begin(),
                      tensorType.getShape().end());
    host.data.resize(value->data.size() * byteSize(e));
    for (size_t j = 0; j < value->data.size(); ++j)
      encodeElement(e, value->data[j], host.data.data() + j * byteSize(e));
    outputs.push_back(std::move(host));
  }
  return outputs;
}

std::array<uint32_t, 4> mlir::dlc::philox4x32(std::array<uint32_t, 4> c,
                                              std::array<uint32_t, 2> key) {
  for (int round = 0; round < 10; ++round) {
    if (round) {
      key[0] += 0x9E3779B9u;
      key[1] += 0xBB67AE85u;
    }
    uint64_t p0 = uint64_t(0xD2511F53u) * c[0];
    uint64_t p1 = uint64_t(0xCD9E8D57u) * c[2];
    c = {uint32_t(p1 >> 32) ^ c[1] ^ key[0], uint32_t(p1),
         uint32_t(p0 >> 32) ^ c[3] ^ key[1], uint32_t(p0)};
  }
  return c;
}
