//===- SimTest.cpp - The sim device and the CPU GEMM ----------------------===//

#include "ProfileCheck.h"
#include "TestPackages.h"
#include "TestUtil.h"
#include "runtime/CpuGemm.h"
#include "runtime/Runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstring>

using namespace dlc::rt;
using namespace dlc::rt::test;
using ::testing::HasSubstr;

namespace {

/// Sim sessions share the process's cache directory: $DLC_CACHE_DIR (CTest
/// sets one in the build tree) or a temporary one.
class SimCacheEnvironment : public ::testing::Environment {
public:
  void SetUp() override {
    const char *dir = std::getenv("DLC_CACHE_DIR");
    if (!dir || !*dir) {
      temp_ = std::make_unique<TempDir>("dlc-sim-cache");
      ::setenv("DLC_CACHE_DIR", temp_->path().c_str(), 1);
    }
  }
  void TearDown() override {
    if (temp_)
      ::unsetenv("DLC_CACHE_DIR");
    temp_.reset();
  }

private:
  std::unique_ptr<TempDir> temp_;
};
const auto *const simCacheEnvironment =
    ::testing::AddGlobalTestEnvironment(new SimCacheEnvironment);

std::unique_ptr<Session> openSim(const Package &p) {
  SessionOptions opts;
  opts.device = DeviceKind::Sim;
  Result<std::unique_ptr<Session>> s = Session::create(p, opts);
  EXPECT_TRUE(s.isOk()) << s.message();
  return s.isOk() ? s.take() : nullptr;
}

HostTensor randomTensor(DType t, std::vector<int64_t> shape, uint64_t seed,
                        float lo = -2.0f, float hi = 2.0f) {
  HostTensor x(t, std::move(shape));
  Rng rng(seed);
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.setFromDouble(i, rng.uniform(lo, hi));
  return x;
}

template <typename T> T at(const HostTensor &t, int64_t i) {
  T v;
  std::memcpy(&v, t.data.data() + i * sizeof(T), sizeof(T));
  return v;
}

TEST(Sim, ElementwiseKernel) {
  auto s = openSim(elementwisePackage());
  ASSERT_TRUE(s);
  EXPECT_EQ(s->deviceDescription(), "sim (CPU emulation)");
  HostTensor x = randomTensor(DType::F32, {kEwSize}, 1);
  HostTensor y = randomTensor(DType::F32, {kEwSize}, 2);
  Result<std::vector<HostTensor>> out = s->run({x, y});
  ASSERT_TRUE(out.isOk()) << out.message();
  ASSERT_EQ(out->size(), 1u);
  for (int i = 0; i < kEwSize; ++i) {
    float xi = at<float>(x, i), yi = at<float>(y, i);
    EXPECT_FLOAT_EQ(at<float>((*out)[0], i), std::exp(xi) + yi * std::tanh(xi))
        << i;
  }
  // A session runs any number of times.
  Result<std::vector<HostTensor>> again = s->run({x, y});
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ((*again)[0].data, (*out)[0].data);
}

TEST(Sim, BlockReductionWithSharedMemoryAndWarpShuffles) {
  const int rows = 7;
  auto s = openSim(reductionPackage(rows));
  ASSERT_TRUE(s);
  HostTensor in = randomTensor(DType::F32, {rows, kRowLength}, 3, -1.0f, 1.0f);
  Result<std::vector<HostTensor>> out = s->run({in});
  ASSERT_TRUE(out.isOk()) << out.message();
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    float mx = -3e38f;
    for (int c = 0; c < kRowLength; ++c) {
      float v = at<float>(in, r * kRowLength + c);
      sum += v;
      mx = std::max(mx, v);
    }
    EXPECT_NEAR(at<float>((*out)[0], r), sum, 1e-4 * kRowLength) << r;
    EXPECT_EQ(at<float>((*out)[1], r), mx) << r;
  }
}

/// The source lane of each shuffle per CUDA's documented semantics.
int shflIdx(int lane, int src, int width) {
  return lane / width * width + src % width;
}
int shflUp(int lane, int delta, int width) {
  return lane % width >= delta ? lane - delta : lane;
}
int shflDown(int lane, int delta, int width) {
  return lane % width + delta < width ? lane + delta : lane;
}
int shflXor(int lane, int mask, int width) {
  int src = lane ^ mask;
  // Later segments are out of reach; earlier ones are not.
  return src / width > lane / width ? lane : src;
}

