//===- SimSourceCheck.cpp - The text the sim device compiles --------------===//
//
// The sim device compiles Package::cudaSource with the host C++ compiler and
// dlopen()s the result, so whoever writes a package would otherwise run code
// in every process that loads it (a constructor, a static initializer), read
// files at compile time (#include "/etc/passwd" shows up in the compiler's
// errors) or call the C library (a hand-declared `extern "C" int
// system(const char *)`). This file is the one home of the rules a source
// must follow to be compiled at all; they accept what dlc's code generator
// writes (codegen/Prelude.cuh, codegen/KernelEntry.cpp, the emitters) and
// nothing else. The shim (runtime/sim/SimShim.h) is ours and is not checked.
//
// Characters and lexing (over the whole text, active or not):
//  - only printable ASCII, tabs and newlines (`//` comments may also hold
//    bytes above 127, not control characters); no block comments, no trigraphs
//    (`??=`), no digraphs (`%:`, `<:`, ...), no line continuation (a
//    backslash at the end of a line, even inside a comment), no raw string
//    literals;
//  - C++ tokens: identifiers, numbers (`0x7f800000u`, `1.5e-8f`, `0LL`),
//    string and character literals, punctuators by maximal munch. Every
//    token keeps its line and column for the messages.
//
// Preprocessor: a line whose first token is `#` is a directive, and the only
// directives are the ones the code generator writes:
//    #ifdef M / #ifndef M / #if EXPR / #else / #endif
//    #define DLC_ATTN_MMA 1 / #define DLC_ATTN_SIM_MMA 1
//    #pragma unroll [N]
// where M is DLC_SIM (always defined), DLC_ATTN_MMA or DLC_ATTN_SIM_MMA, and
// EXPR combines `defined(M)`, M, __CUDA_ARCH__ (never defined here),
// decimal numbers, `! && || ( )` and comparisons. They are resolved here
// with DLC_SIM defined; directive lines, the lines they exclude and all
// comments become spaces, so the compiler gets no directive at all and
// every token at its original line and column.
//
// Tokens of the active text:
//  - a keyword must be one of the allowed ones (kAllowedKeywords below);
//    `asm`, `volatile`, `goto`, `namespace`, `using`, `operator`, `new`,
//    `delete`, `throw`, `try`, `typeid`, `thread_local`, `decltype`,
//    `auto`, `class`, `union`, `enum`, `friend`, `virtual`, ... are not;
//    `extern`, `struct` and `template` only in the forms below;
//  - an identifier that begins with `_` must be a name of the shim
//    (kShimNames, e.g. `__syncthreads`, `__restrict__`) or the one compiler
//    built-in the code generator uses (`__builtin_memcpy`): no
//    `__attribute__`, `__asm__`, `_Pragma`, `__has_include`, `__FILE__`;
//  - identifiers that begin with `dlc_sim` or `DLC_SIM` are the shim's
//    internals, except a trampoline's name;
//  - no string literal but the "C" of `extern "C"`, no character literal,
//    no `#` or `##`, no `[[` (attributes), no `...`, `.*` or `->*`;
//  - numbers are C++ integer or floating literals with the usual suffixes.
//
// Structure: at namespace scope only
//  - a kernel: `extern "C" __global__ void [__launch_bounds__(N[, M])]
//    NAME(T *__restrict__ p, ...) { ... }`, a definition whose parameters
//    are all pointers (T: `const`, arithmetic keywords);
//  - its trampoline, after it: `extern "C" void dlc_sim_entry_NAME(void
//    *const *args) { NAME((T *)args[0], ..., (T *)args[n - 1]); }`, the
//    casts naming the kernel's parameter types, one per parameter;
//  - a constant table: `static __device__ const T NAME[N] = { ... };` of
//    numbers, `true`, `false`, `-`, parentheses and `__uint_as_float(...)`;
//  - a struct (or struct template, or its explicit specialization), either
//    declared (`struct S;`) or defined with typedefs and member functions
//    with their bodies only (no data members, so no constructors run);
//  - a function (or function template) with its body.
// So nothing runs when the object is loaded: there are no variables of
// class type, no initializer calls anything but __uint_as_float, and no
// attributes make a constructor.
//
// Inside functions (parameters and bodies):
//  - `NAME(` is a call (or a functional cast) only of a function that the
//    source defines (not a kernel: kernels are called by their trampoline
//    only), of a function the shim provides, or of a type; a type name or
//    `*`/`&` after one before `NAME(` would declare a function, which is an
//    error: every function the source declares it also defines, so nothing
//    it calls is resolved outside the object (the C library's `system`, or
//    any symbol of the process);
//  - a type followed by `(` may not hold a type (`int(const char *)` is a
//    function type); `(...)(` is allowed only after a cast to an arithmetic
//    type (`(float)(x)`); `](` and `}(` are calls through expressions, which
//    are errors; `TEMPLATE<...>(` calls a function template the source
//    defines, constructs a type or is a cast; `[` must follow a name, `]`
//    or `)` (no lambdas); `({` (statement expressions) is an error;
//    `alignas` only as `alignas(N)` at the start of a declaration;
//  - typedefs name types only (no function types, no arrays); no
//    `extern`, `struct`, `template`, `__global__` or `__launch_bounds__`.
//
// The kernels found (name, parameter count, whether the trampoline exists)
// are returned with the text; SimDevice checks the package's kernels and
// steps against them. What the rules leave is what a GPU kernel can do as
// well: a kernel body is host code that can read and write outside its
// buffers (docs/security.md).
//
// Everything is one pass over the characters and a few over the tokens, with
// hash-set lookups: a 50 KB source takes a fraction of a millisecond.
//
//===----------------------------------------------------------------------===//

