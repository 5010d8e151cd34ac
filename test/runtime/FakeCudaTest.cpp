//===- FakeCudaTest.cpp - The CUDA session on the fake driver -------------===//
//
// The cuda device end to end without a GPU: on libdlc-fakecuda.so (FakeCuda.h)
// its kernels run through the sim and its GEMMs through the fake cuBLAS, so
// the outputs must equal the sim device's bit for bit, on the first run
// (direct launches), the second (CUDA Graph capture) and later ones (graph
// replay). CTest runs these in runtime.fake-cuda; elsewhere they skip.
//
//===----------------------------------------------------------------------===//

#include "FakeCudaTestUtil.h"
#include "ProfileCheck.h"
#include "runtime/CudaLibs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <dlfcn.h>

using namespace dlc::rt;
using namespace dlc::rt::test;
using ::testing::HasSubstr;

namespace {

// The fixture below skips without the fake; this test makes sure that the
// fake, when named, loads (a missing symbol would otherwise skip them all).
TEST(FakeCudaLibrary, LoadsWhenNamed) {
  const char *path = std::getenv("DLC_CUDA_DRIVER_LIB");
  if (!path || std::string(path).find("libdlc-fakecuda") == std::string::npos)
    GTEST_SKIP() << "DLC_CUDA_DRIVER_LIB does not name libdlc-fakecuda.so";
  void *h = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(h, nullptr) << ::dlerror();
  EXPECT_NE(FakeCudaControl::get(), nullptr);
}

class FakeCuda : public ::testing::Test {
protected:
  void SetUp() override {
    fake_ = FakeCudaControl::get();
    if (!fake_)
      GTEST_SKIP() << "needs $DLC_CUDA_DRIVER_LIB set to libdlc-fakecuda.so "
                      "(ctest -R runtime.fake-cuda)";
    std::string why;
    ASSERT_TRUE(cudaAvailable(&why)) << why;
    live_ = liveCudaObjects();
    start_ = fake_->snapshot();
  }
  void TearDown() override {
    if (!fake_)
      return;
    fake_->setCubinStandIn(nullptr);
    // Every session released everything: in the runtime's count and in the
    // driver's, which destroyed the context at its last release.
    EXPECT_EQ(liveCudaObjects(), live_)
        << "now live: " << liveCudaObjects().describe();
    FakeCudaStats s = fake_->snapshot();
    EXPECT_EQ(s.contextRetains, 0);
    EXPECT_EQ(s.pushedContexts, 0);
    EXPECT_EQ(s.allocations, 0);
    EXPECT_EQ(s.modules, 0);
    EXPECT_EQ(s.streams, 0);
    EXPECT_EQ(s.graphs, 0);
    EXPECT_EQ(s.graphExecs, 0);
    EXPECT_EQ(s.events, 0);
    EXPECT_EQ(s.cublasHandles, 0);
    EXPECT_EQ(s.leakedAtContextDestruction, start_.leakedAtContextDestruction);
  }

  /// Runs `p` on the fake GPU `runs` times and on the sim, comparing every
  /// output exactly.
  void compareWithSim(const Package &p, const std::vector<HostTensor> &inputs,
                      bool graph = true, int runs = 3) {
    std::vector<HostTensor> want = simOutputs(p, inputs);
    ASSERT_FALSE(want.empty());
    Result<std::unique_ptr<Session>> s = createCuda(withFakeCubin(p), graph);
    ASSERT_TRUE(s.isOk()) << s.message();
    for (int rep = 0; rep < runs; ++rep) {
      Result<std::vector<HostTensor>> got = (*s)->run(inputs);
      ASSERT_TRUE(got.isOk()) << "run " << rep << ": " << got.message()
                              << " (fake: " << fake_->lastError() << ")";
      EXPECT_TRUE(sameOutputs(*got, want)) << "run " << rep;
    }
  }

