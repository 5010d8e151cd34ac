//===- Generator.cpp - Random well-typed dlc/TOSA programs ----------------===//
#include "tools/dlc-fuzz/Generator.h"
#include "runtime/Tensor.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace dlc::fuzz {

using rt::DType;

//===----------------------------------------------------------------------===//
// Random numbers
//===----------------------------------------------------------------------===//

int64_t Rng::range(int64_t lo, int64_t hi) {
  assert(lo <= hi && "empty range");
  uint64_t span = uint64_t(hi) - uint64_t(lo) + 1;
  if (span == 0)
    return int64_t(next());
  // Reject the lowest 2^64 mod span values so that every residue is equally
  // likely.
  uint64_t threshold = (0 - span) % span;
  uint64_t x;
  do
    x = next();
  while (x < threshold);
  return int64_t(uint64_t(lo) + x % span);
}

size_t Rng::weighted(const std::vector<double> &weights) {
  double total = 0;
  for (double w : weights)
    total += w;
  assert(total > 0 && "no positive weight");
  double x = unit() * total;
  for (size_t i = 0; i < weights.size(); ++i) {
    if (x < weights[i])
      return i;
    x -= weights[i];
  }
  // Rounding can leave x just above the last bucket.
  for (size_t i = weights.size(); i-- > 0;)
    if (weights[i] > 0)
      return i;
  return 0;
}

//===----------------------------------------------------------------------===//
// Shapes and types
//===----------------------------------------------------------------------===//

int64_t TensorType::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static int64_t product(const Shape &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static bool isFloat(DType t) {
  return t == DType::F32 || t == DType::F16 || t == DType::BF16;
}
static bool isInt(DType t) { return t == DType::I32 || t == DType::I64; }

/// Broadcast of two shapes of one rank, or an empty optional-like flag.
static bool broadcastShapes(const Shape &a, const Shape &b, Shape &out) {
  if (a.size() != b.size())
    return false;
  out.clear();
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && a[i] != 1 && b[i] != 1)
      return false;
    out.push_back(a[i] == 1 ? b[i] : a[i]);
  }
  return true;
}

static const char *typeName(DType t) { return rt::dtypeName(t); }

static std::string typeStr(const TensorType &t) {
  std::string s = "tensor<";
  for (int64_t d : t.shape)
    s += std::to_string(d) + "x";
  s += typeName(t.dtype);
  s += ">";
  return s;
}

/// A float literal MLIR reads back exactly: always with a '.', since
/// MLIR's lexer does not take "1e-05".
static std::string fmtDouble(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  std::string s = buf;
  // Prefer the shortest form that reads back to the same double.
  for (int precision = 1; precision < 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) {
      s = buf;
      break;
    }
  }
  if (s.find_first_of(".eEn") == std::string::npos)
    return s + ".0";
  size_t e = s.find_first_of("eE");
  if (e != std::string::npos && s.find('.') == std::string::npos)
    s.insert(e, ".0");
  return s;
}

/// "array<i64: 1, 2>", or "array<i64>" when empty.
static std::string i64Array(const std::vector<int64_t> &v);

static std::string intList(const std::vector<int64_t> &v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s;
}

static std::string i64Array(const std::vector<int64_t> &v) {
  return v.empty() ? "array<i64>" : "array<i64: " + intList(v) + ">";
}

//===----------------------------------------------------------------------===//
// Generation
//===----------------------------------------------------------------------===//

namespace {

constexpr int64_t kMaxElements = 20000;
constexpr int64_t kMaxConstantElements = 4096;

class Generator {
public:
  Generator(uint64_t seed, const GeneratorOptions &options)
      : rng(seed), options(options) {
    p.seed = seed;
  }
  Program run();

private:
  Rng rng;
  GeneratorOptions options;
  Program p;
  std::vector<int> uses;
  std::vector<bool> isConstant;
  double tosaProbability = 0.5;
  DType floatType = DType::F32;

  const Value &val(int v) const { return p.values[v]; }
  static double maxAbs(const Value &v) {
    return std::max(std::fabs(v.lo), std::fabs(v.hi));
  }
  size_t rankOf(int v) const { return val(v).type.shape.size(); }

  int newValue(TensorType type, double lo, double hi, bool exact) {
    Value v;
    v.type = std::move(type);
    v.lo = lo;
    v.hi = hi;
    v.exact = exact;
    p.values.push_back(v);
    uses.push_back(0);
    isConstant.push_back(false);
    return int(p.values.size()) - 1;
  }

  int add(Op op, TensorType type, double lo, double hi, bool exact) {
    assert(std::isfinite(lo) && std::isfinite(hi) && lo <= hi);
    int r = newValue(std::move(type), lo, hi, exact);
    op.result = r;
    for (int o : op.operands)
      ++uses[o];
    isConstant[r] = op.kind == OpKind::Constant;
    op.tosa = hasTosaForm(p, op) && rng.chance(tosaProbability);
    p.ops.push_back(std::move(op));
    return r;
  }

  // Random shapes and numbers.
  int64_t randomDim();
  Shape randomShape(size_t rank, int64_t maxElements);
  double gridValue(double lo, double hi, double step);
  int64_t randomAxis(size_t rank);

  /// A value passing `ok`, preferring unused and recent ones; -1 if none.
  int pickValue(const std::function<bool(int)> &ok,
                bool allowConstants = false);

  // Builders: each appends one operation and returns its result.
  int constant(TensorType type, std::vector<double> data);
  /// A weight: a constant of `type` with values on a 1/32 grid in [-1, 1].
  int weightConstant(TensorType type);
  int splat(DType dtype, size_t rank, double v) {
    return constant({dtype, Shape(rank, 1)}, {v});
  }
  int unary(UnaryKind k, int x);
  int notOp(int x);
  int binary(BinaryKind k, int x, int y);
  int clamp(int x, double lo, double hi);
  int cmp(CmpKind k, int x, int y);
  int select(int c, int x, int y);
  int cast(int x, DType to);
  int reduce(ReduceKind k, int x, std::vector<int64_t> axes);
  int argmax(int x, int64_t axis, DType index);
  int matmul(int x, int y, bool ta, bool tb);
  int transpose(int x, std::vector<int64_t> perm);
  int reshape(int x, Shape shape);
  int slice(int x, std::vector<int64_t> start, Shape size,
            std::vector<int64_t> strides = {});
  int concat(std::vector<int> xs, int64_t axis);
  int pad(int x, std::vector<int64_t> low, std::vector<int64_t> high,
          double value);
  int tile(int x, std::vector<int64_t> multiples);
  int gather(int data, int indices, int64_t axis);

  // Preconditioning: return a value with the property, adding operations.
  int bounded(int x, double bound);
  int positive(int x, double minLo);
  int nonZeroInt(int x);
  /// Keeps values from growing without bound after an operation.
  int settle(int x);

  // Generators of one kind of operation; false if nothing fits.
  bool genUnary();
  bool genBinary();
  bool genSelect();
  bool genLogic();
  bool genClamp();
  bool genDropout();
  bool genCast();
  bool genReduce();
  bool genArgMax();
  bool genMatmul();
  bool genGemmEpilogue();
  bool genSiblingMatmuls();
  bool genTranspose();
  bool genReshape();
  bool genSlice();
  bool genConcat();
  bool genPad();
  bool genTile();
  bool genSoftmax();
  bool genNormalize();
  bool genAttention();
  bool genMultiHeadAttention();
  int attentionChain(int q, int k, int v);
  bool genConv();
  bool genPool();
  bool genGather();
  bool genResize();

  /// A float value viewed as an NCHW tensor (reshaped when not of rank 4),
  /// or -1.
  int nchwValue(int64_t maxElements);

  /// A boolean value broadcast-compatible with `shape`, or -1.
  /// `shape` is taken by value: callers pass a value's own shape, and
  /// making the condition adds values, which may reallocate it.
  int makeCond(Shape shape);
  /// An operand for a binary operation with `x`.
  int binaryPartner(int x, BinaryKind k);
  /// A random reshape target of `numElements` elements.
  Shape factorShape(int64_t numElements);

  void makeInputs();
  void chooseOutputs();
};

} // namespace

int64_t Generator::randomDim() {
  // Small and odd sizes mostly; a few long ones so that rows exceed a warp's
  // 1024 elements and a 256-thread block's 4096 (the row template's limits).
  static const std::vector<int64_t> dims = {
      1,  2,  3,   4,   5,   7,   8,   9,    16,   17,   31,   32,  33,
      64, 65, 100, 128, 130, 256, 257, 1000, 1025, 2048, 4099, 8193};
  static const std::vector<double> weights = {10, 5, 6, 6, 5, 5,   5,  2, 5,
                                              5,  2, 4, 4, 3, 2,   1,  2, 3,
                                              1,  1, 1, 1, 1, 0.7, 0.5};
  return dims[rng.weighted(weights)];
}

Shape Generator::randomShape(size_t rank, int64_t maxElements) {
  Shape s;
  for (size_t i = 0; i < rank; ++i)
    s.push_back(randomDim());
  while (product(s) > maxElements) {
    auto it = std::max_element(s.begin(), s.end());
    *it = std::max<int64_t>(1, *it / int64_t(rng.range(2, 5)));
  }
  return s;
}

double Generator::gridValue(double lo, double hi, double step) {
  int64_t a = int64_t(std::ceil(lo / step)), b = int64_t(std::floor(hi / step));
  if (a > b)
    return std::round((lo + hi) / 2 / step) * step;
  return double(rng.range(a, b)) * step;
}

int64_t Generator::randomAxis(size_t rank) {
  return rng.range(0, int64_t(rank) - 1);
}

