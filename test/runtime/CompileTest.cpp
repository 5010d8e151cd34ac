//===- CompileTest.cpp - NVRTC compilation and the kernel cache -----------===//
//
// NVRTC needs no GPU, so these run everywhere the CUDA toolkit's libnvrtc is
// installed; they are skipped (with the reason) where it is not.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "runtime/Runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

using namespace dlc::rt;
using dlc::rt::test::ScopedEnv;
using dlc::rt::test::TempDir;
using ::testing::HasSubstr;

namespace {

const char *kSaxpy = R"cuda(
extern "C" __global__ void saxpy(const float *__restrict__ x,
                                 float *__restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1000)
    y[i] = 2.0f * x[i] + y[i];
}
)cuda";

class NvrtcTest : public ::testing::Test {
protected:
  void SetUp() override {
    Result<std::string> v = nvrtcVersion();
    if (!v.isOk())
      GTEST_SKIP() << v.message();
    dir_ = std::make_unique<TempDir>("dlc-nvrtc-test");
    env_ = std::make_unique<ScopedEnv>("DLC_CACHE_DIR", dir_->path());
  }
  std::string cubinDir() const { return dir_->path() + "/cubin"; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names = TempDir::list(cubinDir());
    std::sort(names.begin(), names.end());
    return names;
  }

  std::unique_ptr<TempDir> dir_;
  std::unique_ptr<ScopedEnv> env_;
};

/// A cubin is an ELF file for machine EM_CUDA (190).
void expectCubin(const std::vector<uint8_t> &image) {
  ASSERT_GT(image.size(), 64u);
  EXPECT_EQ(image[0], 0x7f);
  EXPECT_EQ(image[1], 'E');
  EXPECT_EQ(image[2], 'L');
  EXPECT_EQ(image[3], 'F');
  EXPECT_EQ(image[18] | (image[19] << 8), 190);
}

TEST_F(NvrtcTest, VersionIsReported) {
  Result<std::string> v = nvrtcVersion();
  ASSERT_TRUE(v.isOk());
  EXPECT_THAT(*v, ::testing::MatchesRegex("[0-9]+\\.[0-9]+"));
}

TEST_F(NvrtcTest, CompilesForSm80AndSm90) {
  Result<std::vector<uint8_t>> a = compileCudaToCubin(kSaxpy, "sm_80");
  ASSERT_TRUE(a.isOk()) << a.message();
  expectCubin(*a);
  Result<std::vector<uint8_t>> b = compileCudaToCubin(kSaxpy, "sm_90");
  ASSERT_TRUE(b.isOk()) << b.message();
  expectCubin(*b);
  EXPECT_NE(*a, *b);
  // The kernel's name is in the cubin's symbol table.
  std::string text(b->begin(), b->end());
  EXPECT_NE(text.find("saxpy"), std::string::npos);
  EXPECT_EQ(entries().size(), 2u);
}

/// 64 values live at once under a 32-register bound: ptxas spills.
const char *kSpilling = R"cuda(
extern "C" __global__ void __launch_bounds__(1024, 2)
spill(const float *__restrict__ x, float *__restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v[64];
#pragma unroll
  for (int j = 0; j < 64; ++j)
    v[j] = x[i * 64 + j];
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < 64; ++j)
    s = s * v[63 - j] + v[j];
  y[i] = s;
}
extern "C" __global__ void small(float *p) { p[threadIdx.x] = 1.0f; }
)cuda";

