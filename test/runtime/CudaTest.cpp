//===- CudaTest.cpp - The CUDA device -------------------------------------===//
//
// CudaGpu.* need a GPU (CTest label `gpu`) and skip with the reason without
// one. The other tests check the dlopen layer and the no-GPU behaviour and
// run anywhere.
//
//===----------------------------------------------------------------------===//

#include "TestPackages.h"
#include "TestUtil.h"
#include "runtime/CudaLibs.h"
#include "runtime/Runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <dlfcn.h>

using namespace dlc::rt;
using namespace dlc::rt::test;
using ::testing::HasSubstr;

namespace {

TEST(CudaLibs, DriverEntryPointsResolveAgainstTheToolkitStub) {
  // The toolkit's stub libcuda exports every driver entry point (and fails
  // cuInit), which checks the names the runtime looks up, _v2 suffixes
  // included, without a GPU.
  const std::string stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (!fileExistsForTest(stub))
    GTEST_SKIP() << stub << " is not installed";
  // The stub's soname is libcuda.so.1: while it is loaded, dlopen of
  // "libcuda.so.1" would find it. Probe the real driver first and unload
  // the stub afterwards.
  (void)cudaAvailable();
  CudaDriver driver;
  std::string error;
  void *handle = nullptr;
  ASSERT_TRUE(openCudaDriverLibrary(stub, driver, error, &handle)) << error;
  EXPECT_NE(driver.cuMemAlloc, nullptr);
  EXPECT_NE(driver.cuStreamBeginCapture, nullptr);
  EXPECT_NE(driver.cuGraphInstantiate, nullptr);
  CUresult r = driver.cuInit(0);
  EXPECT_NE(r, CUDA_SUCCESS);
  EXPECT_THAT(driver.errorName(r), ::testing::StartsWith("CUDA_ERROR_"));
  ::dlclose(handle);

  CudaDriver none;
  EXPECT_FALSE(openCudaDriverLibrary("libdoes-not-exist.so.1", none, error));
  EXPECT_EQ(error, "libdoes-not-exist.so.1 not found");
}

TEST(CudaLibs, NvrtcAndCublasLoad) {
  std::string why;
  const Nvrtc *nv = loadNvrtc(&why);
  if (!nv)
    GTEST_SKIP() << why;
  EXPECT_GE(nv->major, 11);
  const Cublas *blas = loadCublas(&why);
  ASSERT_NE(blas, nullptr) << why;
  EXPECT_NE(blas->gemmStridedBatchedEx, nullptr);
  EXPECT_STREQ(blas->getStatusName(CUBLAS_STATUS_NOT_INITIALIZED),
               "CUBLAS_STATUS_NOT_INITIALIZED");
}

TEST(CudaLibs, LibrarySearchIncludesTheToolkit) {
  std::vector<std::string> c = cudaLibraryCandidates("libnvrtc.so.13");
  ASSERT_FALSE(c.empty());
  EXPECT_EQ(c[0], "libnvrtc.so.13");
  EXPECT_NE(
      std::find(c.begin(), c.end(), "/usr/local/cuda/lib64/libnvrtc.so.13"),
      c.end());
}

TEST(CudaNoGpu, SessionCreationExplainsWhatIsMissing) {
  std::string why;
  if (cudaAvailable(&why))
    GTEST_SKIP() << "a GPU is present";
  EXPECT_FALSE(why.empty());
  EXPECT_EQ(defaultDeviceKind(), DeviceKind::Sim);
  EXPECT_EQ(defaultCudaArch("sm_80"), "sm_80");
  SessionOptions opts;
  opts.device = DeviceKind::Cuda;
  Result<std::unique_ptr<Session>> s =
      Session::create(elementwisePackage(), opts);
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.message(), "no CUDA GPU: " + why + " (use --device=sim)");
  // Without any driver library the message is exactly this.
  void *driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver && std::getenv("DLC_CUDA_DRIVER_LIB") == nullptr) {
    EXPECT_EQ(s.message(),
              "no CUDA GPU: libcuda.so.1 not found (use --device=sim)");
  }
  if (driver)
    ::dlclose(driver);
}