int Generator::pickValue(const std::function<bool(int)> &ok,
                         bool allowConstants) {
  std::vector<int> ids;
  std::vector<double> weights;
  double n = double(p.values.size());
  for (int i = 0; i < int(p.values.size()); ++i) {
    if ((!allowConstants && isConstant[i]) || !ok(i))
      continue;
    ids.push_back(i);
    weights.push_back((uses[i] == 0 ? 6.0 : 1.0) * (1.0 + 3.0 * i / n));
  }
  if (ids.empty())
    return -1;
  return ids[rng.weighted(weights)];
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

int Generator::weightConstant(TensorType type) {
  std::vector<double> data;
  for (int64_t i = 0, e = product(type.shape); i < e; ++i)
    data.push_back(gridValue(-1, 1, 1.0 / 32));
  return constant(std::move(type), std::move(data));
}

int Generator::constant(TensorType type, std::vector<double> data) {
  Op op;
  op.kind = OpKind::Constant;
  double lo = *std::min_element(data.begin(), data.end());
  double hi = *std::max_element(data.begin(), data.end());
  op.data = std::move(data);
  return add(std::move(op), std::move(type), lo, hi, /*exact=*/true);
}

int Generator::unary(UnaryKind k, int x) {
  const Value &v = val(x);
  double lo = v.lo, hi = v.hi;
  bool exact = false;
  switch (k) {
  case UnaryKind::Exp:
    lo = std::exp(lo), hi = std::exp(hi);
    break;
  case UnaryKind::Log:
    assert(lo > 0);
    lo = std::log(lo), hi = std::log(hi);
    break;
  case UnaryKind::Tanh:
    lo = std::tanh(lo), hi = std::tanh(hi);
    break;
  case UnaryKind::Sigmoid:
    lo = 1 / (1 + std::exp(-lo)), hi = 1 / (1 + std::exp(-hi));
    break;
  case UnaryKind::Erf:
    lo = std::erf(lo), hi = std::erf(hi);
    break;
  case UnaryKind::Rsqrt:
    assert(lo > 0);
    std::tie(lo, hi) = std::make_pair(1 / std::sqrt(hi), 1 / std::sqrt(lo));
    break;
  case UnaryKind::Sqrt:
    assert(lo > 0);
    lo = std::sqrt(lo), hi = std::sqrt(hi);
    break;
  case UnaryKind::Reciprocal:
    assert(lo > 0 || hi < 0);
    std::tie(lo, hi) = std::make_pair(1 / hi, 1 / lo);
    break;
  case UnaryKind::Abs:
    if (lo >= 0) {
    } else if (hi <= 0) {
      std::tie(lo, hi) = std::make_pair(-hi, -lo);
    } else {
      hi = std::max(-lo, hi);
      lo = 0;
    }
    exact = v.exact;
    break;
  case UnaryKind::Neg:
    std::tie(lo, hi) = std::make_pair(-hi, -lo);
    exact = v.exact;
    break;
  }
  if (isInt(v.type.dtype))
    exact = true;
  Op op;
  op.kind = OpKind::Unary;
  op.sub = int(k);
  op.operands = {x};
  return add(std::move(op), v.type, lo, hi, exact);
}

int Generator::notOp(int x) {
  Op op;
  op.kind = OpKind::Not;
  op.operands = {x};
  return add(std::move(op), val(x).type, 0, 1, true);
}

static bool isPowerOfTwoSplat(const Program &p,
                              const std::vector<bool> &isConst, int v) {
  if (!isConst[v])
    return false;
  for (const Op &op : p.ops)
    if (op.result == v) {
      if (op.data.size() != 1)
        return false;
      int e;
      double m = std::frexp(std::fabs(op.data[0]), &e);
      return m == 0.5;
    }
  return false;
}

int Generator::binary(BinaryKind k, int x, int y) {
  const Value a = val(x), b = val(y);
  assert(a.type.dtype == b.type.dtype);
  Shape shape;
  bool ok = broadcastShapes(a.type.shape, b.type.shape, shape);
  assert(ok && "incompatible shapes");
  (void)ok;
  double lo = 0, hi = 0;
  bool exact = false;
  auto corners = [&](auto f) {
    double c[4] = {f(a.lo, b.lo), f(a.lo, b.hi), f(a.hi, b.lo), f(a.hi, b.hi)};
    lo = *std::min_element(c, c + 4);
    hi = *std::max_element(c, c + 4);
  };
  switch (k) {
  case BinaryKind::Add:
    lo = a.lo + b.lo, hi = a.hi + b.hi;
    break;
  case BinaryKind::Sub:
    lo = a.lo - b.hi, hi = a.hi - b.lo;
    break;
  case BinaryKind::Mul:
    corners([](double u, double w) { return u * w; });
    if (x == y) {
      // A square is never negative.
      double m = std::max(a.lo * a.lo, a.hi * a.hi);
      lo = (a.lo <= 0 && a.hi >= 0) ? 0 : std::min(a.lo * a.lo, a.hi * a.hi);
      hi = m;
    }
    exact = (a.exact && isPowerOfTwoSplat(p, isConstant, y)) ||
            (b.exact && isPowerOfTwoSplat(p, isConstant, x));
    break;
  case BinaryKind::Div:
    assert(b.lo > 0 || b.hi < 0);
    corners([](double u, double w) { return u / w; });
    break;
  case BinaryKind::Max:
    lo = std::max(a.lo, b.lo), hi = std::max(a.hi, b.hi);
    exact = a.exact && b.exact;
    break;
  case BinaryKind::Min:
    lo = std::min(a.lo, b.lo), hi = std::min(a.hi, b.hi);
    exact = a.exact && b.exact;
    break;
  case BinaryKind::Pow:
    assert(a.lo > 0);
    corners([](double u, double w) { return std::pow(u, w); });
    break;
  case BinaryKind::And:
  case BinaryKind::Or: {
    if (a.type.dtype == DType::I1) {
      lo = 0, hi = 1;
    } else {
      double m = std::max(maxAbs(a), maxAbs(b)) + 1;
      double bound = std::exp2(std::ceil(std::log2(m)));
      lo = (a.lo < 0 || b.lo < 0) ? -bound : 0;
      hi = bound;
    }
    break;
  }
  }
  if (!isFloat(a.type.dtype))
    exact = true;
  Op op;
  op.kind = OpKind::Binary;
  op.sub = int(k);
  op.operands = {x, y};
  return add(std::move(op), {a.type.dtype, shape}, lo, hi, exact);
}

int Generator::clamp(int x, double lo, double hi) {
  const Value &v = val(x);
  Op op;
  op.kind = OpKind::Clamp;
  op.operands = {x};
  op.min = lo;
  op.max = hi;
  double rlo = std::min(std::max(v.lo, lo), hi);
  double rhi = std::min(std::max(v.hi, lo), hi);
  return add(std::move(op), v.type, rlo, rhi, v.exact);
}

int Generator::cmp(CmpKind k, int x, int y) {
  Shape shape;
  bool ok = broadcastShapes(val(x).type.shape, val(y).type.shape, shape);
  assert(ok);
  (void)ok;
  Op op;
  op.kind = OpKind::Cmp;
  op.sub = int(k);
  op.operands = {x, y};
  return add(std::move(op), {DType::I1, shape}, 0, 1, true);
}

int Generator::select(int c, int x, int y) {
  Shape s1, shape;
  bool ok = broadcastShapes(val(c).type.shape, val(x).type.shape, s1) &&
            broadcastShapes(s1, val(y).type.shape, shape);
  assert(ok);
  (void)ok;
  const Value a = val(x), b = val(y);
  Op op;
  op.kind = OpKind::Select;
  op.operands = {c, x, y};
  return add(std::move(op), {a.type.dtype, shape}, std::min(a.lo, b.lo),
             std::max(a.hi, b.hi), a.exact && b.exact);
}

/// Largest integer magnitude below which every integer is exact in `t`.
static double exactIntegerLimit(DType t) {
  switch (t) {
  case DType::F32:
    return 16777216.0;
  case DType::F16:
    return 2048.0;
  case DType::BF16:
    return 256.0;
  default:
    return 1e15;
  }
}

int Generator::cast(int x, DType to) {
  const Value v = val(x);
  DType from = v.type.dtype;
  double lo = v.lo, hi = v.hi;
  bool exact = v.exact;
  if (to == DType::I1) {
    lo = 0, hi = 1;
  } else if (isFloat(from) && !isFloat(to)) {
    assert(v.exact && "float-to-integer casts need exact inputs");
    lo = std::floor(lo), hi = std::ceil(hi);
  } else if (!isFloat(from) && isFloat(to)) {
    exact = std::max(std::fabs(lo), std::fabs(hi)) <= exactIntegerLimit(to);
  }
  Op op;
  op.kind = OpKind::Cast;
  op.operands = {x};
  return add(std::move(op), {to, v.type.shape}, lo, hi, exact);
}

int Generator::reduce(ReduceKind k, int x, std::vector<int64_t> axes) {
  const Value v = val(x);
  Shape shape = v.type.shape;
  int64_t n = 1;
  for (int64_t a : axes) {
    n *= shape[a];
    shape[a] = 1;
  }
  double lo = v.lo, hi = v.hi;
  bool exact = v.exact || isInt(v.type.dtype);
  switch (k) {
  case ReduceKind::Sum:
    lo *= double(n), hi *= double(n);
    exact = isInt(v.type.dtype);
    break;
  case ReduceKind::Max:
  case ReduceKind::Min:
    break;
  case ReduceKind::Prod: {
    double m = maxAbs(v);
    if (lo > 0)
      lo = std::pow(lo, double(n)), hi = std::pow(hi, double(n));
    else
      lo = -std::pow(m, double(n)), hi = std::pow(m, double(n));
    exact = isInt(v.type.dtype);
    break;
  }
  }
  Op op;
  op.kind = OpKind::Reduce;
  op.sub = int(k);
  op.operands = {x};
  op.ints = std::move(axes);
  return add(std::move(op), {v.type.dtype, shape}, lo, hi, exact);
}

int Generator::argmax(int x, int64_t axis, DType index) {
  const Value &v = val(x);
  Shape shape = v.type.shape;
  double hi = double(shape[axis] - 1);
  shape[axis] = 1;
  Op op;
  op.kind = OpKind::ArgMax;
  op.operands = {x};
  op.axis = axis;
  return add(std::move(op), {index, shape}, 0, hi, true);
}

int Generator::matmul(int x, int y, bool ta, bool tb) {
  const Value a = val(x), b = val(y);
  size_t r = a.type.shape.size();
  int64_t m = a.type.shape[r - 2], k = a.type.shape[r - 1];
  if (ta)
    std::swap(m, k);
  int64_t n = b.type.shape[r - 1];
  if (tb)
    n = b.type.shape[r - 2];
  Shape batchA(a.type.shape.begin(), a.type.shape.end() - 2);
  Shape batchB(b.type.shape.begin(), b.type.shape.end() - 2);
  Shape shape;
  bool ok = broadcastShapes(batchA, batchB, shape);
  assert(ok);
  (void)ok;
  shape.push_back(m);
  shape.push_back(n);
  double bound = maxAbs(a) * maxAbs(b) * double(k);
  double lo = (a.lo >= 0 && b.lo >= 0) ? 0 : -bound;
  Op op;
  op.kind = OpKind::Matmul;
  op.operands = {x, y};
  op.transposeA = ta;
  op.transposeB = tb;
  return add(std::move(op), {a.type.dtype, shape}, lo, bound,
             isInt(a.type.dtype));
}

int Generator::transpose(int x, std::vector<int64_t> perm) {
  const Value v = val(x);
  Shape shape;
  for (int64_t q : perm)
    shape.push_back(v.type.shape[q]);
  Op op;
  op.kind = OpKind::Transpose;
  op.operands = {x};
  op.ints = std::move(perm);
  return add(std::move(op), {v.type.dtype, shape}, v.lo, v.hi, v.exact);
}

int Generator::reshape(int x, Shape shape) {
  const Value v = val(x);
  assert(product(shape) == v.type.numElements());
  Op op;
  op.kind = OpKind::Reshape;
  op.operands = {x};
  return add(std::move(op), {v.type.dtype, std::move(shape)}, v.lo, v.hi,
             v.exact);
}

int Generator::slice(int x, std::vector<int64_t> start, Shape size,
                     std::vector<int64_t> strides) {
  const Value v = val(x);
  Op op;
  op.kind = OpKind::Slice;
  op.operands = {x};
  op.ints = std::move(start);
  op.strides = std::move(strides);
  return add(std::move(op), {v.type.dtype, std::move(size)}, v.lo, v.hi,
             v.exact);
}

int Generator::concat(std::vector<int> xs, int64_t axis) {
  const Value first = val(xs[0]);
  Shape shape = first.type.shape;
  shape[axis] = 0;
  double lo = first.lo, hi = first.hi;
  bool exact = true;
  for (int x : xs) {
    shape[axis] += val(x).type.shape[axis];
    lo = std::min(lo, val(x).lo);
    hi = std::max(hi, val(x).hi);
    exact = exact && val(x).exact;
  }
  Op op;
  op.kind = OpKind::Concat;
  op.operands = std::move(xs);
  op.axis = axis;
  return add(std::move(op), {first.type.dtype, shape}, lo, hi, exact);
}

int Generator::pad(int x, std::vector<int64_t> low, std::vector<int64_t> high,
                   double value) {
  const Value v = val(x);
  Shape shape = v.type.shape;
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] += low[d] + high[d];
  Op op;
  op.kind = OpKind::Pad;
  op.operands = {x};
  op.ints = std::move(low);
  op.ints2 = std::move(high);
  op.value = value;
  return add(std::move(op), {v.type.dtype, shape}, std::min(v.lo, value),
             std::max(v.hi, value), v.exact);
}

int Generator::tile(int x, std::vector<int64_t> multiples) {
  const Value v = val(x);
  Shape shape = v.type.shape;
  for (size_t d = 0; d < shape.size(); ++d)
    shape[d] *= multiples[d];
  Op op;
  op.kind = OpKind::Tile;
  op.operands = {x};
  op.ints = std::move(multiples);
  return add(std::move(op), {v.type.dtype, shape}, v.lo, v.hi, v.exact);
}

int Generator::gather(int data, int indices, int64_t axis) {
  const Value v = val(data);
  Shape shape(v.type.shape.begin(), v.type.shape.begin() + axis);
  for (int64_t d : val(indices).type.shape)
    shape.push_back(d);
  shape.insert(shape.end(), v.type.shape.begin() + axis + 1,
               v.type.shape.end());
  Op op;
  op.kind = OpKind::Gather;
  op.operands = {data, indices};
  op.axis = axis;
  return add(std::move(op), {v.type.dtype, shape}, v.lo, v.hi, v.exact);
}

//===----------------------------------------------------------------------===//
// Preconditioning
//===----------------------------------------------------------------------===//

int Generator::bounded(int x, double bound) {
  const Value v = val(x);
  double m = maxAbs(v);
  if (m <= bound)
    return x;
  DType t = v.type.dtype;
  size_t rank = v.type.shape.size();
  if (isInt(t)) {
    double b = std::floor(bound);
    return clamp(x, -b, b);
  }
  switch (rng.range(0, 3)) {
  case 0:
    if (bound >= 1)
      return unary(UnaryKind::Tanh, x);
    [[fallthrough]];
  case 1: {
    // Scaling by a power of two is exact.
    int k = int(std::ceil(std::log2(m / bound)));
    return binary(BinaryKind::Mul, x, splat(t, rank, std::ldexp(1.0, -k)));
  }
  case 2: {
    double b = std::floor(bound * 4) / 4;
    if (b <= 0)
      return unary(UnaryKind::Tanh, x);
    return clamp(x, -b, b);
  }
  default:
    if (bound >= 1)
      return unary(UnaryKind::Sigmoid, x);
    return binary(
        BinaryKind::Mul, x,
        splat(t, rank, std::ldexp(1.0, -int(std::ceil(std::log2(m / bound))))));
  }
}

int Generator::positive(int x, double minLo) {
  const Value v = val(x);
  if (v.lo >= minLo && v.hi <= 1000)
    return x;
  if (maxAbs(v) > 64)
    x = bounded(x, 8);
  DType t = val(x).type.dtype;
  size_t rank = val(x).type.shape.size();
  double c = rng.chance(0.5) ? 0.5 : 1.0;
  c = std::max(c, std::ceil(minLo * 4) / 4);
  switch (rng.range(0, 4)) {
  case 0:
    return binary(BinaryKind::Add, unary(UnaryKind::Abs, x), splat(t, rank, c));
  case 1:
    return unary(UnaryKind::Exp, bounded(x, 1.0));
  case 2:
    return binary(BinaryKind::Add, unary(UnaryKind::Sigmoid, x),
                  splat(t, rank, c));
  case 3:
    return clamp(x, c, 4.0);
  default:
    return binary(BinaryKind::Add, binary(BinaryKind::Mul, x, x),
                  splat(t, rank, c));
  }
}

int Generator::nonZeroInt(int x) {
  const Value v = val(x);
  if (v.lo >= 1 || v.hi <= -1)
    return x;
  if (rng.chance(0.5))
    return clamp(x, 1, 7);
  int a = unary(UnaryKind::Abs, bounded(x, 1000));
  return binary(BinaryKind::Add, a,
                splat(v.type.dtype, v.type.shape.size(), 1));
}

int Generator::settle(int x) {
  const Value v = val(x);
  if (v.type.dtype == DType::I1)
    return x;
  double m = maxAbs(v);
  if (isInt(v.type.dtype))
    return m > 32768 ? clamp(x, -32768, 32768) : x;
  if (m > 1000 || (m > 64 && rng.chance(0.5)))
    return bounded(x, rng.chance(0.5) ? 1.0 : 8.0);
  return x;
}

//===----------------------------------------------------------------------===//
// Operation generators
//===----------------------------------------------------------------------===//

bool Generator::genUnary() {
  int x = pickValue([&](int v) {
    DType t = val(v).type.dtype;
    return isFloat(t) || (isInt(t) && rng.chance(0.3));
  });
  if (x < 0)
    return false;
  if (isInt(val(x).type.dtype)) {
    settle(unary(rng.chance(0.5) ? UnaryKind::Abs : UnaryKind::Neg, x));
    return true;
  }
  auto k = UnaryKind(rng.range(0, 9));
  switch (k) {
  case UnaryKind::Exp:
    x = bounded(x, 3.0);
    break;
  case UnaryKind::Log:
  case UnaryKind::Rsqrt:
  case UnaryKind::Sqrt:
  case UnaryKind::Reciprocal:
    x = positive(x, 0.25);
    break;
  default:
    break;
  }
  settle(unary(k, x));
  return true;
}