void checkShuffleResults(const HostTensor &in,
                         const std::vector<HostTensor> &out) {
  for (int t = 0; t < 128; ++t) {
    const int warpBase = t / 32 * 32, lane = t % 32;
    auto v = [&](int srcLane) { return at<float>(in, warpBase + srcLane); };
    const float *o =
        reinterpret_cast<const float *>(out[0].data.data()) + t * 8;
    EXPECT_EQ(o[0], v(shflIdx(lane, (lane + 3) % 32, 32))) << t;
    EXPECT_EQ(o[1], v(shflUp(lane, 2, 32))) << t;
    EXPECT_EQ(o[2], v(shflDown(lane, 5, 32))) << t;
    EXPECT_EQ(o[3], v(shflXor(lane, 7, 32))) << t;
    EXPECT_EQ(o[4], v(shflIdx(lane, 5, 8))) << t;
    EXPECT_EQ(o[5], v(shflUp(lane, 3, 8))) << t;
    EXPECT_EQ(o[6], v(shflDown(lane, 3, 8))) << t;
    EXPECT_EQ(o[7], v(shflXor(lane, 9, 8))) << t;
    unsigned ballot = 0;
    bool any = false, all = true;
    for (int l = 0; l < 32; ++l) {
      if (l % 3 == 0)
        ballot |= 1u << l;
      any |= v(l) > 0.9f;
      all &= v(l) >= 0.0f;
    }
    const int32_t *w =
        reinterpret_cast<const int32_t *>(out[1].data.data()) + t * 3;
    EXPECT_EQ(uint32_t(w[0]), ballot) << t;
    EXPECT_EQ(w[1] != 0, any) << t;
    EXPECT_EQ(w[2] != 0, all) << t;
    double d;
    std::memcpy(&d, out[2].data.data() + t * 8, 8);
    EXPECT_EQ(d, double(v(lane ^ 1)) * 1.0e10) << t;
  }
}

HostTensor shuffleInput() {
  // Warp 1 has no value above 0.9 and one negative, warp 2 is all positive:
  // the votes differ between warps.
  HostTensor in(DType::F32, {128});
  for (int i = 0; i < 128; ++i)
    in.setFromDouble(i, (i % 32) / 40.0 + (i / 32) * 0.01);
  in.setFromDouble(33, -0.5);
  in.setFromDouble(100, 5.0);
  return in;
}

TEST(Sim, ShuffleAndVoteSemantics) {
  auto s = openSim(shufflePackage());
  ASSERT_TRUE(s);
  HostTensor in = shuffleInput();
  Result<std::vector<HostTensor>> out = s->run({in});
  ASSERT_TRUE(out.isOk()) << out.message();
  checkShuffleResults(in, *out);
}

TEST(Sim, UcontextFibersBehaveTheSame) {
  ScopedEnv env("DLC_SIM_FIBERS", "ucontext");
  auto s = openSim(shufflePackage());
  ASSERT_TRUE(s);
  HostTensor in = shuffleInput();
  Result<std::vector<HostTensor>> out = s->run({in});
  ASSERT_TRUE(out.isOk()) << out.message();
  checkShuffleResults(in, *out);

  auto r = openSim(reductionPackage(3));
  ASSERT_TRUE(r);
  HostTensor x = randomTensor(DType::F32, {3, kRowLength}, 4);
  Result<std::vector<HostTensor>> a = r->run({x});
  ASSERT_TRUE(a.isOk()) << a.message();
  ::unsetenv("DLC_SIM_FIBERS");
  auto asmSession = openSim(reductionPackage(3));
  Result<std::vector<HostTensor>> b = asmSession->run({x});
  ASSERT_TRUE(b.isOk()) << b.message();
  EXPECT_EQ((*a)[0].data, (*b)[0].data);
  EXPECT_EQ((*a)[1].data, (*b)[1].data);
}

