//===- CudaEmitter.cpp - CUDA C++ for fused kernels -----------------------===//
//
// Every dlc.kernel becomes one `extern "C" __global__` function. The body is
// produced by an expression emitter that computes the value of any body op at
// a multi-dimensional index given as C expressions: it walks the use-def
// chain from the yielded values back to the block arguments, turning data
// movement (broadcast, transpose, reshape, slice, tile, pad, concat) into
// index arithmetic, so no intermediate tensor is ever materialized.
//
// Generated statements live in a tree of C scopes. A value is emitted into
// the outermost scope where every index variable it depends on is defined
// (loop-invariant code motion for free) but never out of a conditional scope
// (pad, concat), and it is cached there by (value, index) so common
// subexpressions are computed once.
//
//===----------------------------------------------------------------------===//
#include "codegen/CudaEmitter.h"
#include "codegen/AttentionEmitter.h"
#include "analysis/KernelAnalysis.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <list>
#include <memory>
#include <optional>
#include <unordered_map>

using namespace mlir;
using namespace mlir::dlc;

namespace {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

enum class Elem { F32, F16, BF16, I32, I64, I1 };

std::optional<Elem> elemOfType(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isF32())
    return Elem::F32;
  if (type.isF16())
    return Elem::F16;
  if (type.isBF16())
    return Elem::BF16;
  if (type.isInteger(32))
    return Elem::I32;
  if (type.isInteger(64))
    return Elem::I64;
  if (type.isInteger(1))
    return Elem::I1;
  return std::nullopt;
}

/// Only called on values whose types were checked by checkTypes().
Elem elemOf(Value v) { return elemOfType(v.getType()).value_or(Elem::F32); }

bool isFloat(Elem e) {
  return e == Elem::F32 || e == Elem::F16 || e == Elem::BF16;
}

/// The C type a tensor element is stored as in device memory.
const char *storageType(Elem e) {
  switch (e) {
  case Elem::F32:
    return "float";
  case Elem::F16:
  case Elem::BF16:
    return "unsigned short";
  case Elem::I32:
    return "int";
  case Elem::I64:
    return "long long";
  case Elem::I1:
    return "unsigned char";
  }
  return "float";
}

/// The C type a value is computed in: f16/bf16 compute in float.
const char *computeType(Elem e) {
  switch (e) {
  case Elem::F32:
  case Elem::F16:
  case Elem::BF16:
    return "float";
  case Elem::I32:
    return "int";
  case Elem::I64:
    return "long long";
  case Elem::I1:
    return "bool";
  }
  return "float";
}

int64_t storageBytes(Elem e) {
  switch (e) {
  case Elem::F32:
  case Elem::I32:
    return 4;
  case Elem::F16:
  case Elem::BF16:
    return 2;
  case Elem::I64:
    return 8;
  case Elem::I1:
    return 1;
  }
  return 4;
}

/// A stored element converted to its compute type.
std::string loadExpr(Elem e, const std::string &ref) {
  switch (e) {
  case Elem::F16:
    return fmt::format("dlc_h2f({})", ref);
  case Elem::BF16:
    return fmt::format("dlc_bf2f({})", ref);
  case Elem::I1:
    return fmt::format("({} != 0)", ref);
  default:
    return ref;
  }
}

/// A computed value converted to its storage type.
std::string storeExpr(Elem e, const std::string &value) {
  switch (e) {
  case Elem::F16:
    return fmt::format("dlc_f2h({})", value);
  case Elem::BF16:
    return fmt::format("dlc_f2bf({})", value);
  case Elem::I1:
    return fmt::format("(unsigned char)({} ? 1 : 0)", value);
  default:
    return value;
  }
}

/// A float computed in f32 rounded to the precision of `e`: every f16/bf16
/// op result is a value of its type (the reference interpreter's semantics).
std::string roundTo(Elem e, const std::string &value) {
  if (e == Elem::F16)
    return fmt::format("dlc_round_f16({})", value);
  if (e == Elem::BF16)
    return fmt::format("dlc_round_bf16({})", value);
  return value;
}

//===----------------------------------------------------------------------===//
// Literals
//===----------------------------------------------------------------------===//

std::string floatLiteral(float f) {
  if (std::isnan(f))
    return "__uint_as_float(0x7fc00000u)";
  if (std::isinf(f))
    return f > 0 ? "__uint_as_float(0x7f800000u)"
                 : "__uint_as_float(0xff800000u)";
  std::string s = fmt::format("{}", f);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  s += "f";
  if (f < 0 || (f == 0 && std::signbit(f)))
    return "(" + s + ")";
  return s;
}

std::string intLiteral(Elem e, int64_t v) {
  if (e == Elem::I1)
    return v ? "true" : "false";
  if (e == Elem::I64) {
    if (v == std::numeric_limits<int64_t>::min())
      return "(-9223372036854775807LL - 1)";
    return v < 0 ? fmt::format("({}LL)", v) : fmt::format("{}LL", v);
  }
  if (v == std::numeric_limits<int32_t>::min())
    return "(-2147483647 - 1)";
  return v < 0 ? fmt::format("({})", v) : fmt::format("{}", v);
}

double apFloatToDouble(APFloat f) {
  bool losesInfo = false;
  f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
  return f.convertToDouble();
}

/// `v` rounded to nearest even in the float type `e`.
float roundToFloatType(Elem e, double v) {
  APFloat f(v);
  bool losesInfo = false;
  const llvm::fltSemantics &sem = e == Elem::F16    ? APFloat::IEEEhalf()
                                  : e == Elem::BF16 ? APFloat::BFloat()
                                                    : APFloat::IEEEsingle();
  f.convert(sem, APFloat::rmNearestTiesToEven, &losesInfo);
  return static_cast<float>(apFloatToDouble(f));
}

/// Round half to even, saturating, NaN to 0 (dlc.cast of a float).
int64_t floatToInt(Elem to, double v) {
  if (std::isnan(v))
    return 0;
  double lower = std::floor(v), diff = v - lower;
  double r = diff > 0.5   ? lower + 1
             : diff < 0.5 ? lower
                          : (std::fmod(lower, 2.0) == 0 ? lower : lower + 1);
  if (to == Elem::I32)
    return static_cast<int64_t>(
        std::min(std::max(r, -2147483648.0), 2147483647.0));
  if (r >= 9223372036854775807.0)
    return std::numeric_limits<int64_t>::max();
  if (r <= -9223372036854775808.0)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(r);
}

/// An f64 attribute (clamp bound, pad value) as a literal of type `e`.
std::string scalarLiteral(Elem e, double v) {
  if (isFloat(e))
    return floatLiteral(roundToFloatType(e, v));
  if (e == Elem::I1)
    return v != 0 ? "true" : "false";
  return intLiteral(e, floatToInt(e, v));
}

/// Element `i` of a dense constant as a literal of its compute type.
std::string denseLiteral(DenseElementsAttr dense, Elem e, int64_t i) {
  if (isFloat(e)) {
    APFloat f = dense.isSplat() ? dense.getSplatValue<APFloat>()
                                : dense.getValues<APFloat>()[i];
    return floatLiteral(static_cast<float>(apFloatToDouble(f)));
  }
  APInt v = dense.isSplat() ? dense.getSplatValue<APInt>()
                            : dense.getValues<APInt>()[i];
  if (e == Elem::I1)
    return v.isZero() ? "false" : "true";
  return intLiteral(e, v.getSExtValue());
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

//===----------------------------------------------------------------------===//
// The prelude: conversions and scalar helpers, defined once per source
//===----------------------------------------------------------------------===//

const char *kPrelude =
    R"cuda(// Generated by dlc. Compiles with NVRTC, and with a host C++17 compiler
// under -DDLC_SIM against the sim shim. Storage types: f32 float, f16 and
// bf16 unsigned short (raw bits), i32 int, i64 long long, i1 unsigned char.

// f16 <-> f32, round to nearest even.
__device__ __forceinline__ float dlc_h2f(unsigned short h) {
#ifdef DLC_SIM
  unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
  unsigned int e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    float f = (float)m * 5.9604644775390625e-8f; // m * 2^-24, exact
    return sign ? -f : f;
  }
  if (e == 31)
    return __uint_as_float(sign | 0x7f800000u | (m << 13));
  return __uint_as_float(sign | ((e + 112u) << 23) | (m << 13));
#else
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
#endif
}

__device__ __forceinline__ unsigned short dlc_f2h(float f) {
#ifdef DLC_SIM
  unsigned int x = __float_as_uint(f);
  unsigned int sign = (x >> 16) & 0x8000u;
  unsigned int ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) // NaN stays NaN (quiet)
    return (unsigned short)(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  if (ax >= 0x47800000u) // 65536 and above, infinity included
    return (unsigned short)(sign | 0x7c00u);
  if (ax < 0x38800000u) { // below 2^-14: a subnormal half
    if (ax < 0x33000000u) // below 2^-25: rounds to zero
      return (unsigned short)sign;
    unsigned int shift = 126u - (ax >> 23);
    unsigned int m = (ax & 0x7fffffu) | 0x800000u;
    unsigned int r = m >> shift, rem = m & ((1u << shift) - 1u);
    unsigned int half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u)))
      ++r;
    return (unsigned short)(sign | r);
  }
  unsigned int r = (ax - 0x38000000u) >> 13, rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u)))
    ++r; // a carry into the exponent is still correct (up to infinity)
  return (unsigned short)(sign | r);
#else
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
#endif
}

// bf16 <-> f32: the high half of an f32, round to nearest even.
__device__ __forceinline__ float dlc_bf2f(unsigned short h) {
  return __uint_as_float((unsigned int)h << 16);
}

__device__ __forceinline__ unsigned short dlc_f2bf(float f) {
  unsigned int x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (unsigned short)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (unsigned short)(x >> 16);
}

__device__ __forceinline__ float dlc_round_f16(float f) { return dlc_h2f(dlc_f2h(f)); }
__device__ __forceinline__ float dlc_round_bf16(float f) { return dlc_bf2f(dlc_f2bf(f)); }

__device__ __forceinline__ float dlc_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

// An integer as a float rounded to odd at 24 bits: rounding that to f16 or
// bf16 (nearest even) then rounds the integer once, as the reference does.
__device__ __forceinline__ float dlc_i2f_odd(long long x) {
  unsigned long long m = x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x;
  int s = 0;
  while ((m >> s) >= (1ull << 24))
    ++s;
  unsigned long long t = m >> s;
  if (s > 0 && (m & ((1ull << s) - 1ull)) != 0)
    t |= 1ull;
  float f = (float)t * __uint_as_float((unsigned int)(127 + s) << 23);
  return x < 0 ? -f : f;
}

// Float to integer: round to nearest even, saturate, NaN gives 0.
__device__ __forceinline__ int dlc_f2i32(float x) {
  if (x != x) return 0;
  if (x >= 2147483648.0f) return 2147483647;
  if (x <= -2147483648.0f) return -2147483647 - 1;
  return (int)rintf(x);
}

__device__ __forceinline__ long long dlc_f2i64(float x) {
  if (x != x) return 0;
  if (x >= 9223372036854775808.0f) return 9223372036854775807LL;
  if (x <= -9223372036854775808.0f) return -9223372036854775807LL - 1;
  return (long long)rintf(x);
}

// Integer arithmetic wraps around (computed unsigned: no undefined behavior).
__device__ __forceinline__ int dlc_add(int a, int b) { return (int)((unsigned int)a + (unsigned int)b); }
__device__ __forceinline__ int dlc_sub(int a, int b) { return (int)((unsigned int)a - (unsigned int)b); }
__device__ __forceinline__ int dlc_mul(int a, int b) { return (int)((unsigned int)a * (unsigned int)b); }
__device__ __forceinline__ int dlc_neg(int a) { return (int)(0u - (unsigned int)a); }
__device__ __forceinline__ int dlc_abs(int a) { return a < 0 ? dlc_neg(a) : a; }
__device__ __forceinline__ int dlc_div(int a, int b) {
  return b == 0 ? 0 : b == -1 ? dlc_neg(a) : a / b;
}
__device__ __forceinline__ int dlc_pow(int base, int exp) {
  if (exp < 0) return base == 1 ? 1 : base == -1 ? ((exp & 1) ? -1 : 1) : 0;
  unsigned int r = 1u, b = (unsigned int)base;
  for (; exp > 0; exp >>= 1) {
    if (exp & 1) r *= b;
    b *= b;
  }
  return (int)r;
}
__device__ __forceinline__ long long dlc_add(long long a, long long b) { return (long long)((unsigned long long)a + (unsigned long long)b); }
__device__ __forceinline__ long long dlc_sub(long long a, long long b) { return (long long)((unsigned long long)a - (unsigned long long)b); }
__device__ __forceinline__ long long dlc_mul(long long a, long long b) { return (long long)((unsigned long long)a * (unsigned long long)b); }
__device__ __forceinline__ long long dlc_neg(long long a) { return (long long)(0ull - (unsigned long long)a); }
__device__ __forceinline__ long long dlc_abs(long long a) { return a < 0 ? dlc_neg(a) : a; }
__device__ __forceinline__ long long dlc_div(long long a, long long b) {
  return b == 0 ? 0 : b == -1 ? dlc_neg(a) : a / b;
}
__device__ __forceinline__ long long dlc_pow(long long base, long long exp) {
  if (exp < 0) return base == 1 ? 1 : base == -1 ? ((exp & 1) ? -1 : 1) : 0;
  unsigned long long r = 1ull, b = (unsigned long long)base;
  for (; exp > 0; exp >>= 1) {
    if (exp & 1) r *= b;
    b *= b;
  }
  return (long long)r;
}

