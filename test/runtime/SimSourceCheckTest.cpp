//===- SimSourceCheckTest.cpp - What the sim device agrees to compile -----===//
//
// runtime/SimSourceCheck.h: sources that dlc's code generator wrote pass
// (two of them are checked in under sim-sources/, and every sim run of the
// end-to-end tests goes through the check), and families of hostile
// variants of them are refused, one family per rule, naming the line, the
// column and the token. Then the sessions: a package's kernels and steps
// must match the kernels its source defines, nothing is written or
// compiled for a refused source, and `dlc run` and `dlc-run` refuse a
// package whose source was given a constructor without running it.
//
//===----------------------------------------------------------------------===//

#include "runtime/SimSourceCheck.h"
#include "TestPackages.h"
#include "TestUtil.h"
#include "runtime/Runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace dlc::rt;
using namespace dlc::rt::test;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace dlc::rt {
// Generated at build time from runtime/sim/SimShim.h.
extern const char kSimShimSource[];
extern const size_t kSimShimSourceSize;
} // namespace dlc::rt

namespace {

std::string readSource(const std::string &name) {
  std::ifstream in(std::string(DLC_SOURCE_DIR) + "/test/runtime/sim-sources/" +
                   name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string &mlpSource() {
  static const std::string s = readSource("mlp.cu");
  return s;
}

const std::string &attentionSource() {
  static const std::string s = readSource("attention-mma.cu");
  return s;
}

/// The 1-based line of byte `offset`.
int lineOf(const std::string &s, size_t offset) {
  return 1 + int(std::count(s.begin(), s.begin() + offset, '\n'));
}

/// Where a hostile piece goes into the base source.
enum class Where {
  Top,  ///< at namespace scope, on its own lines before the first kernel
  Body, ///< on its own lines at the start of the first kernel's body
  End,  ///< appended
};

/// `base` with `code` inserted at `where`; `line` receives the line of the
/// code's first line.
std::string insert(const std::string &base, Where where,
                   const std::string &code, int *line = nullptr) {
  size_t at = base.size();
  const size_t kernel = base.find("\nextern \"C\" __global__");
  if (where == Where::Top)
    at = kernel + 1;
  else if (where == Where::Body)
    at = base.find("{\n", kernel) + 2;
  std::string out = base;
  std::string piece = code + "\n";
  if (where == Where::End && !out.empty() && out.back() != '\n')
    piece = "\n" + piece;
  out.insert(at, piece);
  if (line)
    *line = lineOf(out, where == Where::End && piece[0] == '\n' ? at + 1 : at);
  return out;
}

std::string replaced(const std::string &base, const std::string &from,
                     const std::string &to) {
  std::string out = base;
  const size_t at = out.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos)
    out.replace(at, from.size(), to);
  return out;
}

std::string rejection(const std::string &source) {
  Result<CheckedSimSource> r = checkSimSource(source);
  return r.isOk() ? std::string("(accepted)") : r.message();
}

struct Hostile {
  const char *name;
  Where where;
  std::string code;
  /// What the message says after "line L:C: ".
  const char *expected;
};

/// Checks every case against the mlp source (and the attention source,
/// whose prelude and templates are longer), with its line.
void expectRefused(const std::vector<Hostile> &cases) {
  for (const std::string *base : {&mlpSource(), &attentionSource()}) {
    for (const Hostile &h : cases) {
      SCOPED_TRACE(h.name);
      int line = 0;
      const std::string source = insert(*base, h.where, h.code, &line);
      const std::string message = rejection(source);
      EXPECT_THAT(message, StartsWith(kSimSourceRejected));
      EXPECT_THAT(message, HasSubstr(h.expected));
      // The offending token lies on one of the inserted lines.
      std::smatch m;
      const int lines = 1 + int(std::count(h.code.begin(), h.code.end(), '\n'));
      ASSERT_TRUE(std::regex_search(message, m, std::regex("line (\\d+):")))
          << message;
      const int at = std::stoi(m[1]);
      EXPECT_GE(at, line) << message;
      EXPECT_LT(at, line + lines) << message;
    }
  }
}

//===----------------------------------------------------------------------===//
// What dlc writes passes
//===----------------------------------------------------------------------===//

TEST(SimSourceCheck, EmittedSourcesPass) {
  Result<CheckedSimSource> mlp = checkSimSource(mlpSource());
  ASSERT_TRUE(mlp.isOk()) << mlp.message();
  ASSERT_EQ(mlp->kernels().size(), 3u);
  EXPECT_EQ(mlp->kernels()[0].name, "k0");
  EXPECT_EQ(mlp->kernels()[0].params, 2u);
  EXPECT_EQ(mlp->kernels()[1].name, "gemm_epi0");
  EXPECT_EQ(mlp->kernels()[1].params, 2u);
  for (const SimKernelSignature &k : mlp->kernels())
    EXPECT_TRUE(k.hasTrampoline) << k.name;
  ASSERT_NE(mlp->kernel("gemm_epi1"), nullptr);
  EXPECT_EQ(mlp->kernel("gemm_epi9"), nullptr);

  Result<CheckedSimSource> attention = checkSimSource(attentionSource());
  ASSERT_TRUE(attention.isOk()) << attention.message();
  ASSERT_EQ(attention->kernels().size(), 3u);
  EXPECT_EQ(attention->kernels()[0].name, "attn0");
  EXPECT_EQ(attention->kernels()[0].params, 5u);
  EXPECT_EQ(attention->kernels()[2].params, 4u);

  // The runtime tests' own kernels are written the same way.
  Result<CheckedSimSource> tests = checkSimSource(testKernelSource());
  ASSERT_TRUE(tests.isOk()) << tests.message();
  EXPECT_EQ(tests->kernels().size(), testKernels().size());
}

TEST(SimSourceCheck, TheCompiledTextHasNoDirectiveAndKeepsEveryPosition) {
  const std::string &source = attentionSource();
  Result<CheckedSimSource> r = checkSimSource(source);
  ASSERT_TRUE(r.isOk()) << r.message();
  const std::string &text = r->text();
  ASSERT_EQ(text.size(), source.size());
  for (size_t i = 0; i < text.size(); ++i) {
    // Newlines where they were; elsewhere the source's byte or a space.
    ASSERT_EQ(text[i] == '\n', source[i] == '\n') << i;
    if (text[i] != ' ') {
      ASSERT_EQ(text[i], source[i]) << i;
    }
  }
  EXPECT_EQ(text.find('#'), std::string::npos);
  EXPECT_EQ(text.find("//"), std::string::npos);
  // No string but the "C" of the kernels and their trampolines.
  EXPECT_EQ(std::count(text.begin(), text.end(), '"'),
            2 * 2 * long(r->kernels().size()));
  // The DLC_SIM side of the prelude, not the PTX side.
  EXPECT_NE(text.find("__builtin_memcpy(d, s, 16)"), std::string::npos);
  EXPECT_EQ(text.find("asm("), std::string::npos);
  EXPECT_EQ(text.find("cvt.f32.f16"), std::string::npos);
  // DLC_ATTN_SIM_MMA is defined: the tensor-core path with emulated
  // products is compiled, the PTX one is not.
  EXPECT_NE(text.find("dlc_attn_mma("), std::string::npos);
  EXPECT_EQ(text.find("mma.sync"), std::string::npos);
  EXPECT_NE(text.find("__shfl_sync(0xffffffffu, b0, 8 * t + src)"),
            std::string::npos);

  // Without the #define the whole tensor-core path is excluded.
  Result<CheckedSimSource> portable =
      checkSimSource(replaced(source, "#define DLC_ATTN_SIM_MMA 1", ""));
  ASSERT_TRUE(portable.isOk()) << portable.message();
  EXPECT_EQ(portable->text().find("dlc_attn_mma("), std::string::npos);
  EXPECT_NE(portable->text().find("dlc_attn_portable<"), std::string::npos);
}

TEST(SimSourceCheck, EveryShimNameIsDeclaredByTheShim) {
  const std::string shim(kSimShimSource, kSimShimSourceSize);
  for (const SimShimName &n : simShimNames()) {
    if (n.builtin)
      continue;
    const std::regex word(std::string("(^|[^A-Za-z0-9_])") + n.name +
                          "($|[^A-Za-z0-9_])");
    EXPECT_TRUE(std::regex_search(shim, word)) << n.name;
  }
  // The shim reads no file: it is compiled with -nostdinc.
  EXPECT_EQ(shim.find("#include"), std::string::npos);
}

TEST(SimSourceCheck, FiftyKilobytesTakeLessThanAMillisecondOrSo) {
  // Copies of the attention source's kernels under new names, after one
  // prelude and template library: about 50 KB.
  const std::string &base = attentionSource();
  const size_t first = base.find("\n// attn0");
  ASSERT_NE(first, std::string::npos);
  std::string source = base;
  for (int copy = 1; source.size() < 50000; ++copy)
    source +=
        std::regex_replace(base.substr(first), std::regex("attn([0-9])\\b"),
                           "attn" + std::to_string(copy) + "_$1");
  ASSERT_TRUE(checkSimSource(source).isOk())
      << checkSimSource(source).message();
  const int runs = 20;
  timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  for (int i = 0; i < runs; ++i)
    ASSERT_TRUE(checkSimSource(source).isOk());
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  const double ms =
      ((t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6) / runs;
  std::printf("checking %zu bytes of CUDA source: %.3f ms of CPU\n",
              source.size(), ms);
  // About 0.4 ms on the 2-core machine (2026-11-25): the bound leaves room
  // for sanitizer builds.
  EXPECT_LT(ms, 10.0);
}

//===----------------------------------------------------------------------===//
// Hostile variants, one family per rule
//===----------------------------------------------------------------------===//

TEST(SimSourceCheck, ConstructorsAndLoadTimeCodeAreRefused) {
  expectRefused({
      {"attribute constructor", Where::Top,
       "__attribute__((constructor)) static void dlc_evil() {}",
       "'__attribute__' is not allowed"},
      {"attribute destructor after the type", Where::Top,
       "static void __attribute__((destructor)) dlc_evil() {}",
       "'__attribute__' is not allowed"},
      {"__attribute without underscores after", Where::Top,
       "__attribute ((constructor)) static void dlc_evil() {}",
       "'__attribute' is not allowed: a reserved name"},
      {"C++11 attribute", Where::Top,
       "[[gnu::constructor]] static void dlc_evil() {}",
       "'[' is not allowed: dlc writes no attribute"},
      {"C++11 attribute with a space", Where::Top,
       "[ [gnu::constructor] ] static void dlc_evil() {}",
       "'[' is not allowed: dlc writes no attribute"},
      {"attribute after the declarator", Where::Top,
       "static void dlc_evil() [[gnu::constructor]] {}",
       "'[' is not allowed: dlc writes no attribute"},
      {"attribute through a macro", Where::Top,
       "#define DLC_CTOR __attribute__((constructor))\n"
       "DLC_CTOR static void dlc_evil() {}",
       "'#define' is not allowed: dlc defines only"},
      {"macro that removes a keyword", Where::Top, "#define constructor",
       "'#define' is not allowed"},
      {"declspec", Where::Top, "__declspec(dllexport) void dlc_evil() {}",
       "'__declspec' is not allowed"},
      {"static initializer calling a function", Where::Top,
       "static int dlc_init = dlc_h2f(0) > 0.0f;",
       "'dlc_init' is not allowed: dlc declares no variable at namespace "
       "scope or in a struct but constant tables"},
      {"direct initializer calling a function", Where::Top,
       "float dlc_init(dlc_h2f(1));",
       "';' is not allowed: a function declared without its body"},
      {"global object with a constructor", Where::Top,
       "struct dlc_s { dlc_s() { dlc_h2f(1); } };\ndlc_s dlc_g;",
       "'dlc_s' is not allowed: a function needs a return type"},
      {"data member", Where::Top, "struct dlc_s { int x = dlc_f2i32(1.0f); };",
       "'x' is not allowed: dlc declares no variable"},
      {"constant table calling a function", Where::Top,
       "static __device__ const float k0_c9[1] = {dlc_h2f(0)};",
       "'dlc_h2f' is not allowed in a constant table"},
      {"constant table with a second declarator", Where::Top,
       "static __device__ const float k0_c9[1] = {1.0f}, dlc_x = dlc_h2f(0);",
       "'}' expected ';' after the constant table"},
      {"shared variable at namespace scope", Where::Top,
       "__shared__ float dlc_x[2];",
       "'dlc_x' is not allowed: dlc declares no variable"},
      {"thread_local", Where::Top, "thread_local float dlc_x = 1.0f;",
       "'thread_local' is not allowed"},
      {"inline asm at namespace scope", Where::Top,
       "asm(\".section .init_array\");", "'asm' is not allowed"},
  });
}

TEST(SimSourceCheck, ReadingFilesIsRefused) {
  expectRefused({
      {"#include by path", Where::Top, "#include \"/etc/passwd\"",
       "'#include' is not allowed: dlc writes no such directive"},
      {"#include <...>", Where::Top, "#include </etc/passwd>",
       "'#include' is not allowed"},
      {"#include with spaces", Where::Top, "  #  include \"/etc/passwd\"",
       "'#include' is not allowed"},
      {"#include in an inactive region", Where::Top,
       "#ifndef DLC_SIM\n#include \"/etc/passwd\"\n#endif",
       "'#include' is not allowed"},
      {"#include_next", Where::Top, "#include_next <stdio.h>",
       "'#include_next' is not allowed"},
      {"#embed", Where::Top, "#embed \"/etc/passwd\"",
       "'#embed' is not allowed"},
      {"#line", Where::Top, "#line 1 \"/etc/passwd\"",
       "'#line' is not allowed"},
      {"digraph directive", Where::Top, "%:include \"/etc/passwd\"",
       "'%:' is not allowed: dlc writes no digraph"},
      {"trigraph directive", Where::Top, "?\?=include \"/etc/passwd\"",
       "'?\?=' is not allowed: dlc writes no trigraph"},
      {"__has_include", Where::Top,
       "#if __has_include(\"/etc/passwd\")\n#endif",
       "'__has_include' is not a macro that dlc's directives test"},
      {"#pragma GCC dependency", Where::Top,
       "#pragma GCC dependency \"/etc/passwd\"",
       "'#pragma' is not allowed: the only pragma dlc writes"},
      {"_Pragma", Where::Body,
       "_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")",
       "'_Pragma' is not allowed"},
      {"asm .incbin", Where::Body, "asm(\".incbin \\\"/etc/passwd\\\"\");",
       "'asm' is not allowed"},
      {"__FILE__", Where::Body, "const int dlc_n = sizeof(__FILE__);",
       "'__FILE__' is not allowed"},
  });
}

TEST(SimSourceCheck, DirectivesOtherThanDlcsAreRefused) {
  expectRefused({
      {"#pragma once", Where::Top, "#pragma once", "'#pragma' is not allowed"},
      {"#pragma unroll of a name", Where::Body, "#pragma unroll dlc_n",
       "'#pragma' is not allowed"},
      {"#pragma GCC poison", Where::Top, "#pragma GCC poison expf",
       "'#pragma' is not allowed"},
      {"#error", Where::Top, "#error stop", "'#error' is not allowed"},
      {"#undef", Where::Top, "#undef DLC_SIM", "'#undef' is not allowed"},
      {"DLC_SIM redefined", Where::Top, "#define DLC_SIM 0",
       "'#define' is not allowed"},
      {"DLC_ATTN_MMA defined as 2", Where::Top, "#define DLC_ATTN_MMA 2",
       "'#define' is not allowed"},
      {"another macro tested", Where::Top, "#ifdef __x86_64__\n#endif",
       "'__x86_64__' is not a macro that dlc's directives test"},
      {"#elif", Where::Top, "#ifdef DLC_SIM\n#elif 1\n#endif",
       "'#elif' is not allowed"},
      {"#else without #if", Where::Top, "#else",
       "'#else' has no #if before it"},
      {"#endif without #if", Where::Top, "#endif",
       "'#endif' has no #if before it"},
      {"two #else", Where::Top, "#ifdef DLC_SIM\n#else\n#else\n#endif",
       "'#else' follows another #else"},
      {"null directive", Where::Top, "#",
       "'#' is not a directive that dlc writes"},
      {"# in the middle of a line", Where::Body, "int dlc_n = 1; #define X",
       "'#' is not allowed outside a directive"},
      {"token pasting", Where::Body, "int dlc_n = 1 ## 2;",
       "'##' is not allowed outside a directive"},
      {"block comment", Where::Top, "/* a comment */",
       "'/*' is not allowed: dlc writes no block comment"},
  });
  // An #if that is never closed names the #if.
  EXPECT_THAT(rejection(mlpSource() + "#ifdef DLC_SIM\n"),
              HasSubstr("'#if' has no #endif"));
}

TEST(SimSourceCheck, InlineAssemblyIsRefused) {
  expectRefused({
      {"asm", Where::Body, "asm(\"nop\");", "'asm' is not allowed"},
      {"asm volatile", Where::Body, "asm volatile(\"nop\");",
       "'asm' is not allowed"},
      {"__asm__", Where::Body, "__asm__(\"nop\");",
       "'__asm__' is not allowed: a reserved name"},
      {"__asm", Where::Body, "__asm(\"nop\");", "'__asm' is not allowed"},
      {"__asm__ __volatile__", Where::Body, "__asm__ __volatile__(\"nop\");",
       "'__asm__' is not allowed"},
  });
}

TEST(SimSourceCheck, FunctionsFromOutsideTheSourceAreRefused) {
  expectRefused({
      {"extern \"C\" declaration", Where::Top,
       "extern \"C\" int system(const char *);",
       "'int' is not allowed: 'extern' begins only a kernel"},
      {"extern \"C\" block", Where::Top,
       "extern \"C\" { int system(const char *); }",
       "'{' is not allowed: 'extern' begins only a kernel"},
      {"extern variable", Where::Top, "extern char **environ;",
       "'char' is not allowed: 'extern' begins only a kernel"},
      {"kernel declared without a body", Where::Top,
       "extern \"C\" __global__ void system(const char *__restrict__ c);",
       "';' expected the kernel's body"},
      {"declaration at namespace scope", Where::Top,
       "int system(const char *);",
       "';' is not allowed: a function declared without its body"},
      {"declaration in a struct", Where::Top,
       "struct dlc_s { static int system(const char *); };",
       "';' is not allowed: a function declared without its body"},
      {"declaration at block scope", Where::Body,
       "int system(const char *);\nsystem((const char *)in0);",
       "'system' is not allowed: this declares a function"},
      {"pointer-returning declaration at block scope", Where::Body,
       "void *dlopen(const char *, int);",
       "'dlopen' is not allowed: this declares a function"},
      {"overload of a shim function at block scope", Where::Body,
       "float expf(int);", "'expf' is not allowed: this declares a function"},
      {"declarator in parentheses", Where::Body, "int (system)(const char *);",
       "'(' is not allowed here: only a cast to an arithmetic type"},
      {"function type through a typedef", Where::Body,
       "typedef int dlc_f(const char *);\ndlc_f system;",
       "'(' is not allowed in a typedef"},
      {"function type as a template argument", Where::Top,
       "template <typename T> struct dlc_t { typedef T type; };\n"
       "__device__ void dlc_g() { typename dlc_t<int(const char *)>::type "
       "system; }",
       "'const' is not allowed here: a type followed by '('"},
      {"function-typed parameter", Where::Top,
       "__device__ void dlc_g(int f(const char *)) {}",
       "'f' is not allowed: this declares a function"},
      {"system called undeclared", Where::Body, "system((const char *)in0);",
       "'system' is called but is neither a function the source defines nor "
       "one the sim shim provides"},
      {"printf called undeclared", Where::Body, "printf((const char *)in0);",
       "'printf' is called but is neither"},
      {"fopen called undeclared", Where::Body,
       "fopen((const char *)in0, (const char *)in0);",
       "'fopen' is called but is neither"},
      {"dlopen called undeclared", Where::Body, "dlopen(0, 0);",
       "'dlopen' is called but is neither"},
      {"call through the global namespace", Where::Body, "::system(0);",
       "'::' is not allowed here"},
      {"call through a cast to a function pointer", Where::Body,
       "((void (*)())in0)();",
       "'(' is not allowed here: only a cast to an arithmetic type"},
      {"call through reinterpret_cast", Where::Body,
       "reinterpret_cast<void (*)()>(in0)();",
       "'(' is not allowed here: only a cast to an arithmetic type"},
      {"call through an array element", Where::Body,
       "float dlc_a[1];\ndlc_a[0]();", "'(' is not allowed here"},
      {"call of a local", Where::Body, "int dlc_p = 0;\ndlc_p();",
       "'dlc_p' is called but is neither"},
      {"a trampoline called", Where::Body, "dlc_sim_entry_k0(0);",
       "is not allowed: names that begin with dlc_sim or DLC_SIM"},
      {"the shim's thread state", Where::Body,
       "dlc_sim_thread_state()->hooks = 0;",
       "'dlc_sim_thread_state' is not allowed"},
      {"a compiler built-in", Where::Body, "__builtin_trap();",
       "'__builtin_trap' is not allowed: a reserved name"},
      {"another compiler built-in", Where::Body,
       "float *dlc_f = (float *)__builtin_frame_address(0);",
       "'__builtin_frame_address' is not allowed"},
      {"a lambda", Where::Body, "[] { }();",
       "'[' is not allowed here: '[' follows an array's name"},
      {"a statement expression", Where::Body, "int dlc_n = ({ 1; });",
       "'{' is not allowed: dlc writes no statement expression"},
      {"a default argument", Where::Top,
       "__device__ void dlc_g(float x = dlc_h2f(0)) {}",
       "'=' is not allowed: dlc writes no default argument"},
  });
}

TEST(SimSourceCheck, KernelsAreCalledByTheirTrampolinesOnly) {
  EXPECT_THAT(rejection(insert(mlpSource(), Where::Body,
                               "gemm_epi0(out0, (const float*)in0);")),
              HasSubstr("'gemm_epi0' is not allowed: a kernel is called only "
                        "by its trampoline"));
  EXPECT_THAT(rejection(insert(attentionSource(), Where::Body,
                               "attn0(in0, in1, in2, in3, out0);")),
              HasSubstr("'attn0' is not allowed: a kernel is called only by "
                        "its trampoline"));
}

TEST(SimSourceCheck, ForbiddenKeywordsAreRefused) {
  for (const char *kw :
       {"goto",     "new",      "delete",    "throw",   "try",
        "typeid",   "volatile", "namespace", "using",   "operator",
        "decltype", "auto",     "class",     "union",   "enum",
        "friend",   "virtual",  "register",  "mutable", "static_assert",
        "nullptr",  "this",     "switch",    "and",     "typeof"}) {
    SCOPED_TRACE(kw);
    const std::string code = std::string("int dlc_") + "x = 0; " + kw + ";";
    EXPECT_THAT(rejection(insert(mlpSource(), Where::Body, code)),
                HasSubstr(std::string("'") + kw + "' is not allowed"));
  }
  EXPECT_THAT(rejection(insert(mlpSource(), Where::Body,
                               "struct dlc_s { int x; } dlc_v;")),
              HasSubstr("'struct' is not allowed inside a function"));
  EXPECT_THAT(rejection(insert(mlpSource(), Where::Body, "extern int x;")),
              HasSubstr("'extern' is not allowed inside a function"));
}

TEST(SimSourceCheck, LiteralsOtherThanDlcsAreRefused) {
  expectRefused({
      {"string literal", Where::Body, "const char *dlc_s = \"/bin/sh\";",
       "'\"/bin/sh\"' is not allowed: the only string literal"},
      {"string of a prefix", Where::Body, "const char *dlc_s = u8\"x\";",
       "'u8\"x\"' is not allowed: the only string literal"},
      {"raw string literal", Where::Body, "const char *dlc_s = R\"(x)\";",
       "'R\"' is not allowed: dlc writes no raw string literal"},
      {"raw string literal in an inactive region", Where::Top,
       "#ifndef DLC_SIM\nconst char *s = R\"(\n#endif\n)\";\n#endif",
       "'R\"' is not allowed"},
      {"character literal", Where::Body, "char dlc_c = 'x';",
       "is not allowed: dlc writes no character literal"},
      {"\"C\" elsewhere", Where::Body, "const char *dlc_s = \"C\";",
       "is not allowed: the only string literal"},
      {"user-defined literal", Where::Body, "int dlc_n = 1_km;",
       "'1_km' is not a number dlc writes"},
      {"digit separator", Where::Body, "int dlc_n = 1'000;",
       "'1'000' is not a number dlc writes"},
      {"binary literal", Where::Body, "int dlc_n = 0b101;",
       "'0b101' is not a number dlc writes"},
      {"hexadecimal float", Where::Body, "float dlc_f = 0x1p3f;",
       "is not a number dlc writes"},
      {"variadic parameters", Where::Top,
       "__device__ void dlc_g(int n, ...) {}", "'...' is not allowed"},
  });
}

TEST(SimSourceCheck, LineContinuationsAndOddCharactersAreRefused) {
  expectRefused({
      {"continued comment", Where::Top,
       "// a comment \\\n#include \"/etc/passwd\"",
       "'\\' is not allowed: dlc writes no line continuation"},
      {"continued comment with a space after the backslash", Where::Top,
       "// a comment \\ \n#include \"/etc/passwd\"",
       "'\\' is not allowed: dlc writes no line continuation"},
      {"continued directive", Where::Top, "#define DLC_ATTN_MMA \\\n1",
       "'\\' is not allowed"},
      {"continued statement", Where::Body, "int dlc_n = 1; \\\n",
       "'\\' is not allowed"},
      {"continued line in an inactive region", Where::Top,
       "#ifndef DLC_SIM\n// \\\n#endif", "'\\' is not allowed"},
      {"trigraph backslash", Where::Top, "// ?\?/\n#include \"x\"",
       "'?\?/' is not allowed: dlc writes no trigraph"},
      {"carriage return before a directive", Where::Top,
       "int dlc_n;\r#include \"/etc/passwd\"",
       "'\\x0d' is not allowed: the only control characters"},
      {"carriage return in a comment", Where::Top,
       "// a comment\r#include \"/etc/passwd\"", "'\\x0d' is not allowed"},
      {"form feed", Where::Body, "int dlc_n;\f", "'\\x0c' is not allowed"},
      {"NUL", Where::Body, std::string("int dlc_n;") + '\0',
       "'\\x00' is not allowed"},
      {"digraph brace", Where::Body, "if (1) <% %>",
       "'<%' is not allowed: dlc writes no digraph"},
      {"digraph bracket", Where::Body, "float dlc_a<:1:>;",
       "'<:' is not allowed: dlc writes no digraph"},
      {"a dollar in a name", Where::Body, "int dlc$n = 0;",
       "'$' is not a character of C++ source"},
      {"a backslash outside a literal", Where::Body, "int \\u0061sm = 0;",
       "'\\' is not a character of C++ source"},
      {"UTF-8 outside a comment", Where::Body, "int dlc_\xc3\xa9 = 0;",
       "'\\xc3' is not a character of C++ source"},
  });
  // Any byte is allowed inside a // comment.
  EXPECT_EQ(rejection(insert(mlpSource(), Where::Top, "// caf\xc3\xa9 @$`")),
            "(accepted)");
}

TEST(SimSourceCheck, KernelsAndTrampolinesHaveDlcsForm) {
  const std::string &base = mlpSource();
  const std::string call = "k0((const float*)args[0], (float*)args[1]);";
  EXPECT_THAT(rejection(replaced(base, call, "k0((const float*)args[0]);")),
              HasSubstr("')' is not allowed: the trampoline passes 1 "
                        "arguments, the kernel has 2 parameters"));
  EXPECT_THAT(
      rejection(replaced(
          base, call,
          "k0((const float*)args[0], (float*)args[1], (float*)args[2]);")),
      HasSubstr("',' is not allowed: the trampoline passes more "
                "arguments than the kernel has parameters"));
  EXPECT_THAT(
      rejection(
          replaced(base, call, "k0((const float*)args[1], (float*)args[1]);")),
      HasSubstr("'1' is not allowed: argument 0 of the trampoline is args[0]"));
  EXPECT_THAT(
      rejection(replaced(base, call, "k0((float*)args[0], (float*)args[1]);")),
      HasSubstr("argument 0 of the trampoline must be cast to its "
                "parameter's type (const float *)"));
  EXPECT_THAT(rejection(replaced(base, call, call + " system(0);")),
              HasSubstr("'system' is not allowed: a trampoline is exactly"));
  EXPECT_THAT(rejection(replaced(base, "(void* const* args)",
                                 "(void* const* args, int n)")),
              HasSubstr("',' is not allowed: a trampoline is exactly"));
  EXPECT_THAT(
      rejection(replaced(base, "const float* __restrict__ in0", "int in0")),
      HasSubstr("'in0' is not allowed: a kernel's parameters are pointers"));
  EXPECT_THAT(rejection(replaced(base, "float* __restrict__ out0) {",
                                 "float* __restrict__ out0 = 0) {")),
              HasSubstr("is not allowed: a kernel's parameters are pointers"));
  EXPECT_THAT(rejection(replaced(base, "extern \"C\" __global__ void k0",
                                 "extern \"C\" __global__ int k0")),
              HasSubstr("'int' expected 'void': a kernel returns nothing"));
  EXPECT_THAT(rejection(replaced(base, "__launch_bounds__(256)",
                                 "__launch_bounds__(dlc_n)")),
              HasSubstr("'__launch_bounds__' takes one or two numbers"));
  EXPECT_THAT(
      rejection(insert(base, Where::Top,
                       "extern \"C\" void dlc_sim_entry_k9(void* const* args) "
                       "{ k9((float*)args[0]); }")),
      HasSubstr("'dlc_sim_entry_k9' is the trampoline of no kernel defined "
                "before it"));
  EXPECT_THAT(rejection(base +
                        "#ifdef DLC_SIM\nextern \"C\" void "
                        "dlc_sim_entry_k0(void* const* args) {\n  " +
                        call + "\n}\n#endif\n"),
              HasSubstr("'dlc_sim_entry_k0' is defined twice"));
  EXPECT_THAT(rejection(insert(base, Where::Top,
                               "extern \"C\" void system(void* const* args) "
                               "{ }")),
              HasSubstr("'system' expected a trampoline dlc_sim_entry_NAME"));
  EXPECT_THAT(rejection(insert(base, Where::Top,
                               "extern \"C\" __global__ void __launch_bounds__"
                               "(1) _init(float* __restrict__ p) { }")),
              HasSubstr("'_init' is not allowed: a reserved name"));
  // A kernel without its trampoline is still a kernel of the source; the
  // session says the trampoline is missing.
  Result<CheckedSimSource> lonely = checkSimSource(
      base + "extern \"C\" __global__ void k_lonely(float* __restrict__ p) "
             "{ p[0] = 1.0f; }\n");
  ASSERT_TRUE(lonely.isOk()) << lonely.message();
  ASSERT_NE(lonely->kernel("k_lonely"), nullptr);
  EXPECT_FALSE(lonely->kernel("k_lonely")->hasTrampoline);
  EXPECT_EQ(lonely->kernel("k_lonely")->params, 1u);
}

TEST(SimSourceCheck, EveryOtherRuleHasItsMessage) {
  const std::string deepIf =
      "#if " + std::string(100, '(') + "1" + std::string(100, ')') + "\n#endif";
  std::string deepTemplate =
      "template <typename T> struct dlc_t;\n__device__ void dlc_g() { "
      "typedef ";
  for (int i = 0; i < 100; ++i)
    deepTemplate += "dlc_t<";
  deepTemplate += "int";
  for (int i = 0; i < 100; ++i)
    deepTemplate += " >";
  deepTemplate += " dlc_x; }";
  const std::string tmpl = "template <typename T> struct dlc_t;\n";
  expectRefused({
      // Lexing and directives.
      {"unterminated string in an inactive region", Where::Top,
       "#ifndef DLC_SIM\nconst char *s = \"abc;\n#endif",
       "'\"abc;' is an unterminated literal"},
      {"unterminated character", Where::Body, "int dlc_n = 'x;",
       "is an unterminated literal"},
      {"#if nested too deeply", Where::Top, deepIf,
       "'(' nests the #if expression too deeply"},
      {"#if without ')'", Where::Top, "#if (1\n#endif",
       "'(' has no ')' in the #if expression"},
      {"#if with an operator dlc does not write", Where::Top,
       "#if 1 + 1\n#endif", "'+' is not allowed here in a #if expression"},
      {"#if with a string", Where::Top, "#if \"x\"\n#endif",
       "'\"x\"' is not allowed in a #if expression"},
      {"#if cut short", Where::Top, "#if !\n#endif",
       "'!' ends the #if expression too early"},
      {"defined()", Where::Top, "#if defined()\n#endif",
       "'defined' needs a macro name"},
      {"defined( without ')'", Where::Top, "#if defined(DLC_SIM\n#endif",
       "'defined' has no ')'"},
      {"#ifdef without a name", Where::Top, "#ifdef\n#endif",
       "'#ifdef' takes one macro name"},
      {"#if without an expression", Where::Top, "#if\n#endif",
       "'#if' needs an expression"},
      {"#endif with a name", Where::Top, "#ifdef DLC_SIM\n#endif DLC_SIM",
       "'DLC_SIM' is not allowed after #endif"},
      // Brackets and template arguments.
      {"mismatched bracket", Where::Body, "int dlc_a[2);",
       "')' does not match the '['"},
      {"template arguments nested too deeply", Where::Top, deepTemplate,
       "nests template arguments too deeply"},
      {"'>>' closing template arguments", Where::Top,
       tmpl + "__device__ void dlc_g() { typedef dlc_t<dlc_t<int>> X; }",
       "'>>' is not allowed: dlc closes nested template arguments"},
      {"a parenthesis closed inside template arguments", Where::Top,
       tmpl + "__device__ void dlc_g(int n) { n = (dlc_t<int); }",
       "')' is not allowed inside template arguments"},
      {"template arguments never closed", Where::Top,
       tmpl + "__device__ void dlc_g() { dlc_t<int ", "'{' is never closed"},
      // Templates and structs.
      {"template without '<'", Where::Top, "template struct dlc_s;",
       "'struct' expected '<' after 'template'"},
      {"template parameter of a struct type", Where::Top,
       tmpl + "template <dlc_t<int> X> __device__ void dlc_g() {}",
       "is not a template parameter dlc writes"},
      {"template parameter without a name", Where::Top,
       "template <typename> __device__ void dlc_g() {}",
       "'>' expected the template parameter's name"},
      {"default template argument", Where::Top,
       "template <typename T = int> __device__ void dlc_g() {}",
       "'=' is not allowed in a template parameter list"},
      {"struct without a name", Where::Top, "struct { int x; };",
       "'{' expected the struct's name"},
      {"specialization of a plain struct", Where::Top,
       "template <> struct dlc_s<0> {};",
       "'<' is not allowed: only a struct template is specialized"},
      {"struct with a base", Where::Top, "struct dlc_s : float4 {};",
       "':' expected the struct's body or ';'"},
      {"struct without ';'", Where::Top,
       "struct dlc_s { typedef int T; }\n__device__ void dlc_g() {}",
       "'}' expected ';' after the struct"},
      {"typedef without a name", Where::Top, "struct dlc_s { typedef int; };",
       "';' expected the typedef's name"},
      {"typedef of a shim name", Where::Body, "typedef int float4;",
       "'float4' is a name of the sim shim"},
      {"typedef of an array", Where::Body, "typedef int dlc_a[2];",
       "'[' is not allowed in a typedef"},
      // Constant tables.
      {"table of a struct type", Where::Top,
       "static __device__ const float4 k0_c9[1] = {1};",
       "'float4' expected the arithmetic type of a constant table"},
      {"table without a name", Where::Top,
       "static __device__ const float [1] = {1};",
       "'[' expected the constant table's name"},
      {"table without a size", Where::Top,
       "static __device__ const float k0_c9 = 1;",
       "'=' expected '[N] = {' of a constant table"},
      // Kernels.
      {"kernel without a name", Where::Top,
       "extern \"C\" __global__ void (float* __restrict__ p) {}",
       "'(' expected the kernel's name"},
      {"kernel without parameters", Where::Top,
       "extern \"C\" __global__ void k9;",
       "';' expected the kernel's parameters"},
      {"extern at the end", Where::End, "extern",
       "'extern' is not allowed: 'extern' begins only"},
      {"__global__ elsewhere", Where::Body, "__global__ int dlc_n;",
       "'__global__' is allowed only where a kernel is defined"},
      // Functions.
      {"member defined out of its struct", Where::Top,
       "struct dlc_s;\n__device__ void dlc_s::f() {}",
       "'f' is not allowed: dlc defines no function out of its class"},
      {"a shim function redefined", Where::Top,
       "__device__ float expf(float x) { return x; }",
       "'expf' is a name of the sim shim or of a kernel"},
      {"const member function", Where::Top, "__device__ void dlc_g() const {}",
       "'const' expected the function's "
       "body"},
      {"a declaration cut short", Where::End, "__device__ void",
       "ends the source: a declaration is incomplete"},
      {"a statement at namespace scope", Where::Top, "dlc_h2f(0);",
       "'dlc_h2f' is not allowed: a function needs a return type"},
      {"a stray ';'", Where::Top, ";",
       "';' is not allowed here: at namespace scope dlc writes"},
      {"keyword before '('", Where::Body, "int dlc_n = 0;\nstatic (dlc_n);",
       "'static' is not allowed before '('"},
      {"struct in a parameter list", Where::Top,
       "__device__ void dlc_g(struct dlc_s *p) {}",
       "'struct' is not allowed in a parameter list"},
      {"alignas before a declarator", Where::Body, "int alignas(4) expf(int);",
       "'alignas' is allowed only as 'alignas(N)' at the start of a "
       "declaration"},
      {"alignas of an expression", Where::Body,
       "alignas(sizeof(float)) float dlc_x[4];",
       "'alignas' is allowed only as 'alignas(N)'"},
      {"a qualified block-scope declaration", Where::Body, "int ::expf(int);",
       "'::' is not allowed here"},
      {"braces in a parameter list", Where::Top,
       "__device__ void dlc_g(float x, int y{0}) {}",
       "'{' is not allowed in a parameter list"},
  });
  EXPECT_THAT(rejection(mlpSource() + "}\n"), HasSubstr("'}' closes nothing"));
  EXPECT_THAT(rejection(insert(mlpSource(), Where::End,
                               "extern \"C\" __global__ void k0(float* "
                               "__restrict__ p) {}")),
              HasSubstr("'k0' is defined twice"));
  EXPECT_THAT(
      rejection(insert(mlpSource(), Where::End, "__device__ void k0() {}")),
      HasSubstr("'k0' is a name of the sim shim or of a kernel"));
  // A source too large for the checker's offsets is refused unread.
  EXPECT_EQ(rejection(std::string((size_t(256) << 20) + 1, ' ')),
            std::string(kSimSourceRejected) +
                "it has 268435457 bytes, more than the 256 MiB a source may "
                "have");
}

TEST(SimSourceCheck, MessagesNameTheLineColumnAndToken) {
  int line = 0;
  const std::string source =
      insert(mlpSource(), Where::Top,
             "  __attribute__((constructor)) void f() {}", &line);
  EXPECT_EQ(rejection(source),
            std::string(kSimSourceRejected) + "line " + std::to_string(line) +
                ":3: '__attribute__' is not allowed: a reserved name that "
                "neither the sim shim nor dlc's code generator defines");
}

//===----------------------------------------------------------------------===//
// Sessions
//===----------------------------------------------------------------------===//

/// Whether the cache directory `dir` holds a sim source or object.
bool compiledAnything(const std::string &dir) {
  for (const std::string &name : TempDir::list(dir + "/sim"))
    if (name.find(".cpp") != std::string::npos ||
        name.find(".so") != std::string::npos)
      return true;
  return false;
}

Result<std::unique_ptr<Session>> createSim(const Package &p) {
  SessionOptions opts;
  opts.device = DeviceKind::Sim;
  return Session::create(p, opts);
}

TEST(SimSourceCheck, AHostileSourceIsRefusedBeforeAnythingIsWritten) {
  TempDir dir("dlc-sim-hostile");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  Package p = elementwisePackage();
  p.cudaSource =
      "__attribute__((constructor)) static void dlc_evil() {}\n" + p.cudaSource;
  Result<std::unique_ptr<Session>> s = createSim(p);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), std::string(kSimSourceRejected) +
                             "line 1:1: '__attribute__' is not allowed: a "
                             "reserved name that neither the sim shim nor "
                             "dlc's code generator defines");
  EXPECT_FALSE(compiledAnything(dir.path()));
}