#include "runtime/SimSourceCheck.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace dlc::rt {
namespace {

//===----------------------------------------------------------------------===//
// Names
//===----------------------------------------------------------------------===//

enum class ShimKind : uint8_t {
  Type,      ///< float4, __half, ...
  Value,     ///< threadIdx, INFINITY, ...
  Function,  ///< expf, __shfl_xor_sync, ...
  Specifier, ///< __device__, __restrict__, ...
  Kernel,    ///< __global__, __launch_bounds__: the kernel form only
};

struct ShimEntry {
  const char *name;
  ShimKind kind;
  bool builtin; ///< the compiler's, not the shim's
};

/// What the source may use of runtime/sim/SimShim.h (and of the compiler).
const ShimEntry kShimNames[] = {
    // Execution space and other specifiers.
    {"__device__", ShimKind::Specifier, false},
    {"__host__", ShimKind::Specifier, false},
    {"__forceinline__", ShimKind::Specifier, false},
    {"__noinline__", ShimKind::Specifier, false},
    {"__shared__", ShimKind::Specifier, false},
    {"__constant__", ShimKind::Specifier, false},
    {"__restrict__", ShimKind::Specifier, true},
    {"__global__", ShimKind::Kernel, false},
    {"__launch_bounds__", ShimKind::Kernel, false},
    // Types.
    {"uint3", ShimKind::Type, false},
    {"dim3", ShimKind::Type, false},
    {"float2", ShimKind::Type, false},
    {"float3", ShimKind::Type, false},
    {"float4", ShimKind::Type, false},
    {"int2", ShimKind::Type, false},
    {"int4", ShimKind::Type, false},
    {"uint2", ShimKind::Type, false},
    {"uint4", ShimKind::Type, false},
    {"ushort2", ShimKind::Type, false},
    {"ushort4", ShimKind::Type, false},
    {"uchar4", ShimKind::Type, false},
    {"__half", ShimKind::Type, false},
    {"__nv_bfloat16", ShimKind::Type, false},
    {"half", ShimKind::Type, false},
    {"nv_bfloat16", ShimKind::Type, false},
    // Values.
    {"threadIdx", ShimKind::Value, false},
    {"blockIdx", ShimKind::Value, false},
    {"blockDim", ShimKind::Value, false},
    {"gridDim", ShimKind::Value, false},
    {"warpSize", ShimKind::Value, false},
    {"INFINITY", ShimKind::Value, false},
    {"NAN", ShimKind::Value, false},
    {"HUGE_VALF", ShimKind::Value, false},
    {"HUGE_VAL", ShimKind::Value, false},
    // Barriers, shuffles, votes, fences.
    {"__syncthreads", ShimKind::Function, false},
    {"__syncwarp", ShimKind::Function, false},
    {"__shfl_sync", ShimKind::Function, false},
    {"__shfl_up_sync", ShimKind::Function, false},
    {"__shfl_down_sync", ShimKind::Function, false},
    {"__shfl_xor_sync", ShimKind::Function, false},
    {"__ballot_sync", ShimKind::Function, false},
    {"__any_sync", ShimKind::Function, false},
    {"__all_sync", ShimKind::Function, false},
    {"__threadfence", ShimKind::Function, false},
    {"__threadfence_block", ShimKind::Function, false},
    // Atomics.
    {"atomicAdd", ShimKind::Function, false},
    {"atomicSub", ShimKind::Function, false},
    {"atomicAnd", ShimKind::Function, false},
    {"atomicOr", ShimKind::Function, false},
    {"atomicXor", ShimKind::Function, false},
    {"atomicExch", ShimKind::Function, false},
    {"atomicCAS", ShimKind::Function, false},
    {"atomicMax", ShimKind::Function, false},
    {"atomicMin", ShimKind::Function, false},
    // Vector constructors.
    {"make_float2", ShimKind::Function, false},
    {"make_float3", ShimKind::Function, false},
    {"make_float4", ShimKind::Function, false},
    {"make_int2", ShimKind::Function, false},
    {"make_int4", ShimKind::Function, false},
    {"make_uint2", ShimKind::Function, false},
    {"make_uint3", ShimKind::Function, false},
    {"make_uint4", ShimKind::Function, false},
    {"make_ushort2", ShimKind::Function, false},
    {"make_ushort4", ShimKind::Function, false},
    {"make_uchar4", ShimKind::Function, false},
    // The C library's math (declared by the shim) and CUDA's overloads.
    {"expf", ShimKind::Function, false},
    {"exp", ShimKind::Function, false},
    {"exp2f", ShimKind::Function, false},
    {"exp2", ShimKind::Function, false},
    {"expm1f", ShimKind::Function, false},
    {"expm1", ShimKind::Function, false},
    {"logf", ShimKind::Function, false},
    {"log", ShimKind::Function, false},
    {"log2f", ShimKind::Function, false},
    {"log2", ShimKind::Function, false},
    {"log10f", ShimKind::Function, false},
    {"log10", ShimKind::Function, false},
    {"log1pf", ShimKind::Function, false},
    {"log1p", ShimKind::Function, false},
    {"sqrtf", ShimKind::Function, false},
    {"sqrt", ShimKind::Function, false},
    {"cbrtf", ShimKind::Function, false},
    {"cbrt", ShimKind::Function, false},
    {"sinf", ShimKind::Function, false},
    {"sin", ShimKind::Function, false},
    {"cosf", ShimKind::Function, false},
    {"cos", ShimKind::Function, false},
    {"tanf", ShimKind::Function, false},
    {"tan", ShimKind::Function, false},
    {"asinf", ShimKind::Function, false},
    {"asin", ShimKind::Function, false},
    {"acosf", ShimKind::Function, false},
    {"acos", ShimKind::Function, false},
    {"atanf", ShimKind::Function, false},
    {"atan", ShimKind::Function, false},
    {"sinhf", ShimKind::Function, false},
    {"sinh", ShimKind::Function, false},
    {"coshf", ShimKind::Function, false},
    {"cosh", ShimKind::Function, false},
    {"tanhf", ShimKind::Function, false},
    {"tanh", ShimKind::Function, false},
    {"asinhf", ShimKind::Function, false},
    {"asinh", ShimKind::Function, false},
    {"acoshf", ShimKind::Function, false},
    {"acosh", ShimKind::Function, false},
    {"atanhf", ShimKind::Function, false},
    {"atanh", ShimKind::Function, false},
    {"fabsf", ShimKind::Function, false},
    {"fabs", ShimKind::Function, false},
    {"floorf", ShimKind::Function, false},
    {"floor", ShimKind::Function, false},
    {"ceilf", ShimKind::Function, false},
    {"ceil", ShimKind::Function, false},
    {"truncf", ShimKind::Function, false},
    {"trunc", ShimKind::Function, false},
    {"roundf", ShimKind::Function, false},
    {"round", ShimKind::Function, false},
    {"rintf", ShimKind::Function, false},
    {"rint", ShimKind::Function, false},
    {"nearbyintf", ShimKind::Function, false},
    {"nearbyint", ShimKind::Function, false},
    {"erff", ShimKind::Function, false},
    {"erf", ShimKind::Function, false},
    {"erfcf", ShimKind::Function, false},
    {"erfc", ShimKind::Function, false},
    {"lgammaf", ShimKind::Function, false},
    {"lgamma", ShimKind::Function, false},
    {"tgammaf", ShimKind::Function, false},
    {"tgamma", ShimKind::Function, false},
    {"logbf", ShimKind::Function, false},
    {"logb", ShimKind::Function, false},
    {"powf", ShimKind::Function, false},
    {"pow", ShimKind::Function, false},
    {"atan2f", ShimKind::Function, false},
    {"atan2", ShimKind::Function, false},
    {"fminf", ShimKind::Function, false},
    {"fmin", ShimKind::Function, false},
    {"fmaxf", ShimKind::Function, false},
    {"fmax", ShimKind::Function, false},
    {"fmodf", ShimKind::Function, false},
    {"fmod", ShimKind::Function, false},
    {"remainderf", ShimKind::Function, false},
    {"remainder", ShimKind::Function, false},
    {"hypotf", ShimKind::Function, false},
    {"hypot", ShimKind::Function, false},
    {"copysignf", ShimKind::Function, false},
    {"copysign", ShimKind::Function, false},
    {"fdimf", ShimKind::Function, false},
    {"fdim", ShimKind::Function, false},
    {"nextafterf", ShimKind::Function, false},
    {"nextafter", ShimKind::Function, false},
    {"fmaf", ShimKind::Function, false},
    {"fma", ShimKind::Function, false},
    {"ldexpf", ShimKind::Function, false},
    {"ldexp", ShimKind::Function, false},
    {"frexpf", ShimKind::Function, false},
    {"frexp", ShimKind::Function, false},
    {"modff", ShimKind::Function, false},
    {"modf", ShimKind::Function, false},
    {"scalbnf", ShimKind::Function, false},
    {"scalbn", ShimKind::Function, false},
    {"ilogbf", ShimKind::Function, false},
    {"ilogb", ShimKind::Function, false},
    {"lrintf", ShimKind::Function, false},
    {"llrintf", ShimKind::Function, false},
    {"lroundf", ShimKind::Function, false},
    {"llroundf", ShimKind::Function, false},
    {"lrint", ShimKind::Function, false},
    {"llrint", ShimKind::Function, false},
    {"lround", ShimKind::Function, false},
    {"llround", ShimKind::Function, false},
    {"isnan", ShimKind::Function, false},
    {"isinf", ShimKind::Function, false},
    {"isfinite", ShimKind::Function, false},
    {"signbit", ShimKind::Function, false},
    // CUDA's math extras and intrinsics.
    {"rsqrtf", ShimKind::Function, false},
    {"rsqrt", ShimKind::Function, false},
    {"__expf", ShimKind::Function, false},
    {"__logf", ShimKind::Function, false},
    {"__log2f", ShimKind::Function, false},
    {"__sinf", ShimKind::Function, false},
    {"__cosf", ShimKind::Function, false},
    {"__powf", ShimKind::Function, false},
    {"__fdividef", ShimKind::Function, false},
    {"fdividef", ShimKind::Function, false},
    {"__frcp_rn", ShimKind::Function, false},
    {"__drcp_rn", ShimKind::Function, false},
    {"__fsqrt_rn", ShimKind::Function, false},
    {"__saturatef", ShimKind::Function, false},
    {"__int2float_rn", ShimKind::Function, false},
    {"__float2int_rn", ShimKind::Function, false},
    {"__float2int_rz", ShimKind::Function, false},
    {"__float2int_rd", ShimKind::Function, false},
    {"__float2int_ru", ShimKind::Function, false},
    {"__float2ll_rn", ShimKind::Function, false},
    {"__float2ll_rz", ShimKind::Function, false},
    {"min", ShimKind::Function, false},
    {"max", ShimKind::Function, false},
    // Bits.
    {"__float_as_int", ShimKind::Function, false},
    {"__int_as_float", ShimKind::Function, false},
    {"__float_as_uint", ShimKind::Function, false},
    {"__uint_as_float", ShimKind::Function, false},
    {"__double_as_longlong", ShimKind::Function, false},
    {"__longlong_as_double", ShimKind::Function, false},
    {"__popc", ShimKind::Function, false},
    {"__popcll", ShimKind::Function, false},
    {"__clz", ShimKind::Function, false},
    {"__clzll", ShimKind::Function, false},
    {"__ffs", ShimKind::Function, false},
    {"__ffsll", ShimKind::Function, false},
    {"__brev", ShimKind::Function, false},
    {"__umulhi", ShimKind::Function, false},
    {"__mulhi", ShimKind::Function, false},
    {"__ldg", ShimKind::Function, false},
    // Half and bfloat16.
    {"__float2half", ShimKind::Function, false},
    {"__float2half_rn", ShimKind::Function, false},
    {"__half2float", ShimKind::Function, false},
    {"__float2bfloat16", ShimKind::Function, false},
    {"__float2bfloat16_rn", ShimKind::Function, false},
    {"__bfloat162float", ShimKind::Function, false},
    {"__half_as_ushort", ShimKind::Function, false},
    {"__ushort_as_half", ShimKind::Function, false},
    {"__bfloat16_as_ushort", ShimKind::Function, false},
    {"__ushort_as_bfloat16", ShimKind::Function, false},
    // The compiler's: the prelude's vector copies under DLC_SIM.
    {"__builtin_memcpy", ShimKind::Function, true},
};

/// The keywords the source may use anywhere: what the code generator writes
/// and harmless relatives (double, signed, sizeof, do, break, continue,
/// static_cast).
// clang-format off
const char *const kAllowedKeywords[] = {
    "bool", "char", "const", "constexpr", "double", "else", "false", "float",
    "for", "if", "inline", "int", "long", "return", "short", "signed",
    "sizeof", "static", "true", "typedef", "typename", "unsigned", "void",
    "while", "do", "break", "continue", "alignas", "reinterpret_cast",
    "static_cast"};
// clang-format on
/// Keywords allowed only in the forms of the structure rules.
const char *const kStructuralKeywords[] = {"extern", "struct", "template"};
/// Every other keyword of C++ (through C++20, with the alternative tokens
/// and GNU's `typeof`).
const char *const kForbiddenKeywords[] = {
    "alignof",       "and",       "and_eq",     "asm",          "auto",
    "bitand",        "bitor",     "case",       "catch",        "char8_t",
    "char16_t",      "char32_t",  "class",      "compl",        "concept",
    "consteval",     "constinit", "const_cast", "co_await",     "co_return",
    "co_yield",      "decltype",  "default",    "delete",       "dynamic_cast",
    "enum",          "explicit",  "export",     "friend",       "goto",
    "mutable",       "namespace", "new",        "noexcept",     "not",
    "not_eq",        "nullptr",   "operator",   "or",           "or_eq",
    "private",       "protected", "public",     "register",     "requires",
    "static_assert", "switch",    "this",       "thread_local", "throw",
    "try",           "typeid",    "union",      "using",        "virtual",
    "volatile",      "wchar_t",   "xor",        "xor_eq",       "typeof"};

enum class Kw : uint8_t { Allowed, Structural, Forbidden };

const std::unordered_map<std::string_view, Kw> &keywords() {
  static const std::unordered_map<std::string_view, Kw> table = [] {
    std::unordered_map<std::string_view, Kw> t;
    for (const char *k : kAllowedKeywords)
      t[k] = Kw::Allowed;
    for (const char *k : kStructuralKeywords)
      t[k] = Kw::Structural;
    for (const char *k : kForbiddenKeywords)
      t[k] = Kw::Forbidden;
    return t;
  }();
  return table;
}

const std::unordered_map<std::string_view, ShimKind> &shimKinds() {
  static const std::unordered_map<std::string_view, ShimKind> table = [] {
    std::unordered_map<std::string_view, ShimKind> t;
    for (const ShimEntry &e : kShimNames)
      t.emplace(e.name, e.kind);
    return t;
  }();
  return table;
}

bool isArithmeticKeyword(std::string_view s) {
  return s == "bool" || s == "char" || s == "short" || s == "int" ||
         s == "long" || s == "float" || s == "double" || s == "signed" ||
         s == "unsigned" || s == "void";
}

/// What the lexer notes of an identifier (one lookup per identifier).
struct NameInfo {
  uint8_t keyword = 0; ///< kNotKeyword, ...
  bool arithmetic = false;
  uint8_t shim = 0; ///< 1 + ShimKind
};

const std::unordered_map<std::string_view, NameInfo> &knownNames();

/// Specifiers that may begin a function's declaration.
bool isDeclSpecifier(std::string_view s) {
  return s == "static" || s == "inline" || s == "constexpr" ||
         s == "__device__" || s == "__host__" || s == "__forceinline__" ||
         s == "__noinline__" || s == "__shared__" || s == "__constant__";
}

/// The macros that directives may test.
constexpr std::string_view kSimMacro = "DLC_SIM";
constexpr std::string_view kMmaMacros[] = {"DLC_ATTN_MMA", "DLC_ATTN_SIM_MMA"};

bool startsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

//===----------------------------------------------------------------------===//
// Tokens
//===----------------------------------------------------------------------===//

enum class Tk : uint8_t { Ident, Number, String, Char, Punct };

/// What an identifier is, found once per active token.
enum : uint8_t {
  kNotKeyword = 0,
  kAllowedKeyword = 1,
  kStructuralKeyword = 2,
  kForbiddenKeyword = 3,
};

struct Token {
  Tk kind;
  uint8_t keyword = kNotKeyword; ///< for identifiers
  bool arithmetic = false;       ///< an arithmetic type keyword (or void)
  uint8_t shim = 0;              ///< 1 + ShimKind for the shim's names
  uint32_t begin, end;
  uint32_t line, col;
};

const std::unordered_map<std::string_view, NameInfo> &knownNames() {
  static const std::unordered_map<std::string_view, NameInfo> table = [] {
    std::unordered_map<std::string_view, NameInfo> t;
    for (const auto &[word, kw] : keywords()) {
      NameInfo &info = t[word];
      info.keyword = kw == Kw::Allowed      ? kAllowedKeyword
                     : kw == Kw::Structural ? kStructuralKeyword
                                            : kForbiddenKeyword;
      info.arithmetic = isArithmeticKeyword(word);
    }
    for (const ShimEntry &e : kShimNames)
      t[e.name].shim = 1 + uint8_t(e.kind);
    return t;
  }();
  return table;
}

/// A rule broken: where, the text shown, and why.
struct Reject {
  uint32_t line, col;
  std::string text, why;
};

constexpr uint32_t kNone = ~0u;
/// How deeply #if expressions and template arguments may nest (dlc's nest
/// 3 levels at most); deeper input would only exhaust the stack.
constexpr int kMaxDepth = 64;
/// The largest source checked: token offsets are 32-bit (dlc writes a few
/// megabytes for the largest models).
constexpr size_t kMaxSourceBytes = size_t(256) << 20;

class Checker {
public:
  explicit Checker(std::string_view src) : src_(src) {}