int Generator::binaryPartner(int x, BinaryKind k) {
  const Value v = val(x);
  DType t = v.type.dtype;
  size_t rank = v.type.shape.size();
  bool selfUseful =
      k == BinaryKind::Add || k == BinaryKind::Mul || k == BinaryKind::Pow;
  switch (rng.weighted({35, 12, 18, 15, 15})) {
  case 0: {
    int y = pickValue([&](int w) {
      Shape s;
      return (w != x || selfUseful) && val(w).type.dtype == t &&
             broadcastShapes(v.type.shape, val(w).type.shape, s) &&
             product(s) <= kMaxElements;
    });
    if (y >= 0)
      return y;
    [[fallthrough]];
  }
  case 1:
    // x with itself (fan-out), where that is not trivially 0, 1 or x.
    if (selfUseful)
      return x;
    [[fallthrough]];
  case 2: {
    double c = t == DType::I1 ? double(rng.range(0, 1))
               : isInt(t)     ? double(rng.range(-4, 7))
                              : gridValue(-2, 2, 1.0 / 16);
    if (k == BinaryKind::Mul && isFloat(t) && rng.chance(0.3))
      c = std::ldexp(1.0, int(rng.range(-3, 2))) * (rng.chance(0.5) ? -1 : 1);
    return splat(t, rank, c);
  }
  case 3: {
    Shape s = v.type.shape;
    for (int64_t &d : s)
      if (rng.chance(0.5))
        d = 1;
    if (product(s) > kMaxConstantElements)
      return splat(t, rank, isFloat(t) ? 0.5 : 1);
    std::vector<double> data;
    for (int64_t i = 0, e = product(s); i < e; ++i)
      data.push_back(t == DType::I1 ? double(rng.range(0, 1))
                     : isInt(t)     ? double(rng.range(-4, 7))
                                    : gridValue(-1.5, 1.5, 1.0 / 32));
    return constant({t, s}, std::move(data));
  }
  default: {
    if (t == DType::I1 || rank == 0)
      return x;
    // A reduction of x itself (keeping dims): the softmax / layernorm shape.
    std::vector<int64_t> axes = {int64_t(rank) - 1};
    if (rank > 1 && rng.chance(0.3))
      axes = {randomAxis(rank)};
    auto rk = ReduceKind(rng.range(0, 2));
    int in = x;
    if (rk == ReduceKind::Sum && (t == DType::F16 || t == DType::BF16))
      in = bounded(x, std::max(0.5, 2000.0 / double(v.type.shape[axes[0]])));
    int r = reduce(rk, in, axes);
    if (rk == ReduceKind::Sum && isFloat(t) && rng.chance(0.6)) {
      double n = double(v.type.shape[axes[0]]);
      r = binary(BinaryKind::Mul, r, splat(t, rank, 1.0 / n));
    }
    return r;
  }
  }
}

bool Generator::genBinary() {
  bool wantInt = rng.chance(0.15);
  int x = pickValue([&](int v) {
    DType t = val(v).type.dtype;
    return wantInt ? isInt(t) : isFloat(t);
  });
  if (x < 0)
    return false;
  DType t = val(x).type.dtype;
  BinaryKind k;
  if (isFloat(t))
    k = BinaryKind(rng.weighted({20, 16, 18, 10, 8, 8, 5}));
  else
    k = BinaryKind(rng.weighted({20, 15, 12, 8, 8, 8, 0, 5, 5}));
  if (k == BinaryKind::Pow)
    x = clamp(positive(x, 0.25), 0.25, 4.0);
  int y = binaryPartner(x, k);
  if (k == BinaryKind::Div)
    y = isFloat(t) ? positive(y, 0.25) : nonZeroInt(y);
  if (k == BinaryKind::Pow)
    y = bounded(y, 2.0);
  if (k == BinaryKind::Mul && isInt(t)) {
    x = bounded(x, 1000);
    y = bounded(y, 1000);
  }
  // Growth is settled after each operation, so products stay moderate.
  if (k == BinaryKind::Mul && isFloat(t)) {
    if (maxAbs(val(x)) * maxAbs(val(y)) > 4096)
      y = bounded(y, 4);
  }
  Shape s;
  if (!broadcastShapes(val(x).type.shape, val(y).type.shape, s) ||
      product(s) > kMaxElements)
    return false;
  // Division and pow need their operands where they were preconditioned.
  if (k != BinaryKind::Div && k != BinaryKind::Pow && rng.chance(0.3))
    std::swap(x, y);
  settle(binary(k, x, y));
  return true;
}

int Generator::makeCond(Shape shape) {
  auto compatible = [&](int w) {
    Shape s;
    return broadcastShapes(shape, val(w).type.shape, s) &&
           product(s) <= kMaxElements;
  };
  if (rng.chance(0.35)) {
    int c = pickValue(
        [&](int w) { return val(w).type.dtype == DType::I1 && compatible(w); });
    if (c >= 0)
      return c;
  }
  // A comparison of values the device computes exactly.
  int e = pickValue([&](int w) {
    return val(w).type.dtype != DType::I1 && val(w).exact && compatible(w);
  });
  if (e < 0) {
    // An exact value of as many elements, reshaped.
    e = pickValue([&](int w) {
      return val(w).type.dtype != DType::I1 && val(w).exact &&
             val(w).type.numElements() == product(shape);
    });
    if (e < 0)
      return -1;
    if (val(e).type.shape != shape)
      e = reshape(e, shape);
  }
  const Value v = val(e);
  DType t = v.type.dtype;
  size_t rank = v.type.shape.size();
  int rhs;
  // A rank-0 value has no axis to reduce: compare it with a constant.
  switch (rank == 0 ? 0 : rng.weighted({35, 25, 25, 5})) {
  case 0: {
    double c = isFloat(t) ? gridValue(v.lo, v.hi, 1.0 / 32)
                          : double(rng.range(int64_t(v.lo), int64_t(v.hi)));
    rhs = splat(t, rank, c);
    break;
  }
  case 1: {
    std::vector<int64_t> axes = {rng.chance(0.6) ? int64_t(rank) - 1
                                                 : randomAxis(rank)};
    rhs = reduce(rng.chance(0.5) ? ReduceKind::Max : ReduceKind::Min, e, axes);
    break;
  }
  case 2: {
    rhs = pickValue([&](int w) {
      Shape s, s2;
      return val(w).type.dtype == t && val(w).exact &&
             broadcastShapes(v.type.shape, val(w).type.shape, s) &&
             broadcastShapes(s, shape, s2) && product(s2) <= kMaxElements;
    });
    if (rhs < 0)
      rhs = splat(t, rank, isFloat(t) ? 0.0 : 3.0);
    break;
  }
  default:
    rhs = e;
    break;
  }
  auto k = CmpKind(rng.range(0, 5));
  if (rng.chance(0.3))
    std::swap(e, rhs);
  return cmp(k, e, rhs);
}

bool Generator::genSelect() {
  int x = pickValue([&](int v) { return val(v).type.dtype != DType::I1; });
  if (x < 0)
    return false;
  int c = makeCond(val(x).type.shape);
  if (c < 0)
    return false;
  Shape s1;
  broadcastShapes(val(c).type.shape, val(x).type.shape, s1);
  const Value v = val(x);
  DType t = v.type.dtype;
  int y;
  switch (rng.weighted({40, 30, 30})) {
  case 0:
    y = pickValue([&](int w) {
      Shape s;
      return val(w).type.dtype == t &&
             broadcastShapes(s1, val(w).type.shape, s) &&
             product(s) <= kMaxElements;
    });
    if (y >= 0)
      break;
    [[fallthrough]];
  case 1:
    y = splat(t, s1.size(), isFloat(t) ? gridValue(-1, 1, 1.0 / 8) : 0.0);
    break;
  default:
    y = unary(rng.chance(0.5) ? UnaryKind::Neg : UnaryKind::Abs, x);
    break;
  }
  if (rng.chance(0.5))
    std::swap(x, y);
  settle(select(c, x, y));
  return true;
}

bool Generator::genLogic() {
  int b = pickValue([&](int v) { return val(v).type.dtype == DType::I1; });
  if (b < 0) {
    int e = pickValue(
        [&](int v) { return val(v).type.dtype != DType::I1 && val(v).exact; });
    if (e < 0)
      return false;
    b = makeCond(val(e).type.shape);
    if (b < 0)
      return false;
  }
  int r;
  switch (rng.range(0, 3)) {
  case 0:
    r = notOp(b);
    break;
  case 1:
  case 2: {
    int c = makeCond(val(b).type.shape);
    if (c < 0)
      return false;
    r = binary(rng.chance(0.5) ? BinaryKind::And : BinaryKind::Or, b, c);
    break;
  }
  default:
    r = b;
    break;
  }
  // Booleans join the arithmetic as masks.
  if (rng.chance(0.5))
    cast(r, rng.chance(0.7) ? floatType : DType::I32);
  return true;
}

bool Generator::genClamp() {
  int x = pickValue([&](int v) { return val(v).type.dtype != DType::I1; });
  if (x < 0)
    return false;
  const Value v = val(x);
  double a, b;
  if (isFloat(v.type.dtype)) {
    double lo = std::max(v.lo - 0.25, -4.0), hi = std::min(v.hi + 0.25, 4.0);
    if (lo > hi)
      lo = hi = std::max(-4.0, std::min(4.0, v.lo));
    a = gridValue(lo, hi, 1.0 / 32);
    b = gridValue(lo, hi, 1.0 / 32);
  } else {
    a = double(rng.range(int64_t(v.lo) - 1, int64_t(v.hi) + 1));
    b = double(rng.range(int64_t(v.lo) - 1, int64_t(v.hi) + 1));
  }
  if (a > b)
    std::swap(a, b);
  clamp(x, a, b);
  return true;
}

/// A dropout of a float value (its mask a function of the offset and key,
/// which the kernels and the reference compute alike).
bool Generator::genDropout() {
  int x = pickValue([&](int v) { return isFloat(val(v).type.dtype); });
  if (x < 0)
    return false;
  const Value v = val(x);
  size_t rank = v.type.shape.size();
  Op op;
  op.kind = OpKind::Dropout;
  op.operands = {x, splat(DType::I64, rank, double(rng.range(0, 1000)))};
  op.value = rng.pick(std::vector<double>{0.1, 0.25, 0.5, 0.9, 1.0});
  op.ints = {rng.range(0, 1 << 20), rng.range(0, 8)};
  double scale = op.value >= 1 ? 0 : 1 / (1 - op.value);
  add(std::move(op), v.type, std::min(0.0, v.lo * scale),
      std::max(0.0, v.hi * scale), false);
  return true;
}

bool Generator::genCast() {
  int x = pickValue([&](int) { return true; });
  if (x < 0)
    return false;
  const Value v = val(x);
  DType t = v.type.dtype;
  std::vector<DType> targets;
  if (isFloat(t)) {
    for (DType f : {DType::F32, DType::F16, DType::BF16})
      if (f != t)
        targets.push_back(f);
    if (v.exact) {
      targets.push_back(DType::I32);
      targets.push_back(DType::I1);
    }
  } else if (isInt(t)) {
    targets = {floatType, DType::F32, DType::I1,
               t == DType::I32 ? DType::I64 : DType::I32};
  } else {
    targets = {floatType, DType::I32};
  }
  DType to = rng.pick(targets);
  if (isFloat(to) && to != DType::F32 && maxAbs(v) > 30000)
    x = bounded(x, 256);
  if (isFloat(t) && !isFloat(to) && to != DType::I1) {
    // Integers in a small range; scaling by a power of two keeps exactness.
    if (maxAbs(v) < 4 && rng.chance(0.6))
      x = binary(BinaryKind::Mul, x, splat(t, v.type.shape.size(), 8.0));
    if (maxAbs(val(x)) > 30000)
      x = clamp(x, -30000, 30000);
  }
  int r = cast(x, to);
  // Often come back: casts in pairs are how mixed precision looks.
  if (isFloat(t) && isFloat(to) && rng.chance(0.4)) {
    if (rng.chance(0.5))
      r = unary(rng.chance(0.5) ? UnaryKind::Tanh : UnaryKind::Neg, r);
    cast(r, t);
  }
  return true;
}

bool Generator::genReduce() {
  int x = pickValue([&](int v) {
    return val(v).type.dtype != DType::I1 && !val(v).type.shape.empty();
  });
  if (x < 0)
    return false;
  const Value v = val(x);
  size_t rank = v.type.shape.size();
  DType t = v.type.dtype;
  std::vector<int64_t> axes;
  switch (rng.weighted({35, 20, 15, 20, 10})) {
  case 0:
    axes = {int64_t(rank) - 1};
    break;
  case 1:
    axes = {rank >= 3 ? rng.range(1, int64_t(rank) - 2) : randomAxis(rank)};
    break;
  case 2:
    axes = {0};
    break;
  case 3:
    for (size_t d = 0; d < rank; ++d)
      if (rng.chance(0.5))
        axes.push_back(int64_t(d));
    if (axes.empty())
      axes = {randomAxis(rank)};
    break;
  default:
    for (size_t d = 0; d < rank; ++d)
      axes.push_back(int64_t(d));
    break;
  }
  int64_t n = 1;
  for (int64_t a : axes)
    n *= v.type.shape[a];
  auto k = ReduceKind(rng.weighted({40, 25, 20, 5}));
  if (k == ReduceKind::Prod && n > 16)
    k = ReduceKind::Sum;
  if (k == ReduceKind::Prod) {
    x = isFloat(t) ? clamp(x, 0.75, 1.25) : clamp(x, -2, 2);
    if (isInt(t) && n > 8)
      k = ReduceKind::Max;
  }
  if (k == ReduceKind::Sum) {
    if (t == DType::F16 || t == DType::BF16)
      x = bounded(x, std::max(0.25, 20000.0 / double(n)));
    else if (isInt(t))
      x = bounded(x, std::max(1.0, double(1 << 20) / double(n)));
  }
  int r = reduce(k, x, axes);
  if (k == ReduceKind::Sum && isFloat(t) && rng.chance(0.3))
    r = binary(BinaryKind::Mul, r, splat(t, rank, 1.0 / double(n)));
  settle(r);
  return true;
}

bool Generator::genArgMax() {
  int x = pickValue([&](int v) {
    const Value &w = val(v);
    return w.type.dtype != DType::I1 && w.exact && !w.type.shape.empty() &&
           w.type.numElements() > 1;
  });
  if (x < 0)
    return false;
  const Shape &s = val(x).type.shape;
  int64_t axis = int64_t(s.size()) - 1;
  if (rng.chance(0.5) || s[axis] == 1) {
    std::vector<int64_t> candidates;
    for (size_t d = 0; d < s.size(); ++d)
      if (s[d] > 1)
        candidates.push_back(int64_t(d));
    axis = rng.pick(candidates);
  }
  int r = argmax(x, axis, rng.chance(0.85) ? DType::I32 : DType::I64);
  if (rng.chance(0.4))
    cast(r, floatType);
  return true;
}