TEST(Sim, AtomicsAcrossConcurrentBlocks) {
  Package p = basePackage();
  const int n = 64 * 128;
  p.inputs = {{DType::F32, {n}}};
  p.outputs = {{DType::F32, {}}, {DType::I32, {5}}, {DType::I64, {}}};
  p.steps.push_back(kernelStep("k_atomics", {64}, {128},
                               {inputRef(0, n * 4), outputRef(0, 4),
                                outputRef(1, 20), outputRef(2, 8)}));
  signKernels(p);
  auto s = openSim(p);
  ASSERT_TRUE(s);
  HostTensor in(DType::F32, {n});
  for (int i = 0; i < n; ++i)
    in.setFromDouble(i, 0.25); // exact in any order
  Result<std::vector<HostTensor>> out = s->run({in});
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_EQ(at<float>((*out)[0], 0), 0.25f * n);
  EXPECT_EQ(at<int32_t>((*out)[1], 0), n);
  EXPECT_EQ(at<int32_t>((*out)[1], 1), n - 1);
  EXPECT_EQ(at<int32_t>((*out)[1], 2), -(n - 1));
  EXPECT_EQ(at<int32_t>((*out)[1], 3), 12345);
  EXPECT_EQ(at<int32_t>((*out)[1], 4), 1);
  EXPECT_EQ(at<int64_t>((*out)[2], 0), int64_t(n) * (n - 1) / 2);
}

TEST(Sim, ThreadAndBlockCoordinatesIn3D) {
  Package p = basePackage();
  const int blocks = 2 * 3 * 2, threads = 4 * 2 * 3, n = blocks * threads;
  p.outputs = {{DType::I32, {n}}};
  p.steps.push_back(
      kernelStep("k_coords", {2, 3, 2}, {4, 2, 3}, {outputRef(0, n * 4)}));
  signKernels(p);
  auto s = openSim(p);
  ASSERT_TRUE(s);
  Result<std::vector<HostTensor>> out = s->run({});
  ASSERT_TRUE(out.isOk()) << out.message();
  int i = 0;
  for (int bz = 0; bz < 2; ++bz)
    for (int by = 0; by < 3; ++by)
      for (int bx = 0; bx < 2; ++bx)
        for (int tz = 0; tz < 3; ++tz)
          for (int ty = 0; ty < 2; ++ty)
            for (int tx = 0; tx < 4; ++tx)
              EXPECT_EQ(at<int32_t>((*out)[0], i++),
                        tx + 10 * ty + 100 * tz + 1000 * bx + 10000 * by +
                            100000 * bz);
}

bool sameFloat(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 4) == 0;
}

TEST(Sim, HalfAndBFloat16ConversionsMatchTheRuntime) {
  auto s = openSim(halfPackage());
  ASSERT_TRUE(s);
  std::vector<HostTensor> in = halfInputs();
  Result<std::vector<HostTensor>> out = s->run(in);
  ASSERT_TRUE(out.isOk()) << out.message();
  for (uint32_t i = 0; i < 65536; ++i) {
    ASSERT_TRUE(sameFloat(at<float>((*out)[0], i), halfToFloat(uint16_t(i))))
        << i;
    ASSERT_TRUE(
        sameFloat(at<float>((*out)[1], i), bfloat16ToFloat(uint16_t(i))))
        << i;
  }
  for (int i = 0; i < kHalfInputs; ++i) {
    float f = at<float>(in[1], i);
    if (std::isnan(f))
      continue;
    EXPECT_EQ(at<uint16_t>((*out)[2], i), floatToHalf(f)) << f;
    EXPECT_EQ(at<uint16_t>((*out)[3], i), floatToBFloat16(f)) << f;
  }
}

TEST(Sim, RunOnDeviceUsesCallerBuffers) {
  auto s = openSim(elementwisePackage());
  ASSERT_TRUE(s);
  std::vector<float> x(kEwSize, 0.5f), y(kEwSize, 2.0f), out(kEwSize, -1.0f);
  ASSERT_TRUE(s->runOnDevice({x.data(), y.data()}, {out.data()}).isOk());
  EXPECT_FLOAT_EQ(out[17], std::exp(0.5f) + 2.0f * std::tanh(0.5f));
  Status bad = s->runOnDevice({x.data()}, {out.data()});
  ASSERT_FALSE(bad.isOk());
  EXPECT_THAT(bad.message(), HasSubstr("expected 2 inputs and 1 outputs"));
  Status null = s->runOnDevice({x.data(), nullptr}, {out.data()});
  ASSERT_FALSE(null.isOk());
  EXPECT_THAT(null.message(), HasSubstr("input #1 is a null pointer"));
}