  /// Throws Reject.
  void run();

  std::string text;
  std::vector<SimKernelSignature> kernels;

private:
  //--- Lexing and the preprocessor.
  void prescan();
  [[noreturn]] void failAt(size_t offset, std::string shown, std::string why);
  Token lexToken(size_t &i, uint32_t line, size_t lineStart);
  void directive(const std::vector<Token> &d);
  long long evalOr(const std::vector<Token> &d, size_t &i);
  long long evalAnd(const std::vector<Token> &d, size_t &i);
  long long evalCompare(const std::vector<Token> &d, size_t &i);
  long long evalUnary(const std::vector<Token> &d, size_t &i);
  long long macroValue(const Token &t) const;
  bool active() const { return frames_.empty() || frames_.back().active; }

  //--- Token rules and structure.
  std::string_view tx(size_t i) const {
    const Token &t = toks_[i];
    return src_.substr(t.begin, t.end - t.begin);
  }
  std::string_view txAt(const Token &t) const {
    return src_.substr(t.begin, t.end - t.begin);
  }
  bool is(size_t i, std::string_view s) const {
    if (i >= toks_.size())
      return false;
    const Token &t = toks_[i];
    if (t.end - t.begin != s.size() || t.kind == Tk::String ||
        t.kind == Tk::Char)
      return false;
    for (size_t k = 0; k < s.size(); ++k)
      if (src_[t.begin + k] != s[k])
        return false;
    return true;
  }
  /// The shim's kind of name `i`, if it is one.
  bool isShim(size_t i, ShimKind kind) const {
    return toks_[i].shim == 1 + uint8_t(kind);
  }
  bool isIdent(size_t i) const {
    return i < toks_.size() && toks_[i].kind == Tk::Ident;
  }
  /// An identifier that is not a keyword.
  bool isName(size_t i) const;
  bool isType(size_t i) const;
  [[noreturn]] void fail(size_t i, std::string why) const;
  [[noreturn]] void failEnd(std::string why) const;

  void checkTokens();
  void collectNames();
  size_t matching(size_t open) const;
  size_t templateClose(size_t open);
  bool isTemplateName(size_t i) const;

  size_t topLevelItem(size_t i);
  size_t templateHeader(size_t i);
  size_t structItem(size_t i, bool templated);
  size_t tableItem(size_t i);
  size_t externItem(size_t i);
  size_t kernelItem(size_t i);
  size_t trampolineItem(size_t i);
  size_t function(size_t i, bool templated);
  size_t typedefDecl(size_t i);
  void inside(size_t begin, size_t end, bool params);
  void callOrCast(size_t paren);
  void notAFunctionType(size_t paren);
  void notADeclaration(size_t name);
  bool declaresType(size_t i) const;

  std::string_view src_;
  std::vector<Token> toks_; ///< the active tokens, directives excluded