TEST(DeviceKind, ParsesNames) {
  Result<DeviceKind> a = parseDeviceKind("cuda");
  ASSERT_TRUE(a.isOk());
  EXPECT_EQ(*a, DeviceKind::Cuda);
  Result<DeviceKind> b = parseDeviceKind("sim");
  ASSERT_TRUE(b.isOk());
  EXPECT_EQ(*b, DeviceKind::Sim);
  Result<DeviceKind> c = parseDeviceKind("tpu");
  ASSERT_FALSE(c.isOk());
  EXPECT_EQ(c.message(), "unknown device 'tpu' (expected cuda or sim)");
  EXPECT_STREQ(deviceKindName(DeviceKind::Cuda), "cuda");
  EXPECT_STREQ(deviceKindName(DeviceKind::Sim), "sim");
}

TEST(TestKernels, CompileWithNvrtc) {
  // The sim and GPU tests share one source; it must be valid CUDA.
  Result<std::string> v = nvrtcVersion();
  if (!v.isOk())
    GTEST_SKIP() << v.message();
  TempDir dir("dlc-nvrtc-src");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  Result<std::vector<uint8_t>> cubin =
      compileCudaToCubin(testKernelSource(), "sm_90");
  EXPECT_TRUE(cubin.isOk()) << cubin.message();
}

//===----------------------------------------------------------------------===//
// On a GPU
//===----------------------------------------------------------------------===//

class CudaGpu : public ::testing::Test {
protected:
  void SetUp() override {
    std::string why;
    if (!cudaAvailable(&why))
      GTEST_SKIP() << "no CUDA GPU: " << why;
  }

  static std::unique_ptr<Session> open(const Package &p, DeviceKind kind,
                                       bool graph = true) {
    SessionOptions opts;
    opts.device = kind;
    opts.useCudaGraph = graph;
    Result<std::unique_ptr<Session>> s = Session::create(p, opts);
    EXPECT_TRUE(s.isOk()) << s.message();
    return s.isOk() ? s.take() : nullptr;
  }

  /// Runs `p` on the GPU (three times: direct, graph capture, graph replay)
  /// and on the sim, and compares every output.
  static void compareWithSim(const Package &p,
                             const std::vector<HostTensor> &inputs,
                             double tolerance) {
    auto gpu = open(p, DeviceKind::Cuda);
    auto sim = open(p, DeviceKind::Sim);
    ASSERT_TRUE(gpu && sim);
    Result<std::vector<HostTensor>> want = sim->run(inputs);
    ASSERT_TRUE(want.isOk()) << want.message();
    for (int rep = 0; rep < 3; ++rep) {
      Result<std::vector<HostTensor>> got = gpu->run(inputs);
      ASSERT_TRUE(got.isOk()) << "run " << rep << ": " << got.message();
      ASSERT_EQ(got->size(), want->size());
      for (size_t i = 0; i < got->size(); ++i) {
        if (tolerance == 0)
          EXPECT_EQ((*got)[i].data, (*want)[i].data)
              << "output " << i << ", run " << rep;
        else
          EXPECT_LE(relativeError((*got)[i], (*want)[i]), tolerance)
              << "output " << i << ", run " << rep;
      }
    }
  }
};

HostTensor randomInput(std::vector<int64_t> shape, uint64_t seed) {
  HostTensor x(DType::F32, std::move(shape));
  Rng rng(seed);
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.setFromDouble(i, rng.uniform(-2.0f, 2.0f));
  return x;
}

TEST_F(CudaGpu, DescribesTheDevice) {
  auto s = open(elementwisePackage(), DeviceKind::Cuda);
  ASSERT_TRUE(s);
  EXPECT_THAT(s->deviceDescription(), HasSubstr("(sm_"));
  EXPECT_EQ(defaultDeviceKind(), DeviceKind::Cuda);
  EXPECT_EQ(defaultCudaArch("none").rfind("sm_", 0), 0u);
}