TEST(Sim, WrongInputsAreRejectedByName) {
  Package p = elementwisePackage();
  p.inputs[1] = {DType::F32, {4, 8}};
  p.steps[0].kernel.args[1].bytes = 128;
  // A kernel compiled for the smaller input (the runs below fail before any
  // step).
  p.kernels[kernelIndex("k_ew")].signature.reset();
  signKernels(p);
  auto s = openSim(p);
  ASSERT_TRUE(s);
  HostTensor x(DType::F32, {kEwSize});
  Result<std::vector<HostTensor>> r =
      s->run({x, HostTensor(DType::F32, {4, 9})});
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "input #1 (arg1): expected f32[4, 8], got f32[4, 9]");
  r = s->run({x, HostTensor(DType::F16, {4, 8})});
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "input #1 (arg1): expected f32[4, 8], got f16[4, 8]");
  r = s->run({x});
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "expected 2 inputs, got 1");
  HostTensor shortData(DType::F32, {4, 8});
  shortData.data.resize(5);
  r = s->run({x, shortData});
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("input #1 (arg1): f32[4, 8] should hold "
                                     "128 bytes, but its data has 5"));
}

std::string simError(const std::string &kernel, uint32_t block = 32) {
  Package p = basePackage();
  p.outputs = {{DType::F32, {block}}};
  p.steps.push_back(
      kernelStep(kernel, {2}, {block}, {outputRef(0, block * 4)}));
  signKernels(p);
  auto s = openSim(p);
  if (!s)
    return "no session";
  Result<std::vector<HostTensor>> r = s->run({});
  EXPECT_FALSE(r.isOk()) << kernel;
  return r.isOk() ? "" : r.message();
}

TEST(Sim, BarrierDivergenceIsAnErrorNotAHang) {
  EXPECT_EQ(
      simError("k_bad_sync"),
      "step 0 (k_bad_sync): kernel k_bad_sync: barrier divergence in "
      "block (0,0,0): threads 0-15 wait at __syncthreads(); threads 16-31 "
      "have exited; every thread of a block must reach each "
      "__syncthreads()");
}

TEST(Sim, WarpCollectiveDeadlockIsAnError) {
  std::string msg = simError("k_bad_warp", 64);
  EXPECT_THAT(msg, HasSubstr("deadlock in block (0,0,0)"));
  EXPECT_THAT(msg, HasSubstr("threads 0-15, 32-47 wait in __shfl_xor_sync "
                             "(mask 0xffffffff)"));
  EXPECT_THAT(msg, HasSubstr("threads 16-31, 48-63 wait at __syncthreads()"));
}

TEST(Sim, ExitedLaneInTheMaskIsAnError) {
  EXPECT_THAT(simError("k_bad_exit"),
              HasSubstr("thread 0 (0,0,0) calls __shfl_xor_sync with mask "
                        "0xffffffff, but lane 8 (thread 8 (8,0,0)) has "
                        "exited"));
}

TEST(Sim, MaskWithoutTheCallingLaneIsAnError) {
  EXPECT_THAT(simError("k_bad_mask"),
              HasSubstr("thread 1 (1,0,0) calls __shfl_sync with mask "
                        "0x00000001, which does not include its own lane 1"));
}

TEST(Sim, BarrierInAKernelMarkedWithoutBarriersIsAnError) {
  Package p = basePackage();
  p.kernels[kernelIndex("k_rowsum")].usesBarriers = false;
  p.inputs = {{DType::F32, {1, kRowLength}}};
  p.outputs = {{DType::F32, {1}}};
  p.steps.push_back(kernelStep("k_rowsum", {1}, {256},
                               {inputRef(0, kRowLength * 4), outputRef(0, 4)}));
  signKernels(p);
  auto s = openSim(p);
  ASSERT_TRUE(s);
  Result<std::vector<HostTensor>> r =
      s->run({HostTensor(DType::F32, {1, kRowLength})});
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("step 0 (k_rowsum): kernel k_rowsum: "
                                     "block (0,0,0): the kernel calls "
                                     "__syncthreads() but its KernelInfo says "
                                     "usesBarriers = false"));
}

TEST(Sim, DynamicSharedMemoryIsRejected) {
  Package p = elementwisePackage();
  p.steps[0].kernel.sharedBytes = 1024;
  SessionOptions opts;
  Result<std::unique_ptr<Session>> s = Session::create(p, opts);
  ASSERT_FALSE(s.isOk());
  EXPECT_THAT(s.message(), HasSubstr("1024 bytes of dynamic shared memory"));
}

