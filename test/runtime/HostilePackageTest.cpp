//===- HostilePackageTest.cpp - Edited packages: refused, or run safely ---===//
//
// Every mutant hostileMutants() makes of the hand-written test packages is
// refused by validatePackage with an error naming the step or field, or
// refused by the session before it allocates (too large for any device),
// or runs on sim without crashing. The API tests do the same with a
// compiled package.
//
//===----------------------------------------------------------------------===//

#include "HostileMutants.h"
#include "TestPackages.h"
#include "TestUtil.h"
#include "runtime/Runtime.h"
#include "runtime/Support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

using namespace dlc::rt;
using namespace dlc::rt::test;
using ::testing::HasSubstr;
using ::testing::StartsWith;

namespace {

TEST(HostilePackage, ElementwiseKernel) {
  Tally t = checkMutants(elementwisePackage());
  EXPECT_GT(t.mutants, 150u);
  EXPECT_GT(t.ran, 0u);
}

TEST(HostilePackage, ReductionKernelsWithBarriers) {
  Tally t = checkMutants(reductionPackage(4));
  EXPECT_GT(t.mutants, 200u);
  EXPECT_GT(t.ran, 0u);
}

TEST(HostilePackage, KernelChainThroughTheArena) {
  Tally t = checkMutants(chainPackage(3));
  EXPECT_GT(t.mutants, 300u);
}

TEST(HostilePackage, KernelWithManyOutputs) {
  Tally t = checkMutants(shufflePackage());
  EXPECT_GT(t.mutants, 200u);
}

TEST(HostilePackage, BatchedGemmsAndCopies) {
  Tally t = checkMutants(gemmPackage());
  EXPECT_GT(t.mutants, 200u);
  EXPECT_GT(t.ran, 0u);
}

TEST(HostilePackage, GemmEpilogues) {
  Tally t = checkMutants(epiloguePackage());
  EXPECT_GT(t.mutants, 300u);
}

TEST(HostilePackage, ConvolutionSteps) {
  Tally t = checkMutants(convPackage());
  EXPECT_GT(t.mutants, 150u);
}

TEST(HostilePackage, GemmEpilogueKernel) {
  // The epilogue kernel runs (instead of the CPU GEMM's own epilogue).
  ScopedEnv fallback("DLC_GEMM_EPILOGUE_FALLBACK", "1");
  Tally t = checkMutants(epilogueFallbackPackage());
  EXPECT_GT(t.mutants, 150u);
  EXPECT_GT(t.ran, 0u);
}

//===----------------------------------------------------------------------===//
// The messages
//===----------------------------------------------------------------------===//

std::string refusal(const Package &p) {
  Status st = validatePackage(p);
  EXPECT_FALSE(st.isOk());
  return st.isOk() ? "" : st.message();
}

TEST(HostilePackage, KernelArgumentsMatchTheSignature) {
  Package p = elementwisePackage();
  p.steps[0].kernel.args.pop_back();
  EXPECT_EQ(refusal(p), "step 0 (k_ew) passes 2 arguments but kernel #0 "
                        "(k_ew) takes 3");
  p = elementwisePackage();
  // The output moved to the end of its buffer and cut to its last 8 bytes:
  // in bounds, but the kernel writes 4000 bytes from there.
  p.steps[0].kernel.args[2].offset = 3992;
  p.steps[0].kernel.args[2].bytes = 8;
  EXPECT_EQ(refusal(p), "step 0 (k_ew): argument 2 covers 8 bytes but kernel "
                        "#0 (k_ew) accesses 4000 through parameter 2");
  p = elementwisePackage();
  p.steps[0].kernel.args[2] = inputRef(0, 4000);
  EXPECT_EQ(refusal(p), "step 0 (k_ew): argument 2 writes to input memory, "
                        "which is read-only");
  p = elementwisePackage();
  p.steps[0].kernel.block[0] = 256;
  EXPECT_EQ(refusal(p), "step 0 (k_ew) launches blocks of 256 x 1 x 1 "
                        "threads but kernel #0 (k_ew) was compiled for 128 x "
                        "1 x 1");
  p = elementwisePackage();
  p.steps[0].kernel.grid[0] = 9;
  EXPECT_EQ(refusal(p), "step 0 (k_ew) launches a grid of 9 x 1 x 1 blocks "
                        "but kernel #0 (k_ew) handles at most 8 x 1 x 1");
  p = elementwisePackage();
  p.kernels[0].signature.reset();
  EXPECT_EQ(refusal(p), "kernel #0 (k_ew) has no signature (its launch shape "
                        "and parameters)");
}

TEST(HostilePackage, LaunchesStayWithinThreadsAndData) {
  Package p = elementwisePackage();
  p.steps[0].kernel.grid[0] = 0x7fffffff;
  EXPECT_EQ(refusal(p), "step 0 (k_ew) launches 2147483647 blocks of 128 "
                        "threads, 274877906816 threads in all; a launch may "
                        "have at most 2^31 - 1 (kernels index their threads "
                        "in 32-bit arithmetic)");
  p.steps[0].kernel.grid[1] = p.steps[0].kernel.grid[2] = 65535;
  EXPECT_THAT(refusal(p), HasSubstr("launches 9223090559730712575 blocks"));
  // 16M blocks of one thread over 12000 bytes.
  p = elementwisePackage();
  p.steps[0].kernel.grid[0] = 1u << 24;
  p.steps[0].kernel.block[0] = 1;
  EXPECT_EQ(refusal(p), "step 0 (k_ew) launches 16777216 blocks over 12000 "
                        "bytes of arguments; a kernel launch may have at most "
                        "one block per byte it is passed");
}

TEST(HostilePackage, GemmArithmeticDoesNotWrap) {
  Package p = gemmPackage();
  // (batch - 1) * strideC alone is about 2^71.
  p.steps[0].gemm.batch = (int64_t(1) << 31) - 1;
  p.steps[0].gemm.strideA = p.steps[0].gemm.strideC = (int64_t(1) << 40) - 1;
  EXPECT_EQ(refusal(p), "step 0 (bmm): operand A needs 2^64 or more bytes but "
                        "its buffer reference covers 240");
  p = gemmPackage();
  p.steps[0].gemm.strideC = 1; // the batch's results overlap
  EXPECT_EQ(refusal(p), "step 0 (bmm): operand C has batch stride 1 but each "
                        "of its matrices spans 24 elements: the batch's "
                        "matrices overlap");
  p = gemmPackage();
  p.steps[0].gemm.m = int64_t(1) << 62;
  EXPECT_THAT(refusal(p), HasSubstr("must lie in [0, 2^31)"));
}

TEST(HostilePackage, EpilogueKernelsMatchWhatTheRuntimePasses) {
  Package p = epilogueFallbackPackage();
  p.kernels[0].signature->params.push_back({4, false});
  EXPECT_EQ(refusal(p), "step 0 (gemm relu): epilogue kernel #0 (gemm_epi0) "
                        "takes 3 parameters; an epilogue kernel takes 2 (C "
                        "and the bias)");
  p = epilogueFallbackPackage();
  p.kernels[0].signature->params[1].bytes = 32;
  EXPECT_EQ(refusal(p), "step 0 (gemm relu): epilogue kernel #0 (gemm_epi0) "
                        "accesses 32 bytes through the bias, whose buffer "
                        "reference covers 28");
  p = epilogueFallbackPackage();
  p.kernels[0].signature->block[0] = 512;
  EXPECT_THAT(refusal(p), HasSubstr("was compiled for blocks of 512 x 1 x 1 "
                                    "threads; the runtime launches epilogue "
                                    "kernels with 256 x 1 x 1"));
}

TEST(HostilePackage, DescriptionsWhoseSizeOverflowsAreRefused) {
  Package p = elementwisePackage();
  p.outputs[0].shape = {int64_t(1) << 32, int64_t(1) << 32};
  EXPECT_EQ(refusal(p), "output #0 is too large: f32[4294967296, 4294967296] "
                        "has more than 2^56 elements");
}

/// Older formats record no signatures, so nothing would bound what their
/// kernels touch: a package of format 1 to 4 runs only without kernels, and
/// one rewritten as version 4 to skip the signature checks is refused.
TEST(HostilePackage, OlderFormatsWithKernelsAreRefused) {
  Package p = chainPackage(3);
  p.formatVersion = 4;
  for (KernelInfo &k : p.kernels)
    k.signature.reset();
  EXPECT_THAT(refusal(p),
              HasSubstr("has no signature: packages of format 4 record none, "
                        "so their kernels cannot be checked before they run; "
                        "compile the model again with this dlc"));
  p.steps[2].kernel.args.pop_back();
  EXPECT_THAT(refusal(p), HasSubstr("has no signature"));
  // Without kernels an old package is still run.
  Package g = gemmPackage();
  g.formatVersion = 4;
  EXPECT_TRUE(validatePackage(g).isOk()) << validatePackage(g).message();
}

//===----------------------------------------------------------------------===//
// Memory that fits the device
//===----------------------------------------------------------------------===//

TEST(HostilePackage, TooLargeForTheDeviceIsRefusedBeforeAllocating) {
  Package p = elementwisePackage();
  p.outputs[0].shape = {int64_t(1) << 40}; // 4 TiB
  SessionOptions sim;
  Result<std::unique_ptr<Session>> s = Session::create(p, sim);
  ASSERT_FALSE(s.isOk());
  MemoryLimit host = hostMemoryLimit();
  EXPECT_EQ(s.message(), "the package needs 4 TiB of device memory (arena 0 "
                         "bytes, inputs 7.8 KiB, outputs 4 TiB, constants 0 "
                         "bytes) but " +
                             host.what + " " + formatBytes(host.bytes));
  // An arena of 2^64 - 1 bytes: the sum does not fit in 64 bits either.
  p = elementwisePackage();
  p.arenaBytes = ~uint64_t(0);
  s = Session::create(p, sim);
  ASSERT_FALSE(s.isOk());
  EXPECT_THAT(s.message(), StartsWith("the package needs 2^64 bytes or more "
                                      "of device memory (arena 16384 PiB, "));
}

TEST(HostilePackage, MaxMemoryLowersTheLimit) {
  Package p = elementwisePackage();
  SessionOptions sim;
  sim.maxMemory = 8192;
  Result<std::unique_ptr<Session>> s = Session::create(p, sim);
  ASSERT_FALSE(s.isOk());
  EXPECT_THAT(s.message(),
              StartsWith("the package needs 11.7 KiB of device memory (arena "
                         "0 bytes, inputs 7.8 KiB, outputs 3.9 KiB, constants "
                         "0 bytes) but --max-memory allows 8 KiB ("));
  sim.maxMemory = 12000; // exactly what it needs
  s = Session::create(p, sim);
  ASSERT_TRUE(s.isOk()) << s.message();
}

TEST(HostilePackage, LargeArenaIsNotZeroFilled) {
  // A 6 GiB arena (less on a small host) of which two small steps use a
  // few KiB: its pages are mapped, not touched, so the run takes
  // milliseconds.
  Package p = elementwisePackage();
  p.arenaBytes =
      std::min<uint64_t>(uint64_t(6) << 30, hostMemoryLimit().bytes / 4);
  p.steps[0].kernel.args[2] = arenaRef(p.arenaBytes - 4096, 4000);
  Step copy;
  copy.kind = Step::Kind::Copy;
  copy.label = "copy";
  copy.copy.src = arenaRef(p.arenaBytes - 4096, 4000);
  copy.copy.dst = outputRef(0, 4000);
  p.steps.push_back(copy);
  ASSERT_TRUE(validatePackage(p).isOk()) << validatePackage(p).message();
  SessionOptions sim;
  // Compiled (or found in the cache) outside the measurement.
  ASSERT_TRUE(Session::create(elementwisePackage(), sim).isOk());
  auto start = std::chrono::steady_clock::now();
  Result<std::unique_ptr<Session>> s = Session::create(p, sim);
  ASSERT_TRUE(s.isOk()) << s.message();
  Result<std::vector<HostTensor>> out = (*s)->run(randomInputs(p, 3));
  ASSERT_TRUE(out.isOk()) << out.message();
  double ms = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  std::printf("%s arena: session and run in %.1f ms\n",
              formatBytes(p.arenaBytes).c_str(), ms);
  EXPECT_LT(ms, 2000.0);
}

TEST(HostilePackage, HostTensorsFromDescriptionsFailAsErrors) {
  Result<HostTensor> t =
      HostTensor::allocate(DType::F32, {int64_t(1) << 40}, "output #0");
  ASSERT_FALSE(t.isOk());
  EXPECT_THAT(t.message(), StartsWith("output #0 f32[1099511627776] needs 4 "
                                      "TiB of host memory but "));
  t = HostTensor::allocate(DType::I64, {int64_t(1) << 62, 4}, "input #1");
  ASSERT_FALSE(t.isOk());
  EXPECT_EQ(t.message(), "input #1 i64[4611686018427387904, 4] needs 2^64 "
                         "bytes or more of host memory");
  t = HostTensor::allocate(DType::F32, {-2}, "output #1");
  ASSERT_FALSE(t.isOk());
  EXPECT_EQ(t.message(), "output #1 f32[-2] has a negative dimension");
  // The constructor throws a std::bad_alloc that says what.
  try {
    HostTensor h(DType::F32, {int64_t(1) << 40});
    ADD_FAILURE() << "allocated 4 TiB";
  } catch (const std::bad_alloc &e) {
    EXPECT_THAT(e.what(), HasSubstr("f32[1099511627776] needs 4 TiB"));
  }
  t = HostTensor::allocate(DType::F16, {3, 5}, "output #2");
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->data.size(), 30u);
}

} // namespace
