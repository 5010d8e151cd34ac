//===- FakeCudaTest.cpp - The CUDA session on the fake driver -------------===//
//
// CudaSession end to end without a GPU: on libdlc-fakecuda.so (FakeCuda.h)
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

using namespace dlc::rt;
using namespace dlc::rt::test;
using ::testing::HasSubstr;

namespace {

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

} // namespace