TEST(Sim, InvalidPackagesAreRejectedBeforeRunning) {
  Package p = elementwisePackage();
  p.steps[0].kernel.args[2].bytes = 1u << 20;
  SessionOptions opts;
  Result<std::unique_ptr<Session>> s = Session::create(p, opts);
  ASSERT_FALSE(s.isOk());
  EXPECT_THAT(s.message(), HasSubstr("invalid package: step 0 (k_ew): "
                                     "argument 2 refers to output #0"));
}

TEST(Sim, MissingTrampolineIsAnError) {
  // A kernel of the source without its trampoline (a kernel the source does
  // not define at all: SimSourceCheckTest).
  Package p = elementwisePackage();
  p.cudaSource += "extern \"C\" __global__ void k_missing(float *__restrict__ "
                  "out) { out[0] = 1.0f; }\n";
  p.kernels.push_back({"k_missing", false, KernelSignature()});
  SessionOptions opts;
  Result<std::unique_ptr<Session>> s = Session::create(p, opts);
  ASSERT_FALSE(s.isOk());
  EXPECT_THAT(s.message(), HasSubstr("no trampoline dlc_sim_entry_k_missing "
                                     "for kernel k_missing"));
}

TEST(Sim, CompileErrorsShowTheCompilerOutput) {
  TempDir dir("dlc-sim-err");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  Package p;
  p.cudaSource = "extern \"C\" __global__ void k0(float *p) { p[0] = "
                 "not_declared_anywhere; }\n"
                 "#ifdef DLC_SIM\n"
                 "extern \"C\" void dlc_sim_entry_k0(void *const *a) { "
                 "k0((float *)a[0]); }\n"
                 "#endif\n";
  p.kernels = {{"k0", false, KernelSignature()}};
  SessionOptions opts;
  Result<std::unique_ptr<Session>> s = Session::create(p, opts);
  ASSERT_FALSE(s.isOk());
  EXPECT_THAT(s.message(), HasSubstr("sim: compiling the CUDA source with"));
  EXPECT_THAT(s.message(), HasSubstr("not_declared_anywhere"));
  EXPECT_THAT(s.message(), HasSubstr(dir.path() + "/sim/"));
}

TEST(Sim, CompiledKernelsAreCachedAndRebuiltWhenCorrupt) {
  TempDir dir("dlc-sim-cache-test");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  Package p = elementwisePackage();
  p.cudaSource += "\n// cache test\n";
  KernelCacheStats s0 = kernelCacheStats();
  auto a = openSim(p);
  ASSERT_TRUE(a);
  KernelCacheStats s1 = kernelCacheStats();
  EXPECT_EQ(s1.misses, s0.misses + 1);
  auto b = openSim(p);
  ASSERT_TRUE(b);
  KernelCacheStats s2 = kernelCacheStats();
  EXPECT_EQ(s2.hits, s1.hits + 1);
  EXPECT_EQ(s2.misses, s1.misses);

  std::string so;
  for (const std::string &name : TempDir::list(dir.path() + "/sim"))
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".so") == 0)
      so = dir.path() + "/sim/" + name;
  ASSERT_FALSE(so.empty());
  // Replace the file (never rewrite a loaded library in place: its pages
  // are mapped into this process).
  a.reset();
  b.reset();
  std::vector<uint8_t> bytes = readBytes(so);
  bytes.resize(bytes.size() / 2);
  ASSERT_TRUE(writeBytes(so + ".new", bytes));
  ASSERT_EQ(std::rename((so + ".new").c_str(), so.c_str()), 0);
  auto c = openSim(p);
  ASSERT_TRUE(c);
  KernelCacheStats s3 = kernelCacheStats();
  EXPECT_EQ(s3.corruptEntries, s2.corruptEntries + 1);
  EXPECT_EQ(s3.misses, s2.misses + 1);
  HostTensor x = randomTensor(DType::F32, {kEwSize}, 5);
  Result<std::vector<HostTensor>> out = c->run({x, x});
  ASSERT_TRUE(out.isOk()) << out.message();
  float x0 = at<float>(x, 0);
  EXPECT_FLOAT_EQ(at<float>((*out)[0], 0), std::exp(x0) + x0 * std::tanh(x0));
}

