//===- StepExecutorTest.cpp - The step loop on a recording device ---------===//
//
// The executor's device-independent work, seen through a Device that only
// records what it is asked to do: addresses resolved from every kind of
// buffer reference, steps in order with afterStep after each, empty GEMMs
// and copies skipped, the epilogue fallback (when the device declines and
// when it is forced), and a failing operation that ends the run.
//
//===----------------------------------------------------------------------===//

#include "runtime/StepExecutor.h"
#include "TestPackages.h"
#include "TestUtil.h"

#include <gtest/gtest.h>

#include <sstream>

namespace dlc::rt {
namespace {

using test::bufferRef;
using test::ScopedEnv;

constexpr DevicePtr kInput = 0x1000, kOutput = 0x2000, kArena = 0x10000,
                    kConstants = 0x20000;

/// Records every operation as a line of text.
class RecordingDevice final : public Device {
public:
  RecordingDevice(std::vector<std::string> &log, bool fuseEpilogues,
                  std::string failLaunch = "")
      : log_(log), fuseEpilogues_(fuseEpilogues),
        failLaunch_(std::move(failLaunch)) {}

  std::string description() const override { return "recording"; }
  DevicePtr arena() const override { return kArena; }
  DevicePtr constants() const override { return kConstants; }
  Result<RunBuffers> stage(const std::vector<HostTensor> &inputs,
                           std::vector<HostTensor> &) override {
    RunBuffers b;
    for (size_t i = 0; i < inputs.size(); ++i)
      b.inputs.push_back(kInput + 0x100 * i);
    b.outputs.push_back(kOutput);
    log_.push_back("stage");
    return b;
  }
  Status fetchOutputs(const RunBuffers &, std::vector<HostTensor> &) override {
    log_.push_back("fetch");
    return Status::ok();
  }
  Status synchronize(const std::string &what) override {
    log_.push_back("sync " + what);
    return Status::ok();
  }
  Result<DevicePtr> allocateMemory(uint64_t, const std::string &) override {
    return Status::error("no memory");
  }
  void freeMemory(DevicePtr) override {}
  Status upload(DevicePtr, const void *, uint64_t,
                const std::string &) override {
    return Status::error("no uploads");
  }
  Status download(void *, DevicePtr, uint64_t, const std::string &) override {
    return Status::error("no downloads");
  }
  Result<std::unique_ptr<Timeline>>
  createTimeline(size_t, const std::string &) override {
    return Status::error("no timeline");
  }
  Status launch(const StepOp &op, uint32_t kernel, const LaunchDims &dims,
                const std::vector<DevicePtr> &args) override {
    std::ostringstream s;
    s << std::hex << "launch " << op.step << (op.part ? op.part : "") << " k"
      << kernel << " grid " << dims.grid[0] << " block " << dims.block[0];
    for (DevicePtr a : args)
      s << " " << a;
    log_.push_back(s.str());
    if (!failLaunch_.empty())
      return Status::error(failLaunch_);
    return Status::ok();
  }
  Result<bool> gemm(const StepOp &op, const GemmStep &g,
                    const GemmOperands &o) override {
    std::ostringstream s;
    s << std::hex << "gemm " << op.step << (g.hasEpilogue() ? " epilogue" : "")
      << " " << o.a << " " << o.b << " " << o.c << " " << o.bias << " "
      << o.addend;
    log_.push_back(s.str());
    return !g.hasEpilogue() || fuseEpilogues_;
  }
  Status prepareGemm() override {
    log_.push_back("prepare gemm");
    return Status::ok();
  }
  Status conv(const StepOp &op, const ConvStep &c,
              const ConvOperands &o) override {
    std::ostringstream s;
    s << std::hex << "conv " << op.step << (c.hasEpilogue() ? " epilogue" : "")
      << " " << o.x << " " << o.filter << " " << o.y << " " << o.bias << " "
      << o.addend;
    log_.push_back(s.str());
    return Status::ok();
  }
  Status copy(const StepOp &op, DevicePtr dst, DevicePtr src,
              uint64_t bytes) override {
    std::ostringstream s;
    s << std::hex << "copy " << op.step << (op.part ? op.part : "") << " "
      << dst << " " << src << " " << bytes;
    log_.push_back(s.str());
    return Status::ok();
  }
  Status afterStep(size_t step) override {
    log_.push_back("after " + std::to_string(step));
    return Status::ok();
  }

private:
  std::vector<std::string> &log_;
  bool fuseEpilogues_;
  std::string failLaunch_;
};

/// A kernel over every kind of buffer, an empty GEMM, a GEMM with a bias,
/// an addend and an epilogue kernel, an empty copy and a copy.
Package executorPackage() {
  Package p;
  p.inputs = {{DType::F32, {4}}, {DType::F32, {4}}};
  p.outputs = {{DType::F32, {2, 2}}};
  p.kernels = {{"k0", false, std::nullopt}, {"epilogue", false, std::nullopt}};
  p.arenaBytes = 256;
  p.constants.resize(64);
  using K = BufferRef::Kind;

  Step kernel;
  kernel.kind = Step::Kind::Kernel;
  kernel.kernel.grid[0] = 3;
  kernel.kernel.block[0] = 32;
  kernel.kernel.args = {
      bufferRef(K::Input, 1, 4, 12), bufferRef(K::Output, 0, 0, 16),
      bufferRef(K::Arena, 0, 0x40, 16), bufferRef(K::Constant, 0, 8, 16)};
  Step empty;
  empty.kind = Step::Kind::Gemm;
  empty.gemm.m = 0;
  empty.gemm.n = 2;
  Step gemm;
  gemm.kind = Step::Kind::Gemm;
  gemm.gemm.m = gemm.gemm.n = gemm.gemm.k = 2;
  gemm.gemm.a = bufferRef(K::Input, 0, 0, 16);
  gemm.gemm.b = bufferRef(K::Constant, 0, 0, 16);
  gemm.gemm.c = bufferRef(K::Output, 0, 0, 16);
  gemm.gemm.bias = bufferRef(K::Constant, 0, 0x20, 8);
  gemm.gemm.addend = bufferRef(K::Arena, 0, 0, 16);
  gemm.gemm.epilogue = GemmEpilogue::Relu;
  gemm.gemm.epilogueKernel = 1;
  Step noCopy;
  noCopy.kind = Step::Kind::Copy;
  Step copy;
  copy.kind = Step::Kind::Copy;
  copy.copy.src = bufferRef(K::Output, 0, 0, 16);
  copy.copy.dst = bufferRef(K::Arena, 0, 0x80, 16);
  p.steps = {kernel, empty, gemm, noCopy, copy};
  return p;
}

std::vector<HostTensor> executorInputs() {
  return {HostTensor(DType::F32, {4}), HostTensor(DType::F32, {4})};
}

std::vector<std::string> runOn(bool fuseEpilogues, Status *status = nullptr,
                               const std::string &failLaunch = "") {
  std::vector<std::string> log;
  StepExecutor executor(executorPackage());
  executor.setDevice(
      std::make_unique<RecordingDevice>(log, fuseEpilogues, failLaunch));
  Result<std::vector<HostTensor>> out = executor.run(executorInputs());
  if (status)
    *status = out.isOk() ? Status::ok() : out.status();
  else
    EXPECT_TRUE(out.isOk()) << out.message();
  return log;
}

TEST(StepExecutor, ResolvesEveryBufferKindAndRunsTheStepsInOrder) {
  ScopedEnv noForce("DLC_GEMM_EPILOGUE_FALLBACK", "0");
  std::vector<std::string> want = {
      "stage",
      "launch 0 k0 grid 3 block 20 1104 2000 10040 20008",
      "after 0",
      "after 1",
      "gemm 2 epilogue 1000 20000 2000 20020 10000",
      "after 2",
      "after 3",
      "copy 4 10080 2000 10",
      "after 4",
      "fetch",
      "sync running the package"};
  EXPECT_EQ(runOn(/*fuseEpilogues=*/true), want);
}

TEST(StepExecutor, EpilogueRunsAsItsKernelWhenTheDeviceCannotFuseIt) {
  ScopedEnv noForce("DLC_GEMM_EPILOGUE_FALLBACK", "0");
  std::vector<std::string> log = runOn(/*fuseEpilogues=*/false);
  std::vector<std::string> step2(log.begin() + 4, log.begin() + 10);
  std::vector<std::string> want = {
      "gemm 2 epilogue 1000 20000 2000 20020 10000",
      "prepare gemm",
      "copy 2the addend 2000 10000 10",
      "gemm 2 1000 20000 2000 0 0",
      "launch 2its epilogue kernel k1 grid 1 block 100 2000 20020",
      "after 2"};
  EXPECT_EQ(step2, want);
}

TEST(StepExecutor, ForcedEpilogueFallbackNeverAsksTheDevice) {
  ScopedEnv force("DLC_GEMM_EPILOGUE_FALLBACK", "1");
  std::vector<std::string> log = runOn(/*fuseEpilogues=*/true);
  std::vector<std::string> step2(log.begin() + 4, log.begin() + 9);
  std::vector<std::string> want = {
      "prepare gemm", "copy 2the addend 2000 10000 10",
      "gemm 2 1000 20000 2000 0 0",
      "launch 2its epilogue kernel k1 grid 1 block 100 2000 20020", "after 2"};
  EXPECT_EQ(step2, want);
}

TEST(StepExecutor, AFailingOperationEndsTheRun) {
  Status st;
  std::vector<std::string> log =
      runOn(/*fuseEpilogues=*/true, &st, "launch failed");
  EXPECT_EQ(st.message(), "launch failed");
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log.back().rfind("launch 0", 0), 0u);
}

TEST(StepExecutor, ProfileReportsATimelineFailure) {
  std::vector<std::string> log;
  StepExecutor executor(executorPackage());
  executor.setDevice(std::make_unique<RecordingDevice>(log, true));
  Result<std::vector<StepProfile>> p = executor.profile(executorInputs(), 1);
  ASSERT_FALSE(p.isOk());
  EXPECT_EQ(p.message(), "no timeline");
  EXPECT_EQ(log.back(), "sync the profiling warm-up run");
}

} // namespace
} // namespace dlc::rt