  const FakeCudaControl *fake_ = nullptr;
  LiveCudaObjects live_;
  FakeCudaStats start_;
};

TEST_F(FakeCuda, DescribesTheDevice) {
  Result<std::unique_ptr<Session>> s =
      createCuda(withFakeCubin(elementwisePackage()));
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ((*s)->deviceDescription(), "dlc fake CUDA device 0 (sm_90)");
  EXPECT_EQ(defaultDeviceKind(), DeviceKind::Cuda);
  EXPECT_EQ(defaultCudaArch("none"), "sm_90");
  EXPECT_EQ(liveCudaObjects().contexts, live_.contexts + 1);
}

TEST_F(FakeCuda, ElementwiseMatchesSim) {
  compareWithSim(elementwisePackage(),
                 {randomF32({kEwSize}, 1), randomF32({kEwSize}, 2)});
}

TEST_F(FakeCuda, ReductionsWithBarriersAndShufflesMatchSim) {
  compareWithSim(reductionPackage(9), {randomF32({9, kRowLength}, 3)});
}

TEST_F(FakeCuda, TwentyKernelChainThroughTheArenaMatchesSim) {
  compareWithSim(chainPackage(20), {randomF32({kChainSize}, 4)});
}

TEST_F(FakeCuda, GemmsThroughCublasCopiesAndConstantsMatchSim) {
  // Also checks the row-major to column-major mapping of the GEMM steps
  // (the fake cuBLAS rejects leading dimensions a real one would reject).
  compareWithSim(scenarioPackage(), scenarioInputs());
  // Two GEMM steps, called on the first run and captured on the second;
  // the third replays the graph.
  FakeCudaStats s = fake_->snapshot();
  EXPECT_EQ(s.gemms - start_.gemms, 2u * 2u);
}

TEST_F(FakeCuda, LargeDynamicSharedMemoryOptsInWithFuncSetAttribute) {
  // Without cuFuncSetAttribute the fake refuses a 64 KiB launch.
  compareWithSim(scenarioPackage(64 * 1024), scenarioInputs());
}

TEST_F(FakeCuda, TheGraphIsCapturedOnceAndReplayed) {
  Package p = withFakeCubin(chainPackage(5));
  Result<std::unique_ptr<Session>> s = createCuda(p);
  ASSERT_TRUE(s.isOk()) << s.message();
  HostTensor x = randomF32({kChainSize}, 5);
  FakeCudaStats before = fake_->snapshot();
  ASSERT_TRUE((*s)->run({x}).isOk());
  FakeCudaStats direct = fake_->snapshot();
  EXPECT_EQ(direct.kernelsRun - before.kernelsRun, 5u);
  EXPECT_EQ(direct.graphLaunches, before.graphLaunches);
  EXPECT_EQ(liveCudaObjects().graphExecs, live_.graphExecs);
  for (int rep = 0; rep < 3; ++rep)
    ASSERT_TRUE((*s)->run({x}).isOk());
  FakeCudaStats replayed = fake_->snapshot();
  EXPECT_EQ(replayed.graphLaunches - direct.graphLaunches, 3u);
  EXPECT_EQ(replayed.kernelsRun - direct.kernelsRun, 15u);
  // One executable graph, the captured graph itself destroyed.
  EXPECT_EQ(liveCudaObjects().graphExecs, live_.graphExecs + 1);
  EXPECT_EQ(liveCudaObjects().graphs, live_.graphs);
}

TEST_F(FakeCuda, WithoutGraphsAndWithSynchronizedSteps) {
  Package p = scenarioPackage();
  compareWithSim(p, scenarioInputs(), /*graph=*/false);
  ScopedEnv sync("DLC_CUDA_SYNC_STEPS", "1");
  FakeCudaStats before = fake_->snapshot();
  compareWithSim(p, scenarioInputs());
  EXPECT_EQ(fake_->snapshot().graphLaunches, before.graphLaunches);
}

TEST_F(FakeCuda, ProfileTimesEveryStepWithEvents) {
  Package p = withFakeCubin(scenarioPackage());
  std::vector<HostTensor> in = scenarioInputs();
  std::vector<HostTensor> want = simOutputs(scenarioPackage(), in);
  Result<std::unique_ptr<Session>> s = createCuda(p);
  ASSERT_TRUE(s.isOk()) << s.message();
  FakeCudaStats before = fake_->snapshot();
  Result<std::vector<StepProfile>> prof = (*s)->profile(in, 3);
  ASSERT_TRUE(prof.isOk()) << prof.message() << " (fake: " << fake_->lastError()
                           << ")";
  expectProfile(
      p, *prof,
      {240 + 120 + 288, 288 + 288, 80 + 48 + 60, 3 * kEwSize * 4, 64 + 64},
      {2.0 * 4 * 6 * 5 * 3, 0, 2.0 * 5 * 3 * 4, 0, 0});
  // The kernel really ran through the sim between its two events.
  EXPECT_GT((*prof)[3].milliseconds, 0.0);
  // Direct launches, never the graph: a warm-up run and three timed ones.
  FakeCudaStats after = fake_->snapshot();
  EXPECT_EQ(after.graphLaunches, before.graphLaunches);
  EXPECT_EQ(after.gemms - before.gemms, 4u * 2u);
  EXPECT_EQ(after.kernelsRun - before.kernelsRun, 4u);
  EXPECT_EQ(after.events, 0);
  // The session still runs (and captures its graph) as before.
  for (int rep = 0; rep < 3; ++rep) {
    Result<std::vector<HostTensor>> got = (*s)->run(in);
    ASSERT_TRUE(got.isOk()) << got.message();
    EXPECT_TRUE(sameOutputs(*got, want)) << rep;
  }
}

TEST_F(FakeCuda, BenchmarkTimesGraphReplaysWithEvents) {
  Package p = withFakeCubin(chainPackage(5));
  HostTensor x = randomF32({kChainSize}, 6);
  std::vector<HostTensor> want = simOutputs(chainPackage(5), {x});
  {
    Result<std::unique_ptr<Session>> s = createCuda(p);
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_TRUE((*s)->usesCudaGraph());
    FakeCudaStats before = fake_->snapshot();
    Result<std::vector<double>> t = (*s)->benchmark({x}, 3, 4);
    ASSERT_TRUE(t.isOk()) << t.message() << " (fake: " << fake_->lastError()
                          << ")";
    ASSERT_EQ(t->size(), 4u);
    // The kernels really ran through the sim between each pair of events.
    for (double ms : *t)
      EXPECT_GT(ms, 0.0);
    // Warm-up: a direct run, a capture and a replay; then four replays.
    FakeCudaStats after = fake_->snapshot();
    EXPECT_EQ(after.kernelsRun - before.kernelsRun, 5u * 7u);
    EXPECT_EQ(after.graphLaunches - before.graphLaunches, 2u + 4u);
    EXPECT_EQ(after.events, 0);
    // The outputs stayed on the device; the session still runs correctly.
    Result<std::vector<HostTensor>> got = (*s)->run({x});
    ASSERT_TRUE(got.isOk()) << got.message();
    EXPECT_TRUE(sameOutputs(*got, want));
  }
  {
    // Without warm-up runs, the graph is captured before the timed runs
    // all the same: every timed run is a replay.
    Result<std::unique_ptr<Session>> s = createCuda(p);
    ASSERT_TRUE(s.isOk()) << s.message();
    FakeCudaStats before = fake_->snapshot();
    Result<std::vector<double>> t = (*s)->benchmark({x}, 0, 2);
    ASSERT_TRUE(t.isOk()) << t.message();
    EXPECT_EQ(t->size(), 2u);
    FakeCudaStats after = fake_->snapshot();
    EXPECT_EQ(after.graphLaunches - before.graphLaunches, 1u + 2u);
    EXPECT_EQ(after.kernelsRun - before.kernelsRun, 5u * 4u);
  }
  {
    // Without graphs every run launches each step directly.
    Result<std::unique_ptr<Session>> s = createCuda(p, /*graph=*/false);
    ASSERT_TRUE(s.isOk()) << s.message();
    EXPECT_FALSE((*s)->usesCudaGraph());
    FakeCudaStats before = fake_->snapshot();
    Result<std::vector<double>> t = (*s)->benchmark({x}, 1, 3);
    ASSERT_TRUE(t.isOk()) << t.message();
    EXPECT_EQ(t->size(), 3u);
    FakeCudaStats after = fake_->snapshot();
    EXPECT_EQ(after.graphLaunches, before.graphLaunches);
    EXPECT_EQ(after.kernelsRun - before.kernelsRun, 5u * 4u);
    // Wrong inputs are rejected like run()'s.
    Result<std::vector<double>> bad =
        (*s)->benchmark({randomF32({kChainSize + 1}, 7)}, 1, 1);
    ASSERT_FALSE(bad.isOk());
    EXPECT_THAT(bad.message(), HasSubstr("input #0"));
  }
}

TEST_F(FakeCuda, RunOnDeviceRecapturesWhenPointersChange) {
  const CudaDriver *cu = loadCudaDriver(nullptr);
  ASSERT_NE(cu, nullptr);
  Package p = withFakeCubin(elementwisePackage());
  Result<std::unique_ptr<Session>> s = createCuda(p);
  ASSERT_TRUE(s.isOk()) << s.message();
  CUdevice dev;
  CUcontext ctx;
  ASSERT_EQ(cu->cuDeviceGet(&dev, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu->cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
  ASSERT_EQ(cu->cuCtxPushCurrent(ctx), CUDA_SUCCESS);
  const size_t bytes = kEwSize * 4;
  CUdeviceptr x, y, out1, out2;
  for (CUdeviceptr *ptr : {&x, &y, &out1, &out2})
    ASSERT_EQ(cu->cuMemAlloc(ptr, bytes), CUDA_SUCCESS);
  std::vector<float> hx(kEwSize, 0.5f), hy(kEwSize, 1.0f), r1(kEwSize),
      r2(kEwSize);
  ASSERT_EQ(cu->cuMemcpyHtoD(x, hx.data(), bytes), CUDA_SUCCESS);
  ASSERT_EQ(cu->cuMemcpyHtoD(y, hy.data(), bytes), CUDA_SUCCESS);
  auto ptr = [](CUdeviceptr d) {
    return reinterpret_cast<void *>(uintptr_t(d));
  };
  FakeCudaStats before = fake_->snapshot();
  // Direct run, capture, replay, then a new output pointer: a new capture
  // must write to out2, not replay into out1.
  std::memset(ptr(out2), 0, bytes);
  for (CUdeviceptr out : {out1, out1, out1, out2})
    ASSERT_TRUE((*s)->runOnDevice({ptr(x), ptr(y)}, {ptr(out)}).isOk());
  EXPECT_EQ(fake_->snapshot().graphLaunches - before.graphLaunches, 3u);
  std::memcpy(r1.data(), ptr(out1), bytes);
  std::memcpy(r2.data(), ptr(out2), bytes);
  Package simPackage = elementwisePackage();
  std::unique_ptr<Session> sim = openDevice(simPackage, DeviceKind::Sim);
  HostTensor hx1(DType::F32, {kEwSize}), hy1(DType::F32, {kEwSize});
  std::memcpy(hx1.data.data(), hx.data(), bytes);
  std::memcpy(hy1.data.data(), hy.data(), bytes);
  Result<std::vector<HostTensor>> want = sim->run({hx1, hy1});
  ASSERT_TRUE(want.isOk());
  EXPECT_EQ(std::memcmp(r1.data(), (*want)[0].data.data(), bytes), 0);
  EXPECT_EQ(std::memcmp(r2.data(), (*want)[0].data.data(), bytes), 0);
  for (CUdeviceptr d : {x, y, out1, out2})
    EXPECT_EQ(cu->cuMemFree(d), CUDA_SUCCESS);
  CUcontext popped;
  EXPECT_EQ(cu->cuCtxPopCurrent(&popped), CUDA_SUCCESS);
  EXPECT_EQ(cu->cuDevicePrimaryCtxRelease(dev), CUDA_SUCCESS);
}

TEST_F(FakeCuda, KernelFaultIsStickyAndTheSessionSaysSo) {
  // A host pointer is not device memory: the kernel faults, as on a GPU,
  // and the error comes at the synchronization.
  Package p = withFakeCubin(elementwisePackage());
  Result<std::unique_ptr<Session>> s = createCuda(p);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::vector<float> host(kEwSize, 1.0f), out(kEwSize);
  Status st = (*s)->runOnDevice({host.data(), host.data()}, {out.data()});
  ASSERT_FALSE(st.isOk());
  EXPECT_EQ(st.message(), "cuStreamSynchronize failed after running the "
                          "package: CUDA_ERROR_ILLEGAL_ADDRESS (set "
                          "DLC_CUDA_SYNC_STEPS=1 to find the failing step)");
  EXPECT_THAT(fake_->lastError(), HasSubstr("k_ew: argument 0"));
  HostTensor x = randomF32({kEwSize}, 6);
  Result<std::vector<HostTensor>> again = (*s)->run({x, x});
  ASSERT_FALSE(again.isOk());
  EXPECT_EQ(again.message(),
            "the CUDA context is unusable after an earlier error "
            "(cuStreamSynchronize failed after running the package: "
            "CUDA_ERROR_ILLEGAL_ADDRESS); CUDA requires restarting the "
            "process");
  s->reset();
  // The last release destroyed the context, and with it the error: a new
  // session works.
  compareWithSim(elementwisePackage(), {x, x});
}

TEST_F(FakeCuda, SyncStepsNamesTheFaultingStep) {
  ScopedEnv sync("DLC_CUDA_SYNC_STEPS", "1");
  Package p = withFakeCubin(elementwisePackage());
  Result<std::unique_ptr<Session>> s = createCuda(p);
  ASSERT_TRUE(s.isOk()) << s.message();
  std::vector<float> host(kEwSize, 1.0f), out(kEwSize);
  Status st = (*s)->runOnDevice({host.data(), host.data()}, {out.data()});
  ASSERT_FALSE(st.isOk());
  EXPECT_EQ(st.message(), "cuStreamSynchronize failed for step 0 (k_ew): "
                          "CUDA_ERROR_ILLEGAL_ADDRESS");
}

TEST_F(FakeCuda, CompilesWithNvrtcWhenNoCubinMatches) {
  Result<std::string> v = nvrtcVersion();
  if (!v.isOk())
    GTEST_SKIP() << v.message();
  // The package's only cubin is for another GPU: the session compiles the
  // source with NVRTC for sm_90 and loads that (a real cubin, whose kernels
  // the fake runs through the stand-in).
  Package p = elementwisePackage();
  Package stand = withFakeCubin(p);
  ASSERT_EQ(stand.cubins.size(), 1u);
  const std::vector<uint8_t> &image = stand.cubins[0].image;
  fake_->setCubinStandIn(reinterpret_cast<const char *>(image.data()));
  stand.cubins[0].arch = "sm_80";
  std::vector<HostTensor> in = {randomF32({kEwSize}, 7),
                                randomF32({kEwSize}, 8)};
  std::vector<HostTensor> want = simOutputs(p, in);
  Result<std::unique_ptr<Session>> s = createCuda(stand);
  ASSERT_TRUE(s.isOk()) << s.message();
  Result<std::vector<HostTensor>> got = (*s)->run(in);
  ASSERT_TRUE(got.isOk()) << got.message();
  EXPECT_TRUE(sameOutputs(*got, want));
}

TEST_F(FakeCuda, MissingDeviceAndMissingKernel) {
  SessionOptions opts;
  opts.device = DeviceKind::Cuda;
  opts.cudaDevice = 3;
  Result<std::unique_ptr<Session>> s =
      Session::create(withFakeCubin(elementwisePackage()), opts);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "CUDA device 3 does not exist (1 device)");

  // A cubin without one of the package's kernels.
  Package p = elementwisePackage();
  Package q = withFakeCubin(p);
  Result<std::string> lib = buildSimKernelLibrary(p.cudaSource);
  ASSERT_TRUE(lib.isOk());
  q.cubins[0].image = fakeCubin(*lib, {"k_ew"}, {3}, {false});
  Result<std::unique_ptr<Session>> r = createCuda(q);
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "cuModuleGetFunction failed for k_rowsum: "
                         "CUDA_ERROR_NOT_FOUND");
}

TEST_F(FakeCuda, PackagesLargerThanTheDeviceAreRefusedBeforeAllocating) {
  // The fake device has 1 GiB: an output of 2 GiB does not fit, and nothing
  // is allocated (the fixture checks that nothing is left either).
  Package p = elementwisePackage();
  p.outputs[0].shape = {int64_t(1) << 29};
  uint64_t allocations = uint64_t(fake_->snapshot().allocations);
  Result<std::unique_ptr<Session>> s = createCuda(withFakeCubin(p));
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "the package needs 2 GiB of device memory (arena 0 "
                         "bytes, inputs 7.8 KiB, outputs 2 GiB, constants 0 "
                         "bytes) but the device has 1 GiB");
  EXPECT_EQ(uint64_t(fake_->snapshot().allocations), allocations);