TEST(Sim, TwentyKernelsOver100kElementsRunWellUnderASecond) {
  auto s = openSim(chainPackage(20));
  ASSERT_TRUE(s);
  HostTensor in = randomTensor(DType::F32, {kChainSize}, 6);
  double best = 1e9;
  Result<std::vector<HostTensor>> out = Status::error("not run");
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    out = s->run({in});
    double sec =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
            .count();
    best = std::min(best, sec);
    ASSERT_TRUE(out.isOk()) << out.message();
  }
  std::printf("20 kernels x 100k elements on sim: %.1f ms\n", best * 1e3);
  EXPECT_LT(best, 1.0);
  for (int i = 0; i < kChainSize; i += 997) {
    float v = at<float>(in, i);
    for (int k = 0; k < 20; ++k)
      v = std::tanh(v) * 0.5f + 0.25f;
    EXPECT_FLOAT_EQ(at<float>((*out)[0], i), v);
  }

  // A barrier-heavy kernel: 100 rows of 1000 with 9 barriers per block.
  auto r = openSim(reductionPackage(100));
  HostTensor x = randomTensor(DType::F32, {100, kRowLength}, 7);
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(r->run({x}).isOk());
  std::printf(
      "100 reductions with barriers and shuffles on sim: %.1f ms\n",
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
              .count() *
          1e3);
}

TEST(Sim, PackagesWithoutKernelsNeedNoCompiler) {
  ScopedEnv env("DLC_SIM_CXX", "/nonexistent/compiler");
  auto s = openSim(gemmPackage());
  ASSERT_TRUE(s);
}

TEST(Sim, MissingCompilerIsReported) {
  TempDir dir("dlc-sim-cxx");
  ScopedEnv cache("DLC_CACHE_DIR", dir.path());
  ScopedEnv env("DLC_SIM_CXX", "/nonexistent/compiler");
  SessionOptions opts;
  Result<std::unique_ptr<Session>> s =
      Session::create(elementwisePackage(), opts);
  ASSERT_FALSE(s.isOk());
  EXPECT_THAT(s.message(), HasSubstr("cannot run '/nonexistent/compiler'"));
  EXPECT_THAT(s.message(), HasSubstr("DLC_SIM_CXX"));
}

//===----------------------------------------------------------------------===//
// GEMM
//===----------------------------------------------------------------------===//

/// The naive definition, in double.
std::vector<double> naiveGemm(const GemmStep &g, const HostTensor &a,
                              const HostTensor &b, const HostTensor &c0) {
  std::vector<double> c(c0.numElements());
  for (int64_t i = 0; i < c0.numElements(); ++i)
    c[i] = c0.getAsDouble(i);
  for (int64_t bt = 0; bt < g.batch; ++bt)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < g.k; ++p) {
          double av = a.getAsDouble(bt * g.strideA +
                                    (g.transA ? p * g.lda + i : i * g.lda + p));
          double bv = b.getAsDouble(bt * g.strideB +
                                    (g.transB ? j * g.ldb + p : p * g.ldb + j));
          s += av * bv;
        }
        int64_t ci = bt * g.strideC + i * g.ldc + j;
        c[ci] = g.alpha * s + (g.beta != 0 ? g.beta * c[ci] : 0.0);
      }
  return c;
}

struct GemmCase {
  DType dtype;
  bool transA, transB;
  int64_t m, n, k, batch;
  bool broadcastA, broadcastB;
  double alpha, beta;
};

class CpuGemmTest : public ::testing::TestWithParam<GemmCase> {};