bool Generator::genMatmul() {
  int x = pickValue([&](int v) {
    const Value &w = val(v);
    return isFloat(w.type.dtype) && !w.type.shape.empty() &&
           w.type.shape.size() <= 4;
  });
  if (x < 0)
    return false;
  if (rankOf(x) == 1) {
    int64_t n = val(x).type.shape[0];
    x = reshape(x, rng.chance(0.5) ? Shape{1, n} : Shape{n, 1});
  }
  x = bounded(x, 4);
  const Value a = val(x);
  DType t = a.type.dtype;
  size_t r = a.type.shape.size();
  bool ta = rng.chance(0.25);
  int64_t m = a.type.shape[r - 2], k = a.type.shape[r - 1];
  if (ta)
    std::swap(m, k);
  Shape batch(a.type.shape.begin(), a.type.shape.end() - 2);
  int y = -1;
  bool tb = rng.chance(0.3);
  switch (rng.weighted({20, 35, 45})) {
  case 0:
    // x times its own transpose: attention scores.
    y = x;
    tb = !ta;
    break;
  case 1:
    y = pickValue([&](int w) {
      const Value &b = val(w);
      if (b.type.dtype != t || b.type.shape.size() != r)
        return false;
      int64_t kb = b.type.shape[r - 2], n = b.type.shape[r - 1];
      if (tb)
        std::swap(kb, n);
      Shape bb(b.type.shape.begin(), b.type.shape.end() - 2), out;
      return kb == k && broadcastShapes(batch, bb, out) &&
             product(out) * m * n <= kMaxElements;
    });
    if (y >= 0) {
      y = bounded(y, 4);
      break;
    }
    [[fallthrough]];
  default: {
    // A weight constant; its batch dimensions are 1 (broadcast) or equal.
    int64_t n = randomDim();
    Shape wb = batch;
    for (int64_t &d : wb)
      if (rng.chance(0.6))
        d = 1;
    Shape ws = wb;
    ws.push_back(tb ? n : k);
    ws.push_back(tb ? k : n);
    while (product(ws) > kMaxConstantElements ||
           product(batch) * m * n > kMaxElements) {
      if (n == 1)
        return false;
      n = std::max<int64_t>(1, n / 3);
      ws[r - 2] = tb ? n : k;
      ws[r - 1] = tb ? k : n;
    }
    y = weightConstant({t, ws});
    break;
  }
  }
  {
    Shape bb(val(y).type.shape.begin(), val(y).type.shape.end() - 2), out;
    int64_t n = val(y).type.shape[tb ? r - 2 : r - 1];
    if (!broadcastShapes(batch, bb, out) || product(out) * m * n > kMaxElements)
      return false;
  }
  // Sometimes an explicit transpose instead of the flag: the canonicalizer
  // folds it back into the matmul.
  auto swapLast = [&](int v) {
    std::vector<int64_t> perm(r);
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[r - 1], perm[r - 2]);
    return transpose(v, perm);
  };
  if (ta && rng.chance(0.2)) {
    x = swapLast(x);
    ta = false;
  }
  if (tb && y != x && rng.chance(0.2)) {
    y = swapLast(y);
    tb = false;
  }
  settle(matmul(x, y, ta, tb));
  return true;
}

/// A product followed by what dlc-fuse-epilogue folds into cuBLASLt's
/// epilogue: a bias [1, ..., 1, N] (a constant, or computed), a residual
/// add, in either order and either operand order, then relu (max(x, 0) or
/// a clamp to [0, FLT_MAX]), tanh-GELU as the ONNX importer writes it, or
/// now and then what cuBLASLt cannot apply: erf-GELU, relu6 or SiLU (a
/// kernel after the library's product, or for f32 one generated GEMM with
/// the product inside, dlc-fuse-gemm). Any part may be missing.
bool Generator::genGemmEpilogue() {
  int x = pickValue([&](int v) {
    const Value &w = val(v);
    return isFloat(w.type.dtype) && w.type.shape.size() >= 2 &&
           w.type.shape.size() <= 4;
  });
  if (x < 0)
    return false;
  x = bounded(x, 1);
  const Value a = val(x);
  DType t = a.type.dtype;
  size_t r = a.type.shape.size();
  bool ta = rng.chance(0.2), tb = rng.chance(0.4);
  int64_t m = a.type.shape[r - 2], k = a.type.shape[r - 1];
  if (ta)
    std::swap(m, k);
  Shape batch(a.type.shape.begin(), a.type.shape.end() - 2);
  Shape wb = batch;
  for (int64_t &d : wb)
    if (rng.chance(0.5))
      d = 1;
  int64_t n = randomDim();
  auto tooLarge = [&] {
    return product(wb) * k * n > kMaxConstantElements ||
           product(batch) * m * n > kMaxElements;
  };
  while (tooLarge() && n > 1)
    n = std::max<int64_t>(1, n / 3);
  if (tooLarge())
    return false;
  Shape ws = wb;
  ws.push_back(tb ? n : k);
  ws.push_back(tb ? k : n);
  std::vector<double> weights;
  for (int64_t i = 0, e = product(ws); i < e; ++i)
    weights.push_back(gridValue(-1, 1, 1.0 / 32) / std::sqrt(double(k)));
  int y = matmul(x, constant({t, ws}, std::move(weights)), ta, tb);
  const Shape out = val(y).type.shape;

  // The adds, in a random order.
  int bias = -1, residual = -1;
  if (rng.chance(0.75)) {
    Shape bs(r, 1);
    bs[r - 1] = n;
    std::vector<double> data;
    for (int64_t i = 0; i < n; ++i)
      data.push_back(gridValue(-1, 1, 1.0 / 32));
    bias = constant({t, bs}, std::move(data));
    if (rng.chance(0.25))
      bias = unary(UnaryKind::Tanh, bias); // computed by a kernel
  }
  if (rng.chance(0.5)) {
    residual = pickValue([&](int v) {
      return v != y && val(v).type.dtype == t && val(v).type.shape == out;
    });
    if (residual >= 0)
      residual = bounded(residual, 4);
  }
  std::vector<int> addends;
  for (int v : {bias, residual})
    if (v >= 0)
      addends.push_back(v);
  if (addends.size() == 2 && rng.chance(0.5))
    std::swap(addends[0], addends[1]);
  for (int v : addends)
    y = rng.chance(0.5) ? binary(BinaryKind::Add, y, v)
                        : binary(BinaryKind::Add, v, y);

  // The activation.
  switch (rng.weighted({3, 3, 2, 4, 2, 1, 1})) {
  case 0:
    break;
  case 1:
    y = rng.chance(0.5) ? binary(BinaryKind::Max, y, splat(t, r, 0.0))
                        : binary(BinaryKind::Max, splat(t, r, 0.0), y);
    break;
  case 2:
    y = clamp(y, 0.0, double(std::numeric_limits<float>::max()));
    break;
  case 3: {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    int x3 = binary(BinaryKind::Mul, binary(BinaryKind::Mul, y, y), y);
    int inner = binary(BinaryKind::Add, y,
                       binary(BinaryKind::Mul, x3, splat(t, r, 0.044715)));
    int th = unary(UnaryKind::Tanh, binary(BinaryKind::Mul, inner,
                                           splat(t, r, std::sqrt(2.0 / M_PI))));
    y = binary(BinaryKind::Mul, binary(BinaryKind::Mul, y, splat(t, r, 0.5)),
               binary(BinaryKind::Add, th, splat(t, r, 1.0)));
    break;
  }
  case 4: {
    // erf-GELU: not cuBLASLt's GELU.
    int e = unary(UnaryKind::Erf,
                  binary(BinaryKind::Mul, y, splat(t, r, M_SQRT1_2)));
    y = binary(BinaryKind::Mul, binary(BinaryKind::Mul, y, splat(t, r, 0.5)),
               binary(BinaryKind::Add, e, splat(t, r, 1.0)));
    break;
  }
  case 5:
    y = clamp(y, 0.0, 6.0); // relu6
    break;
  default:
    y = binary(BinaryKind::Mul, y, unary(UnaryKind::Sigmoid, y)); // SiLU
    break;
  }
  settle(y);
  return true;
}

/// Sibling products for dlc-horizontal-fuse: two to four products of one
/// value with constant weights (Q, K and V projections), mostly each with
/// the add of a constant bias [1, ..., 1, N]. Usually the members agree in
/// everything and merge into one product; sometimes one has the other
/// transpose_b (its weights are transposed at compile time), no bias (the
/// biases stay separate), or weights of another batch shape (it stays out).
bool Generator::genSiblingMatmuls() {
  int x = pickValue([&](int v) {
    const Value &w = val(v);
    return isFloat(w.type.dtype) && w.type.shape.size() >= 2 &&
           w.type.shape.size() <= 4;
  });
  if (x < 0)
    return false;
  x = bounded(x, 4);
  // A copy: building operations reallocates the values.
  const Value a = val(x);
  DType t = a.type.dtype;
  size_t r = a.type.shape.size();
  bool ta = rng.chance(0.2);
  int64_t m = a.type.shape[r - 2], k = a.type.shape[r - 1];
  if (ta)
    std::swap(m, k);
  Shape batch(a.type.shape.begin(), a.type.shape.end() - 2);
  // Weights of every batch, or shared ones (batch dimensions 1).
  Shape wb = batch;
  for (int64_t &d : wb)
    if (rng.chance(0.6))
      d = 1;
  bool tb = rng.chance(0.5);
  bool biases = rng.chance(0.7);
  int count = int(rng.range(2, 4));
  int64_t totalN = 0;
  std::vector<int> results;
  for (int i = 0; i < count; ++i) {
    bool memberTb = rng.chance(0.15) ? !tb : tb;
    Shape mwb = wb;
    if (!mwb.empty() && rng.chance(0.1))
      mwb[0] = mwb[0] == 1 ? batch[0] : 1;
    int64_t n = randomDim();
    auto tooLarge = [&] {
      return product(mwb) * k * n > kMaxConstantElements ||
             product(batch) * m * (totalN + n) > kMaxElements;
    };
    while (tooLarge() && n > 1)
      n = std::max<int64_t>(1, n / 3);
    if (tooLarge())
      break;
    totalN += n;
    Shape ws = mwb;
    ws.push_back(memberTb ? n : k);
    ws.push_back(memberTb ? k : n);
    std::vector<double> data;
    for (int64_t j = 0, e = product(ws); j < e; ++j)
      data.push_back(gridValue(-1, 1, 1.0 / 32));
    int y = matmul(x, constant({t, ws}, std::move(data)), ta, memberTb);
    if (biases && rng.chance(0.9)) {
      Shape bs(r, 1);
      bs[r - 1] = n;
      std::vector<double> bias;
      for (int64_t j = 0; j < n; ++j)
        bias.push_back(gridValue(-1, 1, 1.0 / 32));
      int b = constant({t, bs}, std::move(bias));
      y = rng.chance(0.8) ? binary(BinaryKind::Add, y, b)
                          : binary(BinaryKind::Add, b, y);
    }
    results.push_back(y);
  }
  if (results.empty())
    return false;
  // Mostly one value that needs every sibling (the generator's outputs
  // keep only what they need alive); otherwise later operations pick them.
  if (results.size() >= 2 && rng.chance(0.6)) {
    settle(concat(results, int64_t(r) - 1));
    return true;
  }
  for (int y : results)
    settle(y);
  return true;
}

bool Generator::genTranspose() {
  int x = pickValue([&](int v) { return rankOf(v) >= 2; });
  if (x < 0)
    return false;
  size_t r = rankOf(x);
  std::vector<int64_t> perm(r);
  std::iota(perm.begin(), perm.end(), 0);
  for (int tries = 0; tries < 4; ++tries) {
    for (size_t i = r - 1; i > 0; --i)
      std::swap(perm[i], perm[rng.range(0, int64_t(i))]);
    bool identity = true;
    for (size_t i = 0; i < r; ++i)
      identity = identity && perm[i] == int64_t(i);
    if (!identity)
      break;
  }
  transpose(x, perm);
  return true;
}

Shape Generator::factorShape(int64_t n) {
  if (n == 1 && rng.chance(0.3))
    return {}; // a rank-0 tensor
  std::vector<int64_t> factors;
  for (int64_t f = 2; f * f <= n; ++f)
    while (n % f == 0) {
      factors.push_back(f);
      n /= f;
    }
  if (n > 1)
    factors.push_back(n);
  size_t rank = size_t(rng.weighted({15, 35, 30, 15, 5})) + 1;
  Shape s(rank, 1);
  for (int64_t f : factors)
    s[rng.range(0, int64_t(rank) - 1)] *= f;
  return s;
}

bool Generator::genReshape() {
  int x = pickValue([&](int) { return true; });
  if (x < 0)
    return false;
  Shape s = factorShape(val(x).type.numElements());
  if (s == val(x).type.shape)
    s = factorShape(val(x).type.numElements());
  reshape(x, s);
  return true;
}

bool Generator::genSlice() {
  int x = pickValue([&](int v) { return val(v).type.numElements() > 1; });
  if (x < 0)
    return false;
  const Shape s = val(x).type.shape;
  std::vector<int64_t> start, strides;
  Shape size;
  if (rng.chance(0.3)) {
    // Every k-th element (ONNX Slice with steps).
    for (int64_t d : s) {
      int64_t stride = rng.range(1, 3), first = rng.range(0, d - 1);
      int64_t most = (d - first + stride - 1) / stride;
      size.push_back(rng.chance(0.5) ? most : rng.range(1, most));
      start.push_back(first);
      strides.push_back(stride);
    }
    slice(x, start, size, strides);
    return true;
  }
  if (rng.chance(0.25)) {
    // One contiguous block (one element of the dimensions before some
    // dimension d, all of those after it), preferably at a 256-byte
    // aligned offset: dlc-fuse makes such a slice a view of its operand's
    // buffer (ShuffleNet's channel split) instead of a copy.
    const int64_t rank = int64_t(s.size());
    const int64_t d = rng.range(0, rank - 1);
    int64_t outer = 0, inner = 1; // in elements: of the leading index, of d
    for (int64_t e = rank - 1; e > d; --e)
      inner *= s[e];
    for (int64_t e = 0; e < d; ++e) {
      start.push_back(rng.range(0, s[e] - 1));
      size.push_back(1);
      outer = outer * s[e] + start.back();
    }
    outer *= s[d] * inner;
    const int64_t n = rng.range(1, s[d]);
    int64_t first = rng.range(0, s[d] - n);
    const int64_t bytes = int64_t(rt::dtypeSize(val(x).type.dtype));
    for (int tries = 0; tries < 8; ++tries) {
      int64_t candidate = rng.range(0, s[d] - n);
      if ((outer + candidate * inner) * bytes % 256 == 0) {
        first = candidate;
        break;
      }
    }
    start.push_back(first);
    size.push_back(n);
    for (int64_t e = d + 1; e < rank; ++e) {
      start.push_back(0);
      size.push_back(s[e]);
    }
    slice(x, start, size);
    return true;
  }
  for (int64_t d : s) {
    int64_t n = rng.chance(0.4) ? d : rng.range(1, d);
    size.push_back(n);
    start.push_back(rng.range(0, d - n));
  }
  slice(x, start, size);
  return true;
}

int Generator::nchwValue(int64_t maxElements) {
  int x = pickValue([&](int v) {
    const Value &w = val(v);
    return isFloat(w.type.dtype) && w.type.numElements() >= 4 &&
           w.type.numElements() <= maxElements;
  });
  if (x < 0)
    return -1;
  if (rankOf(x) == 4 && rng.chance(0.8))
    return x;
  // Factor the elements into [N, C, H, W] with most of them spatial.
  int64_t n = val(x).type.numElements();
  std::vector<int64_t> factors;
  for (int64_t f = 2; f * f <= n; ++f)
    while (n % f == 0) {
      factors.push_back(f);
      n /= f;
    }
  if (n > 1)
    factors.push_back(n);
  Shape shape(4, 1);
  for (int64_t f : factors)
    shape[rng.weighted({1, 3, 4, 4})] *= f;
  return reshape(x, shape);
}

