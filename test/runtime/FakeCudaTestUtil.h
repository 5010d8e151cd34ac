//===- FakeCudaTestUtil.h - Sessions on the fake CUDA driver ----*- C++ -*-===//
//
// Helpers of the tests that run CUDA sessions on libdlc-fakecuda.so (CTest
// sets $DLC_CUDA_DRIVER_LIB and $DLC_CUBLAS_LIB to it for the runtime.fake-*
// groups; elsewhere these tests skip).
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TEST_RUNTIME_FAKECUDATESTUTIL_H
#define DLC_TEST_RUNTIME_FAKECUDATESTUTIL_H

#define DLC_FAKE_CUDA_WITH_PACKAGE
#include "FakeCuda.h"
#include "TestPackages.h"
#include "runtime/CudaLibs.h"
#include "runtime/Runtime.h"
#include "runtime/RuntimeImpl.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>
#include <memory>
#include <ostream>

namespace dlc::rt {
/// Lets GoogleTest print live-object counts readably.
inline void PrintTo(const LiveCudaObjects &o, std::ostream *os) {
  *os << o.describe();
}
} // namespace dlc::rt

namespace dlc::rt::test {

/// The control functions of the fake driver the runtime loaded.
struct FakeCudaControl {
  DlcFakeCudaStatsFn stats = nullptr;
  DlcFakeCudaConfigureFn configure = nullptr;
  DlcFakeCudaSetCubinStandInFn setCubinStandIn = nullptr;
  DlcFakeCudaLastErrorFn lastError = nullptr;

  FakeCudaStats snapshot() const {
    FakeCudaStats s;
    stats(&s);
    return s;
  }