// Vector copies of 16, 8 and 4 bytes between suitably aligned addresses.
__device__ __forceinline__ void dlc_copy16(void *d, const void *s) {
#ifdef DLC_SIM
  __builtin_memcpy(d, s, 16);
#else
  *reinterpret_cast<uint4 *>(d) = *reinterpret_cast<const uint4 *>(s);
#endif
}
__device__ __forceinline__ void dlc_copy8(void *d, const void *s) {
#ifdef DLC_SIM
  __builtin_memcpy(d, s, 8);
#else
  *reinterpret_cast<uint2 *>(d) = *reinterpret_cast<const uint2 *>(s);
#endif
}
__device__ __forceinline__ void dlc_copy4(void *d, const void *s) {
#ifdef DLC_SIM
  __builtin_memcpy(d, s, 4);
#else
  *reinterpret_cast<unsigned int *>(d) = *reinterpret_cast<const unsigned int *>(s);
#endif
}
)cuda";

//===----------------------------------------------------------------------===//
// Kernel emitter
//===----------------------------------------------------------------------===//

constexpr int64_t kPointwiseBlock = 256;
constexpr int64_t kWarpRowBlock = 128;
/// Row template: the most elements of cached rows each thread keeps in
/// registers (all cached inputs together).
constexpr int64_t kMaxRowCacheItems = 32;
constexpr int64_t kMaxGrid = 2147483647;

class KernelEmitter {
public:
  KernelEmitter(KernelOp kernel, const KernelPlan &plan, unsigned number)
      : kernel(kernel), plan(plan), number(number) {}

  /// Appends the kernel's constant tables, comment, function and trampoline
  /// to `source`.
  LogicalResult emit(std::string &source, EmittedKernel &out);

private:
  //===--- Scopes --------------------------------------------------------===//
  struct Scope;
  struct Chunk {
    std::string text;
    std::unique_ptr<Scope> child;
  };
  struct Scope {
    Scope *parent = nullptr;
    unsigned depth = 0;
    /// Nothing computed inside may move out (the scope is conditional).
    bool barrier = false;
    std::string header, footer;
    std::list<Chunk> chunks;
    /// Open child scopes, innermost last: statements go before the last one
    /// (they are computed before the loop or branch now being emitted).
    std::vector<std::list<Chunk>::iterator> open;
    /// (value, index) or "#index-expression" -> C variable.
    std::unordered_map<std::string, std::string> cache;
  };

  std::list<Chunk>::iterator insertPoint(Scope *s) {
    return s->open.empty() ? s->chunks.end() : s->open.back();
  }
  void line(Scope *s, std::string text) {
    s->chunks.insert(insertPoint(s), Chunk{std::move(text), nullptr});
  }
  Scope *openScope(Scope *parent, std::string header, bool barrier,
                   std::string footer = "}") {
    auto child = std::make_unique<Scope>();
    child->parent = parent;
    child->depth = parent->depth + 1;
    child->barrier = barrier;
    child->header = std::move(header);
    child->footer = std::move(footer);
    Scope *raw = child.get();
    auto it = parent->chunks.insert(insertPoint(parent),
                                    Chunk{std::string(), std::move(child)});
    parent->open.push_back(it);
    return raw;
  }
  void closeScope(Scope *s) {
    assert(!s->parent->open.empty() &&
           s->parent->open.back()->child.get() == s && "scopes nest");
    s->parent->open.pop_back();
  }
  void declare(Scope *s, const std::string &name, int64_t bound = -1) {
    varScope[name] = s;
    if (bound >= 0)
      bounds[name] = bound;
  }
  std::string fresh(StringRef prefix) {
    return fmt::format("{}{}", prefix.str(), counter++);
  }

  /// The innermost conditional scope around `cur` (the root counts as one).
  Scope *floorScope() {
    Scope *s = cur;
    while (!s->barrier && s->parent)
      s = s->parent;
    return s;
  }

  /// The outermost scope on the current path where all of `names` (C index
  /// expressions: variables or literals) are defined.
  Scope *targetFor(ArrayRef<std::string> names, bool respectBarriers) {
    Scope *target = respectBarriers ? floorScope() : root.get();
    for (const std::string &name : names) {
      auto it = varScope.find(name);
      if (it != varScope.end() && it->second->depth > target->depth)
        target = it->second;
    }
    return target;
  }

  std::optional<std::string> lookup(const std::string &key) {
    for (Scope *s = cur; s; s = s->parent) {
      auto it = s->cache.find(key);
      if (it != s->cache.end())
        return it->second;
    }
    return std::nullopt;
  }

  static void renderLines(StringRef text, unsigned indent, std::string &out) {
    SmallVector<StringRef> lines;
    text.split(lines, '\n');
    for (StringRef l : lines) {
      out.append(2 * indent, ' ');
      out += l.str();
      out += '\n';
    }
  }

  void render(const Scope &s, unsigned indent, std::string &out) {
    unsigned inner = indent;
    if (!s.header.empty()) {
      renderLines(s.header, indent, out);
      inner = indent + 1;
    }
    for (const Chunk &c : s.chunks) {
      if (c.child)
        render(*c.child, inner, out);
      else
        renderLines(c.text, inner, out);
    }
    if (!s.header.empty())
      renderLines(s.footer, indent, out);
  }

  //===--- Index arithmetic: every index is a literal or a variable ------===//
  static bool isLit(const std::string &s) {
    return !s.empty() && (std::isdigit((unsigned char)s[0]) || s[0] == '-');
  }
  static int64_t litVal(const std::string &s) { return std::stoll(s); }
  static std::string lit(int64_t v) { return std::to_string(v); }

  /// An exclusive upper bound of the index `s`.
  int64_t boundOf(const std::string &s) {
    if (isLit(s))
      return litVal(s) + 1;
    auto it = bounds.find(s);
    return it == bounds.end() ? std::numeric_limits<int64_t>::max()
                              : it->second;
  }

  /// Materializes an index expression as a variable, hoisted as far out as
  /// its operands allow (index arithmetic cannot fault, so conditional
  /// scopes do not hold it back) and shared with every later use.
  std::string ixTemp(const std::string &expr, ArrayRef<std::string> deps,
                     int64_t bound) {
    std::string key = "#" + expr;
    if (auto hit = lookup(key))
      return *hit;
    Scope *target = targetFor(deps, /*respectBarriers=*/false);
    std::string name = fresh("t");
    line(target, fmt::format("const {} {} = {};", idxType, name, expr));
    declare(target, name, bound);
    target->cache[key] = name;
    return name;
  }

  std::string ixAdd(const std::string &a, int64_t c) {
    if (c == 0)
      return a;
    if (isLit(a))
      return lit(litVal(a) + c);
    int64_t b = boundOf(a);
    int64_t bound = b == std::numeric_limits<int64_t>::max() ? b : b + c;
    return ixTemp(c > 0 ? fmt::format("{} + {}", a, c)
                        : fmt::format("{} - {}", a, -c),
                  {a}, std::max<int64_t>(bound, 1));
  }

  std::string ixDiv(const std::string &a, int64_t c) {
    if (c == 1)
      return a;
    if (isLit(a))
      return lit(litVal(a) / c);
    int64_t b = boundOf(a);
    if (b <= c)
      return "0";
    int64_t bound =
        b == std::numeric_limits<int64_t>::max() ? b : (b + c - 1) / c;
    return ixTemp(fmt::format("{} / {}", a, c), {a}, bound);
  }

  std::string ixMod(const std::string &a, int64_t c) {
    if (c == 1)
      return "0";
    if (isLit(a))
      return lit(litVal(a) % c);
    if (boundOf(a) <= c)
      return a;
    return ixTemp(fmt::format("{} % {}", a, c), {a}, c);
  }

  static std::string tupleKey(ArrayRef<std::string> idx,
                              ArrayRef<int64_t> shape) {
    std::string key;
    for (size_t d = 0; d < idx.size(); ++d)
      key += fmt::format("{}:{},", idx[d], shape[d]);
    return key;
  }