  struct Frame {
    bool parentActive, cond, seenElse, active;
    uint32_t line, col;
  };
  std::vector<Frame> frames_;
  bool mmaDefined_[2] = {false, false};

  const std::unordered_map<std::string_view, ShimKind> &shim_ = shimKinds();
  std::unordered_set<std::string_view> types_, templates_, functions_;
  std::unordered_map<std::string_view, size_t> kernelIndex_;
  /// Per kernel: the pointee type of each parameter ("const float").
  std::vector<std::vector<std::string>> kernelPointees_;
  /// Per token: for a `>` closing template arguments, the index of the
  /// template's name.
  std::vector<uint32_t> closes_;
  /// Per bracket token: the index of its partner.
  std::vector<uint32_t> pairs_;
  /// How deeply #if expressions and template arguments nest.
  int depth_ = 0;
  /// The ranges to check by the rules inside functions.
  struct Range {
    size_t begin, end;
    bool params;
  };
  std::vector<Range> ranges_;
};

//===----------------------------------------------------------------------===//
// Lexing
//===----------------------------------------------------------------------===//

void Checker::failAt(size_t offset, std::string shown, std::string why) {
  uint32_t line = 1;
  size_t lineStart = 0;
  for (size_t i = 0; i < offset && i < src_.size(); ++i)
    if (src_[i] == '\n') {
      ++line;
      lineStart = i + 1;
    }
  throw Reject{line, uint32_t(offset - lineStart + 1), std::move(shown),
               std::move(why)};
}

/// What must hold of the raw characters before any token is formed.
void Checker::prescan() {
  const size_t n = src_.size();
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = src_[i];
    if (c == '\\') {
      size_t j = i + 1;
      while (j < n && (src_[j] == ' ' || src_[j] == '\t'))
        ++j;
      if (j == n || src_[j] == '\n')
        failAt(i, "\\",
               "is not allowed: dlc writes no line continuation (a "
               "backslash at the end of a line)");
    } else if (c == '?' && i + 2 < n && src_[i + 1] == '?' &&
               std::string_view("=/'()!<>-").find(src_[i + 2]) !=
                   std::string_view::npos) {
      failAt(i, std::string(src_.substr(i, 3)),
             "is not allowed: dlc writes no trigraph");
    } else if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      failAt(i, hex,
             "is not allowed: the only control characters dlc writes are "
             "newlines and tabs");
    }
  }
}

Token Checker::lexToken(size_t &i, uint32_t line, size_t lineStart) {
  const size_t n = src_.size();
  const size_t start = i;
  auto make = [&](Tk kind) {
    Token t;
    t.kind = kind;
    t.begin = uint32_t(start);
    t.end = uint32_t(i);
    t.line = line;
    t.col = uint32_t(start - lineStart + 1);
    return t;
  };
  auto identChar = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_';
  };
  auto quoted = [&](char quote) {
    ++i;
    while (true) {
      if (i >= n || src_[i] == '\n')
        failAt(start, std::string(src_.substr(start, i - start)),
               "is an unterminated literal");
      if (src_[i] == '\\') {
        i += 2;
        continue;
      }
      if (src_[i++] == quote)
        return;
    }
  };
  const char c = src_[i];
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
    while (i < n && identChar(src_[i]))
      ++i;
    std::string_view word = src_.substr(start, i - start);
    if (i < n && (src_[i] == '"' || src_[i] == '\'')) {
      if (word == "R" || word == "LR" || word == "uR" || word == "UR" ||
          word == "u8R")
        failAt(start, std::string(word) + src_[i],
               "is not allowed: dlc writes no raw string literal");
      if (word == "L" || word == "u" || word == "U" || word == "u8") {
        const char quote = src_[i];
        quoted(quote);
        return make(quote == '"' ? Tk::String : Tk::Char);
      }
    }
    return make(Tk::Ident);
  }
  if ((c >= '0' && c <= '9') ||
      (c == '.' && i + 1 < n && src_[i + 1] >= '0' && src_[i + 1] <= '9')) {
    // A preprocessing number, checked as a literal later.
    ++i;
    while (i < n) {
      const char d = src_[i];
      if ((d == 'e' || d == 'E' || d == 'p' || d == 'P') && i + 1 < n &&
          (src_[i + 1] == '+' || src_[i + 1] == '-'))
        i += 2;
      else if (identChar(d) || d == '.')
        ++i;
      else if (d == '\'' && i + 1 < n && identChar(src_[i + 1]))
        i += 2;
      else
        break;
    }
    return make(Tk::Number);
  }
  if (c == '"' || c == '\'') {
    quoted(c);
    return make(c == '"' ? Tk::String : Tk::Char);
  }
  // Punctuators by maximal munch; digraphs are refused.
  const char c1 = i + 1 < n ? src_[i + 1] : '\0';
  const char c2 = i + 2 < n ? src_[i + 2] : '\0';
  auto digraph = [&] {
    failAt(start, std::string(src_.substr(start, 2)),
           "is not allowed: dlc writes no digraph");
  };
  size_t len = 0;
  switch (c) {
  case '<':
    if (c1 == ':' || c1 == '%')
      digraph();
    len = c1 == '<' ? (c2 == '=' ? 3 : 2) : c1 == '=' ? 2 : 1;
    break;
  case '>':
    len = c1 == '>' ? (c2 == '=' ? 3 : 2) : c1 == '=' ? 2 : 1;
    break;
  case '.':
    len = c1 == '.' && c2 == '.' ? 3 : c1 == '*' ? 2 : 1;
    break;
  case '-':
    len = c1 == '>' ? (c2 == '*' ? 3 : 2) : c1 == '-' || c1 == '=' ? 2 : 1;
    break;
  case ':':
    if (c1 == '>')
      digraph();
    len = c1 == ':' ? 2 : 1;
    break;
  case '%':
    if (c1 == '>' || c1 == ':')
      digraph();
    len = c1 == '=' ? 2 : 1;
    break;
  case '+':
  case '&':
  case '|':
    len = c1 == c || c1 == '=' ? 2 : 1;
    break;
  case '=':
  case '!':
  case '*':
  case '/':
  case '^':
    len = c1 == '=' ? 2 : 1;
    break;
  case '#':
    len = c1 == '#' ? 2 : 1;
    break;
  case '{':
  case '}':
  case '[':
  case ']':
  case '(':
  case ')':
  case ';':
  case '?':
  case ',':
  case '~':
    len = 1;
    break;
  default:
    break;
  }
  if (len) {
    i += len;
    return make(Tk::Punct);
  }
  char shown[8];
  if (static_cast<unsigned char>(c) < 0x80)
    std::snprintf(shown, sizeof shown, "%c", c);
  else
    std::snprintf(shown, sizeof shown, "\\x%02x",
                  static_cast<unsigned char>(c));
  failAt(start, shown, "is not a character of C++ source outside a comment");
}

void Checker::run() {
  prescan();

  const size_t n = src_.size();
  const auto &names = knownNames();
  toks_.reserve(n / 4);
  size_t i = 0, lineStart = 0;
  uint32_t line = 1;
  bool lineBegins = true;
  while (i < n) {
    const char c = src_[i];
    if (c == '\n') {
      ++line;
      lineStart = ++i;
      lineBegins = true;
      continue;
    }
    if (c == ' ' || c == '\t') {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && src_[i + 1] == '/') {
      const void *end = std::memchr(src_.data() + i, '\n', n - i);
      i = end ? size_t(static_cast<const char *>(end) - src_.data()) : n;
      continue;
    }
    if (c == '/' && i + 1 < n && src_[i + 1] == '*')
      failAt(i, "/*", "is not allowed: dlc writes no block comment");
    Token t = lexToken(i, line, lineStart);
    if (lineBegins && t.kind == Tk::Punct && txAt(t) == "#") {
      // A directive: the tokens up to the end of the line.
      std::vector<Token> d{t};
      while (i < n && src_[i] != '\n') {
        if (src_[i] == ' ' || src_[i] == '\t') {
          ++i;
          continue;
        }
        if (src_[i] == '/' && i + 1 < n && src_[i + 1] == '/') {
          while (i < n && src_[i] != '\n')
            ++i;
          break;
        }
        if (src_[i] == '/' && i + 1 < n && src_[i + 1] == '*')
          failAt(i, "/*", "is not allowed: dlc writes no block comment");
        d.push_back(lexToken(i, line, lineStart));
      }
      directive(d);
      continue;
    }
    lineBegins = false;
    if (!active())
      continue;
    if (t.kind == Tk::Ident) {
      auto known = names.find(txAt(t));
      if (known != names.end()) {
        t.keyword = known->second.keyword;
        t.arithmetic = known->second.arithmetic;
        t.shim = known->second.shim;
      }
    }
    toks_.push_back(t);
  }
  if (!frames_.empty())
    throw Reject{frames_.back().line, frames_.back().col, "#if",
                 "has no #endif"};

  // The text to compile: the active tokens where they were, spaces and
  // newlines elsewhere.
  text.assign(src_.data(), n);
  size_t from = 0;
  auto blank = [&](size_t to) {
    for (; from < to; ++from)
      if (text[from] != '\n')
        text[from] = ' ';
  };
  for (const Token &t : toks_) {
    blank(t.begin);
    from = t.end;
  }
  blank(n);

  checkTokens();
  collectNames();
  for (size_t k = 0; k < toks_.size();)
    k = topLevelItem(k);
  for (const Range &r : ranges_)
    inside(r.begin, r.end, r.params);
}