  // --max-memory lowers the limit below the device's.
  SessionOptions opts;
  opts.device = DeviceKind::Cuda;
  opts.maxMemory = 10000;
  s = Session::create(withFakeCubin(elementwisePackage()), opts);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "the package needs 11.7 KiB of device memory (arena "
                         "0 bytes, inputs 7.8 KiB, outputs 3.9 KiB, constants "
                         "0 bytes) but --max-memory allows 9.8 KiB (the "
                         "device has 1 GiB)");
  opts.maxMemory = 12000;
  s = Session::create(withFakeCubin(elementwisePackage()), opts);
  ASSERT_TRUE(s.isOk()) << s.message();
}

//===----------------------------------------------------------------------===//
// GEMM epilogues through the fake cuBLASLt
//===----------------------------------------------------------------------===//

TEST_F(FakeCuda, EpilogueGemmsThroughCublasLtMatchSim) {
  // Bias, addend, relu and GELU in f32, f16 and bf16, batched with strides
  // and a broadcast A; the fake cuBLASLt checks descriptors, attribute
  // sizes, layouts and alignments as cuBLASLt does and computes in the sim
  // GEMM's order, so the outputs are equal bit for bit.
  compareWithSim(epiloguePackage(), epilogueInputs());
  FakeCudaStats s = fake_->snapshot();
  // Three steps, called on the first run and captured on the second; one
  // heuristic query each, kept for the later runs.
  EXPECT_EQ(s.ltMatmuls - start_.ltMatmuls, 3u * 2u);
  EXPECT_EQ(s.ltHeuristics - start_.ltHeuristics, 3u);
  EXPECT_EQ(s.gemms, start_.gemms); // no plain cuBLAS call
  EXPECT_EQ(s.cublasLtHandles, 0);
  EXPECT_EQ(s.cublasLtDescriptors, 0);
}