TEST(SimSourceCheck, EveryKernelOfThePackageIsDefinedByItsSource) {
  TempDir dir("dlc-sim-kernels");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  Package p = elementwisePackage();
  // A valid signature (no step launches it), so only the source can tell.
  p.kernels.push_back({"k_missing", false, KernelSignature()});
  Result<std::unique_ptr<Session>> s = createSim(p);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "sim: kernel k_missing of the package is not "
                         "defined in its CUDA source");
  EXPECT_FALSE(compiledAnything(dir.path()));
}

TEST(SimSourceCheck, AStepPassesAsManyArgumentsAsItsKernelHasParameters) {
  TempDir dir("dlc-sim-args");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  // One argument fewer: the trampoline would read a pointer past the end.
  // The signature is edited to match the step, so validation passes and
  // only the source tells the kernel's real parameters.
  Package p = elementwisePackage();
  p.steps[0].kernel.args.pop_back();
  p.kernels[0].signature.reset();
  signKernels(p);
  Result<std::unique_ptr<Session>> s = createSim(p);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(),
            "step 0 (k_ew): kernel k_ew takes 3 arguments, the step passes 2");
  // One more.
  Package q = elementwisePackage();
  q.steps[0].kernel.args.push_back(q.steps[0].kernel.args[0]);
  q.kernels[0].signature.reset();
  signKernels(q);
  Result<std::unique_ptr<Session>> t = createSim(q);
  ASSERT_FALSE(t.isOk());
  EXPECT_EQ(t.message(),
            "step 0 (k_ew): kernel k_ew takes 3 arguments, the step passes 4");
  EXPECT_FALSE(compiledAnything(dir.path()));

  // A GEMM step's epilogue kernel is launched with C and the bias.
  Package g = gemmPackage();
  g.cudaSource = testKernelSource();
  g.kernels = testKernels();
  g.steps[0].gemm.epilogue = GemmEpilogue::Relu;
  g.steps[0].gemm.epilogueKernel = int32_t(kernelIndex("k_ew"));
  for (KernelInfo &k : g.kernels)
    k.signature.reset();
  signKernels(g);
  Result<std::unique_ptr<Session>> u = createSim(g);
  ASSERT_FALSE(u.isOk());
  EXPECT_EQ(u.message(), "step 0 (bmm): its epilogue kernel k_ew takes 3 "
                         "arguments, the step passes 2 (C and the bias)");
  g.steps[0].gemm.epilogueKernel = int32_t(kernelIndex("k_chain"));
  for (KernelInfo &k : g.kernels)
    k.signature.reset();
  signKernels(g);
  Result<std::unique_ptr<Session>> v = createSim(g);
  EXPECT_TRUE(v.isOk()) << v.message();
}