  /// The row-major linear position of `idx` in `shape`.
  std::string ixLinear(ArrayRef<std::string> idx, ArrayRef<int64_t> shape) {
    // Linearizing what was just delinearized in the same shape.
    auto known = delinearized.find(tupleKey(idx, shape));
    if (known != delinearized.end())
      return known->second;
    int64_t constant = 0, stride = 1;
    SmallVector<std::pair<std::string, int64_t>> terms;
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (shape[d] != 1) {
        if (isLit(idx[d]))
          constant += litVal(idx[d]) * stride;
        else
          terms.push_back({idx[d], stride});
      }
      stride *= shape[d];
    }
    if (terms.empty())
      return lit(constant);
    if (terms.size() == 1 && terms[0].second == 1 && constant == 0)
      return terms[0].first;
    std::string expr;
    SmallVector<std::string> deps;
    for (auto &[name, s] : llvm::reverse(terms)) {
      if (!expr.empty())
        expr += " + ";
      expr += s == 1 ? name : fmt::format("{} * {}", name, s);
      deps.push_back(name);
    }
    if (constant)
      expr += fmt::format(" + {}", constant);
    return ixTemp(expr, deps,
                  std::max<int64_t>(ShapedType::getNumElements(shape), 1));
  }

  /// The multi-index of the row-major position `lin` in `shape`.
  SmallVector<std::string> ixDelinearize(const std::string &lin,
                                         ArrayRef<int64_t> shape) {
    SmallVector<std::string> idx(shape.size(), "0");
    int64_t stride = 1;
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      if (shape[d] != 1)
        idx[d] = ixMod(ixDiv(lin, stride), shape[d]);
      stride *= shape[d];
    }
    // Only a multi-index with a variable: its scope proves `lin` visible.
    if (boundOf(lin) <= ShapedType::getNumElements(shape) &&
        llvm::any_of(idx, [](const std::string &s) { return !isLit(s); }))
      delinearized[tupleKey(idx, shape)] = lin;
    return idx;
  }

  /// Declares named variables `<prefix><d>` in `s` for the multi-index of
  /// the row-major position `lin` (a C expression) in `shape`.
  SmallVector<std::string> declareIndex(Scope *s, const std::string &lin,
                                        ArrayRef<int64_t> shape,
                                        StringRef prefix) {
    SmallVector<std::string> idx(shape.size(), "0");
    int64_t stride = 1;
    SmallVector<int64_t> strides(shape.size());
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      strides[d] = stride;
      stride *= shape[d];
    }
    bool first = true;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] == 1)
        continue;
      std::string expr =
          strides[d] == 1 ? lin : fmt::format("({}) / {}", lin, strides[d]);
      if (!first)
        expr = fmt::format("({}) % {}", expr, shape[d]);
      first = false;
      std::string name = fmt::format("{}{}", prefix.str(), d);
      if (varScope.count(name))
        name = fresh(prefix.str() + std::to_string(d) + "_");
      line(s, fmt::format("const {} {} = {};", idxType, name, expr));
      declare(s, name, shape[d]);
      idx[d] = name;
    }
    bool plainVariable = llvm::all_of(
        lin, [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
    if (plainVariable && !isLit(lin) &&
        llvm::any_of(idx, [](const std::string &s) { return !isLit(s); }))
      delinearized[tupleKey(idx, shape)] = lin;
    return idx;
  }

  /// The index of an operand of shape `shape` broadcast to the result.
  static SmallVector<std::string> broadcastIndex(ArrayRef<std::string> idx,
                                                 ArrayRef<int64_t> shape) {
    SmallVector<std::string> out(idx.begin(), idx.end());
    for (size_t d = 0; d < shape.size(); ++d)
      if (shape[d] == 1)
        out[d] = "0";
    return out;
  }

  /// Maps an index of the reshape result to an index of its input: dims are
  /// matched in groups of equal element count; a group of one dimension on
  /// each side passes through, others are linearized and delinearized.
  SmallVector<std::string> reshapeIndex(ArrayRef<std::string> idx,
                                        ArrayRef<int64_t> out,
                                        ArrayRef<int64_t> in) {
    SmallVector<std::string> result(in.size(), "0");
    size_t i = 0, j = 0;
    while (i < out.size() || j < in.size()) {
      size_t i0 = i, j0 = j;
      int64_t po = 1, pi = 1;
      if (i < out.size())
        po *= out[i++];
      if (j < in.size())
        pi *= in[j++];
      while (po != pi) {
        if (po < pi && i < out.size())
          po *= out[i++];
        else if (pi < po && j < in.size())
          pi *= in[j++];
        else
          break;
      }
      if (po != pi) {
        // Cannot happen for equal element counts; stay correct regardless.
        SmallVector<std::string> all = ixDelinearize(ixLinear(idx, out), in);
        return all;
      }
      if (i - i0 == 1 && j - j0 == 1) {
        result[j0] = out[i0] == 1 ? "0" : idx[i0];
        continue;
      }
      std::string lin = ixLinear(idx.slice(i0, i - i0), out.slice(i0, i - i0));
      SmallVector<std::string> part = ixDelinearize(lin, in.slice(j0, j - j0));
      for (size_t k = 0; k < part.size(); ++k)
        result[j0 + k] = part[k];
    }
    return result;
  }

  //===--- Values --------------------------------------------------------===//
  void fail(Operation *op, const Twine &message) {
    if (!hadError)
      op->emitOpError() << message;
    hadError = true;
  }

  /// Declares `const <type> vN = expr;` in the current scope.
  std::string def(Elem e, const std::string &expr) {
    std::string name = fresh("v");
    line(cur, fmt::format("const {} {} = {};", computeType(e), name, expr));
    declare(cur, name);
    return name;
  }

  std::string cacheKey(Value v, ArrayRef<std::string> idx) {
    std::string key = fmt::format("{}", v.getAsOpaquePointer());
    for (const std::string &s : idx) {
      key += ',';
      key += s;
    }
    return key;
  }

  /// The value of `v` at `idx` as a C variable or literal of its compute
  /// type; emits whatever statements it needs.
  std::string val(Value v, ArrayRef<std::string> idx);
  std::string compute(Value v, ArrayRef<std::string> idx);
  std::string computeBlockArg(BlockArgument arg, ArrayRef<std::string> idx);
  std::string computeConstant(ConstantOp op, ArrayRef<std::string> idx);
  std::string computeUnary(Operation *op, ArrayRef<std::string> idx);
  std::string computeBinary(Operation *op, ArrayRef<std::string> idx);
  std::string computeCast(CastOp op, ArrayRef<std::string> idx);
  std::string computeReduce(ReduceOp op, ArrayRef<std::string> idx);
  std::string computeArgMax(ArgMaxOp op, ArrayRef<std::string> idx);
  std::string computePad(PadOp op, ArrayRef<std::string> idx);
  std::string computeConcat(ConcatOp op, ArrayRef<std::string> idx);
  std::string computeIm2Col(Im2ColOp op, ArrayRef<std::string> idx);
  std::string computeConv2D(Conv2DOp op, ArrayRef<std::string> idx);
  std::string computeConvTranspose2D(ConvTranspose2DOp op,
                                     ArrayRef<std::string> idx);
  std::string computePool2D(Pool2DOp op, ArrayRef<std::string> idx);
  std::string computeGather(GatherOp op, ArrayRef<std::string> idx);
  std::string computeResize(ResizeOp op, ArrayRef<std::string> idx);

  //===--- Window helpers ------------------------------------------------===//
  /// `sum(index * coefficient) + constant` as a literal or variable; every
  /// index is non-negative, so the upper bound adds the positive terms.
  std::string ixAffine(ArrayRef<std::pair<std::string, int64_t>> terms,
                       int64_t constant);
  /// Conditions that keep the indices `idx` (whose smallest possible values
  /// are `lowest`) inside `[0, size)`; nothing when a literal index is out
  /// of range (the read is statically outside).
  std::optional<SmallVector<std::string>> inBounds(ArrayRef<std::string> idx,
                                                   ArrayRef<int64_t> lowest,
                                                   ArrayRef<int64_t> size);
  /// Opens `for` loops over `sizes` (dimensions of size 1 get the literal 0)
  /// as one scope under `cur`, or returns `cur` when every size is 1.
  Scope *openLoops(ArrayRef<int64_t> sizes, SmallVector<std::string> &vars);
  /// A compile-time table in the kernel's globals (shared by equal tables).
  std::string constTable(const char *type, ArrayRef<std::string> values);
  /// The value `table[i]` as an index variable bounded by `bound`.
  std::string ixLookup(const std::string &table, ArrayRef<int64_t> values,
                       const std::string &i, int64_t bound);

  /// Splat (or one-element) constants become literals.
  std::optional<std::string> splatLiteral(Value v) {
    auto c = v.getDefiningOp<ConstantOp>();
    if (!c)
      return std::nullopt;
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense || !(dense.isSplat() || dense.getNumElements() == 1))
      return std::nullopt;
    return denseLiteral(dense, elemOf(v), 0);
  }

  static std::string reduceInit(ReduceKind kind, Elem e) {
    switch (kind) {
    case ReduceKind::sum:
      return isFloat(e) ? "0.0f" : intLiteral(e, 0);
    case ReduceKind::prod:
      return isFloat(e) ? "1.0f" : intLiteral(e, 1);
    case ReduceKind::max:
      return isFloat(e) ? floatLiteral(-INFINITY)
             : e == Elem::I32
                 ? intLiteral(e, std::numeric_limits<int32_t>::min())
                 : intLiteral(e, std::numeric_limits<int64_t>::min());
    case ReduceKind::min:
      return isFloat(e) ? floatLiteral(INFINITY)
             : e == Elem::I32
                 ? intLiteral(e, std::numeric_limits<int32_t>::max())
                 : intLiteral(e, std::numeric_limits<int64_t>::max());
    }
    return "0";
  }

  /// `a (+) b` for a reduction combiner.
  static std::string combine(ReduceKind kind, Elem e, const std::string &a,
                             const std::string &b) {
    bool f = isFloat(e);
    switch (kind) {
    case ReduceKind::sum:
      return f ? fmt::format("{} + {}", a, b)
               : fmt::format("dlc_add({}, {})", a, b);
    case ReduceKind::prod:
      return f ? fmt::format("{} * {}", a, b)
               : fmt::format("dlc_mul({}, {})", a, b);
    case ReduceKind::max:
      return f ? fmt::format("fmaxf({}, {})", a, b)
               : fmt::format("({0} > {1} ? {0} : {1})", a, b);
    case ReduceKind::min:
      return f ? fmt::format("fminf({}, {})", a, b)
               : fmt::format("({0} < {1} ? {0} : {1})", a, b);
    }
    return a;
  }

  //===--- Templates -----------------------------------------------------===//
  LogicalResult checkTypes();
  void emitPointwise(EmittedKernel &out);
  void emitRow(EmittedKernel &out);
  void emitWarpCombine(Scope *s, ReduceKind kind, Elem e,
                       const std::string &acc);
  std::string vectorLoad(unsigned argNumber);

  KernelOp kernel;
  const KernelPlan &plan;
  unsigned number;
  std::string name;
  std::string idxType = "int";
  std::string globals;

  std::unique_ptr<Scope> root;
  Scope *cur = nullptr;
  llvm::StringMap<Scope *> varScope;
  llvm::StringMap<int64_t> bounds;
  /// Multi-indices produced by ixDelinearize -> the position they came from.
  std::unordered_map<std::string, std::string> delinearized;
  unsigned counter = 0;
  bool hadError = false;
  unsigned numConstTables = 0;
  /// Table contents -> name, for constTable.
  std::unordered_map<std::string, std::string> tables;

  // Pointwise: the iteration index, the vector width and the per-thread
  // scope that holds the vector loads.
  SmallVector<std::string> spaceIdx;
  int64_t vec = 1;
  Scope *threadScope = nullptr;
  DenseMap<unsigned, std::string> vectorLoads;
  /// With vec > 1 the body is emitted twice: for pointers that all allow
  /// vector accesses (loads into per-thread arrays in `vectorScope`, one
  /// test of every pointer, `alignTerms`, chooses it) and element by element
  /// (`scalarPath`).
  Scope *vectorScope = nullptr;
  bool scalarPath = false;
  SmallVector<std::string> alignTerms;

  // Row: the outer index of the row and the per-row reduction results.
  SmallVector<std::string> outerIdx;
  DenseMap<Operation *, std::string> rowVars;
  // Row: kernel inputs whose row is loaded into registers once (argument
  // number -> per-thread array), and, inside a loop over the row's items,
  // the item variable and the loop's inner index.
  DenseMap<unsigned, std::string> rowCache;
  std::string rowItem;
  SmallVector<std::string> rowItemInner;
  bool onlyReadAtRowIndex(Value v, DenseMap<Value, bool> &memo);
};

std::string KernelEmitter::val(Value v, ArrayRef<std::string> idx) {
  if (hadError)
    return "0";
  if (auto literal = splatLiteral(v))
    return *literal;
  // A reduction computed once per row by the Row template.
  if (Operation *def = v.getDefiningOp()) {
    auto it = rowVars.find(def);
    if (it != rowVars.end() &&
        llvm::equal(idx.take_front(outerIdx.size()), outerIdx))
      return it->second;
  }
  std::string key = cacheKey(v, idx);
  if (auto hit = lookup(key))
    return *hit;
  Scope *target = targetFor(idx, /*respectBarriers=*/true);
  Scope *saved = cur;
  cur = target;
  std::string result = compute(v, idx);
  cur = saved;
  target->cache[key] = result;
  return result;
}

std::string KernelEmitter::compute(Value v, ArrayRef<std::string> idx) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return computeBlockArg(arg, idx);
  Operation *op = v.getDefiningOp();
  if (auto c = dyn_cast<ConstantOp>(op))
    return computeConstant(c, idx);
  if (isa<ExpOp, LogOp, TanhOp, SigmoidOp, ErfOp, RsqrtOp, SqrtOp, ReciprocalOp,
          AbsOp, NegOp, NotOp, ClampOp>(op))
    return computeUnary(op, idx);
  if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, PowOp, AndOp, OrOp, CmpOp,
          SelectOp>(op))
    return computeBinary(op, idx);
  if (auto cast = dyn_cast<CastOp>(op))
    return computeCast(cast, idx);
  if (auto reduce = dyn_cast<ReduceOp>(op))
    return computeReduce(reduce, idx);
  if (auto argmax = dyn_cast<ArgMaxOp>(op))
    return computeArgMax(argmax, idx);
  if (auto pad = dyn_cast<PadOp>(op))
    return computePad(pad, idx);
  if (auto concat = dyn_cast<ConcatOp>(op))
    return computeConcat(concat, idx);
  if (auto t = dyn_cast<TransposeOp>(op)) {
    SmallVector<std::string> in(idx.size());
    for (auto [k, p] : llvm::enumerate(t.getPerm()))
      in[p] = idx[k];
    return val(t.getInput(), in);
  }
  if (auto r = dyn_cast<ReshapeOp>(op))
    return val(r.getInput(), reshapeIndex(idx, shapeOf(r.getResult()),
                                          shapeOf(r.getInput())));
  if (auto s = dyn_cast<SliceOp>(op)) {
    SmallVector<std::string> in;
    std::optional<ArrayRef<int64_t>> strides = s.getStrides();
    for (auto [k, start] : llvm::enumerate(s.getStart())) {
      int64_t stride = strides ? (*strides)[k] : 1;
      in.push_back(stride == 1 ? ixAdd(idx[k], start)
                               : ixAffine({{idx[k], stride}}, start));
    }
    return val(s.getInput(), in);
  }
  if (auto im2col = dyn_cast<Im2ColOp>(op))
    return computeIm2Col(im2col, idx);
  if (auto conv = dyn_cast<Conv2DOp>(op))
    return computeConv2D(conv, idx);
  if (auto convT = dyn_cast<ConvTranspose2DOp>(op))
    return computeConvTranspose2D(convT, idx);
  if (auto pool = dyn_cast<Pool2DOp>(op))
    return computePool2D(pool, idx);
  if (auto gather = dyn_cast<GatherOp>(op))
    return computeGather(gather, idx);
  if (auto resize = dyn_cast<ResizeOp>(op))
    return computeResize(resize, idx);
  if (auto t = dyn_cast<TileOp>(op)) {
    ArrayRef<int64_t> inShape = shapeOf(t.getInput());
    SmallVector<std::string> in;
    for (size_t d = 0; d < inShape.size(); ++d)
      in.push_back(inShape[d] == 1 ? "0" : ixMod(idx[d], inShape[d]));
    return val(t.getInput(), in);
  }
  fail(op, "cannot be emitted as CUDA code inside a fused kernel");
  return "0";
}

std::string KernelEmitter::vectorLoad(unsigned argNumber) {
  auto it = vectorLoads.find(argNumber);
  if (it != vectorLoads.end())
    return it->second;
  Elem e = elemOf(kernel.getBodyBlock().getArgument(argNumber));
  int64_t size = storageBytes(e), bytes = vec * size;
  int64_t chunk = std::min<int64_t>(16, bytes);
  std::string arr = fmt::format("x{}", argNumber);
  std::string ptr = fmt::format("in{}", argNumber);
  std::string text =
      fmt::format("alignas(16) {} {}[{}];\n", storageType(e), arr, vec);
  if (chunk >= 4) {
    // The path's condition tests the pointer's alignment once.
    alignTerms.push_back(fmt::format(
        "(reinterpret_cast<unsigned long long>({}) & {}ull)", ptr, chunk - 1));
    for (int64_t c = 0; c < bytes / chunk; ++c)
      text +=
          fmt::format("{}dlc_copy{}({} + {}, {} + base + {});", c ? "\n" : "",
                      chunk, arr, c * chunk / size, ptr, c * chunk / size);
  } else {
    text +=
        fmt::format("for (int q = 0; q < {0}; ++q)\n  {1}[q] = {2}[base + q];",
                    vec, arr, ptr);
  }
  line(vectorScope, text);
  vectorLoads[argNumber] = arr;
  return arr;
}

std::string KernelEmitter::computeBlockArg(BlockArgument arg,
                                           ArrayRef<std::string> idx) {
  unsigned n = arg.getArgNumber();
  Elem e = elemOf(arg);
  ArrayRef<int64_t> shape = shapeOf(arg);
  if (vec > 1 && threadScope && shape == ArrayRef<int64_t>(plan.space) &&
      llvm::equal(idx, spaceIdx))
    return def(e, loadExpr(e, scalarPath ? fmt::format("in{}[base + v]", n)
                                         : vectorLoad(n) + "[v]"));
  // Row template: an input whose row sits in registers.
  if (!rowItem.empty() && shape == ArrayRef<int64_t>(plan.space)) {
    auto cached = rowCache.find(n);
    if (cached != rowCache.end() &&
        idx.take_front(outerIdx.size()) == ArrayRef<std::string>(outerIdx) &&
        idx.drop_front(outerIdx.size()) == ArrayRef<std::string>(rowItemInner))
      return fmt::format("{}[{}]", cached->second, rowItem);
  }
  std::string lin = ixLinear(idx, shape);
  return def(e, loadExpr(e, fmt::format("in{}[{}]", n, lin)));
}

std::string KernelEmitter::computeConstant(ConstantOp op,
                                           ArrayRef<std::string> idx) {
  auto dense = dyn_cast<DenseElementsAttr>(op.getValue());
  if (!dense) {
    fail(op, "has a constant value the CUDA emitter cannot read inside a "
             "kernel (expected dense elements)");
    return "0";
  }
  Elem e = elemOf(op.getResult());
  std::string table = fmt::format("{}_c{}", name, numConstTables++);
  std::string values;
  for (int64_t i = 0, n = dense.getNumElements(); i < n; ++i) {
    if (i)
      values += i % 8 == 0 ? ",\n    " : ", ";
    values += denseLiteral(dense, e, i);
  }
  globals += fmt::format("static __device__ const {} {}[{}] = {{\n    {}}};\n",
                         computeType(e), table, dense.getNumElements(), values);
  std::string lin = ixLinear(idx, shapeOf(op.getResult()));
  return def(e, fmt::format("{}[{}]", table, lin));
}