TEST_F(FakeCuda, Tf32GemmsThroughCublasAndCublasLtMatchSim) {
  // f32 steps marked tf32 go through cuBLAS and cuBLASLt with
  // CUBLAS_COMPUTE_32F_FAST_TF32 (which the fake accepts for f32 operands
  // only); both the fake and the sim round the operands to TF32.
  int marked = 0;
  auto withTf32 = [&](Package p) {
    for (Step &s : p.steps)
      if (s.kind == Step::Kind::Gemm && s.gemm.dtype == DType::F32) {
        s.gemm.tf32 = true;
        ++marked;
      }
    return p;
  };
  compareWithSim(withTf32(scenarioPackage()), scenarioInputs());
  compareWithSim(withTf32(epiloguePackage()), epilogueInputs());
  EXPECT_GE(marked, 2);
}

TEST_F(FakeCuda, Fp8GemmThroughCublasLtMatchesSim) {
  // E4M3 operands with per-tensor scales and a bf16 bias into a bf16
  // result: the fake cuBLASLt accepts FP8 only as cuBLASLt does (TN, leading
  // dimensions multiples of 16, f32 compute, the bias's type set) and
  // decodes E4M3 itself, so equal outputs check the runtime's descriptors
  // and the sim's FP8 product against an independent decoding.
  compareWithSim(fp8Package(), fp8Inputs());
  FakeCudaStats s = fake_->snapshot();
  EXPECT_EQ(s.ltMatmuls - start_.ltMatmuls, 2u);
  EXPECT_EQ(s.gemms, start_.gemms);
  // The outputs are not all zero (the scales and the bias are applied).
  std::vector<HostTensor> out = simOutputs(fp8Package(), fp8Inputs());
  ASSERT_EQ(out.size(), 1u);
  double norm = 0;
  for (int64_t i = 0; i < out[0].numElements(); ++i)
    norm += std::fabs(out[0].getAsDouble(i));
  EXPECT_GT(norm, 1.0);
}