TEST(SimSourceCheck, AKernelNamedLikeAFunctionOfTheProcessRunsItsOwnBody) {
  // Without -Bsymbolic the trampoline's call of `getpid` would bind to the C
  // library's getpid, not to the kernel.
  Package p;
  p.cudaSource =
      "extern \"C\" __global__ void getpid(float* __restrict__ out) {\n"
      "  out[0] = 42.0f;\n"
      "}\n"
      "#ifdef DLC_SIM\n"
      "extern \"C\" void dlc_sim_entry_getpid(void* const* args) {\n"
      "  getpid((float*)args[0]);\n"
      "}\n"
      "#endif\n";
  p.kernels = {{"getpid", false, std::nullopt}};
  p.outputs = {{DType::F32, {1}}};
  Step s;
  s.kind = Step::Kind::Kernel;
  s.label = "getpid";
  s.kernel.args = {outputRef(0, 4)};
  p.steps = {s};
  signKernels(p);
  Result<std::unique_ptr<Session>> session = createSim(p);
  ASSERT_TRUE(session.isOk()) << session.message();
  Result<std::vector<HostTensor>> out = (*session)->run({});
  ASSERT_TRUE(out.isOk()) << out.message();
  float v = 0;
  std::memcpy(&v, (*out)[0].data.data(), 4);
  EXPECT_EQ(v, 42.0f);
}