  /// Null unless $DLC_CUDA_DRIVER_LIB is the fake (opening the same path
  /// gives the handle, and so the state, the runtime uses).
  static const FakeCudaControl *get() {
    static const FakeCudaControl *control = []() -> const FakeCudaControl * {
      const char *path = std::getenv("DLC_CUDA_DRIVER_LIB");
      if (!path || !*path)
        return nullptr;
      void *h = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (!h)
        return nullptr;
      auto *c = new FakeCudaControl;
      c->stats =
          reinterpret_cast<DlcFakeCudaStatsFn>(::dlsym(h, "dlcFakeCudaStats"));
      c->configure = reinterpret_cast<DlcFakeCudaConfigureFn>(
          ::dlsym(h, "dlcFakeCudaConfigure"));
      c->setCubinStandIn = reinterpret_cast<DlcFakeCudaSetCubinStandInFn>(
          ::dlsym(h, "dlcFakeCudaSetCubinStandIn"));
      c->lastError = reinterpret_cast<DlcFakeCudaLastErrorFn>(
          ::dlsym(h, "dlcFakeCudaLastError"));
      if (!c->stats || !c->configure || !c->setCubinStandIn || !c->lastError) {
        delete c;
        return nullptr;
      }
      return c;
    }();
    return control;
  }
};

/// The architecture the fake reports by default.
constexpr const char *kFakeArch = "sm_90";

/// `p` with a fake cubin for the fake's architecture: its kernels compiled
/// by the sim device.
inline Package withFakeCubin(Package p) {
  Result<std::string> lib = buildSimKernelLibrary(p.cudaSource);
  EXPECT_TRUE(lib.isOk()) << lib.message();
  if (lib.isOk())
    p.cubins.push_back({kFakeArch, fakeCubinFor(p, *lib), {}});
  return p;
}

inline Result<std::unique_ptr<Session>> createCuda(const Package &p,
                                                   bool graph = true) {
  SessionOptions opts;
  opts.device = DeviceKind::Cuda;
  opts.useCudaGraph = graph;
  return Session::create(p, opts);
}

inline std::unique_ptr<Session> openDevice(const Package &p, DeviceKind kind,
                                           bool graph = true) {
  SessionOptions opts;
  opts.device = kind;
  opts.useCudaGraph = graph;
  Result<std::unique_ptr<Session>> s = Session::create(p, opts);
  EXPECT_TRUE(s.isOk()) << s.message();
  return s.isOk() ? s.take() : nullptr;
}

inline HostTensor randomF32(std::vector<int64_t> shape, uint64_t seed) {
  HostTensor x(DType::F32, std::move(shape));
  Rng rng(seed);
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.setFromDouble(i, rng.uniform(-2.0f, 2.0f));
  return x;
}

/// Every kind of work a CUDA session does: a kernel launch (with
/// `sharedBytes` of dynamic shared memory; above 48 KiB the session calls
/// cuFuncSetAttribute), GEMMs through cuBLAS into the arena and an output,
/// a device-to-device copy of the arena and one of the constants.
inline Package scenarioPackage(uint32_t sharedBytes = 0) {
  Package p = gemmPackage(); // inputs 0-2, outputs 0-1, steps bmm, copy, mm
  p.cudaSource = testKernelSource();
  p.kernels = testKernels();
  const uint64_t ew = kEwSize * 4;
  p.inputs.push_back({DType::F32, {kEwSize}});
  p.inputs.push_back({DType::F32, {kEwSize}});
  p.outputs.push_back({DType::F32, {kEwSize}});
  Step k = kernelStep("k_ew", {(kEwSize + 127) / 128}, {128},
                      {bufferRef(BufferRef::Kind::Input, 3, 0, ew),
                       bufferRef(BufferRef::Kind::Input, 4, 0, ew),
                       bufferRef(BufferRef::Kind::Output, 2, 0, ew)});
  k.kernel.sharedBytes = sharedBytes;
  p.steps.push_back(k);
  p.outputs.push_back({DType::F32, {16}});
  for (int i = 0; i < 16; ++i) {
    float v = 0.25f * float(i) - 1.0f;
    const auto *b = reinterpret_cast<const uint8_t *>(&v);
    p.constants.insert(p.constants.end(), b, b + 4);
  }
  Step c;
  c.kind = Step::Kind::Copy;
  c.label = "constants";
  c.copy.src = bufferRef(BufferRef::Kind::Constant, 0, 0, 64);
  c.copy.dst = outputRef(3, 64);
  p.steps.push_back(c);
  signKernels(p);
  return p;
}

inline std::vector<HostTensor> scenarioInputs() {
  return {randomF32({3, 4, 5}, 21), randomF32({6, 5}, 22),
          randomF32({4, 3}, 23), randomF32({kEwSize}, 24),
          randomF32({kEwSize}, 25)};
}

/// The outputs of `p` on the sim device (without dynamic shared memory,
/// which the sim device rejects and no test kernel uses).
inline std::vector<HostTensor> simOutputs(Package p,
                                          const std::vector<HostTensor> &in) {
  for (Step &s : p.steps)
    s.kernel.sharedBytes = 0;
  p.cubins.clear();
  std::unique_ptr<Session> s = openDevice(p, DeviceKind::Sim);
  if (!s)
    return {};
  Result<std::vector<HostTensor>> out = s->run(in);
  EXPECT_TRUE(out.isOk()) << out.message();
  return out.isOk() ? out.take() : std::vector<HostTensor>{};
}

/// Whether every output has exactly the expected bytes.
inline ::testing::AssertionResult
sameOutputs(const std::vector<HostTensor> &got,
            const std::vector<HostTensor> &want) {
  if (got.size() != want.size())
    return ::testing::AssertionFailure()
           << got.size() << " outputs, expected " << want.size();
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i].data != want[i].data)
      return ::testing::AssertionFailure()
             << "output " << i << " differs (relative error "
             << relativeError(got[i], want[i]) << ")";
  return ::testing::AssertionSuccess();
}

} // namespace dlc::rt::test

#endif // DLC_TEST_RUNTIME_FAKECUDATESTUTIL_H