/// Scaled dot-product attention in the decomposed form dlc-form-attention
/// turns into one dlc.attention: matmul(softmax(scale * q k^T [+ mask]), v),
/// self-attention (k and v are q) or with constant keys and values, K^T by
/// transpose_b or an explicit transpose, the scale multiplied or divided,
/// and a mask that is none, a constant causal pattern (-1e4 above the
/// diagonal: the pass makes it `causal`) or a constant additive bias per key.
bool Generator::genAttention() {
  int q = pickValue([&](int v) {
    const Value &w = val(v);
    size_t r = w.type.shape.size();
    return isFloat(w.type.dtype) && r >= 2 && r <= 4 &&
           w.type.shape[r - 1] > 0 && w.type.shape[r - 1] <= 256;
  });
  if (q < 0)
    return false;
  q = bounded(q, 2);
  const TensorType qt = val(q).type;
  DType t = qt.dtype;
  size_t r = qt.shape.size();
  Shape batch(qt.shape.begin(), qt.shape.end() - 2);
  int64_t sq = qt.shape[r - 2], d = qt.shape[r - 1], nb = product(batch);
  bool self = rng.chance(0.4);
  int64_t sk = self ? sq : randomDim();
  int64_t dv = self || rng.chance(0.5) ? d : randomDim();
  if (!self) {
    while (sk > 1 && nb * sk * std::max(d, dv) > kMaxConstantElements)
      sk = std::max<int64_t>(1, sk / 2);
    while (dv > 1 && nb * sk * dv > kMaxConstantElements)
      dv = std::max<int64_t>(1, dv / 2);
    if (nb * sk * std::max(d, dv) > kMaxConstantElements)
      return false;
  }
  if (nb * sq * sk > kMaxElements || nb * sq * dv > kMaxElements)
    return false;
  auto weights = [&](int64_t rows, int64_t cols) {
    Shape s = batch;
    s.push_back(rows);
    s.push_back(cols);
    std::vector<double> data;
    for (int64_t i = 0, e = product(s); i < e; ++i)
      data.push_back(gridValue(-1, 1, 1.0 / 32));
    return constant({t, s}, std::move(data));
  };
  int k = self ? q : weights(sk, d);
  int v = self ? q : weights(sk, dv);
  settle(attentionChain(q, k, v));
  return true;
}

/// matmul(softmax(scale * q k^T [+ mask]), v) for q [batch..., Sq, D], k
/// [batch..., Sk, D] and v [batch..., Sk, Dv] of one rank; returns the
/// result.
int Generator::attentionChain(int q, int k, int v) {
  const TensorType qt = val(q).type;
  DType t = qt.dtype;
  size_t r = qt.shape.size();
  int64_t sq = qt.shape[r - 2], d = qt.shape[r - 1];
  int64_t sk = val(k).type.shape[r - 2];
  std::vector<int64_t> swapLast(r);
  std::iota(swapLast.begin(), swapLast.end(), 0);
  std::swap(swapLast[r - 1], swapLast[r - 2]);
  int s = rng.chance(0.7) ? matmul(q, k, false, true)
                          : matmul(q, transpose(k, swapLast), false, false);
  double root = std::sqrt(double(d));
  s = rng.chance(0.5) ? binary(BinaryKind::Mul, s, splat(t, r, 1.0 / root))
                      : binary(BinaryKind::Div, s, splat(t, r, root));
  switch (rng.weighted({40, 35, 25})) {
  case 1: {
    if (sk < sq || sq * sk > kMaxConstantElements)
      break;
    Shape ms(r - 2, 1);
    ms.push_back(sq);
    ms.push_back(sk);
    std::vector<double> data;
    for (int64_t i = 0; i < sq; ++i)
      for (int64_t j = 0; j < sk; ++j)
        data.push_back(j > i + (sk - sq) ? -1e4 : 0.0);
    s = binary(BinaryKind::Add, s, constant({t, ms}, std::move(data)));
    break;
  }
  case 2: {
    Shape ms(r - 1, 1);
    ms.push_back(sk);
    std::vector<double> data;
    for (int64_t j = 0; j < sk; ++j)
      data.push_back(gridValue(-2, 0, 1.0 / 4));
    s = binary(BinaryKind::Add, constant({t, ms}, std::move(data)), s);
    break;
  }
  default:
    break;
  }
  int64_t axis = int64_t(r) - 1;
  int m = reduce(ReduceKind::Max, s, {axis});
  int centered = binary(BinaryKind::Sub, s, m);
  p.values[centered].hi = 0; // s - max(s) <= 0
  int e = unary(UnaryKind::Exp, centered);
  int z = reduce(ReduceKind::Sum, e, {axis});
  p.values[z].lo = 1; // the row's maximum contributes exp(0) = 1
  int probs = rng.chance(0.7)
                  ? binary(BinaryKind::Div, e, z)
                  : binary(BinaryKind::Mul, e, unary(UnaryKind::Reciprocal, z));
  p.values[probs].lo = 0;
  p.values[probs].hi = 1;
  return matmul(probs, v, false, false);
}

/// Multi-head attention as models write it: q, k and v are heads split out
/// of [B, S, H * D] values (slices of whole heads of one packed QKV value,
/// the value itself for self-attention, or constant keys and values) by a
/// reshape to [B, S, H, D] and a transpose to [B, H, S, D] (then often a
/// reshape to [B * H, S, D]); the heads are merged back after the chain
/// the same way. Three in ten are sequence first, [S, B, H * D], split by
/// a reshape to [S, B, H, D] and a transpose, or as nn.MultiheadAttention
/// exports do, by a reshape to [S, B * H, D] and transpose [1, 0, 2].
/// dlc-attention-layout removes the splits and the merge.
bool Generator::genMultiHeadAttention() {
  int x = pickValue([&](int v) {
    const Value &w = val(v);
    size_t r = w.type.shape.size();
    return isFloat(w.type.dtype) && (r == 2 || r == 3) &&
           w.type.shape[r - 1] >= 1 && product(w.type.shape) > 0;
  });
  if (x < 0)
    return false;
  x = bounded(x, 2);
  const TensorType xt = val(x).type;
  DType t = xt.dtype;
  int64_t c = xt.shape.back(), rows = product(xt.shape) / c;
  bool seqFirst = rng.chance(0.3);
  int64_t b = 1;
  if (xt.shape.size() == 3) {
    b = xt.shape[seqFirst ? 1 : 0];
  } else {
    std::vector<int64_t> batches;
    for (int64_t n : {1, 2, 3, 4})
      if (rows % n == 0)
        batches.push_back(n);
    b = rng.pick(batches);
  }
  int64_t s = rows / b;
  std::vector<int64_t> sizes;
  for (int64_t n = 1; n <= std::min<int64_t>(c, 64); ++n)
    if (c % n == 0)
      sizes.push_back(n);
  int64_t d = rng.pick(sizes), n = c / d;
  // 0: packed QKV (slices of whole heads, now and then one that is not),
  // 1: self-attention on x, 2: constant keys and values.
  int kind = rng.weighted({45, 25, 30});
  if (kind == 0 && n < 3)
    kind = 1;
  int64_t h = kind == 0 ? rng.range(1, n / 3) : n;
  int64_t sk = s;
  if (kind == 2) {
    sk = randomDim();
    while (sk > 1 && b * sk * h * d > kMaxConstantElements)
      sk = std::max<int64_t>(1, sk / 2);
    if (b * sk * h * d > kMaxConstantElements)
      return false;
  }
  if (b * h * s * sk > kMaxElements)
    return false;
  bool merged = rng.chance(0.6);
  bool exportStyle = seqFirst && merged && rng.chance(0.5);
  // [B, S', H * D] or [S', B, H * D] (any value of B * S' rows of H * D
  // elements, or a column range of one) -> [B, H, S', D] or [B * H, S', D].
  // Values of a packed QKV with half the head size, now and then.
  int64_t dv = kind == 0 && d % 2 == 0 && rng.chance(0.25) ? d / 2 : d;
  auto split = [&](int v, int64_t start, int64_t seq, int64_t hd,
                   int64_t heads) {
    const Shape vs = val(v).type.shape;
    if (vs.back() != heads * hd) {
      std::vector<int64_t> begin(vs.size(), 0);
      begin.back() = start;
      Shape size = vs;
      size.back() = heads * hd;
      v = slice(v, begin, size);
    }
    if (exportStyle)
      return transpose(reshape(v, {seq, b * heads, hd}), {1, 0, 2});
    if (seqFirst)
      v = transpose(reshape(v, {seq, b, heads, hd}), {1, 2, 0, 3});
    else
      v = transpose(reshape(v, {b, seq, heads, hd}), {0, 2, 1, 3});
    return merged ? reshape(v, {b * heads, seq, hd}) : v;
  };
  // Grouped-query attention's repeat_kv: `hkv` heads of keys or values
  // ([B, Hkv, S', D] or [B * Hkv, S', D]), each repeated for h / hkv query
  // heads: reshape to [B, Hkv, 1, S', D], tile, reshape back to h heads.
  auto repeatKv = [&](int v, int64_t hkv, int64_t seq, int64_t hd) {
    int64_t g = h / hkv;
    v = reshape(v, {b, hkv, 1, seq, hd});
    v = tile(v, {1, 1, g, 1, 1});
    return merged || exportStyle ? reshape(v, {b * h, seq, hd})
                                 : reshape(v, {b, h, seq, hd});
  };
  int q, k, v;
  if (kind == 0) {
    // Three blocks of h heads in some order, shifted by whole heads; one
    // start in ten moved by a column (no longer whole heads).
    std::vector<int64_t> order = {0, 1, 2};
    for (int i = 2; i > 0; --i)
      std::swap(order[i], order[rng.range(0, i)]);
    int64_t shift = rng.range(0, n - 3 * h);
    int64_t starts[3];
    for (int i = 0; i < 3; ++i) {
      starts[i] = (order[i] * h + shift) * d;
      if (rng.chance(0.1) && starts[i] + h * d < c)
        starts[i] += 1;
    }
    q = split(x, starts[0], s, d, h);
    k = split(x, starts[1], s, d, h);
    v = split(x, starts[2], s, dv, h);
  } else if (kind == 1) {
    q = k = v = split(x, 0, s, d, h);
  } else {
    // Keys and values of fewer heads, repeated for groups of query heads
    // (grouped- or multi-query attention), more often than not.
    std::vector<int64_t> kvHeads;
    for (int64_t n = 1; n < h; ++n)
      if (h % n == 0)
        kvHeads.push_back(n);
    int64_t hkv = !kvHeads.empty() && rng.chance(0.6) ? rng.pick(kvHeads) : h;
    auto weights = [&]() {
      std::vector<double> data;
      for (int64_t i = 0, e = b * sk * hkv * d; i < e; ++i)
        data.push_back(gridValue(-1, 1, 1.0 / 32));
      return constant(
          {t, seqFirst ? Shape{sk, b, hkv * d} : Shape{b, sk, hkv * d}},
          std::move(data));
    };
    q = split(x, 0, s, d, h);
    k = split(weights(), 0, sk, d, hkv);
    v = split(weights(), 0, sk, d, hkv);
    if (hkv != h) {
      k = repeatKv(k, hkv, sk, d);
      v = repeatKv(v, hkv, sk, d);
    }
  }
  int o = attentionChain(q, k, v);
  if (rng.chance(0.2))
    settle(o); // a use of the heads-first result besides the merge
  if (exportStyle) {
    o = transpose(o, {1, 0, 2}); // [S, B * H, Dv]
  } else {
    if (merged)
      o = reshape(o, {b, h, s, dv});
    o = transpose(o, seqFirst ? std::vector<int64_t>{2, 0, 1, 3}
                              : std::vector<int64_t>{0, 2, 1, 3});
  }
  settle(rng.chance(0.5)
             ? reshape(o, {seqFirst ? s : b, seqFirst ? b : s, h * dv})
             : reshape(o, {b * s, h * dv}));
  return true;
}

bool Generator::genConv() {
  int x = nchwValue(kMaxElements);
  if (x < 0)
    return false;
  x = bounded(x, 2);
  const Shape in = val(x).type.shape;
  const DType t = val(x).type.dtype;
  const int64_t N = in[0], C = in[1], H = in[2], W = in[3];
  bool transposed = rng.chance(0.25);
  // Groups: mostly 1, often depthwise, sometimes another divisor of C.
  int64_t g = 1;
  switch (rng.weighted({55, 30, 15})) {
  case 1:
    g = C;
    break;
  case 2: {
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d <= C; ++d)
      if (C % d == 0)
        divisors.push_back(d);
    g = rng.pick(divisors);
    break;
  }
  default:
    break;
  }
  int64_t perGroupOut = rng.pick(std::vector<int64_t>{1, 1, 2, 3, 4, 8, 16});
  int64_t OC = g * perGroupOut;
  std::vector<int64_t> k(2), st(2), dil(2), pads(4), outPad(2, 0), out(2);
  const int64_t spatial[2] = {H, W};
  for (int d = 0; d < 2; ++d) {
    k[d] = rng.pick(std::vector<int64_t>{1, 1, 2, 3, 3, 3, 5});
    st[d] = rng.weighted({60, 30, 10}) + 1;
    dil[d] = rng.chance(0.2) ? 2 : 1;
  }
  for (int d = 0; d < 4; ++d)
    pads[d] = std::min<int64_t>(rng.weighted({50, 35, 15}), k[d % 2] - 1 + 1);
  for (int d = 0; d < 2; ++d) {
    int64_t span = dil[d] * (k[d] - 1) + 1;
    if (transposed) {
      if (rng.chance(0.3))
        outPad[d] = rng.range(0, std::max(st[d], dil[d]) - 1);
      // Pads may not remove more than the full output.
      int64_t full = st[d] * (spatial[d] - 1) + outPad[d] + span;
      while (pads[d] + pads[d + 2] >= full)
        pads[d] = pads[d + 2] = 0;
      out[d] = full - pads[d] - pads[d + 2];
    } else {
      int64_t padded = spatial[d] + pads[d] + pads[d + 2];
      if (padded < span)
        return false;
      out[d] = (padded - span) / st[d] + 1;
    }
  }
  Shape resultShape = {N, OC, out[0], out[1]};
  Shape filterShape = transposed ? Shape{C, perGroupOut, k[0], k[1]}
                                 : Shape{OC, C / g, k[0], k[1]};
  // Each output sums C / g input channels over the window, either way.
  int64_t fanIn = C / g * k[0] * k[1];
  if (product(resultShape) > kMaxElements ||
      product(filterShape) > kMaxConstantElements ||
      product(resultShape) * fanIn > 4000000)
    return false;
  std::vector<double> data;
  for (int64_t i = 0, e = product(filterShape); i < e; ++i)
    data.push_back(gridValue(-1, 1, 1.0 / 32));
  double wMax = 0;
  for (double v : data)
    wMax = std::max(wMax, std::fabs(v));
  int w = constant({t, filterShape}, std::move(data));
  Op op;
  op.kind = OpKind::Conv;
  op.sub = transposed ? 1 : 0;
  op.operands = {x, w};
  op.strides = st;
  op.pads = pads;
  op.dilations = dil;
  op.outputPadding = outPad;
  op.groups = g;
  double bound = maxAbs(val(x)) * wMax * double(fanIn);
  int y = add(std::move(op), {t, resultShape}, -bound, bound, false);
  settle(y);
  return true;
}