/// The path of a compiler on $PATH, or "".
std::string findOnPath(const std::string &name) {
  const char *path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && ::access((d + "/" + name).c_str(), X_OK) == 0)
      return d + "/" + name;
  return "";
}

TEST(SimSourceCheck, ClangCompilesTheCheckedSourceWithTheSameFlags) {
  const std::string clang = findOnPath("clang++");
  if (clang.empty())
    GTEST_SKIP() << "clang++ is not installed";
  TempDir dir("dlc-sim-clang");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  ScopedEnv cxx("DLC_SIM_CXX", clang);
  Package p = elementwisePackage();
  Result<std::unique_ptr<Session>> s = createSim(p);
  ASSERT_TRUE(s.isOk()) << s.message();
  HostTensor x(DType::F32, {kEwSize}), y(DType::F32, {kEwSize});
  for (int i = 0; i < kEwSize; ++i) {
    x.setFromDouble(i, 0.001 * i);
    y.setFromDouble(i, 1.0);
  }
  Result<std::vector<HostTensor>> out = (*s)->run({x, y});
  ASSERT_TRUE(out.isOk()) << out.message();
  float v = 0;
  std::memcpy(&v, (*out)[0].data.data() + 500 * 4, 4);
  EXPECT_FLOAT_EQ(v, std::exp(0.5f) + std::tanh(0.5f));
}