TEST_F(CudaGpu, ElementwiseMatchesSim) {
  compareWithSim(elementwisePackage(),
                 {randomInput({kEwSize}, 1), randomInput({kEwSize}, 2)}, 1e-6);
}

TEST_F(CudaGpu, ReductionsMatchSim) {
  compareWithSim(reductionPackage(9), {randomInput({9, kRowLength}, 3)}, 1e-5);
}

TEST_F(CudaGpu, ShufflesAndVotesMatchSimExactly) {
  HostTensor in(DType::F32, {128});
  for (int i = 0; i < 128; ++i)
    in.setFromDouble(i, (i % 32) / 40.0 + (i / 32) * 0.01);
  in.setFromDouble(33, -0.5);
  in.setFromDouble(100, 5.0);
  compareWithSim(shufflePackage(), {in}, 0);
}

TEST_F(CudaGpu, CoordinatesMatchSimExactly) {
  Package p = basePackage();
  const int n = 2 * 3 * 2 * 4 * 2 * 3;
  p.outputs = {{DType::I32, {n}}};
  p.steps.push_back(
      kernelStep("k_coords", {2, 3, 2}, {4, 2, 3}, {outputRef(0, n * 4)}));
  signKernels(p);
  compareWithSim(p, {}, 0);
}

TEST_F(CudaGpu, HalfAndBFloat16ConversionsMatchTheRuntime) {
  auto s = open(halfPackage(), DeviceKind::Cuda);
  ASSERT_TRUE(s);
  std::vector<HostTensor> in = halfInputs();
  Result<std::vector<HostTensor>> out = s->run(in);
  ASSERT_TRUE(out.isOk()) << out.message();
  auto f32 = [](const HostTensor &t, int64_t i) {
    float v;
    std::memcpy(&v, t.data.data() + 4 * i, 4);
    return v;
  };
  auto u16 = [](const HostTensor &t, int64_t i) {
    uint16_t v;
    std::memcpy(&v, t.data.data() + 2 * i, 2);
    return v;
  };
  for (uint32_t i = 0; i < 65536; ++i) {
    float h = f32((*out)[0], i), b = f32((*out)[1], i);
    // NaN payloads may differ between the GPU and the runtime.
    if (!std::isnan(h)) {
      ASSERT_EQ(h, halfToFloat(uint16_t(i))) << i;
    }
    if (!std::isnan(b)) {
      ASSERT_EQ(b, bfloat16ToFloat(uint16_t(i))) << i;
    }
  }
  for (int i = 0; i < kHalfInputs; ++i) {
    float f = f32(in[1], i);
    if (std::isnan(f))
      continue;
    EXPECT_EQ(u16((*out)[2], i), floatToHalf(f)) << f;
    EXPECT_EQ(u16((*out)[3], i), floatToBFloat16(f)) << f;
  }
}

TEST_F(CudaGpu, GemmStepsThroughCublasMatchSim) {
  compareWithSim(gemmPackage(),
                 {randomInput({3, 4, 5}, 4), randomInput({6, 5}, 5),
                  randomInput({4, 3}, 6)},
                 1e-6);
}

TEST_F(CudaGpu, GemmEpiloguesThroughCublasLtMatchSim) {
  // cuBLASLt sums in its own order and may evaluate tanh differently: the
  // f32 output within 1e-5, f16 and bf16 within a few units of their last
  // place.
  auto gpu = open(epiloguePackage(), DeviceKind::Cuda);
  auto sim = open(epiloguePackage(), DeviceKind::Sim);
  ASSERT_TRUE(gpu && sim);
  std::vector<HostTensor> in = epilogueInputs();
  Result<std::vector<HostTensor>> want = sim->run(in);
  ASSERT_TRUE(want.isOk()) << want.message();
  const double tolerance[] = {1e-5, 4e-3, 2e-2};
  for (int rep = 0; rep < 3; ++rep) {
    Result<std::vector<HostTensor>> got = gpu->run(in);
    ASSERT_TRUE(got.isOk()) << "run " << rep << ": " << got.message();
    ASSERT_EQ(got->size(), 3u);
    for (size_t i = 0; i < 3; ++i)
      EXPECT_LE(relativeError((*got)[i], (*want)[i]), tolerance[i])
          << "output " << i << ", run " << rep;
  }
}