TEST(PtxasInfo, ParsesEntryFunctions) {
  const char *log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Function properties for dlc_helper\n"
      "ptxas         .     48 bytes stack frame, 8 bytes spill stores, 8 "
      "bytes spill loads\n"
      "ptxas info    : Compiling entry function 'k0' for 'sm_90'\n"
      "ptxas info    : Function properties for k0\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes "
      "spill loads\n"
      "ptxas info    : Used 38 registers, used 0 barriers\n"
      "ptxas info    : Compile time = 4.854 ms\n"
      "ptxas info    : Compiling entry function 'attn0' for 'sm_90'\n"
      "ptxas info    : Function properties for attn0\n"
      "ptxas         .     272 bytes stack frame, 272 bytes spill stores, 328 "
      "bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 272 bytes "
      "cumulative stack size, 16384 bytes smem, 400 bytes cmem[0]";
  std::vector<KernelResources> r = parsePtxasInfo(log);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kernel, "k0");
  EXPECT_EQ(r[0].registers, 38u);
  EXPECT_EQ(r[0].stackBytes, 0u);
  EXPECT_FALSE(r[0].spills());
  EXPECT_EQ(r[1].kernel, "attn0");
  EXPECT_EQ(r[1].registers, 255u);
  EXPECT_EQ(r[1].stackBytes, 272u);
  EXPECT_EQ(r[1].spillStoreBytes, 272u);
  EXPECT_EQ(r[1].spillLoadBytes, 328u);
  EXPECT_TRUE(r[1].spills());
  // Nothing recognisable: nothing reported.
  EXPECT_TRUE(parsePtxasInfo("").empty());
  EXPECT_TRUE(
      parsePtxasInfo("ptxas info : Compiling entry function 'x").empty());
}

TEST_F(NvrtcTest, ReportsRegistersAndSpillsThroughTheCache) {
  for (int pass = 0; pass < 2; ++pass) {
    KernelCacheStats before = kernelCacheStats();
    Result<CompiledCubin> c = compileCuda(kSpilling, "sm_90");
    ASSERT_TRUE(c.isOk()) << c.message();
    expectCubin(c->image);
    KernelCacheStats after = kernelCacheStats();
    // The second compile is a cache hit that keeps the report.
    EXPECT_EQ(after.hits - before.hits, uint64_t(pass));
    ASSERT_EQ(c->resources.size(), 2u);
    const KernelResources *spill = nullptr, *small = nullptr;
    for (const KernelResources &r : c->resources)
      (r.kernel == "spill" ? spill : small) = &r;
    ASSERT_TRUE(spill && small);
    EXPECT_EQ(small->kernel, "small");
    EXPECT_LE(spill->registers, 32u);
    EXPECT_GT(spill->registers, 0u);
    EXPECT_TRUE(spill->spills());
    EXPECT_GT(spill->stackBytes, 0u);
    EXPECT_FALSE(small->spills());
    EXPECT_GT(small->registers, 0u);
  }
}

TEST_F(NvrtcTest, ErrorsCarryTheNvrtcLog) {
  Result<std::vector<uint8_t>> r = compileCudaToCubin(
      "extern \"C\" __global__ void k(float *p) { p[0] = undefined_thing; }",
      "sm_90");
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("NVRTC failed to compile the kernels for "
                                     "sm_90"));
  EXPECT_THAT(r.message(), HasSubstr("undefined_thing"));
  EXPECT_THAT(r.message(), HasSubstr("error"));
  // Failures are not cached.
  EXPECT_TRUE(entries().empty());

  Result<std::vector<uint8_t>> arch = compileCudaToCubin(kSaxpy, "compute_90");
  ASSERT_FALSE(arch.isOk());
  EXPECT_THAT(arch.message(),
              HasSubstr("invalid GPU architecture 'compute_90'"));
}

TEST_F(NvrtcTest, SecondCompileHitsTheCache) {
  KernelCacheStats before = kernelCacheStats();
  Result<std::vector<uint8_t>> a = compileCudaToCubin(kSaxpy, "sm_90");
  ASSERT_TRUE(a.isOk()) << a.message();
  KernelCacheStats mid = kernelCacheStats();
  EXPECT_EQ(mid.misses, before.misses + 1);
  Result<std::vector<uint8_t>> b = compileCudaToCubin(kSaxpy, "sm_90");
  ASSERT_TRUE(b.isOk()) << b.message();
  KernelCacheStats after = kernelCacheStats();
  EXPECT_EQ(after.hits, mid.hits + 1);
  EXPECT_EQ(after.misses, mid.misses);
  EXPECT_EQ(*a, *b);
  // A different source or architecture is a different entry.
  Result<std::vector<uint8_t>> c =
      compileCudaToCubin(std::string(kSaxpy) + "\n// changed\n", "sm_90");
  ASSERT_TRUE(c.isOk());
  EXPECT_EQ(kernelCacheStats().misses, after.misses + 1);
  EXPECT_EQ(entries().size(), 2u);
}