//===----------------------------------------------------------------------===//
// dlc run and dlc-run
//===----------------------------------------------------------------------===//

/// A tool built beside this test binary, or "".
std::string toolPath(const std::string &name) {
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0)
    return "";
  std::string dir(self, size_t(n));
  dir = dir.substr(0, dir.rfind('/'));
  const std::string path = dir + "/" + name;
  return ::access(path.c_str(), X_OK) == 0 ? path : "";
}

/// Runs `command` with its output captured; returns its exit code.
int runTool(const std::string &command, std::string &output) {
  FILE *p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p)
    return -1;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    output.append(buf, n);
  int status = ::pclose(p);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SimSourceCheckTools, DlcRunAndDlcRunRefuseASourceWithAConstructor) {
  TempDir dir("dlc-sim-tools");
  ScopedEnv env("DLC_CACHE_DIR", dir.file("cache"));
  const std::string marker = dir.file("constructor-ran");
  Package p = elementwisePackage();
  // Were it compiled, loading the kernels would create the marker file.
  p.cudaSource = "extern \"C\" void *fopen(const char *, const char *);\n"
                 "__attribute__((constructor)) static void dlc_evil() {\n"
                 "  fopen(\"" +
                 marker + "\", \"w\");\n}\n" + p.cudaSource;
  const std::string pkg = dir.file("hostile.dlcpkg");
  ASSERT_TRUE(writeBytes(pkg, serializePackage(p)));

  bool ranOne = false;
  for (const char *tool : {"dlc", "dlc-run"}) {
    SCOPED_TRACE(tool);
    const std::string path = toolPath(tool);
    if (path.empty())
      continue;
    ranOne = true;
    std::string output;
    const std::string command = std::string(tool) == "dlc"
                                    ? path + " run " + pkg + " --device=sim"
                                    : path + " " + pkg + " --device=sim";
    EXPECT_NE(runTool(command, output), 0) << output;
    EXPECT_THAT(output, HasSubstr(std::string(kSimSourceRejected) +
                                  "line 2:1: '__attribute__' is not allowed"))
        << output;
    EXPECT_FALSE(fileExistsForTest(marker));
    EXPECT_FALSE(compiledAnything(dir.file("cache")));
  }
  if (!ranOne)
    GTEST_SKIP() << "dlc and dlc-run are not built beside this test";
}

} // namespace