//===----------------------------------------------------------------------===//
// The preprocessor
//===----------------------------------------------------------------------===//

long long Checker::macroValue(const Token &t) const {
  std::string_view name = txAt(t);
  if (name == kSimMacro)
    return 1;
  for (int m = 0; m < 2; ++m)
    if (name == kMmaMacros[m])
      return mmaDefined_[m] ? 1 : 0;
  if (name == "__CUDA_ARCH__")
    return 0;
  throw Reject{t.line, t.col, std::string(name),
               "is not a macro that dlc's directives test (DLC_SIM, "
               "DLC_ATTN_MMA, DLC_ATTN_SIM_MMA, __CUDA_ARCH__)"};
}

long long Checker::evalUnary(const std::vector<Token> &d, size_t &i) {
  if (i >= d.size()) {
    const Token &last = d.back();
    throw Reject{last.line, last.col, std::string(txAt(last)),
                 "ends the #if expression too early"};
  }
  const Token &t = d[i];
  std::string_view s = txAt(t);
  if (t.kind == Tk::Punct && (s == "!" || s == "(")) {
    if (++depth_ > kMaxDepth)
      throw Reject{t.line, t.col, std::string(s),
                   "nests the #if expression too deeply"};
    ++i;
    long long v;
    if (s == "!") {
      v = !evalUnary(d, i);
    } else {
      v = evalOr(d, i);
      if (i >= d.size() || txAt(d[i]) != ")")
        throw Reject{t.line, t.col, "(", "has no ')' in the #if expression"};
      ++i;
    }
    --depth_;
    return v;
  }
  if (t.kind == Tk::Ident && s == "defined") {
    ++i;
    bool paren = i < d.size() && txAt(d[i]) == "(";
    if (paren)
      ++i;
    if (i >= d.size() || d[i].kind != Tk::Ident)
      throw Reject{t.line, t.col, "defined", "needs a macro name"};
    const Token &name = d[i++];
    if (txAt(name) == "__CUDA_ARCH__") {
      // Never defined under the sim.
    } else {
      (void)macroValue(name);
    }
    if (paren) {
      if (i >= d.size() || txAt(d[i]) != ")")
        throw Reject{t.line, t.col, "defined", "has no ')'"};
      ++i;
    }
    return txAt(name) == "__CUDA_ARCH__" ? 0 : macroValue(name);
  }
  if (t.kind == Tk::Ident) {
    ++i;
    return macroValue(t);
  }
  if (t.kind == Tk::Number &&
      s.find_first_not_of("0123456789") == std::string_view::npos &&
      s.size() < 10) {
    ++i;
    return std::stoll(std::string(s));
  }
  throw Reject{t.line, t.col, std::string(s),
               "is not allowed in a #if expression"};
}

long long Checker::evalCompare(const std::vector<Token> &d, size_t &i) {
  long long a = evalUnary(d, i);
  if (i < d.size() && d[i].kind == Tk::Punct) {
    std::string_view op = txAt(d[i]);
    if (op == ">=" || op == ">" || op == "<=" || op == "<" || op == "==" ||
        op == "!=") {
      ++i;
      long long b = evalUnary(d, i);
      return op == ">="   ? a >= b
             : op == ">"  ? a > b
             : op == "<=" ? a <= b
             : op == "<"  ? a < b
             : op == "==" ? a == b
                          : a != b;
    }
  }
  return a;
}

long long Checker::evalAnd(const std::vector<Token> &d, size_t &i) {
  long long v = evalCompare(d, i);
  while (i < d.size() && txAt(d[i]) == "&&") {
    ++i;
    long long w = evalCompare(d, i);
    v = v && w;
  }
  return v;
}

long long Checker::evalOr(const std::vector<Token> &d, size_t &i) {
  long long v = evalAnd(d, i);
  while (i < d.size() && txAt(d[i]) == "||") {
    ++i;
    long long w = evalAnd(d, i);
    v = v || w;
  }
  return v;
}

void Checker::directive(const std::vector<Token> &d) {
  const Token &hash = d[0];
  if (d.size() < 2 || d[1].kind != Tk::Ident)
    throw Reject{hash.line, hash.col,
                 d.size() < 2 ? "#" : "#" + std::string(txAt(d[1])),
                 "is not a directive that dlc writes"};
  const std::string_view name = txAt(d[1]);
  const std::string shown = "#" + std::string(name);
  auto reject = [&](const Token &at, std::string why) {
    throw Reject{at.line, at.col, &at == &hash ? shown : std::string(txAt(at)),
                 std::move(why)};
  };
  auto push = [&](bool cond) {
    Frame f;
    f.parentActive = active();
    f.cond = cond;
    f.seenElse = false;
    f.active = f.parentActive && cond;
    f.line = hash.line;
    f.col = hash.col;
    frames_.push_back(f);
  };
  if (name == "ifdef" || name == "ifndef") {
    if (d.size() != 3 || d[2].kind != Tk::Ident)
      reject(hash, "takes one macro name");
    bool defined = macroValue(d[2]) != 0;
    push(name == "ifdef" ? defined : !defined);
  } else if (name == "if") {
    if (d.size() < 3)
      reject(hash, "needs an expression");
    size_t i = 2;
    long long v = evalOr(d, i);
    if (i != d.size())
      reject(d[i], "is not allowed here in a #if expression");
    push(v != 0);
  } else if (name == "else" || name == "endif") {
    if (d.size() != 2)
      reject(d[2], "is not allowed after #" + std::string(name));
    if (frames_.empty())
      reject(hash, "has no #if before it");
    if (name == "endif") {
      frames_.pop_back();
    } else {
      Frame &f = frames_.back();
      if (f.seenElse)
        reject(hash, "follows another #else");
      f.seenElse = true;
      f.active = f.parentActive && !f.cond;
    }
  } else if (name == "define") {
    int macro = -1;
    if (d.size() == 4 && d[2].kind == Tk::Ident && txAt(d[3]) == "1")
      for (int m = 0; m < 2; ++m)
        if (txAt(d[2]) == kMmaMacros[m])
          macro = m;
    if (macro < 0)
      reject(hash, "is not allowed: dlc defines only DLC_ATTN_MMA and "
                   "DLC_ATTN_SIM_MMA, as 1");
    if (active())
      mmaDefined_[macro] = true;
  } else if (name == "pragma") {
    bool unroll =
        (d.size() == 3 || d.size() == 4) && txAt(d[2]) == "unroll" &&
        (d.size() == 3 || (d[3].kind == Tk::Number &&
                           txAt(d[3]).find_first_not_of("0123456789") ==
                               std::string_view::npos));
    if (!unroll)
      reject(hash, "is not allowed: the only pragma dlc writes is "
                   "'#pragma unroll'");
  } else {
    reject(hash, "is not allowed: dlc writes no such directive");
  }
}

//===----------------------------------------------------------------------===//
// Token rules
//===----------------------------------------------------------------------===//

void Checker::fail(size_t i, std::string why) const {
  const Token &t = toks_[i];
  throw Reject{t.line, t.col, std::string(tx(i)), std::move(why)};
}

void Checker::failEnd(std::string why) const {
  if (toks_.empty())
    throw Reject{1, 1, "", std::move(why)};
  const Token &t = toks_.back();
  throw Reject{t.line, t.col, std::string(tx(toks_.size() - 1)),
               "ends the source: " + why};
}

bool Checker::isName(size_t i) const {
  return isIdent(i) && toks_[i].keyword == kNotKeyword;
}

bool Checker::isType(size_t i) const {
  if (!isIdent(i))
    return false;
  const Token &t = toks_[i];
  if (t.arithmetic || isShim(i, ShimKind::Type))
    return true;
  return t.keyword == kNotKeyword && !types_.empty() && types_.count(tx(i));
}