TEST_F(CudaGpu, TwentyKernelChainMatchesSim) {
  compareWithSim(chainPackage(20), {randomInput({kChainSize}, 7)}, 1e-6);
}

TEST_F(CudaGpu, WorksWithoutGraphsAndRejectsWrongInputs) {
  auto s = open(elementwisePackage(), DeviceKind::Cuda, /*graph=*/false);
  ASSERT_TRUE(s);
  HostTensor x = randomInput({kEwSize}, 8);
  for (int rep = 0; rep < 2; ++rep)
    ASSERT_TRUE(s->run({x, x}).isOk());
  Result<std::vector<HostTensor>> r =
      s->run({x, randomInput({kEwSize + 1}, 9)});
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "input #1 (arg1): expected f32[1000], got f32[1001]");
}

TEST_F(CudaGpu, RunOnDeviceRecapturesWhenPointersChange) {
  const CudaDriver *cu = loadCudaDriver(nullptr);
  ASSERT_NE(cu, nullptr);
  auto s = open(elementwisePackage(), DeviceKind::Cuda);
  ASSERT_TRUE(s);
  // Allocate device buffers in the primary context the session uses.
  CUdevice dev;
  CUcontext ctx;
  ASSERT_EQ(cu->cuDeviceGet(&dev, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu->cuDevicePrimaryCtxRetain(&ctx, dev), CUDA_SUCCESS);
  ASSERT_EQ(cu->cuCtxPushCurrent(ctx), CUDA_SUCCESS);
  const size_t bytes = kEwSize * 4;
  CUdeviceptr x, y, out1, out2;
  for (CUdeviceptr *p : {&x, &y, &out1, &out2})
    ASSERT_EQ(cu->cuMemAlloc(p, bytes), CUDA_SUCCESS);
  std::vector<float> hx(kEwSize, 0.5f), hy(kEwSize, 1.0f), r1(kEwSize),
      r2(kEwSize);
  ASSERT_EQ(cu->cuMemcpyHtoD(x, hx.data(), bytes), CUDA_SUCCESS);
  ASSERT_EQ(cu->cuMemcpyHtoD(y, hy.data(), bytes), CUDA_SUCCESS);
  auto ptr = [](CUdeviceptr p) {
    return reinterpret_cast<void *>(uintptr_t(p));
  };
  // Direct run, graph capture, replay, then new output pointer: re-capture.
  for (CUdeviceptr out : {out1, out1, out1, out2})
    ASSERT_TRUE(s->runOnDevice({ptr(x), ptr(y)}, {ptr(out)}).isOk());
  ASSERT_EQ(cu->cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  CUstream stream;
  ASSERT_EQ(cu->cuStreamCreate(&stream, 0), CUDA_SUCCESS);
  ASSERT_EQ(cu->cuMemcpyDtoHAsync(r1.data(), out1, bytes, stream),
            CUDA_SUCCESS);
  ASSERT_EQ(cu->cuMemcpyDtoHAsync(r2.data(), out2, bytes, stream),
            CUDA_SUCCESS);
  ASSERT_EQ(cu->cuStreamSynchronize(stream), CUDA_SUCCESS);
  const float want = std::exp(0.5f) + std::tanh(0.5f);
  EXPECT_NEAR(r1[999], want, 1e-6);
  EXPECT_NEAR(r2[0], want, 1e-6);
  cu->cuStreamDestroy(stream);
  for (CUdeviceptr p : {x, y, out1, out2})
    cu->cuMemFree(p);
  CUcontext popped;
  cu->cuCtxPopCurrent(&popped);
  cu->cuDevicePrimaryCtxRelease(dev);
}

} // namespace