TEST_F(FakeCuda, EpilogueKernelWhenCublasLtHasNoAlgorithm) {
  // Without a cuBLASLt algorithm the step runs as a plain cuBLAS GEMM (the
  // addend copied into C first) and its epilogue kernel: for f32 the same
  // bits as the fused epilogue (the sim's reference run).
  std::vector<HostTensor> inputs = epilogueInputs();
  inputs.resize(4);
  {
    ScopedEnv none("DLC_FAKE_CUBLASLT_NO_ALGORITHM", "1");
    FakeCudaStats before = fake_->snapshot();
    compareWithSim(epilogueFallbackPackage(), inputs);
    FakeCudaStats s = fake_->snapshot();
    EXPECT_EQ(s.ltMatmuls, before.ltMatmuls); // never called
    EXPECT_EQ(s.gemms - before.gemms, 2u);    // plain GEMMs instead
    // The heuristic is asked once; its "none" is remembered.
    EXPECT_EQ(s.ltHeuristics - before.ltHeuristics, 1u);
  }
  {
    // Forced by the environment: the heuristic is not even asked.
    ScopedEnv forced("DLC_GEMM_EPILOGUE_FALLBACK", "1");
    FakeCudaStats before = fake_->snapshot();
    compareWithSim(epilogueFallbackPackage(), inputs);
    FakeCudaStats s = fake_->snapshot();
    EXPECT_EQ(s.ltMatmuls, before.ltMatmuls);
    EXPECT_EQ(s.ltHeuristics, before.ltHeuristics);
  }
  // Without an epilogue kernel, no algorithm is an error that names the
  // step.
  ScopedEnv none("DLC_FAKE_CUBLASLT_NO_ALGORITHM", "1");
  Package p = epilogueFallbackPackage();
  p.steps[0].gemm.epilogueKernel = -1;
  Result<std::unique_ptr<Session>> session = createCuda(withFakeCubin(p));
  ASSERT_TRUE(session.isOk()) << session.message();
  Result<std::vector<HostTensor>> got = (*session)->run(inputs);
  ASSERT_FALSE(got.isOk());
  EXPECT_THAT(got.message(), HasSubstr("cuBLASLt has no algorithm for step 0"));
}