std::string KernelEmitter::computeUnary(Operation *op,
                                        ArrayRef<std::string> idx) {
  Elem e = elemOf(op->getResult(0));
  std::string x = val(op->getOperand(0), idx);
  bool f = isFloat(e);
  std::string expr;
  bool exact = false; // the result is already a value of type `e`
  if (isa<ExpOp>(op))
    expr = fmt::format("expf({})", x);
  else if (isa<LogOp>(op))
    expr = fmt::format("logf({})", x);
  else if (isa<TanhOp>(op))
    expr = fmt::format("tanhf({})", x);
  else if (isa<SigmoidOp>(op))
    expr = fmt::format("dlc_sigmoid({})", x);
  else if (isa<ErfOp>(op))
    expr = fmt::format("erff({})", x);
  else if (isa<RsqrtOp>(op))
    expr = fmt::format("rsqrtf({})", x);
  else if (isa<SqrtOp>(op))
    expr = fmt::format("sqrtf({})", x);
  else if (isa<ReciprocalOp>(op))
    expr = fmt::format("1.0f / {}", x);
  else if (isa<AbsOp>(op)) {
    exact = true;
    if (e == Elem::I1)
      expr = x;
    else
      expr = f ? fmt::format("fabsf({})", x) : fmt::format("dlc_abs({})", x);
  } else if (isa<NegOp>(op)) {
    exact = true;
    if (e == Elem::I1)
      expr = x; // -x wraps to x in one bit
    else
      expr = f ? fmt::format("-{}", x) : fmt::format("dlc_neg({})", x);
  } else if (isa<NotOp>(op)) {
    exact = true;
    expr = fmt::format("!{}", x);
  } else if (auto clamp = dyn_cast<ClampOp>(op)) {
    exact = true;
    std::string lo = scalarLiteral(e, clamp.getMin().convertToDouble());
    std::string hi = scalarLiteral(e, clamp.getMax().convertToDouble());
    if (f)
      expr = fmt::format("fminf(fmaxf({}, {}), {})", x, lo, hi);
    else if (e == Elem::I1)
      expr =
          fmt::format("({0} < {1} ? {1} : {0} > {2} ? {2} : {0})", x, lo, hi);
    else
      expr =
          fmt::format("({0} < {1} ? {1} : {0} > {2} ? {2} : {0})", x, lo, hi);
  }
  if (!exact)
    expr = roundTo(e, expr);
  return def(e, expr);
}

std::string KernelEmitter::computeBinary(Operation *op,
                                         ArrayRef<std::string> idx) {
  Elem e = elemOf(op->getResult(0));
  if (auto sel = dyn_cast<SelectOp>(op)) {
    std::string c =
        val(sel.getCond(), broadcastIndex(idx, shapeOf(sel.getCond())));
    std::string a =
        val(sel.getOnTrue(), broadcastIndex(idx, shapeOf(sel.getOnTrue())));
    std::string b =
        val(sel.getOnFalse(), broadcastIndex(idx, shapeOf(sel.getOnFalse())));
    return def(e, fmt::format("{} ? {} : {}", c, a, b));
  }
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  std::string a = val(lhs, broadcastIndex(idx, shapeOf(lhs)));
  std::string b = val(rhs, broadcastIndex(idx, shapeOf(rhs)));
  if (auto cmp = dyn_cast<CmpOp>(op)) {
    const char *sym = "==";
    switch (cmp.getPredicate()) {
    case CmpPredicate::eq:
      sym = "==";
      break;
    case CmpPredicate::ne:
      sym = "!=";
      break;
    case CmpPredicate::lt:
      sym = "<";
      break;
    case CmpPredicate::le:
      sym = "<=";
      break;
    case CmpPredicate::gt:
      sym = ">";
      break;
    case CmpPredicate::ge:
      sym = ">=";
      break;
    }
    return def(Elem::I1, fmt::format("{} {} {}", a, sym, b));
  }
  std::string expr;
  if (isFloat(e)) {
    bool exact = false;
    if (isa<AddOp>(op))
      expr = fmt::format("{} + {}", a, b);
    else if (isa<SubOp>(op))
      expr = fmt::format("{} - {}", a, b);
    else if (isa<MulOp>(op))
      expr = fmt::format("{} * {}", a, b);
    else if (isa<DivOp>(op))
      expr = fmt::format("{} / {}", a, b);
    else if (isa<PowOp>(op))
      expr = fmt::format("powf({}, {})", a, b);
    else if (isa<MaxOp>(op)) {
      expr = fmt::format("fmaxf({}, {})", a, b);
      exact = true;
    } else if (isa<MinOp>(op)) {
      expr = fmt::format("fminf({}, {})", a, b);
      exact = true;
    } else {
      fail(op, "is not defined on floating-point tensors (it needs i1 or "
               "integer operands)");
      return "0";
    }
    return def(e, exact ? expr : roundTo(e, expr));
  }
  if (e == Elem::I1) {
    // Booleans hold 0 or 1; arithmetic wraps in one bit like the reference.
    if (isa<AndOp, MinOp, MulOp>(op))
      expr = fmt::format("{} && {}", a, b);
    else if (isa<OrOp, MaxOp>(op))
      expr = fmt::format("{} || {}", a, b);
    else if (isa<AddOp, SubOp>(op))
      expr = fmt::format("{} != {}", a, b);
    else if (isa<DivOp>(op)) // a / 1 = a; a / 0 gives 0 rather than a trap
      expr = fmt::format("{} && {}", b, a);
    else if (isa<PowOp>(op)) // a^0 = 1, a^1 = a
      expr = fmt::format("!{} || {}", b, a);
    else {
      fail(op, "is not supported on i1 tensors by the CUDA emitter");
      return "0";
    }
    return def(e, expr);
  }
  if (isa<AddOp>(op))
    expr = fmt::format("dlc_add({}, {})", a, b);
  else if (isa<SubOp>(op))
    expr = fmt::format("dlc_sub({}, {})", a, b);
  else if (isa<MulOp>(op))
    expr = fmt::format("dlc_mul({}, {})", a, b);
  else if (isa<DivOp>(op))
    expr = fmt::format("dlc_div({}, {})", a, b);
  else if (isa<PowOp>(op))
    expr = fmt::format("dlc_pow({}, {})", a, b);
  else if (isa<MaxOp>(op))
    expr = fmt::format("{0} > {1} ? {0} : {1}", a, b);
  else if (isa<MinOp>(op))
    expr = fmt::format("{0} < {1} ? {0} : {1}", a, b);
  else if (isa<AndOp>(op))
    expr = fmt::format("{} & {}", a, b);
  else if (isa<OrOp>(op))
    expr = fmt::format("{} | {}", a, b);
  return def(e, expr);
}

std::string KernelEmitter::computeCast(CastOp op, ArrayRef<std::string> idx) {
  Elem from = elemOf(op.getInput()), to = elemOf(op.getResult());
  std::string x = val(op.getInput(), idx);
  if (from == to)
    return x;
  std::string expr;
  if (to == Elem::I1) {
    expr = isFloat(from) ? fmt::format("{} != 0.0f", x)
                         : fmt::format("{} != 0", x);
  } else if (from == Elem::I1) {
    expr = isFloat(to) ? fmt::format("{} ? 1.0f : 0.0f", x)
                       : fmt::format("({}){}", computeType(to), x);
  } else if (isFloat(to)) {
    // f16/bf16 values are exact in float; an int rounds to nearest on its
    // way to float.
    if (isFloat(from) && to == Elem::F32)
      return x;
    if (isFloat(from))
      expr = roundTo(to, x);
    else if (to == Elem::F32)
      expr = fmt::format("(float){}", x); // one rounding to nearest even
    else
      expr = roundTo(to, fmt::format("dlc_i2f_odd((long long){})", x));
  } else if (isFloat(from)) {
    expr = to == Elem::I32 ? fmt::format("dlc_f2i32({})", x)
                           : fmt::format("dlc_f2i64({})", x);
  } else {
    // Integer to integer wraps (two's complement truncation).
    expr = fmt::format("({}){}", computeType(to), x);
  }
  return def(to, expr);
}

std::string KernelEmitter::computeReduce(ReduceOp op,
                                         ArrayRef<std::string> idx) {
  Elem e = elemOf(op.getResult());
  ReduceKind kind = op.getKind();
  ArrayRef<int64_t> inShape = shapeOf(op.getInput());
  SmallVector<std::string> inIdx(idx.begin(), idx.end());
  SmallVector<int64_t> axes(op.getAxes());
  llvm::sort(axes);
  std::string header;
  SmallVector<std::pair<std::string, int64_t>> loopVars;
  for (int64_t axis : axes) {
    if (inShape[axis] == 1) {
      inIdx[axis] = "0";
      continue;
    }
    std::string k = fresh("k");
    header += fmt::format("for ({0} {1} = 0; {1} < {2}; ++{1}) ", idxType, k,
                          inShape[axis]);
    inIdx[axis] = k;
    loopVars.push_back({k, inShape[axis]});
  }
  if (loopVars.empty()) {
    std::string x = val(op.getInput(), inIdx);
    return x;
  }
  std::string acc = fresh("r");
  line(cur,
       fmt::format("{} {} = {};", computeType(e), acc, reduceInit(kind, e)));
  declare(cur, acc);
  Scope *parent = cur;
  Scope *loop = openScope(parent, header + "{", /*barrier=*/false);
  for (auto &[k, n] : loopVars)
    declare(loop, k, n);
  cur = loop;
  std::string x = val(op.getInput(), inIdx);
  line(loop, fmt::format("{} = {};", acc, combine(kind, e, acc, x)));
  cur = parent;
  closeScope(loop);
  if (kind == ReduceKind::sum || kind == ReduceKind::prod)
    if (e == Elem::F16 || e == Elem::BF16)
      line(cur, fmt::format("{} = {};", acc, roundTo(e, acc)));
  return acc;
}

std::string KernelEmitter::computeArgMax(ArgMaxOp op,
                                         ArrayRef<std::string> idx) {
  Elem in = elemOf(op.getInput()), e = elemOf(op.getResult());
  int64_t axis = op.getAxis();
  int64_t size = shapeOf(op.getInput())[axis];
  if (size <= 1)
    return intLiteral(e, 0);
  std::string best = fresh("bv"), bestIdx = fresh("bi");
  line(cur, fmt::format("{} {} = 0; {} {} = -1;", computeType(in), best,
                        computeType(e), bestIdx));
  declare(cur, best);
  declare(cur, bestIdx);
  std::string k = fresh("k");
  Scope *parent = cur;
  Scope *loop = openScope(
      parent,
      fmt::format("for ({0} {1} = 0; {1} < {2}; ++{1}) {{", idxType, k, size),
      /*barrier=*/false);
  declare(loop, k, size);
  cur = loop;
  SmallVector<std::string> inIdx(idx.begin(), idx.end());
  inIdx[axis] = k;
  std::string x = val(op.getInput(), inIdx);
  // The first maximum wins: later equal values do not replace it.
  line(loop,
       fmt::format("if ({0} < 0 || {1} > {2}) {{ {2} = {1}; {0} = {3}; }}",
                   bestIdx, x, best, k));
  cur = parent;
  closeScope(loop);
  return bestIdx;
}

std::string KernelEmitter::computePad(PadOp op, ArrayRef<std::string> idx) {
  Elem e = elemOf(op.getResult());
  ArrayRef<int64_t> inShape = shapeOf(op.getInput());
  ArrayRef<int64_t> low = op.getLow();
  std::string padValue = scalarLiteral(e, op.getValue().convertToDouble());
  SmallVector<std::string> conds;
  SmallVector<int64_t> dynamicDims;
  SmallVector<std::string> inIdx(idx.begin(), idx.end());
  for (size_t d = 0; d < inShape.size(); ++d) {
    int64_t lo = low[d], n = inShape[d];
    if (isLit(idx[d])) {
      int64_t x = litVal(idx[d]) - lo;
      if (x < 0 || x >= n)
        return padValue;
      inIdx[d] = lit(x);
      continue;
    }
    if (lo > 0)
      conds.push_back(fmt::format("{} >= {}", idx[d], lo));
    if (boundOf(idx[d]) > lo + n)
      conds.push_back(fmt::format("{} < {}", idx[d], lo + n));
    dynamicDims.push_back(d);
  }
  if (conds.empty()) {
    for (int64_t d : dynamicDims)
      inIdx[d] = ixAdd(idx[d], -low[d]);
    return val(op.getInput(), inIdx);
  }
  std::string result = fresh("p");
  line(cur, fmt::format("{} {} = {};", computeType(e), result, padValue));
  declare(cur, result);
  Scope *parent = cur;
  Scope *branch =
      openScope(parent, fmt::format("if ({}) {{", llvm::join(conds, " && ")),
                /*barrier=*/true);
  cur = branch;
  for (int64_t d : dynamicDims)
    inIdx[d] = ixAdd(idx[d], -low[d]);
  std::string x = val(op.getInput(), inIdx);
  line(branch, fmt::format("{} = {};", result, x));
  cur = parent;
  closeScope(branch);
  return result;
}

