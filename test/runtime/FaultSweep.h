//===- FaultSweep.h - Fault sweeps of CUDA sessions -------------*- C++ -*-===//
//
// The fixtures and the session lifecycle of the fault-injection tests
// (FaultInjectionTest.cpp's CUDA and cuBLAS sweep, ConvStepTest.cpp's cuDNN
// sweep): a session created, run directly, captured into a graph and
// replayed, profiled and benchmarked, in one of four modes (Mode), with one
// armed fault; nothing may leak, and the session or a new one recovers.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TEST_RUNTIME_FAULTSWEEP_H
#define DLC_TEST_RUNTIME_FAULTSWEEP_H

#include "FakeCudaTestUtil.h"
#include "TestUtil.h"
#include "runtime/FaultInjection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <string>
#include <vector>

namespace dlc::rt::test {

/// Disarms every fault at the end of each test, whatever it did.
class FaultTest : public ::testing::Test {
protected:
  void TearDown() override { fault::clear(); }
};

class CudaFault : public FaultTest {
protected:
  void SetUp() override {
    fake_ = FakeCudaControl::get();
    if (!fake_)
      GTEST_SKIP() << "needs $DLC_CUDA_DRIVER_LIB set to libdlc-fakecuda.so "
                      "(ctest -R runtime.fake-cuda)";
    std::string why;
    ASSERT_TRUE(cudaAvailable(&why)) << why;
  }

  /// No object of the runtime's or the driver's is alive beyond `live`,
  /// nor beyond what the test holds.
  void expectNoLeaks(const LiveCudaObjects &live, const FakeCudaStats &start,
                     bool testHoldsBuffers = false) {
    EXPECT_EQ(liveCudaObjects(), live)
        << "live: " << liveCudaObjects().describe();
    FakeCudaStats s = fake_->snapshot();
    if (testHoldsBuffers) {
      EXPECT_EQ(s.contextRetains, start.contextRetains);
      EXPECT_EQ(s.allocations, start.allocations);
      EXPECT_EQ(s.allocatedBytes, start.allocatedBytes);
    } else {
      EXPECT_EQ(s.contextRetains, 0);
      EXPECT_EQ(s.allocations, 0);
    }
    EXPECT_EQ(s.pushedContexts, 0);
    EXPECT_EQ(s.modules, 0);
    EXPECT_EQ(s.streams, 0);
    EXPECT_EQ(s.graphs, 0);
    EXPECT_EQ(s.graphExecs, 0);
    EXPECT_EQ(s.events, 0);
    EXPECT_EQ(s.cublasHandles, 0);
    EXPECT_EQ(s.cudnnHandles, 0);
    EXPECT_EQ(s.cudnnDescriptors, 0);
    EXPECT_EQ(s.leakedAtContextDestruction, start.leakedAtContextDestruction);
  }