/// A literal as C++ reads it: decimal, octal or hexadecimal integers with
/// u/l/ll suffixes, decimal floating literals with f/l suffixes.
bool validNumber(std::string_view s) {
  size_t i = 0;
  auto digits = [&](bool hex) {
    size_t from = i;
    while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') ||
                            (hex && ((s[i] >= 'a' && s[i] <= 'f') ||
                                     (s[i] >= 'A' && s[i] <= 'F')))))
      ++i;
    return i - from;
  };
  auto integerSuffix = [&] {
    std::string_view rest = s.substr(i);
    for (std::string_view ok :
         {"",   "u",  "U",  "l",   "L",   "ll",  "LL",  "ul",
          "uL", "Ul", "UL", "ull", "uLL", "Ull", "ULL", "lu",
          "lU", "Lu", "LU", "llu", "llU", "LLu", "LLU"})
      if (rest == ok)
        return true;
    return false;
  };
  if (s.size() > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    i = 2;
    return digits(true) > 0 && integerSuffix();
  }
  size_t whole = digits(false), fraction = 0;
  bool isFloat = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fraction = digits(false);
    isFloat = true;
  }
  if (whole + fraction == 0)
    return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
      ++i;
    if (digits(false) == 0)
      return false;
    isFloat = true;
  }
  if (!isFloat)
    return integerSuffix();
  std::string_view rest = s.substr(i);
  return rest.empty() || rest == "f" || rest == "F" || rest == "l" ||
         rest == "L";
}