std::string KernelEmitter::computeConcat(ConcatOp op,
                                         ArrayRef<std::string> idx) {
  Elem e = elemOf(op.getResult());
  int64_t axis = op.getAxis();
  const std::string &i = idx[axis];
  // A known position picks its input at compile time.
  if (isLit(i)) {
    int64_t pos = litVal(i), offset = 0;
    for (Value input : op.getInputs()) {
      int64_t size = shapeOf(input)[axis];
      if (pos < offset + size) {
        SmallVector<std::string> in(idx.begin(), idx.end());
        in[axis] = lit(pos - offset);
        return val(input, in);
      }
      offset += size;
    }
  }
  // Not "c": declareIndex names inner row indices c0, c1, ...
  std::string result = fresh("cat");
  line(cur, fmt::format("{0} {1} = ({0})0;", computeType(e), result));
  declare(cur, result);
  Scope *parent = cur;
  int64_t offset = 0;
  size_t count = op.getInputs().size();
  int64_t bound = boundOf(i);
  for (auto [k, input] : llvm::enumerate(op.getInputs())) {
    int64_t size = shapeOf(input)[axis];
    int64_t begin = offset, end = offset + size;
    offset = end;
    if (size == 0 || begin >= bound)
      continue;
    // Independent conditions, not an else-chain: hoisted statements may be
    // placed between the branches.
    SmallVector<std::string> conds;
    if (k > 0 && begin > 0)
      conds.push_back(fmt::format("{} >= {}", i, begin));
    if (k + 1 < count && end < bound)
      conds.push_back(fmt::format("{} < {}", i, end));
    Scope *branch = openScope(
        parent,
        conds.empty() ? std::string("{")
                      : fmt::format("if ({}) {{", llvm::join(conds, " && ")),
        /*barrier=*/true);
    cur = branch;
    SmallVector<std::string> in(idx.begin(), idx.end());
    in[axis] = ixAdd(i, -begin);
    std::string x = val(input, in);
    line(branch, fmt::format("{} = {};", result, x));
    cur = parent;
    closeScope(branch);
  }
  return result;
}

//===--- Convolution, pooling, gather, resize
//------------------------------===//

std::string
KernelEmitter::ixAffine(ArrayRef<std::pair<std::string, int64_t>> terms,
                        int64_t constant) {
  SmallVector<std::pair<std::string, int64_t>> vars;
  for (auto &[t, c] : terms) {
    if (c == 0)
      continue;
    if (isLit(t)) {
      constant += litVal(t) * c;
      continue;
    }
    vars.push_back({t, c});
  }
  if (vars.empty())
    return lit(constant);
  if (vars.size() == 1 && vars[0].second == 1)
    return ixAdd(vars[0].first, constant);
  std::string expr;
  SmallVector<std::string> deps;
  int64_t bound = constant + 1;
  bool unbounded = false;
  for (auto &[t, c] : vars) {
    if (!expr.empty())
      expr += c > 0 ? " + " : " - ";
    else if (c < 0)
      expr += "-";
    int64_t magnitude = c < 0 ? -c : c;
    expr += magnitude == 1 ? t : fmt::format("{} * {}", t, magnitude);
    deps.push_back(t);
    int64_t b = boundOf(t);
    if (b == std::numeric_limits<int64_t>::max())
      unbounded = true;
    else if (c > 0)
      bound += (b - 1) * c;
  }
  if (constant > 0)
    expr += fmt::format(" + {}", constant);
  else if (constant < 0)
    expr += fmt::format(" - {}", -constant);
  return ixTemp(expr, deps,
                unbounded ? std::numeric_limits<int64_t>::max()
                          : std::max<int64_t>(bound, 1));
}

std::optional<SmallVector<std::string>>
KernelEmitter::inBounds(ArrayRef<std::string> idx, ArrayRef<int64_t> lowest,
                        ArrayRef<int64_t> size) {
  SmallVector<std::string> conds;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (isLit(idx[k])) {
      int64_t v = litVal(idx[k]);
      if (v < 0 || v >= size[k])
        return std::nullopt;
      continue;
    }
    if (lowest[k] < 0)
      conds.push_back(fmt::format("{} >= 0", idx[k]));
    if (boundOf(idx[k]) > size[k])
      conds.push_back(fmt::format("{} < {}", idx[k], size[k]));
  }
  return conds;
}

KernelEmitter::Scope *KernelEmitter::openLoops(ArrayRef<int64_t> sizes,
                                               SmallVector<std::string> &vars) {
  std::string header;
  SmallVector<std::pair<std::string, int64_t>> loopVars;
  vars.clear();
  for (int64_t n : sizes) {
    if (n == 1) {
      vars.push_back("0");
      continue;
    }
    std::string k = fresh("k");
    header +=
        fmt::format("for ({0} {1} = 0; {1} < {2}; ++{1}) ", idxType, k, n);
    vars.push_back(k);
    loopVars.push_back({k, n});
  }
  if (loopVars.empty())
    return cur;
  Scope *loop = openScope(cur, header + "{", /*barrier=*/false);
  for (auto &[k, n] : loopVars)
    declare(loop, k, n);
  return loop;
}

std::string KernelEmitter::constTable(const char *type,
                                      ArrayRef<std::string> values) {
  std::string body;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i)
      body += i % 8 == 0 ? ",\n    " : ", ";
    body += values[i];
  }
  std::string key = std::string(type) + ":" + body;
  auto it = tables.find(key);
  if (it != tables.end())
    return it->second;
  std::string table = fmt::format("{}_c{}", name, numConstTables++);
  globals += fmt::format("static __device__ const {} {}[{}] = {{\n    {}}};\n",
                         type, table, values.size(), body);
  tables[key] = table;
  return table;
}

std::string KernelEmitter::ixLookup(const std::string &table,
                                    ArrayRef<int64_t> values,
                                    const std::string &i, int64_t bound) {
  if (isLit(i))
    return lit(values[litVal(i)]);
  return ixTemp(fmt::format("{}[{}]", table, i), {i}, bound);
}

/// Reads `input` at `idx` under the guard `conds` (zero outside): a
/// conditional scope like dlc.pad's.
static std::string zeroOf(Elem e) {
  return isFloat(e) ? "0.0f" : intLiteral(e, 0);
}

std::string KernelEmitter::computeIm2Col(Im2ColOp op,
                                         ArrayRef<std::string> idx) {
  Elem e = elemOf(op.getResult());
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(), p = op.getPads(),
                    d = op.getDilations();
  int64_t cg = in[1] / op.getGroups();
  int64_t ow = (in[3] + p[1] + p[3] - d[1] * (k[1] - 1) - 1) / s[1] + 1;
  std::string c = ixDiv(idx[2], k[0] * k[1]);
  std::string a = ixMod(ixDiv(idx[2], k[1]), k[0]);
  std::string b = ixMod(idx[2], k[1]);
  std::string y = ixDiv(idx[3], ow), z = ixMod(idx[3], ow);
  std::string ch = ixAffine({{idx[1], cg}, {c, 1}}, 0);
  std::string h = ixAffine({{y, s[0]}, {a, d[0]}}, -p[0]);
  std::string w = ixAffine({{z, s[1]}, {b, d[1]}}, -p[1]);
  auto conds = inBounds({h, w}, {-p[0], -p[1]}, in.drop_front(2));
  if (!conds)
    return zeroOf(e);
  if (conds->empty())
    return val(op.getInput(), {idx[0], ch, h, w});
  std::string result = fresh("p");
  line(cur, fmt::format("{} {} = {};", computeType(e), result, zeroOf(e)));
  declare(cur, result);
  Scope *parent = cur;
  Scope *branch =
      openScope(parent, fmt::format("if ({}) {{", llvm::join(*conds, " && ")),
                /*barrier=*/true);
  cur = branch;
  std::string x = val(op.getInput(), {idx[0], ch, h, w});
  line(branch, fmt::format("{} = {};", result, x));
  cur = parent;
  closeScope(branch);
  return result;
}

std::string KernelEmitter::computeConv2D(Conv2DOp op,
                                         ArrayRef<std::string> idx) {
  Elem e = elemOf(op.getResult());
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> wShape = shapeOf(op.getFilter());
  ArrayRef<int64_t> s = op.getStrides(), p = op.getPads(),
                    d = op.getDilations();
  int64_t ocg = wShape[0] / op.getGroups(), cg = wShape[1];
  std::string g = ixDiv(idx[1], ocg);
  std::string acc = fresh("acc");
  line(cur, fmt::format("float {} = 0.0f;", acc));
  declare(cur, acc);
  Scope *parent = cur;
  SmallVector<std::string> v;
  Scope *loop = openLoops({cg, wShape[2], wShape[3]}, v);
  cur = loop;
  std::string ch = ixAffine({{g, cg}, {v[0], 1}}, 0);
  std::string h = ixAffine({{idx[2], s[0]}, {v[1], d[0]}}, -p[0]);
  std::string w = ixAffine({{idx[3], s[1]}, {v[2], d[1]}}, -p[1]);
  if (auto conds = inBounds({h, w}, {-p[0], -p[1]}, in.drop_front(2))) {
    Scope *body = loop;
    if (!conds->empty())
      body =
          openScope(loop, fmt::format("if ({}) {{", llvm::join(*conds, " && ")),
                    /*barrier=*/true);
    cur = body;
    std::string x = val(op.getInput(), {idx[0], ch, h, w});
    std::string f = val(op.getFilter(), {idx[1], v[0], v[1], v[2]});
    line(body, fmt::format("{} += {} * {};", acc, x, f));
    if (body != loop)
      closeScope(body);
  }
  cur = parent;
  if (loop != parent)
    closeScope(loop);
  if (e != Elem::F32)
    line(cur, fmt::format("{} = {};", acc, roundTo(e, acc)));
  return acc;
}

std::string KernelEmitter::computeConvTranspose2D(ConvTranspose2DOp op,
                                                  ArrayRef<std::string> idx) {
  Elem e = elemOf(op.getResult());
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> wShape = shapeOf(op.getFilter());
  ArrayRef<int64_t> s = op.getStrides(), p = op.getPads(),
                    d = op.getDilations();
  int64_t ocg = wShape[1], cg = in[1] / op.getGroups();
  std::string g = ixDiv(idx[1], ocg), o = ixMod(idx[1], ocg);
  std::string acc = fresh("acc");
  line(cur, fmt::format("float {} = 0.0f;", acc));
  declare(cur, acc);
  Scope *parent = cur;
  SmallVector<std::string> v;
  Scope *loop = openLoops({cg, wShape[2], wShape[3]}, v);
  cur = loop;
  // Output row y receives input row i from kernel row a when
  // y = i*s - top + a*d, i.e. i = (y + top - a*d) / s where that divides.
  SmallVector<std::string> conds, src;
  bool never = false;
  for (int dim = 0; dim < 2; ++dim) {
    int64_t k = wShape[2 + dim], size = in[2 + dim];
    std::string t =
        ixAffine({{idx[2 + dim], 1}, {v[1 + dim], -d[dim]}}, p[dim]);
    if (isLit(t)) {
      int64_t tv = litVal(t);
      if (tv < 0 || tv % s[dim] != 0 || tv / s[dim] >= size)
        never = true;
      src.push_back(lit(tv < 0 ? 0 : tv / s[dim]));
      continue;
    }
    if (p[dim] - (k - 1) * d[dim] < 0)
      conds.push_back(fmt::format("{} >= 0", t));
    if (s[dim] > 1)
      conds.push_back(fmt::format("{} % {} == 0", t, s[dim]));
    std::string i = ixDiv(t, s[dim]);
    if (boundOf(i) > size)
      conds.push_back(fmt::format("{} < {}", i, size));
    src.push_back(i);
  }
  if (!never) {
    Scope *body = loop;
    if (!conds.empty())
      body =
          openScope(loop, fmt::format("if ({}) {{", llvm::join(conds, " && ")),
                    /*barrier=*/true);
    cur = body;
    std::string ch = ixAffine({{g, cg}, {v[0], 1}}, 0);
    std::string x = val(op.getInput(), {idx[0], ch, src[0], src[1]});
    std::string f = val(op.getFilter(), {ch, o, v[1], v[2]});
    line(body, fmt::format("{} += {} * {};", acc, x, f));
    if (body != loop)
      closeScope(body);
  }
  cur = parent;
  if (loop != parent)
    closeScope(loop);
  if (e != Elem::F32)
    line(cur, fmt::format("{} = {};", acc, roundTo(e, acc)));
  return acc;
}

std::string KernelEmitter::computePool2D(Pool2DOp op,
                                         ArrayRef<std::string> idx) {
  Elem e = elemOf(op.getResult());
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> out = shapeOf(op.getResult());
  ArrayRef<int64_t> k = op.getKernel(), s = op.getStrides(), p = op.getPads();
  SmallVector<int64_t, 2> d = op.getDilationValues();
  bool isMax = op.getKind() == PoolKind::max;
  std::string acc = fresh("acc");
  line(cur, fmt::format("float {} = {};", acc,
                        isMax ? floatLiteral(-INFINITY) : "0.0f"));
  declare(cur, acc);
  Scope *parent = cur;
  SmallVector<std::string> v;
  Scope *loop = openLoops({k[0], k[1]}, v);
  cur = loop;
  std::string h = ixAffine({{idx[2], s[0]}, {v[0], d[0]}}, -p[0]);
  std::string w = ixAffine({{idx[3], s[1]}, {v[1], d[1]}}, -p[1]);
  if (auto conds = inBounds({h, w}, {-p[0], -p[1]}, in.drop_front(2))) {
    Scope *body = loop;
    if (!conds->empty())
      body =
          openScope(loop, fmt::format("if ({}) {{", llvm::join(*conds, " && ")),
                    /*barrier=*/true);
    cur = body;
    std::string x = val(op.getInput(), {idx[0], idx[1], h, w});
    line(body, isMax ? fmt::format("{0} = fmaxf({0}, {1});", acc, x)
                     : fmt::format("{} += {};", acc, x));
    if (body != loop)
      closeScope(body);
  }
  cur = parent;
  if (loop != parent)
    closeScope(loop);
  if (isMax)
    return acc;
  // The divisor of each output row and column, computed here once: the
  // window positions inside the input (or the padded input).
  bool includePad = op.getCountIncludePad();
  SmallVector<std::string> factors;
  for (int dim = 0; dim < 2; ++dim) {
    int64_t lo = includePad ? -p[dim] : 0;
    int64_t hi = in[2 + dim] + (includePad ? p[dim + 2] : 0);
    SmallVector<int64_t> counts;
    SmallVector<std::string> text;
    for (int64_t o = 0; o < out[2 + dim]; ++o) {
      int64_t n = 0;
      for (int64_t a = 0; a < k[dim]; ++a) {
        int64_t y = o * s[dim] - p[dim] + a * d[dim];
        n += y >= lo && y < hi;
      }
      counts.push_back(n);
      text.push_back(std::to_string(n));
    }
    if (llvm::all_equal(counts)) {
      factors.push_back(lit(counts.empty() ? 1 : counts.front()));
      continue;
    }
    std::string table = constTable("int", text);
    factors.push_back(ixLookup(table, counts, idx[2 + dim], k[dim] + 1));
  }
  std::string count =
      isLit(factors[0]) && isLit(factors[1])
          ? floatLiteral(float(litVal(factors[0]) * litVal(factors[1])))
          : fmt::format("(float)({} * {})", factors[0], factors[1]);
  return def(e, roundTo(e, fmt::format("{} / {}", acc, count)));
}