bool Generator::genPool() {
  int x = nchwValue(kMaxElements);
  if (x < 0)
    return false;
  const Shape in = val(x).type.shape;
  bool isMax = rng.chance(0.5);
  std::vector<int64_t> k(2), st(2), dil(2, 1), pads(4), out(2);
  for (int d = 0; d < 2; ++d) {
    k[d] = std::min<int64_t>(in[2 + d] + 1,
                             rng.pick(std::vector<int64_t>{1, 2, 2, 3, 3, 5}));
    st[d] = rng.weighted({35, 45, 20}) + 1;
    if (isMax && rng.chance(0.15))
      dil[d] = 2;
  }
  // Pads of at most half the window (ONNX and PyTorch require it), so that
  // every window holds an element of the input.
  for (int d = 0; d < 4; ++d)
    pads[d] = rng.chance(0.6) ? 0 : rng.range(0, k[d % 2] / 2);
  for (int d = 0; d < 2; ++d) {
    int64_t span = dil[d] * (k[d] - 1) + 1;
    int64_t padded = in[2 + d] + pads[d] + pads[d + 2];
    if (padded < span)
      return false;
    out[d] = (padded - span) / st[d] + 1;
    // ceil_mode: one more window if it starts inside the padded input
    // (before its end padding) and the floor formula dropped it.
    if (rng.chance(0.3) && (padded - span) % st[d] != 0 &&
        out[d] * st[d] < in[2 + d] + pads[d])
      ++out[d];
    // Every window must hold an element of the input (a dilated window can
    // straddle a short input): the max of an empty window is -inf.
    for (int64_t o = 0; o < out[d]; ++o) {
      bool inside = false;
      for (int64_t j = 0; j < k[d] && !inside; ++j) {
        int64_t i = o * st[d] - pads[d] + j * dil[d];
        inside = i >= 0 && i < in[2 + d];
      }
      if (!inside)
        return false;
    }
  }
  Op op;
  op.kind = OpKind::Pool;
  op.sub = isMax ? 0 : 1;
  op.operands = {x};
  op.kernel = k;
  op.strides = st;
  op.pads = pads;
  op.dilations = dil;
  op.countIncludePad = !isMax && rng.chance(0.5);
  const Value v = val(x);
  Shape shape = {in[0], in[1], out[0], out[1]};
  double lo = v.lo, hi = v.hi;
  if (!isMax && op.countIncludePad) {
    // Padding counts as zeros in the average.
    lo = std::min(lo, 0.0);
    hi = std::max(hi, 0.0);
  }
  add(std::move(op), {v.type.dtype, shape}, lo, hi, isMax && v.exact);
  return true;
}

bool Generator::genGather() {
  int x = pickValue([&](int v) {
    return !val(v).type.shape.empty() && val(v).type.numElements() > 0;
  });
  if (x < 0)
    return false;
  const Shape s = val(x).type.shape;
  int64_t axis = randomAxis(s.size());
  int64_t extent = s[axis];
  Shape idx = randomShape(rng.weighted({20, 50, 30}), 64);
  if (idx.size() == 0 || rng.chance(0.1))
    idx = {};
  Shape out(s.begin(), s.begin() + axis);
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), s.begin() + axis + 1, s.end());
  if (product(out) > kMaxElements)
    return false;
  std::vector<double> data;
  // Negative indices count from the end.
  for (int64_t i = 0, e = std::max<int64_t>(product(idx), 1); i < e; ++i)
    data.push_back(double(rng.range(-extent, extent - 1)));
  DType it = rng.chance(0.5) ? DType::I64 : DType::I32;
  int indices = constant({it, idx}, std::move(data));
  gather(x, indices, axis);
  return true;
}