TEST_F(NvrtcTest, CorruptEntriesAreDetectedAndRewritten) {
  Result<std::vector<uint8_t>> good = compileCudaToCubin(kSaxpy, "sm_80");
  ASSERT_TRUE(good.isOk()) << good.message();
  ASSERT_EQ(entries().size(), 1u);
  const std::string path = cubinDir() + "/" + entries()[0];
  const std::vector<uint8_t> original = test::readBytes(path);

  std::vector<std::vector<uint8_t>> damaged;
  damaged.push_back({}); // empty
  damaged.push_back(std::vector<uint8_t>(original.begin(),
                                         original.begin() + 20)); // header cut
  damaged.push_back(std::vector<uint8_t>(original.begin(),
                                         original.end() - 100)); // truncated
  std::vector<uint8_t> flipped = original;
  flipped[flipped.size() / 2] ^= 0x01; // bit flip
  damaged.push_back(flipped);
  std::vector<uint8_t> garbage(original.size(), 0x5a); // garbage
  damaged.push_back(garbage);

  for (size_t i = 0; i < damaged.size(); ++i) {
    ASSERT_TRUE(test::writeBytes(path, damaged[i]));
    KernelCacheStats before = kernelCacheStats();
    Result<std::vector<uint8_t>> again = compileCudaToCubin(kSaxpy, "sm_80");
    ASSERT_TRUE(again.isOk()) << again.message();
    EXPECT_EQ(*again, *good) << "case " << i;
    KernelCacheStats after = kernelCacheStats();
    EXPECT_EQ(after.corruptEntries, before.corruptEntries + 1) << "case " << i;
    EXPECT_EQ(after.misses, before.misses + 1) << "case " << i;
    // The entry was rewritten: it is whole again and the next call hits.
    EXPECT_EQ(test::readBytes(path), original) << "case " << i;
    ASSERT_TRUE(compileCudaToCubin(kSaxpy, "sm_80").isOk());
    EXPECT_EQ(kernelCacheStats().hits, after.hits + 1);
  }
}

TEST_F(NvrtcTest, ConcurrentWritersProduceOneWholeEntry) {
  const std::string source = std::string(kSaxpy) + "\n// concurrent\n";
  const int threads = 4;
  std::vector<Result<std::vector<uint8_t>>> results(
      threads, Result<std::vector<uint8_t>>(Status::error("not run")));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back(
        [&, t] { results[t] = compileCudaToCubin(source, "sm_90"); });
  for (std::thread &t : pool)
    t.join();
  for (int t = 0; t < threads; ++t) {
    ASSERT_TRUE(results[t].isOk()) << results[t].message();
    EXPECT_EQ(*results[t], *results[0]);
  }
  // One entry, no temporary files left behind.
  std::vector<std::string> names = entries();
  ASSERT_EQ(names.size(), 1u) << names[0];
  EXPECT_EQ(names[0].size(), 32u + 6u); // 128-bit hex key + ".cubin"
  KernelCacheStats before = kernelCacheStats();
  Result<std::vector<uint8_t>> again = compileCudaToCubin(source, "sm_90");
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(*again, *results[0]);
  EXPECT_EQ(kernelCacheStats().hits, before.hits + 1);
  EXPECT_EQ(kernelCacheStats().corruptEntries, before.corruptEntries);
}

TEST(KernelCacheDir, FollowsTheEnvironment) {
  {
    ScopedEnv a("DLC_CACHE_DIR", "/some/where");
    EXPECT_EQ(kernelCacheDir(), "/some/where");
  }
  ScopedEnv none("DLC_CACHE_DIR", "");
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(kernelCacheDir(), "/xdg/dlc");
  }
  ScopedEnv noXdg("XDG_CACHE_HOME", "");
  ScopedEnv home("HOME", "/home/u");
  EXPECT_EQ(kernelCacheDir(), "/home/u/.cache/dlc");
}

} // namespace