std::string KernelEmitter::computeGather(GatherOp op,
                                         ArrayRef<std::string> idx) {
  ArrayRef<int64_t> data = shapeOf(op.getData());
  ArrayRef<int64_t> ind = shapeOf(op.getIndices());
  int64_t axis = op.getAxis(), r = ind.size(), size = data[axis];
  std::string i = val(op.getIndices(), idx.slice(axis, r));
  std::string pos;
  auto clampIndex = [&](int64_t x) {
    if (x < 0)
      x += size;
    return std::min(std::max<int64_t>(x, 0), size - 1);
  };
  if (isLit(i)) {
    pos = lit(clampIndex(litVal(i)));
  } else {
    // Negative indices count from the end; others are clamped (the
    // reference reports them).
    std::string fixed = fmt::format("({0} < 0 ? {0} + {1} : {0})", i, size);
    pos = ixTemp(fmt::format("({0})({1} < 0 ? 0 : {1} > {2} ? {2} : {1})",
                             idxType, fixed, size - 1),
                 {i}, size);
  }
  SmallVector<std::string> in(idx.take_front(axis));
  in.push_back(pos);
  llvm::append_range(in, idx.drop_front(axis + r));
  return val(op.getData(), in);
}

std::string KernelEmitter::computeResize(ResizeOp op,
                                         ArrayRef<std::string> idx) {
  Elem e = elemOf(op.getResult());
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  ArrayRef<int64_t> out = shapeOf(op.getResult());
  StringRef cm = op.getCoordinateMode(), nm = op.getNearestMode();
  bool linear = op.getMode() == "linear";
  SmallVector<std::string> lower(idx.begin(), idx.end()), upper = lower;
  // Resized dimensions read at two positions with these weights.
  SmallVector<std::pair<int64_t, std::string>> weights;
  for (size_t dim = 0; dim < in.size(); ++dim) {
    int64_t n = in[dim], m = out[dim];
    if (n == m)
      continue; // every coordinate mode maps x to x
    // Source coordinates, computed here in double precision exactly like
    // the reference interpreter, then stored as tables.
    SmallVector<int64_t> i0, i1;
    SmallVector<std::string> i0Text, i1Text, wText;
    SmallVector<float> w;
    double scale = double(m) / double(n);
    for (int64_t x = 0; x < m; ++x) {
      double c;
      if (cm == "align_corners")
        c = m == 1 ? 0.0 : x * double(n - 1) / double(m - 1);
      else if (cm == "asymmetric")
        c = x / scale;
      else if (cm == "pytorch_half_pixel" && m == 1)
        c = -0.5;
      else
        c = (x + 0.5) / scale - 0.5;
      auto clampIndex = [&](double y) {
        return static_cast<int64_t>(std::min(std::max(y, 0.0), double(n - 1)));
      };
      double f = std::floor(c);
      if (linear) {
        i0.push_back(clampIndex(f));
        i1.push_back(clampIndex(f + 1));
        w.push_back(static_cast<float>(c - f));
      } else {
        double rounded;
        if (nm == "floor")
          rounded = f;
        else if (nm == "ceil")
          rounded = std::ceil(c);
        else if (c - f == 0.5)
          rounded = nm == "round_prefer_floor" ? f : f + 1;
        else
          rounded = std::round(c);
        i0.push_back(clampIndex(rounded));
        i1.push_back(i0.back());
        w.push_back(0.0f);
      }
      i0Text.push_back(std::to_string(i0.back()));
      i1Text.push_back(std::to_string(i1.back()));
      wText.push_back(floatLiteral(w.back()));
    }
    lower[dim] = ixLookup(constTable("int", i0Text), i0, idx[dim], n);
    bool interpolates = llvm::any_of(w, [](float x) { return x != 0.0f; });
    if (!interpolates) {
      upper[dim] = lower[dim];
      continue;
    }
    upper[dim] = ixLookup(constTable("int", i1Text), i1, idx[dim], n);
    std::string table = constTable("float", wText);
    std::string weight =
        isLit(idx[dim])
            ? floatLiteral(w[litVal(idx[dim])])
            : def(Elem::F32, fmt::format("{}[{}]", table, idx[dim]));
    weights.push_back({(int64_t)dim, weight});
  }
  if (weights.empty())
    return val(op.getInput(), lower);
  // Sum over the corners of the interpolation cell.
  std::string sum;
  for (int64_t corner = 0; corner < (int64_t(1) << weights.size()); ++corner) {
    SmallVector<std::string> at = lower;
    std::string term;
    for (auto [j, dw] : llvm::enumerate(weights)) {
      bool up = (corner >> j) & 1;
      if (up)
        at[dw.first] = upper[dw.first];
      term += up ? fmt::format("{} * ", dw.second)
                 : fmt::format("(1.0f - {}) * ", dw.second);
    }
    std::string x = val(op.getInput(), at);
    if (!sum.empty())
      sum += " + ";
    sum += term + x;
  }
  return def(e, roundTo(e, sum));
}

LogicalResult KernelEmitter::checkTypes() {
  auto check = [&](Value v, Operation *where) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || !type.hasStaticShape() || !elemOfType(type))
      return where->emitOpError()
             << "has a value of type " << v.getType()
             << " that the CUDA emitter does not support (expected a static "
                "tensor of f32, f16, bf16, i32, i64 or i1)";
    return success();
  };
  for (Value v : kernel.getBodyBlock().getArguments())
    if (failed(check(v, kernel)))
      return failure();
  for (Operation &op : kernel.getBodyBlock()) {
    for (Value v : op.getResults())
      if (failed(check(v, &op)))
        return failure();
    if (isa<YieldOp>(op))
      continue;
    if (!isElementwise(&op) && !isDataMovement(&op) && !isWindowOp(&op) &&
        !isa<ConstantOp, ReduceOp, ArgMaxOp>(op))
      return op.emitOpError() << "cannot be emitted inside a fused kernel";
  }
  return success();
}

//===--- Pointwise template ----------------------------------------------===//

void KernelEmitter::emitPointwise(EmittedKernel &out) {
  auto yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
  ArrayRef<int64_t> space = plan.space;
  int64_t numel = ShapedType::getNumElements(space);
  int64_t maxOutBytes = 1;
  for (Value v : yield.getValues())
    maxOutBytes = std::max(maxOutBytes, storageBytes(elemOf(v)));
  vec = std::clamp<int64_t>(16 / maxOutBytes, 1, 8);
  if (numel < 4096 || numel % vec != 0)
    vec = 1;
  int64_t threads = numel / vec;
  int64_t blocks = (threads + kPointwiseBlock - 1) / kPointwiseBlock;
  bool gridStride = blocks > kMaxGrid;
  int64_t blockDim = std::min<int64_t>(
      kPointwiseBlock, std::max<int64_t>(32, (threads + 31) / 32 * 32));
  out.block[0] = blockDim;
  out.grid[0] = gridStride ? 1 << 20 : std::max<int64_t>(blocks, 1);

  if (gridStride)
    threadScope = openScope(
        root.get(),
        fmt::format("for ({0} tid = ({0})blockIdx.x * {1} + threadIdx.x; tid "
                    "< {2}; tid += ({0})gridDim.x * {1}) {{",
                    idxType, blockDim, threads),
        /*barrier=*/true);
  else {
    line(
        root.get(),
        fmt::format("const {0} tid = ({0})blockIdx.x * {1} + ({0})threadIdx.x;",
                    idxType, blockDim));
    threadScope =
        openScope(root.get(), fmt::format("if (tid < {}) {{", threads),
                  /*barrier=*/true);
  }
  declare(threadScope, "tid", threads);
  cur = threadScope;

  if (vec == 1) {
    spaceIdx = declareIndex(threadScope, "tid", space, "i");
    for (auto [k, v] : llvm::enumerate(yield.getValues())) {
      std::string x = val(v, spaceIdx);
      line(threadScope,
           fmt::format("out{}[tid] = {};", k, storeExpr(elemOf(v), x)));
    }
    cur = root.get();
    closeScope(threadScope);
    return;
  }

  // Thread `tid` computes elements [base, base + vec).
  line(threadScope, fmt::format("const {} base = tid * {};", idxType, vec));
  declare(threadScope, "base", numel);
  int64_t last = space.empty() ? 1 : space.back();
  bool lastDivisible = space.size() >= 1 && last % vec == 0;
  SmallVector<std::string> outer;
  if (lastDivisible) {
    // The outer index is the same for the whole vector: compute it once.
    outer = declareIndex(threadScope, fmt::format("base / {}", last),
                         space.drop_back(), "i");
    line(threadScope, fmt::format("const {} il = base % {};", idxType, last));
    declare(threadScope, "il", last);
  }
  // Two versions of the body: vector loads and stores when every pointer
  // that has them is aligned for them, else element by element. One test
  // of all pointers keeps each version straight-line code: with a test per
  // pointer, ptxas kept every result of the thread's elements in registers
  // until the last test (f16 kernels with 16 inputs and results took 146
  // registers; docs/fusion.md has the measurements).
  alignTerms.clear();
  for (int version = 0; version < 2; ++version) {
    scalarPath = version == 1;
    Scope *path = openScope(threadScope, scalarPath ? "else {" : "if () {",
                            /*barrier=*/false);
    vectorScope = path;
    vectorLoads.clear();
    if (!scalarPath)
      for (auto [k, v] : llvm::enumerate(yield.getValues()))
        line(path, fmt::format("alignas(16) {} y{}[{}];",
                               storageType(elemOf(v)), k, vec));
    Scope *loop = openScope(
        path,
        // The element-by-element version is not unrolled: unrolled, ptxas
        // hoists all its loads and the kernel needs their registers on
        // either path (f32 with 24 inputs and results: 128 registers; not
        // unrolled, 32).
        fmt::format("#pragma unroll{}\nfor (int v = 0; v < {}; ++v) {{",
                    scalarPath ? " 1" : "", vec),
        /*barrier=*/false);
    declare(loop, "v", vec);
    cur = loop;
    if (lastDivisible) {
      std::string name = fmt::format("i{}", space.size() - 1);
      line(loop, fmt::format("const {} {} = il + v;", idxType, name));
      declare(loop, name, last);
      spaceIdx = outer;
      spaceIdx.push_back(name);
    } else {
      line(loop, fmt::format("const {} e = base + v;", idxType));
      declare(loop, "e", numel);
      spaceIdx = declareIndex(loop, "e", space, "i");
    }
    for (auto [k, v] : llvm::enumerate(yield.getValues())) {
      std::string x = val(v, spaceIdx);
      line(loop, scalarPath
                     ? fmt::format("out{}[base + v] = {};", k,
                                   storeExpr(elemOf(v), x))
                     : fmt::format("y{}[v] = {};", k, storeExpr(elemOf(v), x)));
    }
    cur = path;
    closeScope(loop);
    if (!scalarPath) {
      for (auto [k, v] : llvm::enumerate(yield.getValues())) {
        int64_t size = storageBytes(elemOf(v)), bytes = vec * size;
        int64_t chunk = std::min<int64_t>(16, bytes);
        if (chunk < 4) {
          line(path, fmt::format(
                         "for (int q = 0; q < {0}; ++q)\n  out{1}[base + q] = "
                         "y{1}[q];",
                         vec, k));
          continue;
        }
        alignTerms.push_back(
            fmt::format("(reinterpret_cast<unsigned long long>(out{}) & {}ull)",
                        k, chunk - 1));
        std::string text;
        for (int64_t c = 0; c < bytes / chunk; ++c)
          text += fmt::format("{}dlc_copy{}(out{} + base + {}, y{} + {});",
                              c ? "\n" : "", chunk, k, c * chunk / size, k,
                              c * chunk / size);
        line(path, text);
      }
      // The widest result's vector is 8 or 16 bytes, so the condition has a
      // term; without one the vector version would always be right.
      path->header =
          alignTerms.empty()
              ? std::string("if (true) {")
              : fmt::format("if (({}) == 0) {{", llvm::join(alignTerms, " | "));
    }
    cur = threadScope;
    closeScope(path);
  }
  scalarPath = false;
  cur = root.get();
  closeScope(threadScope);
}

//===--- Row template ----------------------------------------------------===//

void KernelEmitter::emitWarpCombine(Scope *s, ReduceKind kind, Elem e,
                                    const std::string &acc) {
  // The shuffle goes into a variable first: a combiner may name its
  // operand twice, and every lane must run each shuffle exactly once.
  line(s,
       fmt::format("#pragma unroll\nfor (int s = 16; s > 0; s >>= 1) {{\n"
                   "  const {0} other = __shfl_xor_sync(0xffffffffu, {1}, s);\n"
                   "  {1} = {2};\n}}",
                   computeType(e), acc, combine(kind, e, acc, "other")));
}