bool Generator::genResize() {
  int x = pickValue([&](int v) {
    const Value &w = val(v);
    return isFloat(w.type.dtype) && !w.type.shape.empty() &&
           w.type.shape.size() <= 4;
  });
  if (x < 0)
    return false;
  const Value v = val(x);
  Shape out = v.type.shape;
  bool linear = rng.chance(0.5);
  // Resize the last one or two dimensions (H and W of NCHW), each by a
  // factor. Nearest sampling only by factors whose source coordinates are
  // exact in f32 (2, 3, 4 up, 2 down), so that device and reference round
  // them the same way; linear sampling by any factor.
  size_t first =
      out.size() >= 2 && rng.chance(0.7) ? out.size() - 2 : out.size() - 1;
  for (size_t d = first; d < out.size(); ++d) {
    int64_t n = out[d];
    switch (rng.weighted({40, 15, 10, 20, 15})) {
    case 0:
      out[d] = 2 * n;
      break;
    case 1:
      out[d] = 3 * n;
      break;
    case 2:
      out[d] = 4 * n;
      break;
    case 3:
      if (n % 2 == 0)
        out[d] = n / 2;
      break;
    default:
      if (linear)
        out[d] = std::max<int64_t>(1, rng.range(1, 2 * n + 3));
      break;
    }
  }
  if (product(out) > kMaxElements || out == v.type.shape)
    return false;
  Op op;
  op.kind = OpKind::Resize;
  op.operands = {x};
  op.mode = linear ? "linear" : "nearest";
  static const std::vector<std::string> coordinateModes = {
      "half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"};
  static const std::vector<std::string> nearestModes = {
      "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  op.coordinateMode = rng.pick(coordinateModes);
  if (!linear && op.coordinateMode == "align_corners")
    op.coordinateMode = "asymmetric"; // (in-1)/(out-1) is not exact
  if (!linear)
    op.nearestMode = rng.pick(nearestModes);
  add(std::move(op), {v.type.dtype, out}, v.lo, v.hi, !linear && v.exact);
  return true;
}

bool Generator::genConcat() {
  int x = pickValue([&](int v) {
    return !val(v).type.shape.empty() &&
           (val(v).type.dtype != DType::I1 || rng.chance(0.3));
  });
  if (x < 0)
    return false;
  const Value v = val(x);
  size_t rank = v.type.shape.size();
  int64_t axis = rng.chance(0.5) ? int64_t(rank) - 1 : randomAxis(rank);
  std::vector<int> parts = {x};
  int count = rng.chance(0.8) ? 2 : 3;
  int64_t total = v.type.shape[axis];
  for (int i = 1; i < count; ++i) {
    int y = -1;
    switch (rng.range(0, 3)) {
    case 0:
      y = pickValue([&](int w) {
        const Value &b = val(w);
        if (b.type.dtype != v.type.dtype || b.type.shape.size() != rank)
          return false;
        for (size_t d = 0; d < rank; ++d)
          if (int64_t(d) != axis && b.type.shape[d] != v.type.shape[d])
            return false;
        return true;
      });
      break;
    case 1: {
      std::vector<int64_t> start(rank, 0);
      Shape size = v.type.shape;
      size[axis] = rng.range(1, v.type.shape[axis]);
      start[axis] = rng.range(0, v.type.shape[axis] - size[axis]);
      y = slice(x, start, size);
      break;
    }
    case 2:
      if (isFloat(v.type.dtype))
        y = unary(UnaryKind::Neg, x);
      break;
    default:
      break;
    }
    if (y < 0)
      y = x;
    total += val(y).type.shape[axis];
    parts.push_back(y);
  }
  if (v.type.numElements() / v.type.shape[axis] * total > kMaxElements)
    return false;
  if (rng.chance(0.5))
    std::reverse(parts.begin(), parts.end());
  // Sometimes read by a product with a constant weight narrower than the
  // concat, along the concatenated axis: the form dlc-split-concat-product
  // computes as a sum of products (a feature concat before a Linear). The
  // parts are bounded, as a product's operands are (genMatmul).
  bool withProduct = isFloat(v.type.dtype) && rank >= 2 &&
                     axis == int64_t(rank) - 1 && total >= 2 && rng.chance(0.4);
  if (withProduct)
    for (int &part : parts)
      part = bounded(part, 4);
  int c = concat(parts, axis);
  if (withProduct) {
    bool tb = rng.chance(0.6);
    int64_t n = rng.range(1, total - 1);
    Shape ws(rank - 2, 1);
    ws.push_back(tb ? n : total);
    ws.push_back(tb ? total : n);
    int64_t rows = v.type.numElements() / v.type.shape[axis];
    if (product(ws) <= kMaxConstantElements && rows * n <= kMaxElements) {
      settle(matmul(c, weightConstant({v.type.dtype, ws}), /*ta=*/false, tb));
    }
  }
  return true;
}

bool Generator::genPad() {
  int x = pickValue([&](int v) { return !val(v).type.shape.empty(); });
  if (x < 0)
    return false;
  const Value v = val(x);
  size_t rank = v.type.shape.size();
  std::vector<int64_t> low(rank, 0), high(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    if (rng.chance(0.5))
      low[d] = rng.range(0, 3);
    if (rng.chance(0.5))
      high[d] = rng.range(0, 3);
  }
  size_t d = size_t(randomAxis(rank));
  if (low[d] + high[d] == 0)
    high[d] = 1;
  Shape s = v.type.shape;
  for (size_t i = 0; i < rank; ++i)
    s[i] += low[i] + high[i];
  if (product(s) > kMaxElements)
    return false;
  DType t = v.type.dtype;
  double value = t == DType::I1 ? double(rng.range(0, 1))
                 : isInt(t)     ? double(rng.range(-3, 3))
                                : gridValue(-1, 1, 1.0 / 8);
  if (rng.chance(0.3))
    value = 0;
  pad(x, low, high, value);
  return true;
}

bool Generator::genTile() {
  int x = pickValue([&](int v) {
    return !val(v).type.shape.empty() &&
           val(v).type.numElements() * 2 <= kMaxElements;
  });
  if (x < 0)
    return false;
  const Value v = val(x);
  size_t rank = v.type.shape.size();
  std::vector<int64_t> m(rank, 1);
  int count = rng.chance(0.7) ? 1 : 2;
  for (int i = 0; i < count; ++i)
    m[randomAxis(rank)] = rng.range(2, 3);
  int64_t n = v.type.numElements();
  for (int64_t f : m)
    n *= f;
  if (n > kMaxElements)
    return false;
  tile(x, m);
  return true;
}

/// Trailing reduction axes for a row-wise pattern: the last axis mostly,
/// sometimes the last two, sometimes a middle axis alone.
static std::vector<int64_t> rowAxes(Rng &rng, const Shape &shape) {
  int64_t r = int64_t(shape.size());
  switch (rng.weighted({65, 20, 15})) {
  case 1:
    if (r >= 2)
      return {r - 2, r - 1};
    break;
  case 2:
    if (r >= 3)
      return {rng.range(1, r - 2)};
    break;
  default:
    break;
  }
  return {r - 1};
}

bool Generator::genSoftmax() {
  int x = pickValue([&](int v) {
    return isFloat(val(v).type.dtype) && !val(v).type.shape.empty();
  });
  if (x < 0)
    return false;
  x = bounded(x, 8);
  const Value v = val(x);
  DType t = v.type.dtype;
  std::vector<int64_t> axes = rowAxes(rng, v.type.shape);
  int64_t n = 1;
  for (int64_t a : axes)
    n *= v.type.shape[a];
  int m = reduce(ReduceKind::Max, x, axes);
  int d = binary(BinaryKind::Sub, x, m);
  p.values[d].hi = 0; // x - max(x) <= 0
  int e = unary(UnaryKind::Exp, d);
  int s = reduce(ReduceKind::Sum, e, axes);
  // The row's maximum contributes exp(0) = 1: the sum is at least 1, which
  // the intervals cannot see.
  p.values[s].lo = 1;
  int y;
  if (rng.chance(0.25)) {
    // log-softmax
    y = binary(BinaryKind::Sub, d, unary(UnaryKind::Log, s));
  } else {
    y = binary(BinaryKind::Div, e, s);
    p.values[y].lo = 0;
    p.values[y].hi = 1;
  }
  (void)t;
  (void)n;
  settle(y);
  return true;
}

bool Generator::genNormalize() {
  int x = pickValue([&](int v) {
    return isFloat(val(v).type.dtype) && !val(v).type.shape.empty();
  });
  if (x < 0)
    return false;
  x = bounded(x, 16);
  const Value v = val(x);
  DType t = v.type.dtype;
  size_t rank = v.type.shape.size();
  std::vector<int64_t> axes = rowAxes(rng, v.type.shape);
  int64_t n = 1;
  for (int64_t a : axes)
    n *= v.type.shape[a];
  double inv = 1.0 / double(n);
  // f16/bf16 sums of squares must stay in range.
  if (t != DType::F32)
    x = bounded(x, std::max(0.25, std::sqrt(20000.0 / double(n))));
  int mean = binary(BinaryKind::Mul, reduce(ReduceKind::Sum, x, axes),
                    splat(t, rank, inv));
  int c = binary(BinaryKind::Sub, x, mean);
  int sq = binary(BinaryKind::Mul, c, c);
  int var = binary(BinaryKind::Mul, reduce(ReduceKind::Sum, sq, axes),
                   splat(t, rank, inv));
  int r = unary(UnaryKind::Rsqrt,
                binary(BinaryKind::Add, var, splat(t, rank, 1.0 / 64)));
  int y = binary(BinaryKind::Mul, c, r);
  // |c| <= sqrt(n * var): the normalized values are at most sqrt(n).
  p.values[y].lo = -std::sqrt(double(n));
  p.values[y].hi = std::sqrt(double(n));
  if (rng.chance(0.5)) {
    // A scale and a shift along the last axis (the layer norm's affine part).
    Shape s(rank, 1);
    s.back() = v.type.shape.back();
    if (s.back() <= kMaxConstantElements) {
      std::vector<double> gamma, beta;
      for (int64_t i = 0; i < s.back(); ++i) {
        gamma.push_back(gridValue(0.5, 1.5, 1.0 / 32));
        beta.push_back(gridValue(-0.5, 0.5, 1.0 / 32));
      }
      y = binary(BinaryKind::Mul, y, constant({t, s}, gamma));
      y = binary(BinaryKind::Add, y, constant({t, s}, beta));
    }
  }
  settle(y);
  return true;
}

//===----------------------------------------------------------------------===//
// Inputs, outputs, the whole program
//===----------------------------------------------------------------------===//

void Generator::makeInputs() {
  floatType = DType(rng.weighted({70, 15, 15}));
  static const std::vector<double> rankWeights = {10, 35, 35, 20};
  Shape base = randomShape(rng.weighted(rankWeights) + 1, kMaxElements);
  // Now and then a scalar (rank-0) argument.
  auto scalarOr = [&](Shape s) { return rng.chance(0.03) ? Shape{} : s; };
  int n = int(rng.range(1, 3));
  auto addInput = [&](DType t, Shape s) {
    double lo = t == DType::I1 ? 0 : isInt(t) ? 0 : -1;
    double hi = t == DType::I1 ? 1 : isInt(t) ? 7 : 1;
    int v = newValue({t, std::move(s)}, lo, hi, /*exact=*/true);
    p.inputs.push_back(v);
  };
  auto variant = [&](Shape s) {
    for (int64_t &d : s)
      if (rng.chance(0.4))
        d = 1;
    return s;
  };
  addInput(floatType, base);
  for (int i = 1; i < n; ++i) {
    switch (rng.weighted({25, 20, 20, 15, 12, 4, 4})) {
    case 0:
      addInput(floatType, base);
      break;
    case 1:
      addInput(floatType, variant(base));
      break;
    case 2: {
      if (base.size() < 2) {
        addInput(floatType, {base[0], randomDim()});
        break;
      }
      Shape s;
      for (size_t d = 0; d + 2 < base.size(); ++d)
        s.push_back(rng.chance(0.5) ? 1 : base[d]);
      s.push_back(base.back());
      s.push_back(randomDim());
      while (product(s) > kMaxElements)
        s.back() = std::max<int64_t>(1, s.back() / 2);
      addInput(floatType, s);
      break;
    }
    case 3:
      addInput(floatType, scalarOr(randomShape(rng.weighted(rankWeights) + 1,
                                               kMaxElements)));
      break;
    case 4:
      addInput(DType::I32, rng.chance(0.5) ? base : variant(base));
      break;
    case 5:
      addInput(DType::I1, rng.chance(0.5) ? base : variant(base));
      break;
    default:
      addInput(floatType == DType::F32 ? DType::F16 : DType::F32, base);
      break;
    }
  }
}

void Generator::chooseOutputs() {
  // Ops each value needs (its cone), to pick outputs that keep most of the
  // program alive.
  std::map<int, const Op *> def;
  for (const Op &op : p.ops)
    def[op.result] = &op;
  auto cone = [&](int v) {
    std::set<int> seen;
    std::vector<int> stack = {v};
    while (!stack.empty()) {
      int x = stack.back();
      stack.pop_back();
      auto it = def.find(x);
      if (it == def.end() || !seen.insert(x).second)
        continue;
      for (int o : it->second->operands)
        stack.push_back(o);
    }
    return seen;
  };
  std::vector<int> sinks;
  for (const Op &op : p.ops)
    if (uses[op.result] == 0 && !isConstant[op.result])
      sinks.push_back(op.result);
  if (sinks.empty()) {
    p.outputs.push_back(p.inputs[0]);
    return;
  }
  std::set<int> live;
  int first = -1;
  for (int s : sinks)
    if (first < 0 || cone(s).size() > cone(first).size())
      first = s;
  p.outputs.push_back(first);
  live = cone(first);
  if (rng.chance(0.4))
    return;
  // The second output: mostly another sink, sometimes a value that is also
  // used inside the program (its buffer must survive in-place reuse), the
  // same value twice, an argument, a view, or a constant.
  switch (rng.weighted({55, 20, 5, 5, 7, 3, 5})) {
  case 0: {
    int second = -1;
    size_t best = 0;
    for (int s : sinks) {
      if (s == first)
        continue;
      size_t extra = 0;
      for (int v : cone(s))
        extra += live.count(v) ? 0 : 1;
      if (second < 0 || extra > best)
        second = s, best = extra;
    }
    if (second < 0)
      second = pickValue([&](int v) { return v != first; });
    if (second >= 0)
      p.outputs.push_back(second);
    break;
  }
  case 1: {
    int inner = pickValue([&](int v) {
      return uses[v] > 0 && live.count(v) && v != first &&
             std::find(p.inputs.begin(), p.inputs.end(), v) == p.inputs.end();
    });
    if (inner >= 0)
      p.outputs.push_back(inner);
    break;
  }
  case 2:
    p.outputs.push_back(first);
    break;
  case 3:
    p.outputs.push_back(rng.pick(p.inputs));
    break;
  case 4: {
    Shape s = factorShape(val(first).type.numElements());
    p.outputs.push_back(reshape(first, s));
    break;
  }
  case 5: {
    DType t = val(first).type.dtype;
    Shape s = randomShape(rng.range(1, 3), 64);
    std::vector<double> data;
    for (int64_t i = 0, e = product(s); i < e; ++i)
      data.push_back(t == DType::I1 ? double(rng.range(0, 1))
                     : isInt(t)     ? double(rng.range(-4, 7))
                                    : gridValue(-1, 1, 1.0 / 32));
    p.outputs.push_back(constant({t, s}, std::move(data)));
    break;
  }
  default: {
    int in = rng.pick(p.inputs);
    p.outputs.push_back(reshape(in, factorShape(val(in).type.numElements())));
    break;
  }
  }
}

Program Generator::run() {
  tosaProbability = rng.pick(std::vector<double>{0.0, 0.5, 0.5, 1.0});
  makeInputs();
  int target = int(rng.range(options.minOps, options.maxOps));
  // Weights of: unary binary select logic clamp cast reduce argmax matmul
  // transpose reshape slice concat pad tile softmax normalize conv pool
  // gather resize sibling-matmuls gemm-epilogue attention dropout.
  const std::vector<double> weights = {13, 16, 6, 3, 4, 6, 11, 2, 7, 5, 5, 4, 4,
                                       3,  3,  2, 2, 7, 4, 3,  3, 3, 4, 3, 2};
  for (int attempts = 0; int(p.ops.size()) < target && attempts < 400;
       ++attempts) {
    switch (rng.weighted(weights)) {
    case 0:
      genUnary();
      break;
    case 1:
      genBinary();
      break;
    case 2:
      genSelect();
      break;
    case 3:
      genLogic();
      break;
    case 4:
      genClamp();
      break;
    case 5:
      genCast();
      break;
    case 6:
      genReduce();
      break;
    case 7:
      genArgMax();
      break;
    case 8:
      genMatmul();
      break;
    case 9:
      genTranspose();
      break;
    case 10:
      genReshape();
      break;
    case 11:
      genSlice();
      break;
    case 12:
      genConcat();
      break;
    case 13:
      genPad();
      break;
    case 14:
      genTile();
      break;
    case 15:
      genSoftmax();
      break;
    case 16:
      genNormalize();
      break;
    case 17:
      genConv();
      break;
    case 18:
      genPool();
      break;
    case 19:
      genGather();
      break;
    case 21:
      genSiblingMatmuls();
      break;
    case 22:
      genGemmEpilogue();
      break;
    case 23:
      if (rng.chance(0.5))
        genMultiHeadAttention();
      else
        genAttention();
      break;
    case 24:
      genDropout();
      break;
    default:
      genResize();
      break;
    }
  }
  chooseOutputs();
  eliminateDeadOps(p);
  return std::move(p);
}

Program generateProgram(uint64_t seed, const GeneratorOptions &options) {
  return Generator(seed, options).run();
}

//===----------------------------------------------------------------------===//
// Dead code
//===----------------------------------------------------------------------===//

void eliminateDeadOps(Program &program) {
  std::vector<bool> needed(program.values.size(), false);
  for (int o : program.outputs)
    needed[o] = true;
  for (size_t i = program.ops.size(); i-- > 0;) {
    const Op &op = program.ops[i];
    if (!needed[op.result])
      continue;
    for (int o : op.operands)
      needed[o] = true;
  }
  std::vector<Op> kept;
  for (Op &op : program.ops)
    if (needed[op.result])
      kept.push_back(std::move(op));
  program.ops = std::move(kept);
}

size_t countOps(const Program &program) { return program.ops.size(); }

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

bool hasTosaForm(const Program &p, const Op &op) {
  auto type = [&](int v) -> const TensorType & { return p.values[v].type; };
  DType t =
      op.operands.empty() ? type(op.result).dtype : type(op.operands[0]).dtype;
  switch (op.kind) {
  case OpKind::Constant:
    return true;
  case OpKind::Unary: {
    auto k = UnaryKind(op.sub);
    if (isFloat(t))
      return k != UnaryKind::Sqrt;
    return t == DType::I32 && (k == UnaryKind::Abs || k == UnaryKind::Neg);
  }
  case OpKind::Not:
    return true;
  case OpKind::Clamp:
    return isFloat(t) || t == DType::I32;
  case OpKind::Binary: {
    auto k = BinaryKind(op.sub);
    if (isFloat(t))
      return k != BinaryKind::Div && k != BinaryKind::And &&
             k != BinaryKind::Or;
    if (t == DType::I32)
      return k != BinaryKind::Pow;
    if (t == DType::I1)
      return k == BinaryKind::And || k == BinaryKind::Or;
    return false;
  }
  case OpKind::Cmp: {
    auto k = CmpKind(op.sub);
    if (t == DType::I1)
      return k == CmpKind::Eq || k == CmpKind::Ne;
    return k != CmpKind::Ne && t != DType::I64;
  }
  case OpKind::Select:
    return t == DType::I1 && type(op.operands[1]).dtype != DType::I64;
  case OpKind::Cast:
    return true;
  case OpKind::Reduce:
    return op.ints.size() == 1 && t != DType::I64;
  case OpKind::ArgMax:
    return type(op.operands[0]).shape.size() >= 2;
  case OpKind::Matmul: {
    const Shape &a = type(op.operands[0]).shape,
                &b = type(op.operands[1]).shape;
    return isFloat(t) && a.size() == 3 && !op.transposeA && !op.transposeB &&
           a[0] == b[0];
  }
  case OpKind::Slice:
    // tosa.slice has no strides.
    return std::all_of(op.strides.begin(), op.strides.end(),
                       [](int64_t s) { return s == 1; });
  case OpKind::Transpose:
  case OpKind::Reshape:
  case OpKind::Concat:
  case OpKind::Tile:
    return true;
  case OpKind::Pad:
    return t != DType::I1;
  case OpKind::Conv:
  case OpKind::Pool:
  case OpKind::Gather:
  case OpKind::Resize:
  case OpKind::Dropout:
    // Written in dlc form only (TOSA's are NHWC; test/passes covers their
    // lowering).
    return false;
  }
  return false;
}

namespace {

class Printer {
public:
  Printer(const Program &p, Flavor flavor) : p(p), flavor(flavor) {}
  std::string print();

private:
  const Program &p;
  Flavor flavor;
  std::ostringstream os;
  std::map<int, std::string> names;

  const TensorType &type(int v) const { return p.values[v].type; }
  std::string ty(int v) const { return typeStr(type(v)); }
  std::string name(int v) const { return names.at(v); }
  std::string element(DType t, double v) const;
  std::string denseValue(const TensorType &t,
                         const std::vector<double> &data) const;
  /// A constant's value: dense<...>, or for float constants of every other
  /// seed's programs a dense_resource<...> whose bytes go into the
  /// metadata at the end (the form of imported weights).
  std::string constantValue(const Op &op);
  /// (key, "0x..." blob) of the dense_resource constants, in order.
  std::vector<std::pair<std::string, std::string>> resources;
  void printDlc(const Op &op);
  void printTosa(const Op &op);
  std::string operandList(const Op &op) const;
  std::string operandTypes(const Op &op) const;
};

} // namespace

std::string Printer::element(DType t, double v) const {
  if (t == DType::I1)
    return v != 0 ? "true" : "false";
  if (isInt(t))
    return std::to_string(int64_t(v));
  return fmtDouble(v);
}

std::string Printer::denseValue(const TensorType &t,
                                const std::vector<double> &data) const {
  if (data.size() == 1)
    return "dense<" + element(t.dtype, data[0]) + ">";
  std::string s;
  size_t index = 0;
  std::function<void(size_t)> rec = [&](size_t d) {
    if (d == t.shape.size()) {
      s += element(t.dtype, data[index++]);
      return;
    }
    s += "[";
    for (int64_t i = 0; i < t.shape[d]; ++i) {
      if (i)
        s += ", ";
      rec(d + 1);
    }
    s += "]";
  };
  rec(0);
  return "dense<" + s + ">";
}

std::string Printer::constantValue(const Op &op) {
  const TensorType &t = type(op.result);
  bool asResource =
      ((p.seed >> 1) & 1) && op.data.size() > 1 && isFloat(t.dtype);
  if (!asResource)
    return denseValue(t, op.data);
  // The elements as the element type stores them (rounded to nearest even,
  // as the parser rounds a dense<> literal), after the blob's alignment.
  rt::HostTensor tensor(t.dtype, t.shape);
  for (size_t i = 0; i < op.data.size(); ++i)
    tensor.setFromDouble(int64_t(i), op.data[i]);
  static const char *const digits = "0123456789ABCDEF";
  uint32_t alignment = uint32_t(rt::dtypeSize(t.dtype));
  std::string hex = "0x";
  for (int b = 0; b < 4; ++b) {
    uint8_t byte = uint8_t(alignment >> (8 * b));
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  for (uint8_t byte : tensor.data) {
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  std::string key = "w" + std::to_string(op.result);
  resources.emplace_back(key, std::move(hex));
  return "dense_resource<" + key + ">";
}

std::string Printer::operandList(const Op &op) const {
  std::string s;
  for (size_t i = 0; i < op.operands.size(); ++i)
    s += (i ? ", " : "") + name(op.operands[i]);
  return s;
}

std::string Printer::operandTypes(const Op &op) const {
  std::string s;
  for (size_t i = 0; i < op.operands.size(); ++i)
    s += (i ? ", " : "") + ty(op.operands[i]);
  return s;
}

static const char *unaryName(UnaryKind k) {
  static const char *names[] = {"exp", "log",   "tanh", "sigmoid",
                                "erf", "rsqrt", "sqrt", "reciprocal",
                                "abs", "neg"};
  return names[int(k)];
}
static const char *binaryName(BinaryKind k) {
  static const char *names[] = {"add", "sub", "mul", "div", "max",
                                "min", "pow", "and", "or"};
  return names[int(k)];
}
static const char *cmpName(CmpKind k) {
  static const char *names[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  return names[int(k)];
}
static const char *reduceName(ReduceKind k) {
  static const char *names[] = {"sum", "max", "min", "prod"};
  return names[int(k)];
}

void Printer::printDlc(const Op &op) {
  std::string r = name(op.result);
  const std::string in = op.operands.empty() ? "" : name(op.operands[0]);
  switch (op.kind) {
  case OpKind::Constant:
    os << "    " << r << " = dlc.constant " << constantValue(op) << " : "
       << ty(op.result) << "\n";
    return;
  case OpKind::Unary:
    os << "    " << r << " = dlc." << unaryName(UnaryKind(op.sub)) << " " << in
       << " : " << ty(op.result) << "\n";
    return;
  case OpKind::Not:
    os << "    " << r << " = dlc.not " << in << " : " << ty(op.result) << "\n";
    return;
  case OpKind::Dropout:
    os << "    " << r << " = dlc.dropout " << operandList(op)
       << " {ratio = " << fmtDouble(op.value) << " : f64, seed = " << op.ints[0]
       << " : i64, stream = " << op.ints[1] << " : i64} : (" << operandTypes(op)
       << ") -> " << ty(op.result) << "\n";
    return;
  case OpKind::Clamp:
    os << "    " << r << " = dlc.clamp " << in
       << " {max = " << fmtDouble(op.max)
       << " : f64, min = " << fmtDouble(op.min) << " : f64} : " << ty(op.result)
       << "\n";
    return;
  case OpKind::Binary:
    os << "    " << r << " = dlc." << binaryName(BinaryKind(op.sub)) << " "
       << operandList(op) << " : (" << operandTypes(op) << ") -> "
       << ty(op.result) << "\n";
    return;
  case OpKind::Cmp:
    os << "    " << r << " = dlc.cmp " << cmpName(CmpKind(op.sub)) << ", "
       << operandList(op) << " : (" << operandTypes(op) << ") -> "
       << ty(op.result) << "\n";
    return;
  case OpKind::Select:
    os << "    " << r << " = dlc.select " << operandList(op) << " : ("
       << operandTypes(op) << ") -> " << ty(op.result) << "\n";
    return;
  case OpKind::Cast:
    os << "    " << r << " = dlc.cast " << in << " : " << ty(op.operands[0])
       << " -> " << ty(op.result) << "\n";
    return;
  case OpKind::Reduce:
    os << "    " << r << " = dlc.reduce " << reduceName(ReduceKind(op.sub))
       << " " << in << " {axes = " << i64Array(op.ints) << "} : ("
       << ty(op.operands[0]) << ") -> " << ty(op.result) << "\n";
    return;
  case OpKind::ArgMax:
    os << "    " << r << " = dlc.argmax " << in << " {axis = " << op.axis
       << " : i64} : (" << ty(op.operands[0]) << ") -> " << ty(op.result)
       << "\n";
    return;
  case OpKind::Matmul: {
    std::string flags;
    if (op.transposeA && op.transposeB)
      flags = " {transpose_a, transpose_b}";
    else if (op.transposeA)
      flags = " {transpose_a}";
    else if (op.transposeB)
      flags = " {transpose_b}";
    os << "    " << r << " = dlc.matmul " << operandList(op) << flags << " : ("
       << operandTypes(op) << ") -> " << ty(op.result) << "\n";
    return;
  }
  case OpKind::Transpose:
    os << "    " << r << " = dlc.transpose " << in
       << " {perm = " << i64Array(op.ints) << "} : (" << ty(op.operands[0])
       << ") -> " << ty(op.result) << "\n";
    return;
  case OpKind::Reshape:
    os << "    " << r << " = dlc.reshape " << in << " : " << ty(op.operands[0])
       << " -> " << ty(op.result) << "\n";
    return;
  case OpKind::Slice:
    os << "    " << r << " = dlc.slice " << in
       << " {start = " << i64Array(op.ints);
    if (!op.strides.empty())
      os << ", strides = " << i64Array(op.strides);
    os << "} : (" << ty(op.operands[0]) << ") -> " << ty(op.result) << "\n";
    return;
  case OpKind::Conv:
    os << "    " << r << " = dlc." << (op.sub ? "conv_transpose2d " : "conv2d ")
       << operandList(op) << " {dilations = " << i64Array(op.dilations)
       << ", groups = " << op.groups << " : i64";
    if (op.sub)
      os << ", output_padding = " << i64Array(op.outputPadding);
    os << ", pads = " << i64Array(op.pads)
       << ", strides = " << i64Array(op.strides) << "} : (" << operandTypes(op)
       << ") -> " << ty(op.result) << "\n";
    return;
  case OpKind::Pool:
    os << "    " << r << " = dlc.pool2d " << (op.sub ? "avg " : "max ") << in
       << " {" << (op.countIncludePad ? "count_include_pad, " : "")
       << "dilations = " << i64Array(op.dilations)
       << ", kernel = " << i64Array(op.kernel)
       << ", pads = " << i64Array(op.pads)
       << ", strides = " << i64Array(op.strides) << "} : ("
       << ty(op.operands[0]) << ") -> " << ty(op.result) << "\n";
    return;
  case OpKind::Gather:
    os << "    " << r << " = dlc.gather " << operandList(op)
       << " {axis = " << op.axis << " : i64} : (" << operandTypes(op) << ") -> "
       << ty(op.result) << "\n";
    return;
  case OpKind::Resize:
    os << "    " << r << " = dlc.resize " << in << " {coordinate_mode = \""
       << op.coordinateMode << "\", mode = \"" << op.mode << "\"";
    if (!op.nearestMode.empty())
      os << ", nearest_mode = \"" << op.nearestMode << "\"";
    os << "} : (" << ty(op.operands[0]) << ") -> " << ty(op.result) << "\n";
    return;
  case OpKind::Concat:
    os << "    " << r << " = dlc.concat " << operandList(op)
       << " {axis = " << op.axis << " : i64} : (" << operandTypes(op) << ") -> "
       << ty(op.result) << "\n";
    return;
  case OpKind::Pad:
    os << "    " << r << " = dlc.pad " << in
       << " {high = " << i64Array(op.ints2) << ", low = " << i64Array(op.ints)
       << ", value = " << fmtDouble(op.value) << " : f64} : ("
       << ty(op.operands[0]) << ") -> " << ty(op.result) << "\n";
    return;
  case OpKind::Tile:
    os << "    " << r << " = dlc.tile " << in
       << " {multiples = " << i64Array(op.ints) << "} : (" << ty(op.operands[0])
       << ") -> " << ty(op.result) << "\n";
    return;
  }
}

void Printer::printTosa(const Op &op) {
  std::string r = name(op.result);
  const std::string in = op.operands.empty() ? "" : name(op.operands[0]);
  auto simple = [&](const std::string &mnemonic,
                    const std::string &attrs = "") {
    os << "    " << r << " = tosa." << mnemonic << " " << operandList(op)
       << attrs << " : (" << operandTypes(op) << ") -> " << ty(op.result)
       << "\n";
  };
  DType t =
      op.operands.empty() ? type(op.result).dtype : type(op.operands[0]).dtype;
  switch (op.kind) {
  case OpKind::Constant:
    os << "    " << r << " = \"tosa.const\"() {value = " << constantValue(op)
       << " : " << ty(op.result) << "} : () -> " << ty(op.result) << "\n";
    return;
  case OpKind::Unary: {
    auto k = UnaryKind(op.sub);
    simple(k == UnaryKind::Neg ? "negate" : unaryName(k));
    return;
  }
  case OpKind::Not:
    simple("logical_not");
    return;
  case OpKind::Clamp: {
    std::string attrs;
    if (isFloat(t))
      attrs = " {min_int = 0 : i64, max_int = 0 : i64, min_fp = " +
              fmtDouble(op.min) + " : f32, max_fp = " + fmtDouble(op.max) +
              " : f32}";
    else
      attrs = " {min_int = " + std::to_string(int64_t(op.min)) +
              " : i64, max_int = " + std::to_string(int64_t(op.max)) +
              " : i64, min_fp = 0.0 : f32, max_fp = 0.0 : f32}";
    simple("clamp", attrs);
    return;
  }
  case OpKind::Binary:
    switch (BinaryKind(op.sub)) {
    case BinaryKind::Add:
      return simple("add");
    case BinaryKind::Sub:
      return simple("sub");
    case BinaryKind::Mul:
      return simple("mul", " {shift = 0 : i8}");
    case BinaryKind::Div:
      return simple("int_div");
    case BinaryKind::Max:
      return simple("maximum");
    case BinaryKind::Min:
      return simple("minimum");
    case BinaryKind::Pow:
      return simple("pow");
    case BinaryKind::And:
      return simple(t == DType::I1 ? "logical_and" : "bitwise_and");
    case BinaryKind::Or:
      return simple(t == DType::I1 ? "logical_or" : "bitwise_or");
    }
    return;
  case OpKind::Cmp: {
    auto k = CmpKind(op.sub);
    std::string a = name(op.operands[0]), b = name(op.operands[1]);
    std::string ta = ty(op.operands[0]), tb = ty(op.operands[1]);
    const char *mnemonic = "equal";
    switch (k) {
    case CmpKind::Eq:
      break;
    case CmpKind::Ne:
      mnemonic = "logical_xor";
      break;
    case CmpKind::Gt:
      mnemonic = "greater";
      break;
    case CmpKind::Ge:
      mnemonic = "greater_equal";
      break;
    case CmpKind::Lt:
      mnemonic = "greater";
      std::swap(a, b), std::swap(ta, tb);
      break;
    case CmpKind::Le:
      mnemonic = "greater_equal";
      std::swap(a, b), std::swap(ta, tb);
      break;
    }
    os << "    " << r << " = tosa." << mnemonic << " " << a << ", " << b
       << " : (" << ta << ", " << tb << ") -> " << ty(op.result) << "\n";
    return;
  }
  case OpKind::Select:
    return simple("select");
  case OpKind::Cast:
    return simple("cast");
  case OpKind::Reduce:
    return simple(std::string("reduce_") + reduceName(ReduceKind(op.sub)),
                  " {axis = " + std::to_string(op.ints[0]) + " : i32}");
  case OpKind::ArgMax: {
    // TOSA drops the reduced axis; reshape back to dlc's kept axis.
    TensorType dropped = type(op.result);
    dropped.shape.erase(dropped.shape.begin() + op.axis);
    os << "    " << r << "_a = tosa.argmax " << in << " {axis = " << op.axis
       << " : i32} : (" << ty(op.operands[0]) << ") -> " << typeStr(dropped)
       << "\n";
    os << "    " << r << " = tosa.reshape " << r
       << "_a {new_shape = " << i64Array(type(op.result).shape) << "} : ("
       << typeStr(dropped) << ") -> " << ty(op.result) << "\n";
    return;
  }
  case OpKind::Matmul:
    return simple("matmul");
  case OpKind::Transpose: {
    size_t rank = op.ints.size();
    os << "    " << r << "_perm = \"tosa.const\"() {value = dense<["
       << intList(op.ints) << "]> : tensor<" << rank << "xi32>} : () -> tensor<"
       << rank << "xi32>\n";
    os << "    " << r << " = tosa.transpose " << in << ", " << r << "_perm : ("
       << ty(op.operands[0]) << ", tensor<" << rank << "xi32>) -> "
       << ty(op.result) << "\n";
    return;
  }
  case OpKind::Reshape:
    return simple("reshape",
                  " {new_shape = " + i64Array(type(op.result).shape) + "}");
  case OpKind::Slice:
    return simple("slice", " {start = " + i64Array(op.ints) + ", size = " +
                               i64Array(type(op.result).shape) + "}");
  case OpKind::Concat:
    return simple("concat", " {axis = " + std::to_string(op.axis) + " : i32}");
  case OpKind::Pad: {
    size_t rank = op.ints.size();
    std::string padding;
    for (size_t d = 0; d < rank; ++d)
      padding += std::string(d ? ", " : "") + "[" + std::to_string(op.ints[d]) +
                 ", " + std::to_string(op.ints2[d]) + "]";
    std::string padType = "tensor<" + std::to_string(rank) + "x2xi32>";
    os << "    " << r << "_pad = \"tosa.const\"() {value = dense<[" << padding
       << "]> : " << padType << "} : () -> " << padType << "\n";
    std::string scalar = std::string("tensor<") + typeName(t) + ">";
    if (op.value == 0 && (p.seed + op.result) % 2 == 0) {
      os << "    " << r << " = tosa.pad " << in << ", " << r << "_pad : ("
         << ty(op.operands[0]) << ", " << padType << ") -> " << ty(op.result)
         << "\n";
      return;
    }
    os << "    " << r << "_value = \"tosa.const\"() {value = dense<"
       << element(t, op.value) << "> : " << scalar << "} : () -> " << scalar
       << "\n";
    os << "    " << r << " = tosa.pad " << in << ", " << r << "_pad, " << r
       << "_value : (" << ty(op.operands[0]) << ", " << padType << ", "
       << scalar << ") -> " << ty(op.result) << "\n";
    return;
  }
  case OpKind::Tile:
    return simple("tile", " {multiples = " + i64Array(op.ints) + "}");
  case OpKind::Conv:
  case OpKind::Pool:
  case OpKind::Gather:
  case OpKind::Resize:
  case OpKind::Dropout:
    return printDlc(op);
  }
}

std::string Printer::print() {
  os << "// dlc-fuzz program, seed " << p.seed << "\n";
  os << "module {\n  func.func @main(";
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    names[p.inputs[i]] = "%arg" + std::to_string(i);
    os << (i ? ", " : "") << "%arg" << i << ": " << ty(p.inputs[i]);
  }
  os << ") -> (";
  for (size_t i = 0; i < p.outputs.size(); ++i)
    os << (i ? ", " : "") << ty(p.outputs[i]);
  os << ") {\n";
  for (const Op &op : p.ops) {
    names[op.result] = "%v" + std::to_string(op.result);
    if (op.tosa && flavor == Flavor::AsGenerated)
      printTosa(op);
    else
      printDlc(op);
  }
  os << "    return ";
  for (size_t i = 0; i < p.outputs.size(); ++i)
    os << (i ? ", " : "") << name(p.outputs[i]);
  os << " : ";
  for (size_t i = 0; i < p.outputs.size(); ++i)
    os << (i ? ", " : "") << ty(p.outputs[i]);
  os << "\n  }\n}\n";
  if (!resources.empty()) {
    os << "{-#\n  dialect_resources: {\n    builtin: {\n";
    for (size_t i = 0; i < resources.size(); ++i)
      os << "      " << resources[i].first << ": \"" << resources[i].second
         << "\"" << (i + 1 < resources.size() ? "," : "") << "\n";
    os << "    }\n  }\n#-}\n";
  }
  return os.str();
}

std::string printProgram(const Program &program, Flavor flavor) {
  return Printer(program, flavor).print();
}

} // namespace dlc::fuzz