  const FakeCudaControl *fake_ = nullptr;
};

/// How a session is used in a lifecycle: each mode reaches some call sites
/// the others do not.
enum class Mode {
  /// run(): direct launches, then graph capture, then replay.
  Graph,
  /// run() with DLC_CUDA_SYNC_STEPS=1: a synchronization after every step.
  SyncSteps,
  /// The package has no cubin for the GPU: NVRTC compiles one.
  NvrtcFallback,
  /// runOnDevice() on caller buffers, then on other output buffers: the
  /// graph is captured again.
  RunOnDevice,
};

inline const char *modeName(Mode m) {
  switch (m) {
  case Mode::Graph:
    return "graph";
  case Mode::SyncSteps:
    return "sync-steps";
  case Mode::NvrtcFallback:
    return "nvrtc-fallback";
  case Mode::RunOnDevice:
    return "run-on-device";
  }
  return "?";
}

/// Device buffers a test owns, made with the fake driver's own entry points
/// (not the runtime's, whose faults and counts are under test).
class CallerBuffers {
public:
  CallerBuffers(const std::vector<uint64_t> &inputs,
                const std::vector<uint64_t> &outputs) {
    void *h =
        ::dlopen(std::getenv("DLC_CUDA_DRIVER_LIB"), RTLD_NOW | RTLD_LOCAL);
    handle_ = h;
    retain_ =
        sym<CUresult (*)(CUcontext *, CUdevice)>("cuDevicePrimaryCtxRetain");
    release_ = sym<CUresult (*)(CUdevice)>("cuDevicePrimaryCtxRelease_v2");
    push_ = sym<CUresult (*)(CUcontext)>("cuCtxPushCurrent_v2");
    pop_ = sym<CUresult (*)(CUcontext *)>("cuCtxPopCurrent_v2");
    alloc_ = sym<CUresult (*)(CUdeviceptr *, size_t)>("cuMemAlloc_v2");
    free_ = sym<CUresult (*)(CUdeviceptr)>("cuMemFree_v2");
    CUcontext ctx;
    EXPECT_EQ(retain_(&ctx, 0), CUDA_SUCCESS);
    EXPECT_EQ(push_(ctx), CUDA_SUCCESS);
    for (uint64_t b : inputs)
      in_.push_back(allocate(b));
    for (int set = 0; set < 2; ++set)
      for (uint64_t b : outputs)
        out_[set].push_back(allocate(b));
    CUcontext popped;
    EXPECT_EQ(pop_(&popped), CUDA_SUCCESS);
  }
  ~CallerBuffers() {
    for (void *p : in_)
      free_(CUdeviceptr(uintptr_t(p)));
    for (auto &set : out_)
      for (void *p : set)
        free_(CUdeviceptr(uintptr_t(p)));
    release_(0);
    ::dlclose(handle_);
  }
  std::vector<const void *> inputs() const {
    return std::vector<const void *>(in_.begin(), in_.end());
  }
  const std::vector<void *> &outputs(int set) const { return out_[set]; }
  void write(const std::vector<HostTensor> &in) {
    for (size_t i = 0; i < in.size(); ++i)
      std::memcpy(in_[i], in[i].data.data(), in[i].data.size());
  }
  /// Whether output set `set` holds `want` (the fake's device memory is
  /// host memory).
  ::testing::AssertionResult holds(int set,
                                   const std::vector<HostTensor> &want) {
    std::vector<HostTensor> got;
    for (size_t i = 0; i < want.size(); ++i) {
      got.push_back(want[i]);
      std::memcpy(got.back().data.data(), out_[set][i], want[i].data.size());
    }
    return sameOutputs(got, want);
  }
  /// Fills output set `set` with a pattern, so stale results show.
  void scribble(int set, const std::vector<HostTensor> &want) {
    for (size_t i = 0; i < want.size(); ++i)
      std::memset(out_[set][i], 0xa5, want[i].data.size());
  }

private:
  template <typename F> F sym(const char *name) {
    void *s = ::dlsym(handle_, name);
    EXPECT_NE(s, nullptr) << name;
    return reinterpret_cast<F>(s);
  }
  void *allocate(uint64_t bytes) {
    CUdeviceptr p = 0;
    EXPECT_EQ(alloc_(&p, bytes ? bytes : 256), CUDA_SUCCESS);
    return reinterpret_cast<void *>(uintptr_t(p));
  }
  void *handle_ = nullptr;
  CUresult (*retain_)(CUcontext *, CUdevice) = nullptr;
  CUresult (*release_)(CUdevice) = nullptr;
  CUresult (*push_)(CUcontext) = nullptr;
  CUresult (*pop_)(CUcontext *) = nullptr;
  CUresult (*alloc_)(CUdeviceptr *, size_t) = nullptr;
  CUresult (*free_)(CUdeviceptr) = nullptr;
  std::vector<void *> in_, out_[2];
};

/// What happened in one life of a session: created, run three times
/// (direct launches, graph capture, graph replay; for RunOnDevice a fourth
/// time on other buffers), in Graph mode profiled (events around direct
/// launches), benchmarked (events around whole runs; not in NvrtcFallback
/// mode, which differs only in loading), then destroyed.
struct Lifecycle {
  std::vector<std::string> errors;
  /// Whether the armed fault fired before the session's destruction.
  bool firedInUse = false;
  /// Outcome of the run after the first failure (the fault cleared).
  std::string recovery;
  bool recovered = false;
};

struct Sweep {
  Mode mode = Mode::Graph;
  Package package;
  std::vector<HostTensor> inputs, want;
  std::unique_ptr<CallerBuffers> buffers;
};

inline Lifecycle runLifecycle(Sweep &w, const std::string &site) {
  Lifecycle life;
  std::unique_ptr<ScopedEnv> sync;
  if (w.mode == Mode::SyncSteps)
    sync = std::make_unique<ScopedEnv>("DLC_CUDA_SYNC_STEPS", "1");
  // One run; an error message, or "" when it ran and computed the right
  // outputs.
  auto runOnce = [&](Session &s, int set) -> std::string {
    if (w.mode != Mode::RunOnDevice) {
      Result<std::vector<HostTensor>> r = s.run(w.inputs);
      if (!r.isOk())
        return r.message();
      ::testing::AssertionResult same = sameOutputs(*r, w.want);
      return same ? "" : std::string("wrong outputs: ") + same.message();
    }
    w.buffers->scribble(set, w.want);
    Status st = s.runOnDevice(w.buffers->inputs(), w.buffers->outputs(set));
    if (!st.isOk())
      return st.message();
    ::testing::AssertionResult same = w.buffers->holds(set, w.want);
    return same ? "" : std::string("wrong outputs: ") + same.message();
  };
  const int runs = w.mode == Mode::RunOnDevice ? 4 : 3;
  {
    Result<std::unique_ptr<Session>> s = createCuda(w.package);
    if (!s.isOk()) {
      life.errors.push_back(s.message());
    } else {
      for (int rep = 0; rep < runs; ++rep) {
        std::string e = runOnce(**s, rep < 3 ? 0 : 1);
        EXPECT_THAT(e, ::testing::Not(::testing::StartsWith("wrong outputs")))
            << rep;
        if (!e.empty())
          life.errors.push_back(e);
      }
      if (w.mode == Mode::Graph && life.errors.empty()) {
        Result<std::vector<StepProfile>> p = (*s)->profile(w.inputs, 2);
        if (!p.isOk())
          life.errors.push_back(p.message());
        else
          EXPECT_EQ(p->size(), w.package.steps.size());
      }
      // A benchmark replays the graph captured by the runs (Graph), runs
      // synchronized direct launches (SyncSteps), or captures a graph for
      // the session's own buffers after runs on the caller's (RunOnDevice).
      if (w.mode != Mode::NvrtcFallback && life.errors.empty()) {
        Result<std::vector<double>> t = (*s)->benchmark(w.inputs, 1, 2);
        if (!t.isOk())
          life.errors.push_back(t.message());
        else
          EXPECT_EQ(t->size(), 2u);
      }
      if (!life.errors.empty()) {
        // The fault fires once: this run sees it cleared.
        life.recovery = runOnce(**s, 1);
        life.recovered = life.recovery.empty();
      }
    }
    life.firedInUse = fault::fired(site) > 0;
  }
  if (!life.errors.empty() && !life.firedInUse)
    ADD_FAILURE() << "an error without a fault: " << life.errors[0];
  if (!life.errors.empty() && life.recovery.empty() && !life.recovered) {
    // Creation failed: a new session works.
    Result<std::unique_ptr<Session>> s = createCuda(w.package);
    life.recovery = s.isOk() ? runOnce(**s, 0) : s.message();
    life.recovered = life.recovery.empty();
  }
  return life;
}

} // namespace dlc::rt::test

#endif // DLC_TEST_RUNTIME_FAULTSWEEP_H