/// Whether every read of `v` (of the row shape) is at the row index: its
/// users are row reductions, elementwise ops of the row shape (recursively)
/// and the kernel's outputs.
bool KernelEmitter::onlyReadAtRowIndex(Value v, DenseMap<Value, bool> &memo) {
  auto known = memo.find(v);
  if (known != memo.end())
    return known->second;
  memo[v] = false; // no cycles in SSA, but stay safe
  ArrayRef<int64_t> space = plan.space;
  bool ok = llvm::all_of(v.getUsers(), [&](Operation *user) {
    if (isa<YieldOp>(user))
      return true;
    if (llvm::is_contained(plan.rowReductions, user))
      return true;
    if (isElementwise(user) && user->getNumResults() == 1 &&
        shapeOf(user->getResult(0)) == space)
      return onlyReadAtRowIndex(user->getResult(0), memo);
    return false;
  });
  memo[v] = ok;
  return ok;
}

void KernelEmitter::emitRow(EmittedKernel &out) {
  auto yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
  ArrayRef<int64_t> space = plan.space;
  size_t numOuter = space.size() - plan.numInnerDims;
  ArrayRef<int64_t> outerShape = space.take_front(numOuter);
  ArrayRef<int64_t> innerShape = space.drop_front(numOuter);
  int64_t rows = plan.numRows(), rowLength = plan.rowLength();
  bool warpPerRow = rowLength <= 1024;
  int64_t blockDim = warpPerRow ? kWarpRowBlock : rowLength <= 4096 ? 256 : 512;
  int64_t numWarps = blockDim / 32;
  int64_t stride = warpPerRow ? 32 : blockDim;
  std::string laneVar = warpPerRow ? "lane" : "tid";

  Scope *top = root.get();
  line(top, "const int lane = threadIdx.x & 31;");
  declare(top, "lane", 32);
  Scope *rowScope;
  if (warpPerRow) {
    int64_t rowsPerBlock = blockDim / 32;
    int64_t blocks = (rows + rowsPerBlock - 1) / rowsPerBlock;
    out.grid[0] = std::max<int64_t>(1, std::min(blocks, kMaxGrid));
    rowScope = openScope(
        top,
        fmt::format("for ({0} row = ({0})blockIdx.x * {1} + ({0})(threadIdx.x "
                    ">> 5); row < {2}; row += ({0})gridDim.x * {1}) {{",
                    idxType, rowsPerBlock, rows),
        /*barrier=*/true);
  } else {
    if (rows > kMaxGrid) {
      fail(kernel, "has more rows than a CUDA grid can hold");
      return;
    }
    out.grid[0] = std::max<int64_t>(1, rows);
    line(top, "const int tid = threadIdx.x;");
    line(top, "const int warp = threadIdx.x >> 5;");
    declare(top, "tid", blockDim);
    declare(top, "warp", numWarps);
    rowScope = openScope(top, "{", /*barrier=*/true);
    line(rowScope, fmt::format("const {} row = blockIdx.x;", idxType));
  }
  out.block[0] = blockDim;
  declare(rowScope, "row", rows);
  cur = rowScope;
  outerIdx = declareIndex(rowScope, "row", outerShape, "o");

  // Inputs read at the row index by more than one pass over the row
  // (reductions, then the outputs) are loaded into registers once, so the
  // kernel reads its row from memory once: every pass over the row then
  // runs as the same fully unrolled loop over the thread's items.
  int64_t items = (rowLength + stride - 1) / stride;
  bool cacheRows = false;
  // (Rows of one element have no inner index variable to keep the cached
  // reads inside the loops, and nothing to gain.)
  if (!plan.rowReductions.empty() && rowLength > 1 &&
      items <= kMaxRowCacheItems) {
    int64_t budget = kMaxRowCacheItems;
    DenseMap<Value, bool> memo;
    for (BlockArgument arg : kernel.getBodyBlock().getArguments()) {
      if (shapeOf(arg) != space || arg.use_empty() ||
          !onlyReadAtRowIndex(arg, memo) || items > budget)
        continue;
      budget -= items;
      rowCache[arg.getArgNumber()] = fresh("rc");
    }
    cacheRows = !rowCache.empty();
  }

  // A loop over the row: with cached rows, over the thread's items
  // (unrolled, so the caches stay in registers); otherwise a strided loop.
  // Returns the scope that holds the body and the inner index variables
  // through `inner`; close it with closeRowLoop.
  auto openRowLoop = [&](int64_t length, ArrayRef<int64_t> shape,
                         SmallVector<std::string> &inner,
                         std::string *position = nullptr) -> Scope * {
    std::string j = fresh("j");
    if (position)
      *position = j;
    if (!cacheRows || length != rowLength) {
      Scope *loop =
          openScope(rowScope,
                    fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4}) {{",
                                idxType, j, laneVar, length, stride),
                    /*barrier=*/false);
      declare(loop, j, length);
      inner = declareIndex(loop, j, shape, "c");
      return loop;
    }
    std::string t = fresh("it");
    Scope *loop = openScope(
        rowScope,
        fmt::format("#pragma unroll\nfor (int {0} = 0; {0} < {1}; ++{0}) {{", t,
                    items),
        /*barrier=*/false);
    declare(loop, t, items);
    line(loop, fmt::format("const {} {} = {} + {} * {};", idxType, j, laneVar,
                           t, stride));
    declare(loop, j, length);
    Scope *body = loop;
    // The guard is the loop's bound, as in the strided loop: values that do
    // not depend on the position still move out of it (inner indices, and
    // so every read of the row, are declared inside).
    if (length % stride != 0)
      body = openScope(loop, fmt::format("if ({} < {}) {{", j, length),
                       /*barrier=*/false);
    inner = declareIndex(body, j, shape, "c");
    rowItem = t;
    rowItemInner = inner;
    return body;
  };
  auto closeRowLoop = [&](Scope *body) {
    closeScope(body);
    if (body->parent != rowScope)
      closeScope(body->parent);
    rowItem.clear();
    rowItemInner.clear();
  };

  // The loads into the caches: the only reads of those rows from memory.
  for (auto &[argNumber, cacheName] : rowCache) {
    BlockArgument arg = kernel.getBodyBlock().getArgument(argNumber);
    line(rowScope,
         fmt::format("{} {}[{}];", computeType(elemOf(arg)), cacheName, items));
  }
  if (cacheRows) {
    SmallVector<std::string> inner;
    Scope *loop = openRowLoop(rowLength, innerShape, inner);
    std::string t = rowItem;
    rowItem.clear(); // these are the loads themselves
    cur = loop;
    SmallVector<std::string> idx(outerIdx);
    idx.append(inner);
    SmallVector<unsigned> order;
    for (auto &entry : rowCache)
      order.push_back(entry.first);
    llvm::sort(order);
    for (unsigned argNumber : order) {
      BlockArgument arg = kernel.getBodyBlock().getArgument(argNumber);
      line(loop, fmt::format("{}[{}] = {};", rowCache[argNumber], t,
                             computeBlockArg(arg, idx)));
    }
    cur = rowScope;
    closeRowLoop(loop);
  }

  // Rows too long for the register cache: a softmax's max and sum of
  // exp(x - max) are computed in one pass (online softmax: the running sum
  // is rescaled whenever the running maximum grows), so the row is read
  // twice (statistics, outputs) instead of three times.
  DenseMap<Operation *, Operation *> onlinePairs; // max -> sum
  llvm::SmallPtrSet<Operation *, 4> onlineSums;
  if (!cacheRows) {
    for (Operation *red : plan.rowReductions) {
      auto sum = dyn_cast<ReduceOp>(red);
      if (!sum || sum.getKind() != ReduceKind::sum)
        continue;
      auto exp = sum.getInput().getDefiningOp<ExpOp>();
      auto sub = exp ? exp.getOperand().getDefiningOp<SubOp>() : SubOp();
      auto max = sub ? sub.getRhs().getDefiningOp<ReduceOp>() : ReduceOp();
      if (!max || max.getKind() != ReduceKind::max ||
          max.getInput() != sub.getLhs() ||
          !llvm::is_contained(plan.rowReductions, max.getOperation()) ||
          onlinePairs.count(max) || elemOf(sum.getResult()) != Elem::F32 ||
          elemOf(max.getResult()) != Elem::F32 ||
          elemOf(exp.getResult()) != Elem::F32 ||
          shapeOf(sub.getResult()) != space)
        continue;
      onlinePairs[max] = sum;
      onlineSums.insert(sum);
    }
  }

  for (Operation *red : plan.rowReductions) {
    Value input = red->getOperand(0);
    if (shapeOf(input) != space) {
      fail(red, "is planned as a row reduction but its input does not have "
                "the row shape");
      return;
    }
    SmallVector<std::string> inner;
    if (onlineSums.contains(red))
      continue; // computed with its maximum
    if (auto pair = onlinePairs.find(red); pair != onlinePairs.end()) {
      std::string m = fresh("acc"), sum = fresh("acc");
      line(rowScope, fmt::format("float {} = __uint_as_float(0xff800000u); "
                                 "float {} = 0.0f;",
                                 m, sum));
      declare(rowScope, m);
      declare(rowScope, sum);
      Scope *loop = openRowLoop(rowLength, innerShape, inner);
      cur = loop;
      SmallVector<std::string> idx(outerIdx);
      idx.append(inner);
      std::string x = val(input, idx);
      // x == m covers -inf == -inf, where exp(x - m) would be NaN.
      line(loop, fmt::format("if ({0} > {1}) {{\n  {2} = {2} * expf({1} - "
                             "{0});\n  {1} = {0};\n}}\n{2} = {2} + ({0} == "
                             "{1} ? 1.0f : expf({0} - {1}));",
                             x, m, sum));
      cur = rowScope;
      closeRowLoop(loop);
      // Merges (om, os) into (m, sum).
      // (Lines after the first are indented for the loop body it goes in.)
      auto merge = [&](const std::string &om, const std::string &os) {
        return fmt::format(
            "const float nm = fmaxf({0}, {2});\n  {1} = ({0} == nm ? "
            "{1} : {1} * expf({0} - nm)) + ({2} == nm ? {3} : {3} * "
            "expf({2} - nm));\n  {0} = nm;",
            m, sum, om, os);
      };
      line(rowScope,
           fmt::format("#pragma unroll\nfor (int s = 16; s > 0; s >>= 1) {{\n"
                       "  const float om = __shfl_xor_sync(0xffffffffu, {0}, "
                       "s);\n  const float os = __shfl_xor_sync(0xffffffffu, "
                       "{1}, s);\n  {2}\n}}",
                       m, sum, merge("om", "os")));
      if (!warpPerRow) {
        std::string sm = fresh("red"), ss = fresh("red");
        line(top, fmt::format("__shared__ float {}[{}];", sm, numWarps));
        line(top, fmt::format("__shared__ float {}[{}];", ss, numWarps));
        line(rowScope, fmt::format("if (lane == 0) {{\n  {}[warp] = {};\n  "
                                   "{}[warp] = {};\n}}",
                                   sm, m, ss, sum));
        line(rowScope, "__syncthreads();");
        line(rowScope, fmt::format("{} = {}[0];\n{} = {}[0];", m, sm, sum, ss));
        line(rowScope,
             fmt::format("for (int w = 1; w < {}; ++w) {{\n  const float om "
                         "= {}[w];\n  const float os = {}[w];\n  {}\n}}",
                         numWarps, sm, ss, merge("om", "os")));
      }
      rowVars[red] = m;
      rowVars[pair->second] = sum;
      continue;
    }
    if (auto reduce = dyn_cast<ReduceOp>(red)) {
      Elem e = elemOf(reduce.getResult());
      ReduceKind kind = reduce.getKind();
      std::string acc = fresh("acc");
      line(rowScope, fmt::format("{} {} = {};", computeType(e), acc,
                                 reduceInit(kind, e)));
      declare(rowScope, acc);
      Scope *loop = openRowLoop(rowLength, innerShape, inner);
      cur = loop;
      SmallVector<std::string> idx(outerIdx);
      idx.append(inner);
      std::string x = val(input, idx);
      line(loop, fmt::format("{} = {};", acc, combine(kind, e, acc, x)));
      cur = rowScope;
      closeRowLoop(loop);
      emitWarpCombine(rowScope, kind, e, acc);
      if (!warpPerRow) {
        std::string smem = fresh("red");
        line(top, fmt::format("__shared__ {} {}[{}];", computeType(e), smem,
                              numWarps));
        line(rowScope,
             fmt::format("if (lane == 0)\n  {}[warp] = {};", smem, acc));
        line(rowScope, "__syncthreads();");
        line(rowScope, fmt::format("{} = {}[0];", acc, smem));
        line(rowScope,
             fmt::format("for (int w = 1; w < {}; ++w)\n  {} = {};", numWarps,
                         acc, combine(kind, e, acc, smem + "[w]")));
      }
      if ((kind == ReduceKind::sum || kind == ReduceKind::prod) &&
          (e == Elem::F16 || e == Elem::BF16))
        line(rowScope, fmt::format("{} = {};", acc, roundTo(e, acc)));
      rowVars[red] = acc;
      continue;
    }
    auto argmax = cast<ArgMaxOp>(red);
    Elem in = elemOf(argmax.getInput()), e = elemOf(argmax.getResult());
    int64_t axis = argmax.getAxis();
    if (axis < (int64_t)numOuter) {
      fail(red, "is planned as a row reduction over a non-row axis");
      return;
    }
    // Shuffles have no bool overload: booleans travel as int.
    const char *valueType = in == Elem::I1 ? "int" : computeType(in);
    std::string best = fresh("bv"), bestIdx = fresh("bi");
    line(rowScope, fmt::format("{} {} = 0; {} {} = -1;", valueType, best,
                               computeType(e), bestIdx));
    declare(rowScope, best);
    declare(rowScope, bestIdx);
    Scope *loop = openRowLoop(rowLength, innerShape, inner);
    cur = loop;
    SmallVector<std::string> idx(outerIdx);
    idx.append(inner);
    std::string x = val(input, idx);
    // Each thread visits increasing positions: the first maximum wins.
    line(loop,
         fmt::format("if ({0} < 0 || {1} > {2}) {{ {2} = {1}; {0} = {3}; }}",
                     bestIdx, x, best, inner[axis - numOuter]));
    cur = rowScope;
    closeRowLoop(loop);
    std::string ov = fresh("ov"), oi = fresh("oi");
    std::string better = fmt::format(
        "if ({0} >= 0 && ({1} < 0 || {2} > {3} || ({2} == {3} && {0} < {1}))) "
        "{{ {3} = {2}; {1} = {0}; }}",
        oi, bestIdx, ov, best);
    line(rowScope,
         fmt::format("#pragma unroll\nfor (int s = 16; s > 0; s >>= 1) {{\n"
                     "  const {0} {1} = __shfl_xor_sync(0xffffffffu, {2}, s);\n"
                     "  const {3} {4} = __shfl_xor_sync(0xffffffffu, {5}, s);\n"
                     "  {6}\n}}",
                     valueType, ov, best, computeType(e), oi, bestIdx, better));
    if (!warpPerRow) {
      std::string sv = fresh("redv"), si = fresh("redi");
      line(top, fmt::format("__shared__ {} {}[{}];", valueType, sv, numWarps));
      line(top,
           fmt::format("__shared__ {} {}[{}];", computeType(e), si, numWarps));
      line(rowScope, fmt::format("if (lane == 0) {{\n  {0}[warp] = {1};\n  "
                                 "{2}[warp] = {3};\n}}",
                                 sv, best, si, bestIdx));
      line(rowScope, "__syncthreads();");
      line(rowScope,
           fmt::format(
               "for (int w = 0; w < {}; ++w) {{\n"
               "  const {} {} = {}[w];\n  const {} {} = {}[w];\n  {}\n}}",
               numWarps, valueType, ov, sv, computeType(e), oi, si, better));
    }
    line(rowScope, fmt::format("if ({0} < 0)\n  {0} = 0;", bestIdx));
    rowVars[red] = bestIdx;
  }

  // Outputs: per row, an output holds numel / rows consecutive elements.
  SmallVector<int64_t> perRow;
  for (Value v : yield.getValues()) {
    int64_t n = ShapedType::getNumElements(shapeOf(v));
    if (rows == 0 || n % rows != 0) {
      fail(kernel, "has an output whose size is not a multiple of the number "
                   "of rows of its row template");
      return;
    }
    perRow.push_back(n / rows);
  }
  SmallVector<int64_t> groups;
  for (int64_t p : perRow)
    if (!llvm::is_contained(groups, p))
      groups.push_back(p);
  for (int64_t p : groups) {
    Scope *loop;
    std::string j;
    SmallVector<std::string> inner;
    if (p == 1) {
      loop = openScope(rowScope, fmt::format("if ({} == 0) {{", laneVar),
                       /*barrier=*/true);
      j = "0";
    } else if (p == rowLength) {
      loop = openRowLoop(p, innerShape, inner, &j);
    } else {
      j = fresh("j");
      loop =
          openScope(rowScope,
                    fmt::format("for ({0} {1} = {2}; {1} < {3}; {1} += {4}) {{",
                                idxType, j, laneVar, p, stride),
                    /*barrier=*/false);
      declare(loop, j, p);
    }
    cur = loop;
    for (auto [k, v] : llvm::enumerate(yield.getValues())) {
      if (perRow[k] != p)
        continue;
      ArrayRef<int64_t> shape = shapeOf(v);
      SmallVector<std::string> idx;
      bool reducedShape = shape.size() == space.size() &&
                          shape.take_front(numOuter) == outerShape &&
                          llvm::all_of(shape.drop_front(numOuter),
                                       [](int64_t d) { return d == 1; });
      if (shape == space) {
        idx = outerIdx;
        if (inner.empty()) // rows of one element: written by lane 0
          idx.append(plan.numInnerDims, "0");
        else
          idx.append(inner);
      } else if (p == 1 && reducedShape) {
        idx = outerIdx;
        idx.append(plan.numInnerDims, "0");
      } else {
        std::string lin = p == 1 ? std::string("row")
                                 : ixTemp(fmt::format("row * {} + {}", p, j),
                                          {"row", j}, rows * p);
        idx = ixDelinearize(lin, shape);
      }
      std::string x = val(v, idx);
      std::string pos =
          p == 1 ? std::string("row") : fmt::format("row * {} + {}", p, j);
      line(loop,
           fmt::format("out{}[{}] = {};", k, pos, storeExpr(elemOf(v), x)));
    }
    cur = rowScope;
    if (p == rowLength)
      closeRowLoop(loop);
    else
      closeScope(loop);
  }
  cur = top;
  closeScope(rowScope);
}

