//===- HostileCompiledTest.cpp - A compiled package, edited by an attacker
//-===//
//
// The mutants of HostileMutants.h made of a package the compiler wrote
// (fused pointwise and row kernels, a GEMM with a bias and ReLU epilogue and
// its epilogue kernel, an attention kernel): each is refused by
// validatePackage naming the step or field, refused by the session as too
// large before anything is allocated, or runs on sim without crashing.
//
//===----------------------------------------------------------------------===//

#include "HostileMutants.h"
#include "TestUtil.h"
#include "dlc/dlc.h"

#include <gtest/gtest.h>

namespace {

const char *kModel = R"(
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x32xf32>, %b: tensor<1x32xf32>, %q: tensor<2x16x8xf32>) -> (tensor<8x32xf32>, tensor<2x16x8xf32>) {
  %y = dlc.matmul %x, %w : (tensor<8x16xf32>, tensor<16x32xf32>) -> tensor<8x32xf32>
  %z = tosa.add %y, %b : (tensor<8x32xf32>, tensor<1x32xf32>) -> tensor<8x32xf32>
  %zero = "tosa.const"() <{value = dense<0.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %r = tosa.maximum %z, %zero : (tensor<8x32xf32>, tensor<1x1xf32>) -> tensor<8x32xf32>
  %m = tosa.reduce_max %r {axis = 1 : i32} : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %s = tosa.sub %r, %m : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32>
  %e = tosa.exp %s : (tensor<8x32xf32>) -> tensor<8x32xf32>
  %t = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<8x32xf32>) -> tensor<8x1xf32>
  %i = tosa.reciprocal %t : (tensor<8x1xf32>) -> tensor<8x1xf32>
  %o = tosa.mul %e, %i {shift = 0 : i8} : (tensor<8x32xf32>, tensor<8x1xf32>) -> tensor<8x32xf32>
  %a = dlc.attention %q, %q, %q {scale = 0.25 : f64} : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  %h = tosa.tanh %a : (tensor<2x16x8xf32>) -> tensor<2x16x8xf32>
  return %o, %h : tensor<8x32xf32>, tensor<2x16x8xf32>
}
)";

TEST(HostileCompiledPackage, EveryMutantIsRefusedOrRunsSafely) {
  dlc::rt::test::TempDir cache("dlc-hostile-cache");
  dlc::rt::test::ScopedEnv env("DLC_CACHE_DIR", cache.path());
  // The epilogue kernel runs too (in place of the CPU GEMM's epilogue).
  dlc::rt::test::ScopedEnv fallback("DLC_GEMM_EPILOGUE_FALLBACK", "1");
  dlc::CompileOptions options;
  options.compileCubins = false;
  dlc::rt::Result<dlc::rt::Package> p =
      dlc::compile(kModel, options, "hostile.mlir");
  ASSERT_TRUE(p.isOk()) << p.message();
  // What the compiler signs: every kernel, each launched as compiled.
  size_t kernelSteps = 0, epilogueKernels = 0;
  for (const dlc::rt::Step &s : p->steps) {
    kernelSteps += s.kind == dlc::rt::Step::Kind::Kernel;
    epilogueKernels +=
        s.kind == dlc::rt::Step::Kind::Gemm && s.gemm.epilogueKernel >= 0;
  }
  EXPECT_GE(kernelSteps, 3u);
  EXPECT_EQ(epilogueKernels, 1u);
  for (const dlc::rt::KernelInfo &k : p->kernels)
    EXPECT_TRUE(k.signature.has_value()) << k.name;
  // A signature survives the file format.
  dlc::rt::Result<dlc::rt::Package> q =
      dlc::rt::deserializePackage(dlc::rt::serializePackage(*p));
  ASSERT_TRUE(q.isOk()) << q.message();
  for (size_t k = 0; k < p->kernels.size(); ++k)
    EXPECT_TRUE(*q->kernels[k].signature == *p->kernels[k].signature);

  dlc::rt::test::Tally t = dlc::rt::test::checkMutants(*q);
  EXPECT_GT(t.mutants, 400u);
  EXPECT_GT(t.ran, 0u);
}

} // namespace