TEST_P(CpuGemmTest, MatchesTheNaiveLoop) {
  const GemmCase &gc = GetParam();
  GemmStep g;
  g.dtype = gc.dtype;
  g.transA = gc.transA;
  g.transB = gc.transB;
  g.m = gc.m;
  g.n = gc.n;
  g.k = gc.k;
  g.batch = gc.batch;
  // Padded leading dimensions, to catch stride mix-ups.
  g.lda = (gc.transA ? gc.m : gc.k) + 3;
  g.ldb = (gc.transB ? gc.k : gc.n) + 1;
  g.ldc = gc.n + 2;
  const int64_t rowsA = gc.transA ? gc.k : gc.m,
                rowsB = gc.transB ? gc.n : gc.k;
  g.strideA = gc.broadcastA ? 0 : rowsA * g.lda;
  g.strideB = gc.broadcastB ? 0 : rowsB * g.ldb;
  g.strideC = gc.m * g.ldc;
  g.alpha = gc.alpha;
  g.beta = gc.beta;
  HostTensor a =
      randomTensor(gc.dtype, {gc.broadcastA ? 1 : gc.batch, rowsA, g.lda}, 21);
  HostTensor b =
      randomTensor(gc.dtype, {gc.broadcastB ? 1 : gc.batch, rowsB, g.ldb}, 22);
  HostTensor c = randomTensor(gc.dtype, {gc.batch, gc.m, g.ldc}, 23);
  if (gc.beta == 0) // must not be read
    for (int64_t i = 0; i < c.numElements(); ++i)
      c.setFromDouble(i, NAN);
  std::vector<double> want = naiveGemm(g, a, b, c);
  cpuGemm(g, a.data.data(), b.data.data(), c.data.data());
  const double tol = gc.dtype == DType::F32   ? 1e-5
                     : gc.dtype == DType::F16 ? 1e-3
                                              : 8e-3;
  for (int64_t bt = 0; bt < gc.batch; ++bt)
    for (int64_t i = 0; i < gc.m; ++i)
      for (int64_t j = 0; j < g.ldc; ++j) {
        int64_t ci = bt * g.strideC + i * g.ldc + j;
        if (j >= gc.n) { // padding is untouched
          if (gc.beta == 0) {
            EXPECT_TRUE(std::isnan(c.getAsDouble(ci)));
          }
          continue;
        }
        double got = c.getAsDouble(ci);
        ASSERT_NEAR(got, want[ci],
                    tol * (1 + std::fabs(want[ci])) * std::sqrt(double(gc.k)))
            << "batch " << bt << " row " << i << " col " << j;
      }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CpuGemmTest,
    ::testing::Values(
        GemmCase{DType::F32, false, false, 7, 5, 9, 1, false, false, 1.0, 0.0},
        GemmCase{DType::F32, true, false, 7, 5, 9, 2, false, false, 1.0, 0.0},
        GemmCase{DType::F32, false, true, 7, 5, 9, 3, false, true, 1.0, 0.0},
        GemmCase{DType::F32, true, true, 4, 6, 3, 3, true, false, 0.5, 2.0},
        GemmCase{DType::F32, false, false, 1, 1, 1, 1, false, false, -1.0, 1.0},
        GemmCase{DType::F32, false, false, 3, 4, 0, 2, false, false, 1.0, 0.5},
        GemmCase{DType::F32, false, false, 64, 80, 700, 2, false, true, 1.0,
                 0.0},
        GemmCase{DType::F16, false, true, 8, 16, 32, 2, false, false, 1.0, 0.0},
        GemmCase{DType::F16, true, false, 5, 3, 7, 4, true, false, 1.0, 1.0},
        GemmCase{DType::BF16, false, false, 8, 8, 24, 2, false, true, 1.0, 0.0},
        GemmCase{DType::BF16, true, true, 6, 10, 12, 1, false, false, 2.0,
                 0.0}));

TEST(Sim, GemmAndCopySteps) {
  auto s = openSim(gemmPackage());
  ASSERT_TRUE(s);
  HostTensor a = randomTensor(DType::F32, {3, 4, 5}, 31);
  HostTensor b = randomTensor(DType::F32, {6, 5}, 32);
  HostTensor e = randomTensor(DType::F32, {4, 3}, 33);
  Result<std::vector<HostTensor>> out = s->run({a, b, e});
  ASSERT_TRUE(out.isOk()) << out.message();
  for (int bt = 0; bt < 3; ++bt)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 6; ++j) {
        double want = 0;
        for (int p = 0; p < 5; ++p)
          want += a.getAsDouble(bt * 20 + i * 5 + p) * b.getAsDouble(j * 5 + p);
        EXPECT_NEAR((*out)[0].getAsDouble(bt * 24 + i * 6 + j), want, 1e-5);
      }
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) {
      double want = 0;
      for (int p = 0; p < 4; ++p)
        want += a.getAsDouble(20 + p * 5 + i) * e.getAsDouble(p * 3 + j);
      EXPECT_NEAR((*out)[1].getAsDouble(i * 3 + j), 0.5 * want, 1e-5);
    }
}