//===--- Whole kernel ----------------------------------------------------===//

/// Drops `const T name = expr;` lines whose variable is never used (index
/// variables the templates declare up front, values made redundant by a
/// peephole); the expressions have no side effects.
std::string removeDeadDeclarations(const std::string &text) {
  SmallVector<std::string> lines;
  for (StringRef l : llvm::split(text, '\n'))
    lines.push_back(l.str());
  auto declaredName = [](StringRef line) -> StringRef {
    StringRef t = line.ltrim();
    if (!t.consume_front("const ") || !t.ends_with(";"))
      return StringRef();
    size_t eq = t.find(" = ");
    if (eq == StringRef::npos)
      return StringRef();
    StringRef lhs = t.take_front(eq).rtrim();
    size_t space = lhs.rfind(' ');
    return space == StringRef::npos ? StringRef() : lhs.drop_front(space + 1);
  };
  std::vector<bool> dead(lines.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    llvm::StringMap<unsigned> uses;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (dead[i])
        continue;
      StringRef l = lines[i];
      for (size_t p = 0; p < l.size();) {
        if (std::isalpha((unsigned char)l[p]) || l[p] == '_') {
          size_t q = p;
          while (q < l.size() &&
                 (std::isalnum((unsigned char)l[q]) || l[q] == '_'))
            ++q;
          ++uses[l.slice(p, q)];
          p = q;
        } else if (std::isdigit((unsigned char)l[p])) {
          while (p < l.size() &&
                 (std::isalnum((unsigned char)l[p]) || l[p] == '.'))
            ++p;
        } else {
          ++p;
        }
      }
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      if (dead[i])
        continue;
      StringRef name = declaredName(lines[i]);
      if (!name.empty() && uses.lookup(name) == 1) {
        dead[i] = true;
        changed = true;
      }
    }
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (dead[i])
      continue;
    out += lines[i];
    if (i + 1 < lines.size())
      out += '\n';
  }
  return out;
}

std::string joinOpNames(Block &block) {
  SmallVector<std::string> names;
  for (Operation &op : block) {
    if (isa<YieldOp, ConstantOp>(op))
      continue;
    std::string n = op.getName().stripDialect().str();
    if (!llvm::is_contained(names, n))
      names.push_back(n);
  }
  if (names.empty())
    return "copy";
  if (names.size() > 8) {
    names.resize(8);
    names.push_back("...");
  }
  return llvm::join(names, "+");
}

LogicalResult KernelEmitter::emit(std::string &source, EmittedKernel &out) {
  name = fmt::format("k{}", number);
  if (failed(checkTypes()))
    return failure();
  Block &body = kernel.getBodyBlock();
  auto yield = cast<YieldOp>(body.getTerminator());

  // 32-bit index arithmetic unless some tensor is too large for it.
  int64_t largest = ShapedType::getNumElements(plan.space);
  auto consider = [&](Value v) {
    largest = std::max(largest, ShapedType::getNumElements(shapeOf(v)));
  };
  for (Value v : body.getArguments())
    consider(v);
  for (Operation &op : body)
    for (Value v : op.getResults())
      consider(v);
  if (largest >= (int64_t(1) << 31) - 4096)
    idxType = "long long";

  root = std::make_unique<Scope>();
  root->barrier = true;
  cur = root.get();

  int64_t outputElements = 0;
  for (Value v : yield.getValues())
    outputElements += ShapedType::getNumElements(shapeOf(v));
  bool empty = outputElements == 0;
  std::string kind;
  if (empty) {
    kind = "empty";
    out.info.usesBarriers = false;
  } else if (plan.kind == KernelTemplate::Pointwise) {
    emitPointwise(out);
    kind = fmt::format("pointwise, {} elements, {} per thread",
                       ShapedType::getNumElements(plan.space), vec);
    out.info.usesBarriers = false;
  } else {
    emitRow(out);
    kind = fmt::format("row, {} rows of {}", plan.numRows(), plan.rowLength());
    out.info.usesBarriers = true;
  }
  if (hadError)
    return failure();

  std::string ops = joinOpNames(body);
  out.op = kernel;
  out.info.name = name;
  out.label = fmt::format("{}: {}", name, ops);

  // Parameters: inputs, then outputs.
  SmallVector<std::string> params, casts;
  unsigned argIndex = 0;
  for (auto [i, arg] : llvm::enumerate(body.getArguments())) {
    const char *t = storageType(elemOf(arg));
    params.push_back(fmt::format("const {}* __restrict__ in{}", t, i));
    casts.push_back(fmt::format("(const {}*)args[{}]", t, argIndex++));
  }
  for (auto [i, v] : llvm::enumerate(yield.getValues())) {
    const char *t = storageType(elemOf(v));
    params.push_back(fmt::format("{}* __restrict__ out{}", t, i));
    casts.push_back(fmt::format("({}*)args[{}]", t, argIndex++));
  }

  std::string bodyText;
  render(*root, 1, bodyText);
  bodyText = removeDeadDeclarations(bodyText);
  source += fmt::format("\n// {}: {} ({}; {} bytes moved)\n", name, ops, kind,
                        plan.bytesRead + plan.bytesWritten);
  source += globals;
  source += fmt::format("extern \"C\" __global__ void {}({}) {{\n{}}}\n", name,
                        llvm::join(params, ", "), bodyText);
  source +=
      fmt::format("#ifdef DLC_SIM\nextern \"C\" void "
                  "dlc_sim_entry_{0}(void* const* args) {{\n  {0}({1});\n}}"
                  "\n#endif\n",
                  name, llvm::join(casts, ", "));
  return success();
}

} // namespace

LogicalResult mlir::dlc::emitCudaKernels(func::FuncOp func, std::string &source,
                                         std::vector<EmittedKernel> &kernels) {
  source = kPrelude;
  unsigned number = 0;
  if (func.getBody().empty())
    return func.emitOpError(
        "cannot generate code for a function without a body");
  for (Operation &op : func.getBody().front()) {
    auto kernel = dyn_cast<KernelOp>(op);
    if (!kernel)
      continue;
    std::string whyNot;
    FailureOr<KernelPlan> plan = analyzeKernel(kernel, &whyNot);
    if (failed(plan))
      return kernel.emitOpError()
             << "has no kernel template that covers it: " << whyNot;
    EmittedKernel emitted;
    KernelEmitter emitter(kernel, *plan, number++);
    if (failed(emitter.emit(source, emitted)))
      return failure();
    kernels.push_back(std::move(emitted));
  }
  return success();
}

rt::KernelInfo mlir::dlc::emitGemmEpilogueKernel(const std::string &name,
                                                 const rt::GemmStep &g,
                                                 std::string &source) {
  const char *type = g.dtype == rt::DType::F32 ? "float" : "unsigned short";
  const char *load = g.dtype == rt::DType::F16    ? "dlc_h2f"
                     : g.dtype == rt::DType::BF16 ? "dlc_bf2f"
                                                  : "";
  const char *store = g.dtype == rt::DType::F16    ? "dlc_f2h"
                      : g.dtype == rt::DType::BF16 ? "dlc_f2bf"
                                                   : "";
  std::string body;
  if (g.bias)
    body += fmt::format("    x += {}(bias[i % {}LL]);\n", load, g.n);
  switch (g.epilogue) {
  case rt::GemmEpilogue::Relu:
    body += "    x = fmaxf(x, 0.0f);\n";
    break;
  case rt::GemmEpilogue::GeluTanh:
    // As cuBLASLt's GELU epilogue (and rt::gemmActivation).
    body += "    x = 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f "
            "* x * x * x)));\n";
    break;
  case rt::GemmEpilogue::None:
    break;
  }
  const int64_t total = g.batch * g.m * g.n;
  source += fmt::format(
      "\n// {0}: the epilogue of a {1}x{2}x{3} GEMM (batch {4}) without "
      "cuBLASLt\n"
      "extern \"C\" __global__ void __launch_bounds__(256) {0}({5}* "
      "__restrict__ c, const {5}* __restrict__ bias) {{\n"
      "  for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < "
      "{6}LL; i += (long long)gridDim.x * 256) {{\n"
      "    float x = {7}(c[i]);\n{8}"
      "    c[i] = {9}(x);\n"
      "  }}\n}}\n"
      "#ifdef DLC_SIM\nextern \"C\" void dlc_sim_entry_{0}(void* const* "
      "args) {{\n  {0}(({5}*)args[0], (const {5}*)args[1]);\n}}\n#endif\n",
      name, g.m, g.n, g.k, g.batch, type, total, load, body, store);
  rt::KernelInfo info;
  info.name = name;
  info.usesBarriers = false;
  return info;
}

LogicalResult
mlir::dlc::generateCudaSource(func::FuncOp func, std::string &source,
                              std::vector<rt::KernelInfo> *infos) {
  std::vector<EmittedKernel> kernels;
  if (failed(emitCudaKernels(func, source, kernels)))
    return failure();
  std::vector<EmittedAttention> attentions;
  if (failed(emitAttentionKernels(func, source, attentions)))
    return failure();
  if (infos) {
    for (EmittedKernel &k : kernels)
      infos->push_back(k.info);
    for (EmittedAttention &a : attentions)
      infos->push_back(a.info);
  }
  return success();
}