void Checker::checkTokens() {
  for (size_t i = 0; i < toks_.size(); ++i) {
    const Token &t = toks_[i];
    std::string_view s = tx(i);
    switch (t.kind) {
    case Tk::Ident: {
      if (t.keyword == kForbiddenKeyword)
        fail(i, "is not allowed");
      if (t.keyword != kNotKeyword)
        break;
      if (s[0] == '_' && !t.shim)
        fail(i, "is not allowed: a reserved name that neither the sim "
                "shim nor dlc's code generator defines");
      if ((startsWith(s, "dlc_sim") || startsWith(s, "DLC_SIM")) &&
          !(startsWith(s, "dlc_sim_entry_") && i >= 3 && is(i - 1, "void") &&
            toks_[i - 2].kind == Tk::String && is(i - 3, "extern")))
        fail(i, "is not allowed: names that begin with dlc_sim or DLC_SIM "
                "belong to the sim shim");
      break;
    }
    case Tk::Number:
      if (!validNumber(s))
        fail(i, "is not a number dlc writes");
      break;
    case Tk::String:
      if (s != "\"C\"" || i == 0 || !is(i - 1, "extern"))
        fail(i, "is not allowed: the only string literal dlc writes is the "
                "\"C\" of extern \"C\"");
      break;
    case Tk::Char:
      fail(i, "is not allowed: dlc writes no character literal");
    case Tk::Punct:
      if (s == "#" || s == "##")
        fail(i, "is not allowed outside a directive at the start of a line");
      if (s == "..." || s == ".*" || s == "->*")
        fail(i, "is not allowed");
      if (s == "[" && is(i + 1, "["))
        fail(i, "is not allowed: dlc writes no attribute ([[...]])");
      break;
    }
  }
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

/// The names the source declares as types: structs, typedefs and template
/// type parameters (scopes are not told apart: a name that is a type
/// anywhere is a type everywhere, which only makes the rules stricter).
void Checker::collectNames() {
  const size_t n = toks_.size();
  for (size_t i = 0; i < n; ++i) {
    if (is(i, "struct") && isName(i + 1))
      types_.insert(tx(i + 1));
    else if (is(i, "typename") && isName(i + 1) && !is(i + 2, "::"))
      types_.insert(tx(i + 1));
    else if (is(i, "typedef")) {
      size_t j = i + 1;
      while (j < n && !is(j, ";") && !is(j, "{") && !is(j, "}"))
        ++j;
      if (j < n && is(j, ";") && isName(j - 1))
        types_.insert(tx(j - 1));
    }
  }
  closes_.assign(n, kNone);
  // Every bracket's partner, once (so that no rule scans for one).
  pairs_.assign(n, kNone);
  std::vector<uint32_t> open;
  for (size_t i = 0; i < n; ++i) {
    if (toks_[i].kind != Tk::Punct || toks_[i].end - toks_[i].begin != 1)
      continue;
    const char c = src_[toks_[i].begin];
    if (c == '(' || c == '[' || c == '{') {
      open.push_back(uint32_t(i));
    } else if (c == ')' || c == ']' || c == '}') {
      if (open.empty())
        fail(i, "closes nothing");
      const size_t o = open.back();
      const char want = src_[toks_[o].begin] == '('   ? ')'
                        : src_[toks_[o].begin] == '[' ? ']'
                                                      : '}';
      if (c != want)
        fail(i, "does not match the '" + std::string(tx(o)) + "' at line " +
                    std::to_string(toks_[o].line) + ":" +
                    std::to_string(toks_[o].col));
      pairs_[o] = uint32_t(i);
      pairs_[i] = uint32_t(o);
      open.pop_back();
    }
  }
  if (!open.empty())
    fail(open.back(), "is never closed");
}

size_t Checker::matching(size_t open) const { return pairs_[open]; }

bool Checker::isTemplateName(size_t i) const {
  if (!isIdent(i))
    return false;
  std::string_view s = tx(i);
  return templates_.count(s) || s == "reinterpret_cast" || s == "static_cast";
}

/// The `>` that closes the template arguments opened at `open` (a `<` after
/// a template's name); marks it in closes_.
size_t Checker::templateClose(size_t open) {
  if (++depth_ > kMaxDepth)
    fail(open, "nests template arguments too deeply");
  struct Leave {
    int &depth;
    ~Leave() { --depth; }
  } leave{depth_};
  for (size_t i = open + 1; i < toks_.size(); ++i) {
    std::string_view s = tx(i);
    if (toks_[i].kind != Tk::Punct)
      continue;
    if (s == "(" || s == "[") {
      i = pairs_[i]; // whatever is in parentheses is no template argument
    } else if (s == ">") {
      closes_[i] = uint32_t(open - 1);
      return i;
    } else if (s == ">>") {
      fail(i, "is not allowed: dlc closes nested template arguments with "
              "'> >'");
    } else if (s == "<" && isTemplateName(i - 1)) {
      i = templateClose(i);
    } else if (s == ")" || s == "]" || s == ";" || s == "{" || s == "}") {
      fail(i, "is not allowed inside template arguments");
    }
  }
  fail(open, "is never closed");
}

size_t Checker::topLevelItem(size_t i) {
  if (is(i, "extern"))
    return externItem(i);
  if (is(i, "template")) {
    size_t j = templateHeader(i);
    if (is(j, "struct"))
      return structItem(j, true);
    return function(j, true);
  }
  if (is(i, "struct"))
    return structItem(i, false);
  if (is(i, "static") && is(i + 1, "__device__") && is(i + 2, "const"))
    return tableItem(i);
  return function(i, false);
}

/// `template <>` or `template <P, ...>`, each P `typename NAME` or an
/// arithmetic type and a name.
size_t Checker::templateHeader(size_t i) {
  size_t j = i + 1;
  if (!is(j, "<"))
    fail(j < toks_.size() ? j : i, "expected '<' after 'template'");
  ++j;
  if (is(j, ">"))
    return j + 1;
  while (true) {
    if (is(j, "typename")) {
      ++j;
    } else {
      size_t k = j;
      while (isIdent(j) && isArithmeticKeyword(tx(j)) && tx(j) != "void")
        ++j;
      if (j == k)
        fail(j < toks_.size() ? j : k,
             "is not a template parameter dlc writes (typename NAME, or an "
             "integer or bool type and a name)");
    }
    if (!isName(j))
      fail(j < toks_.size() ? j : i, "expected the template parameter's name");
    ++j;
    if (is(j, ">"))
      return j + 1;
    if (!is(j, ","))
      fail(j < toks_.size() ? j : i,
           "is not allowed in a template parameter list");
    ++j;
  }
}

/// `struct NAME [<ARGS>] ;` or `... { typedefs and member functions } ;`
size_t Checker::structItem(size_t i, bool templated) {
  size_t j = i + 1;
  if (!isName(j))
    fail(j < toks_.size() ? j : i, "expected the struct's name");
  const std::string_view name = tx(j);
  const bool knownTemplate = templates_.count(name) != 0;
  types_.insert(name);
  ++j;
  if (is(j, "<")) {
    // An explicit specialization of a struct template declared before.
    if (!templated || !knownTemplate)
      fail(j, "is not allowed: only a struct template is specialized");
    j = templateClose(j) + 1;
  }
  if (templated)
    templates_.insert(name);
  if (is(j, ";"))
    return j + 1;
  if (!is(j, "{"))
    fail(j < toks_.size() ? j : i, "expected the struct's body or ';'");
  const size_t close = matching(j);
  ++j;
  while (j < close) {
    if (is(j, "typedef"))
      j = typedefDecl(j) + 1;
    else
      j = function(j, false);
  }
  if (!is(close + 1, ";"))
    fail(close, "expected ';' after the struct");
  return close + 2;
}

/// `typedef TYPE NAME;` where TYPE is made of types, qualifiers, `*`, `&`
/// and template arguments: never a function or array type. Returns the
/// index of the `;`.
size_t Checker::typedefDecl(size_t i) {
  size_t j = i + 1;
  while (true) {
    if (j >= toks_.size())
      failEnd("a typedef has no ';'");
    std::string_view s = tx(j);
    if (is(j, ";"))
      break;
    if (is(j, "<") && isTemplateName(j - 1)) {
      j = templateClose(j) + 1;
      continue;
    }
    const bool ok = (isIdent(j) && (s == "const" || s == "typename" ||
                                    isArithmeticKeyword(s) || isName(j))) ||
                    s == "*" || s == "&" || s == "::";
    if (!ok)
      fail(j, "is not allowed in a typedef: dlc's typedefs name a type");
    ++j;
  }
  if (!isName(j - 1) || j - 1 == i)
    fail(j, "expected the typedef's name");
  if (shim_.count(tx(j - 1)))
    fail(j - 1, "is a name of the sim shim");
  return j;
}

/// `static __device__ const T NAME[N] = { ... };`
size_t Checker::tableItem(size_t i) {
  size_t j = i + 3;
  const size_t typeBegin = j;
  while (isIdent(j) && isArithmeticKeyword(tx(j)) && tx(j) != "void")
    ++j;
  if (j == typeBegin)
    fail(j < toks_.size() ? j : i,
         "expected the arithmetic type of a constant table");
  if (!isName(j))
    fail(j < toks_.size() ? j : i, "expected the constant table's name");
  if (!is(j + 1, "[") ||
      !(j + 2 < toks_.size() && toks_[j + 2].kind == Tk::Number) ||
      !is(j + 3, "]") || !is(j + 4, "=") || !is(j + 5, "{"))
    fail(j + 1 < toks_.size() ? j + 1 : j,
         "expected '[N] = {' of a constant table");
  const size_t close = matching(j + 5);
  for (size_t k = j + 6; k < close; ++k) {
    std::string_view s = tx(k);
    if (toks_[k].kind == Tk::Number || s == "," || s == "(" || s == ")" ||
        s == "-" || s == "true" || s == "false")
      continue;
    if (s == "__uint_as_float" && is(k + 1, "("))
      continue;
    fail(k, "is not allowed in a constant table: its values are literals");
  }
  if (!is(close + 1, ";"))
    fail(close, "expected ';' after the constant table");
  return close + 2;
}

size_t Checker::externItem(size_t i) {
  const char *form = "'extern' begins only a kernel (extern \"C\" __global__ "
                     "void NAME(T *__restrict__ p, ...) { ... }) or its "
                     "trampoline (extern \"C\" void dlc_sim_entry_NAME(void "
                     "*const *args) { ... })";
  if (!(i + 1 < toks_.size() && toks_[i + 1].kind == Tk::String))
    fail(i + 1 < toks_.size() ? i + 1 : i,
         std::string("is not allowed: ") + form);
  if (is(i + 2, "__global__"))
    return kernelItem(i);
  if (is(i + 2, "void"))
    return trampolineItem(i);
  fail(i + 2 < toks_.size() ? i + 2 : i,
       std::string("is not allowed: ") + form);
}

/// The pointee type of a parameter or a cast, its words joined by spaces.
static std::string pointeeText(const std::vector<std::string_view> &words) {
  std::string s;
  for (std::string_view w : words) {
    if (!s.empty())
      s += ' ';
    s += w;
  }
  return s;
}

size_t Checker::kernelItem(size_t i) {
  size_t j = i + 3;
  if (!is(j, "void"))
    fail(j < toks_.size() ? j : i, "expected 'void': a kernel returns nothing");
  ++j;
  if (is(j, "__launch_bounds__")) {
    bool ok = is(j + 1, "(") && j + 2 < toks_.size() &&
              toks_[j + 2].kind == Tk::Number;
    size_t k = j + 3;
    if (ok && is(k, ",")) {
      ok = k + 1 < toks_.size() && toks_[k + 1].kind == Tk::Number;
      k += 2;
    }
    if (!ok || !is(k, ")"))
      fail(j, "takes one or two numbers in the form dlc writes");
    j = k + 1;
  }
  if (!isName(j) || tx(j)[0] == '_')
    fail(j < toks_.size() ? j : i, "expected the kernel's name");
  const size_t name = j;
  if (kernelIndex_.count(tx(name)) || functions_.count(tx(name)))
    fail(name, "is defined twice");
  if (!is(j + 1, "("))
    fail(j + 1 < toks_.size() ? j + 1 : j, "expected the kernel's parameters");
  const size_t close = matching(j + 1);
  SimKernelSignature sig;
  sig.name = std::string(tx(name));
  std::vector<std::string> pointees;
  j += 2;
  while (j < close) {
    std::vector<std::string_view> words;
    while (
        j < close && isIdent(j) &&
        (tx(j) == "const" || (isArithmeticKeyword(tx(j)) && tx(j) != "void")))
      words.push_back(tx(j++));
    bool ok = !words.empty() && words.back() != "const" && is(j, "*");
    if (ok) {
      ++j;
      if (is(j, "__restrict__"))
        ++j;
      ok = isName(j) && (is(j + 1, ",") || j + 1 == close);
    }
    if (!ok)
      fail(j < close ? j : close,
           "is not allowed: a kernel's parameters are pointers to arithmetic "
           "types (const float *__restrict__ in0)");
    pointees.push_back(pointeeText(words));
    j += is(j + 1, ",") ? 2 : 1;
  }
  if (!is(close + 1, "{"))
    fail(close + 1 < toks_.size() ? close + 1 : close,
         "expected the kernel's body: dlc's kernels are definitions");
  const size_t end = matching(close + 1);
  ranges_.push_back({close + 2, end, false});
  sig.params = pointees.size();
  kernelIndex_[tx(name)] = kernels.size();
  kernels.push_back(sig);
  kernelPointees_.push_back(std::move(pointees));
  return end + 1;
}

size_t Checker::trampolineItem(size_t i) {
  // extern "C" void dlc_sim_entry_K ( void * const * P ) { K ( ... ) ; }
  size_t j = i + 3;
  constexpr std::string_view prefix = "dlc_sim_entry_";
  if (!isName(j) || !startsWith(tx(j), prefix))
    fail(j < toks_.size() ? j : i,
         "expected a trampoline dlc_sim_entry_NAME: 'extern \"C\" void' "
         "begins nothing else");
  const std::string_view kernel = tx(j).substr(prefix.size());
  auto it = kernelIndex_.find(kernel);
  if (it == kernelIndex_.end())
    fail(j, "is the trampoline of no kernel defined before it");
  SimKernelSignature &sig = kernels[it->second];
  if (sig.hasTrampoline)
    fail(j, "is defined twice");
  const std::vector<std::string> &pointees = kernelPointees_[it->second];
  const char *form = "is not allowed: a trampoline is exactly "
                     "'(void *const *args) { NAME((T0 *)args[0], ...); }'";
  size_t k = j + 1;
  auto expect = [&](std::string_view s) {
    if (!is(k, s))
      fail(k < toks_.size() ? k : j, form);
    ++k;
  };
  for (std::string_view s : {"(", "void", "*", "const", "*"})
    expect(s);
  if (!isName(k))
    fail(k < toks_.size() ? k : j, form);
  const std::string_view args = tx(k++);
  expect(")");
  expect("{");
  if (!is(k, kernel))
    fail(k < toks_.size() ? k : j, form);
  ++k;
  expect("(");
  for (size_t a = 0; a < pointees.size(); ++a) {
    if (a && is(k, ")"))
      fail(k, "is not allowed: the trampoline passes " + std::to_string(a) +
                  " arguments, the kernel has " +
                  std::to_string(pointees.size()) + " parameters");
    if (a)
      expect(",");
    expect("(");
    std::vector<std::string_view> words;
    while (isIdent(k) && (tx(k) == "const" || isArithmeticKeyword(tx(k))))
      words.push_back(tx(k++));
    if (pointeeText(words) != pointees[a])
      fail(k < toks_.size() ? k : j,
           "is not allowed: argument " + std::to_string(a) +
               " of the trampoline must be cast to its parameter's type (" +
               pointees[a] + " *)");
    expect("*");
    expect(")");
    expect(args);
    expect("[");
    if (!is(k, std::to_string(a)))
      fail(k < toks_.size() ? k : j,
           "is not allowed: argument " + std::to_string(a) +
               " of the trampoline is " + std::string(args) + "[" +
               std::to_string(a) + "]");
    ++k;
    expect("]");
  }
  if (is(k, ","))
    fail(k, "is not allowed: the trampoline passes more arguments than "
            "the kernel has parameters");
  expect(")");
  expect(";");
  expect("}");
  sig.hasTrampoline = true;
  return k;
}

/// A function (or member function) with its body: specifiers, the return
/// type, the name, the parameters, the body.
size_t Checker::function(size_t i, bool templated) {
  const char *where =
      "is not allowed here: at namespace scope dlc writes kernels, their "
      "trampolines, functions with their bodies, structs and constant tables";
  size_t j = i;
  bool sawType = false;
  while (true) {
    if (j >= toks_.size())
      failEnd("a declaration is incomplete");
    std::string_view s = tx(j);
    if (isName(j) && is(j + 1, "("))
      break;
    if (isIdent(j) && (isDeclSpecifier(s) || s == "const" || s == "typename" ||
                       s == "__restrict__")) {
      ++j;
      continue;
    }
    if (isType(j)) {
      sawType = true;
      ++j;
      if (is(j, "<") && isTemplateName(j - 1))
        j = templateClose(j) + 1;
      continue;
    }
    if (is(j, "*") || is(j, "&") ||
        (is(j, "::") && j > i &&
         (isType(j - 1) || (is(j - 1, ">") && closes_[j - 1] != kNone)))) {
      ++j;
      continue;
    }
    if (isName(j) && sawType)
      fail(j, "is not allowed: dlc declares no variable at namespace scope "
              "or in a struct but constant tables");
    fail(j, where);
  }
  const size_t name = j;
  if (!sawType)
    fail(name, "is not allowed: a function needs a return type (dlc's "
               "structs have no constructors)");
  if (j > i && is(j - 1, "::"))
    fail(name, "is not allowed: dlc defines no function out of its class");
  if (shim_.count(tx(name)) || kernelIndex_.count(tx(name)))
    fail(name, "is a name of the sim shim or of a kernel");
  const size_t close = matching(j + 1);
  for (size_t k = j + 2; k < close; ++k) {
    if (is(k, "(") || is(k, "[") || is(k, "{"))
      k = matching(k);
    else if (is(k, "="))
      fail(k, "is not allowed: dlc writes no default argument");
  }
  ranges_.push_back({j + 2, close, true});
  size_t k = close + 1;
  if (is(k, ";"))
    fail(k, "is not allowed: a function declared without its body (every "
            "function the source calls must be defined in it)");
  if (!is(k, "{"))
    fail(k < toks_.size() ? k : close, "expected the function's body");
  const size_t end = matching(k);
  ranges_.push_back({k + 1, end, false});
  functions_.insert(tx(name));
  if (templated)
    templates_.insert(tx(name));
  return end + 1;
}

//===----------------------------------------------------------------------===//
// Inside functions
//===----------------------------------------------------------------------===//

/// Whether token `i` ends the type of a declaration when a name follows.
bool Checker::declaresType(size_t i) const {
  if (i >= toks_.size())
    return false;
  std::string_view s = tx(i);
  if (isIdent(i))
    return s == "const" || s == "__restrict__" || isDeclSpecifier(s) ||
           isType(i);
  if (s == ">" && closes_[i] != kNone)
    return isType(closes_[i]);
  return false;
}

/// `NAME(` at `name` must not declare a function: no type before it.
void Checker::notADeclaration(size_t name) {
  size_t q = name;
  while (q >= 2 && is(q - 1, "::") &&
         (isName(q - 2) || (is(q - 2, ">") && closes_[q - 2] != kNone))) {
    q -= 2;
    if (is(q, ">"))
      q = closes_[q];
  }
  if (q == 0)
    return;
  size_t p = q - 1;
  if ((is(p, "*") || is(p, "&") || is(p, "&&")) && p > 0)
    p = p - 1;
  if (declaresType(p))
    fail(name, "is not allowed: this declares a function (the source must "
               "define every function it declares, at namespace scope)");
}

/// A type followed by `(` (a functional cast, or a declarator in
/// parentheses) must not make a function type.
void Checker::notAFunctionType(size_t paren) {
  size_t k = paren + 1;
  if (k >= toks_.size())
    return;
  std::string_view s = tx(k);
  if (is(k, ")") || s == "const" || isType(k) || s == "typename")
    fail(k, "is not allowed here: a type followed by '(' and a parameter "
            "list is a function type");
}

void Checker::callOrCast(size_t paren) {
  if (paren == 0)
    return;
  const size_t p = paren - 1;
  std::string_view s = tx(p);
  if (is(paren + 1, "{"))
    fail(paren + 1, "is not allowed: dlc writes no statement expression");
  // What is called: a name, or a template with its arguments.
  size_t callee = kNone;
  if (isIdent(p)) {
    if (toks_[p].keyword != kNotKeyword) {
      if (toks_[p].arithmetic) {
        notAFunctionType(paren);
        return;
      }
      if (s == "if" || s == "for" || s == "while" || s == "return" ||
          s == "sizeof" || s == "alignas" || s == "else" || s == "do")
        return;
      fail(p, "is not allowed before '('");
    }
    notADeclaration(p);
    callee = p;
  } else if (s == ">" && closes_[p] != kNone) {
    callee = closes_[p];
    if (is(callee, "reinterpret_cast") || is(callee, "static_cast"))
      return;
  }
  if (callee != kNone) {
    std::string_view name = tx(callee);
    if (isType(callee)) {
      notAFunctionType(paren);
      return;
    }
    if (functions_.count(name) || isShim(callee, ShimKind::Function))
      return;
    if (kernelIndex_.count(name))
      fail(callee, "is not allowed: a kernel is called only by its trampoline");
    fail(callee, "is called but is neither a function the source defines "
                 "nor one the sim shim provides");
  }
  if (s == ")") {
    // Only a cast to an arithmetic type may stand before '(': `(float)(x)`.
    const size_t open = pairs_[p];
    bool keyword = false, others = false;
    for (size_t k = open + 1; k < p && !others; ++k) {
      if (toks_[k].arithmetic)
        keyword = true;
      else if (!is(k, "const") && !is(k, "*"))
        others = true;
    }
    if (!keyword || others)
      fail(paren, "is not allowed here: only a cast to an arithmetic type "
                  "may come before '(' (no calls through pointers)");
    return;
  }
  if (s == "]" || s == "}")
    fail(paren, "is not allowed here: dlc writes no call through an "
                "expression");
}

void Checker::inside(size_t begin, size_t end, bool params) {
  for (size_t j = begin; j < end; ++j) {
    std::string_view s = tx(j);
    const Token &t = toks_[j];
    if (t.kind == Tk::Ident) {
      if (t.keyword == kStructuralKeyword)
        fail(j, params ? "is not allowed in a parameter list"
                       : "is not allowed inside a function");
      if (isShim(j, ShimKind::Kernel))
        fail(j, "is allowed only where a kernel is defined");
      if (s == "typedef") {
        j = typedefDecl(j);
        continue;
      }
      if (s == "alignas") {
        // As dlc writes it: `alignas(16) float x[4];`, a statement's start.
        if (params || !(is(j - 1, ";") || is(j - 1, "{") || is(j - 1, "}")) ||
            !is(j + 1, "(") ||
            !(j + 2 < end && toks_[j + 2].kind == Tk::Number) ||
            !is(j + 3, ")"))
          fail(j, "is allowed only as 'alignas(N)' at the start of a "
                  "declaration");
        j += 3;
        continue;
      }
      if (is(j + 1, "<") && isTemplateName(j))
        templateClose(j + 1);
      continue;
    }
    if (t.kind != Tk::Punct)
      continue;
    if (s == "(") {
      callOrCast(j);
    } else if (s == "[") {
      if (!(isName(j - 1) || is(j - 1, "]") || is(j - 1, ")")))
        fail(j, "is not allowed here: '[' follows an array's name (dlc "
                "writes no lambda)");
    } else if (s == "::") {
      if (!(isName(j - 1) || (is(j - 1, ">") && closes_[j - 1] != kNone)))
        fail(j, "is not allowed here: dlc qualifies only names of its own "
                "structs");
    } else if (s == "{" && params) {
      fail(j, "is not allowed in a parameter list");
    }
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

const SimKernelSignature *
CheckedSimSource::kernel(const std::string &name) const {
  for (const SimKernelSignature &k : kernels_)
    if (k.name == name)
      return &k;
  return nullptr;
}

Result<CheckedSimSource> checkSimSource(const std::string &source) {
  if (source.size() > kMaxSourceBytes)
    return Status::error(
        std::string(kSimSourceRejected) + "it has " +
        std::to_string(source.size()) + " bytes, more than the " +
        std::to_string(kMaxSourceBytes >> 20) + " MiB a source may have");
  Checker checker(source);
  try {
    checker.run();
  } catch (const Reject &r) {
    std::string shown =
        r.text.size() > 60 ? r.text.substr(0, 60) + "..." : r.text;
    return Status::error(std::string(kSimSourceRejected) + "line " +
                         std::to_string(r.line) + ":" + std::to_string(r.col) +
                         ": '" + shown + "' " + r.why);
  }
  CheckedSimSource out;
  out.text_ = std::move(checker.text);
  out.kernels_ = std::move(checker.kernels);
  return out;
}

const std::vector<SimShimName> &simShimNames() {
  static const std::vector<SimShimName> names = [] {
    std::vector<SimShimName> v;
    for (const ShimEntry &e : kShimNames)
      v.push_back({e.name, e.builtin});
    return v;
  }();
  return names;
}

} // namespace dlc::rt