TEST_F(FakeCuda, EpiloguesWithoutGraphsAndWithSynchronizedSteps) {
  compareWithSim(epiloguePackage(), epilogueInputs(5), /*graph=*/false);
  ScopedEnv sync("DLC_CUDA_SYNC_STEPS", "1");
  compareWithSim(epiloguePackage(), epilogueInputs(6));
}

/// Device memory of the fake for a test's own buffers, allocated with the
/// driver's entry points (not the runtime's).
class FakeDeviceMemory {
public:
  FakeDeviceMemory() {
    handle_ =
        ::dlopen(std::getenv("DLC_CUDA_DRIVER_LIB"), RTLD_NOW | RTLD_LOCAL);
    auto sym = [&](const char *name) {
      void *f = ::dlsym(handle_, name);
      EXPECT_NE(f, nullptr) << name;
      return f;
    };
    retain_ = reinterpret_cast<CUresult (*)(CUcontext *, CUdevice)>(
        sym("cuDevicePrimaryCtxRetain"));
    release_ = reinterpret_cast<CUresult (*)(CUdevice)>(
        sym("cuDevicePrimaryCtxRelease_v2"));
    push_ =
        reinterpret_cast<CUresult (*)(CUcontext)>(sym("cuCtxPushCurrent_v2"));
    pop_ =
        reinterpret_cast<CUresult (*)(CUcontext *)>(sym("cuCtxPopCurrent_v2"));
    alloc_ = reinterpret_cast<CUresult (*)(CUdeviceptr *, size_t)>(
        sym("cuMemAlloc_v2"));
    free_ = reinterpret_cast<CUresult (*)(CUdeviceptr)>(sym("cuMemFree_v2"));
    EXPECT_EQ(retain_(&ctx_, 0), CUDA_SUCCESS);
  }
  ~FakeDeviceMemory() {
    for (CUdeviceptr p : blocks_)
      free_(p);
    release_(0);
    ::dlclose(handle_);
  }
  /// `bytes` of device memory (host memory in the fake) at 256-byte
  /// alignment, with room for a shift of up to 64 bytes.
  uint8_t *allocate(size_t bytes) {
    CUdeviceptr p = 0;
    EXPECT_EQ(push_(ctx_), CUDA_SUCCESS);
    EXPECT_EQ(alloc_(&p, bytes + 64), CUDA_SUCCESS);
    CUcontext popped;
    EXPECT_EQ(pop_(&popped), CUDA_SUCCESS);
    blocks_.push_back(p);
    return reinterpret_cast<uint8_t *>(uintptr_t(p));
  }

private:
  void *handle_ = nullptr;
  CUcontext ctx_ = nullptr;
  CUresult (*retain_)(CUcontext *, CUdevice) = nullptr;
  CUresult (*release_)(CUdevice) = nullptr;
  CUresult (*push_)(CUcontext) = nullptr;
  CUresult (*pop_)(CUcontext *) = nullptr;
  CUresult (*alloc_)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*free_)(CUdeviceptr) = nullptr;
  std::vector<CUdeviceptr> blocks_;
};