TEST(Sim, BenchmarkTimesWholeRuns) {
  Package g = gemmPackage();
  auto s = openSim(g);
  ASSERT_TRUE(s);
  EXPECT_FALSE(s->usesCudaGraph());
  std::vector<HostTensor> in = {randomTensor(DType::F32, {3, 4, 5}, 34),
                                randomTensor(DType::F32, {6, 5}, 35),
                                randomTensor(DType::F32, {4, 3}, 36)};
  Result<std::vector<HostTensor>> want = s->run(in);
  ASSERT_TRUE(want.isOk()) << want.message();
  Result<std::vector<double>> t = s->benchmark(in, 2, 5);
  ASSERT_TRUE(t.isOk()) << t.message();
  ASSERT_EQ(t->size(), 5u);
  for (double ms : *t)
    EXPECT_GT(ms, 0.0);
  // The session runs as before.
  Result<std::vector<HostTensor>> again = s->run(in);
  ASSERT_TRUE(again.isOk()) << again.message();
  for (size_t i = 0; i < want->size(); ++i)
    EXPECT_EQ((*again)[i].data, (*want)[i].data) << i;

  Result<std::vector<double>> none = s->benchmark(in, 1, 0);
  ASSERT_FALSE(none.isOk());
  EXPECT_EQ(none.message(), "benchmark: at least one timed run is needed");
  Result<std::vector<double>> bad = s->benchmark({in[0]}, 0, 1);
  ASSERT_FALSE(bad.isOk());
  EXPECT_THAT(bad.message(), ::testing::HasSubstr("input"));
}

TEST(Sim, BenchmarkStatistics) {
  BenchmarkStats odd = summarizeBenchmark({5, 1, 4, 2, 3});
  EXPECT_EQ(odd.runs, 5u);
  EXPECT_DOUBLE_EQ(odd.median, 3);
  EXPECT_DOUBLE_EQ(odd.min, 1);
  EXPECT_DOUBLE_EQ(odd.max, 5);
  EXPECT_DOUBLE_EQ(odd.mean, 3);
  // Linear interpolation between ranks, as numpy.percentile.
  EXPECT_DOUBLE_EQ(odd.p10, 1.4);
  EXPECT_DOUBLE_EQ(odd.p90, 4.6);
  BenchmarkStats even = summarizeBenchmark({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(even.median, 2.5);
  EXPECT_DOUBLE_EQ(even.p10, 1.3);
  EXPECT_DOUBLE_EQ(even.p90, 3.7);
  BenchmarkStats one = summarizeBenchmark({0.25});
  EXPECT_DOUBLE_EQ(one.p10, 0.25);
  EXPECT_DOUBLE_EQ(one.p90, 0.25);
  BenchmarkStats none = summarizeBenchmark({});
  EXPECT_EQ(none.runs, 0u);
  EXPECT_DOUBLE_EQ(none.median, 0);
}

TEST(Sim, ProfileTimesEveryStep) {
  // A kernel over the arena-free elementwise package, then GEMMs and a copy.
  auto ew = openSim(elementwisePackage());
  ASSERT_TRUE(ew);
  Result<std::vector<StepProfile>> p =
      ew->profile({randomTensor(DType::F32, {kEwSize}, 41),
                   randomTensor(DType::F32, {kEwSize}, 42)},
                  5);
  ASSERT_TRUE(p.isOk()) << p.message();
  expectProfile(ew->package(), *p, {3 * kEwSize * 4}, {0});
  EXPECT_GT((*p)[0].milliseconds, 0.0);
  EXPECT_DOUBLE_EQ((*p)[0].share, 1.0);

  Package g = gemmPackage();
  auto s = openSim(g);
  ASSERT_TRUE(s);
  std::vector<HostTensor> in = {randomTensor(DType::F32, {3, 4, 5}, 31),
                                randomTensor(DType::F32, {6, 5}, 32),
                                randomTensor(DType::F32, {4, 3}, 33)};
  p = s->profile(in, 3);
  ASSERT_TRUE(p.isOk()) << p.message();
  // bmm: A, B and C once each; the copy: source and destination; the
  // transA GEMM: its slice of input 0, input 2 and output 1.
  expectProfile(g, *p, {240 + 120 + 288, 288 + 288, 80 + 48 + 60},
                {2.0 * 4 * 6 * 5 * 3, 0, 2.0 * 5 * 3 * 4});
  // Profiling leaves the session usable, with the same results.
  Result<std::vector<HostTensor>> out = s->run(in);
  ASSERT_TRUE(out.isOk()) << out.message();

  // The inputs are checked like run()'s.
  p = s->profile({in[0]}, 1);
  ASSERT_FALSE(p.isOk());
  EXPECT_THAT(p.message(), ::testing::HasSubstr("input"));
}

} // namespace