TEST_F(FakeCuda, EpiloguesOnCallerBuffersOfOtherAlignments) {
  Package p = epiloguePackage();
  std::vector<HostTensor> in = epilogueInputs(9);
  std::vector<HostTensor> want = simOutputs(p, in);
  ASSERT_FALSE(want.empty());
  {
    FakeDeviceMemory memory;
    std::vector<uint8_t *> inBase, outBase;
    for (const HostTensor &t : in)
      inBase.push_back(memory.allocate(t.data.size()));
    for (const HostTensor &t : want)
      outBase.push_back(memory.allocate(t.data.size()));
    Result<std::unique_ptr<Session>> s = createCuda(p);
    ASSERT_TRUE(s.isOk()) << s.message();
    // Every buffer `shift` bytes past a 256-byte boundary.
    auto runShifted = [&](size_t shift) -> Status {
      std::vector<const void *> inputs;
      std::vector<void *> outputs;
      for (size_t i = 0; i < in.size(); ++i) {
        std::memcpy(inBase[i] + shift, in[i].data.data(), in[i].data.size());
        inputs.push_back(inBase[i] + shift);
      }
      for (size_t i = 0; i < want.size(); ++i) {
        std::memset(outBase[i] + shift, 0xa5, want[i].data.size());
        outputs.push_back(outBase[i] + shift);
      }
      Status st = (*s)->runOnDevice(inputs, outputs);
      if (!st.isOk())
        return st;
      std::vector<HostTensor> got = want;
      for (size_t i = 0; i < got.size(); ++i)
        std::memcpy(got[i].data.data(), outBase[i] + shift, got[i].data.size());
      EXPECT_TRUE(sameOutputs(got, want)) << "shift " << shift;
      return Status::ok();
    };
    // 256-byte aligned: one heuristic per step. 16-byte aligned: the
    // algorithms chosen for 256 bytes may not run there (the fake checks),
    // so each step asks again. Back at 256 bytes, the first ones serve.
    const size_t shifts[] = {0, 16, 0, 16};
    const uint64_t expectedQueries[] = {3, 3, 0, 0};
    for (int round = 0; round < 4; ++round) {
      uint64_t before = fake_->snapshot().ltHeuristics;
      Status st = runShifted(shifts[round]);
      ASSERT_TRUE(st.isOk())
          << "shift " << shifts[round] << ": " << st.message()
          << " (fake: " << fake_->lastError() << ")";
      EXPECT_EQ(fake_->snapshot().ltHeuristics - before, expectedQueries[round])
          << "round " << round;
    }
    // f32 elements two bytes off their alignment: no algorithm runs there.
    Status bad = runShifted(2);
    ASSERT_FALSE(bad.isOk());
    EXPECT_EQ(bad.message(),
              "cuBLASLt has no algorithm for step 0 (gemm relu): a f32 GEMM "
              "with epilogue relu, a bias, an addend and operand alignments "
              "of 2, 2, 2 and 2 bytes");
    // The session is still usable.
    Status again = runShifted(16);
    EXPECT_TRUE(again.isOk()) << again.message();
  }
}

} // namespace
