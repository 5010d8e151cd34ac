//===- TrainingSessionTest.cpp - rt::TrainingSession on sim and CUDA ------===//
//
// A hand-made training step (the state `w` updated by the elementwise test
// kernel, the loss copied from the batch) run by a TrainingSession: the
// state stays on the device and alternates between two copies, each
// replayed from its own CUDA Graph on the fake driver, with the same bytes
// as sim; failures leave the state whole and nothing leaks.
//
//===----------------------------------------------------------------------===//
#include "FaultSweep.h"
#include "TestPackages.h"
#include "runtime/Training.h"

namespace dlc::rt::test {
namespace {

/// inputs: w f32[1000] (state), y f32[1000] (the batch); outputs: the loss
/// (y[0], copied), w' = exp(w) + y * tanh(w).
Package trainingPackage(uint32_t microBatches = 1) {
  Package p = basePackage();
  p.cudaSource = testKernelSource();
  p.kernels = testKernels();
  const uint64_t ew = kEwSize * 4;
  p.inputs = {{DType::F32, {kEwSize}}, {DType::F32, {kEwSize}}};
  p.outputs = {{DType::F32, {}}, {DType::F32, {kEwSize}}};
  p.inputNames = {"w", "y"};
  p.outputNames = {"loss", "w"};
  p.steps.clear();
  p.steps.push_back(
      kernelStep("k_ew", {(kEwSize + 127) / 128}, {128},
                 {inputRef(0, ew), inputRef(1, ew), outputRef(1, ew)}));
  Step c;
  c.kind = Step::Kind::Copy;
  c.label = "loss";
  c.copy.src = inputRef(1, 4);
  c.copy.dst = outputRef(0, 4);
  p.steps.push_back(c);
  HostTensor w0 = randomF32({kEwSize}, 41);
  for (int64_t i = 0; i < kEwSize; ++i)
    w0.setFromDouble(i, 0.25 + 0.1 * w0.getAsDouble(i));
  p.constants = w0.data;
  p.state = {{"w", true, 0, 1, 0, ew}};
  p.microBatches = microBatches;
  signKernels(p);
  return p;
}

/// Batches of `micro` micro-batches of y, near -3: w stays within
/// [0.05, 0.9] (exp(w) - 3 tanh(w) maps it there).
HostTensor batchAt(int step, uint32_t micro) {
  HostTensor y(DType::F32, {kEwSize * int64_t(micro)});
  HostTensor r = randomF32({kEwSize * int64_t(micro)}, 100 + uint64_t(step));
  for (int64_t i = 0; i < y.numElements(); ++i)
    y.setFromDouble(i, 0.05 * r.getAsDouble(i) - 3);
  return y;
}

/// The losses and the final w of `steps` steps on `options`' device.
struct Trained {
  std::vector<double> losses;
  HostTensor w;
};
Trained train(const Package &p, const SessionOptions &options, int steps) {
  Trained t;
  auto trainer = TrainingSession::create(p, options);
  EXPECT_TRUE(trainer) << trainer.message();
  if (!trainer)
    return t;
  for (int s = 0; s < steps; ++s) {
    Result<double> loss = (*trainer)->step({batchAt(s, p.microBatches)});
    EXPECT_TRUE(loss) << loss.message();
    t.losses.push_back(loss ? *loss : 0);
  }
  Result<HostTensor> w = (*trainer)->read("w");
  EXPECT_TRUE(w) << w.message();
  if (w)
    t.w = w.take();
  return t;
}

/// The same computed on the host: w' = exp(w) + y * tanh(w), per micro-batch.
Trained byHand(const Package &p, int steps) {
  Trained t;
  HostTensor w(DType::F32, {kEwSize});
  std::memcpy(w.data.data(), p.constants.data(), w.data.size());
  for (int s = 0; s < steps; ++s) {
    HostTensor y = batchAt(s, p.microBatches);
    double sum = 0;
    for (uint32_t m = 0; m < p.microBatches; ++m) {
      const float *ym =
          reinterpret_cast<const float *>(y.data.data()) + size_t(m) * kEwSize;
      float *wv = reinterpret_cast<float *>(w.data.data());
      for (int i = 0; i < kEwSize; ++i)
        wv[i] = std::exp(wv[i]) + ym[i] * std::tanh(wv[i]);
      sum += double(ym[0]);
    }
    t.losses.push_back(sum / p.microBatches);
  }
  t.w = w;
  return t;
}

TEST(SimTraining, StateStaysOnTheDeviceAcrossSteps) {
  for (uint32_t micro : {1u, 3u}) {
    SCOPED_TRACE(micro);
    Package p = trainingPackage(micro);
    Trained sim = train(p, {DeviceKind::Sim}, 5);
    Trained want = byHand(p, 5);
    ASSERT_EQ(sim.losses.size(), want.losses.size());
    for (size_t s = 0; s < want.losses.size(); ++s)
      EXPECT_NEAR(sim.losses[s], want.losses[s], 1e-7) << "step " << s;
    ASSERT_EQ(sim.w.numElements(), kEwSize);
    for (int64_t i = 0; i < kEwSize; ++i)
      ASSERT_NEAR(sim.w.getAsDouble(i), want.w.getAsDouble(i),
                  1e-5 * (1 + std::fabs(want.w.getAsDouble(i))))
          << i;
  }
}

using FakeCudaTraining = CudaFault;

TEST_F(FakeCudaTraining, TwoGraphsReplayTheTwoStateCopiesAsSimComputes) {
  Package p = withFakeCubin(trainingPackage());
  Trained sim = train(p, {DeviceKind::Sim}, 6);
  LiveCudaObjects live = liveCudaObjects();
  FakeCudaStats start = fake_->snapshot();
  {
    SessionOptions cuda;
    cuda.device = DeviceKind::Cuda;
    auto trainer = TrainingSession::create(p, cuda);
    ASSERT_TRUE(trainer) << trainer.message();
    EXPECT_TRUE((*trainer)->usesCudaGraph());
    for (int s = 0; s < 6; ++s) {
      Result<double> loss = (*trainer)->step({batchAt(s, 1)});
      ASSERT_TRUE(loss) << loss.message();
      EXPECT_EQ(*loss, sim.losses[size_t(s)]) << "step " << s;
      // Run 1 launches directly; runs 2 and 3 capture a graph per state
      // copy, which later runs replay.
      EXPECT_EQ(fake_->snapshot().graphExecs, std::min(s, 2)) << "step " << s;
    }
    Result<HostTensor> w = (*trainer)->read("w");
    ASSERT_TRUE(w) << w.message();
    EXPECT_EQ(w->data, sim.w.data);
  }
  expectNoLeaks(live, start);
}

TEST_F(FakeCudaTraining, AFailedStepLeavesTheStateWhole) {
  Package p = withFakeCubin(trainingPackage());
  Trained sim = train(p, {DeviceKind::Sim}, 3);
  LiveCudaObjects live = liveCudaObjects();
  FakeCudaStats start = fake_->snapshot();
  for (const char *site : {"cuGraphLaunch", "cuMemcpyHtoDAsync",
                           "cuMemcpyDtoHAsync", "cuLaunchKernel"}) {
    SCOPED_TRACE(site);
    {
      SessionOptions cuda;
      cuda.device = DeviceKind::Cuda;
      auto trainer = TrainingSession::create(p, cuda);
      ASSERT_TRUE(trainer) << trainer.message();
      // Three steps with one failed attempt at the third: it fails, and
      // once more it gives the state sim has after three.
      for (int s = 0; s < 3; ++s) {
        if (s == 2) {
          ASSERT_TRUE(fault::inject(site, 1));
          Result<double> failed = (*trainer)->step({batchAt(s, 1)});
          fault::clear();
          EXPECT_FALSE(failed) << "the fault did not fire";
          EXPECT_EQ((*trainer)->stepsDone(), 2u);
        }
        Result<double> loss = (*trainer)->step({batchAt(s, 1)});
        ASSERT_TRUE(loss) << loss.message();
        EXPECT_EQ(*loss, sim.losses[size_t(s)]);
      }
      Result<HostTensor> w = (*trainer)->read("w");
      ASSERT_TRUE(w) << w.message();
      EXPECT_EQ(w->data, sim.w.data);
    }
    expectNoLeaks(live, start);
  }
}

TEST_F(FakeCudaTraining, OutOfDeviceMemoryIsAnErrorWithoutLeaks) {
  Package p = withFakeCubin(trainingPackage());
  LiveCudaObjects live = liveCudaObjects();
  FakeCudaStats start = fake_->snapshot();
  // The session's own allocations come first (arena, constants); the
  // training session's come after: fail each of the first several.
  for (int n = 1; n <= 8; ++n) {
    SCOPED_TRACE(n);
    ASSERT_TRUE(fault::inject("cuMemAlloc", uint64_t(n)));
    SessionOptions cuda;
    cuda.device = DeviceKind::Cuda;
    auto trainer = TrainingSession::create(p, cuda);
    fault::clear();
    if (trainer) {
      Result<double> loss = (*trainer)->step({batchAt(0, 1)});
      EXPECT_TRUE(loss) << loss.message();
    } else {
      EXPECT_THAT(trainer.message(), ::testing::HasSubstr("cuMemAlloc"));
    }
    trainer = Status::error("released");
    expectNoLeaks(live, start);
  }
}

} // namespace
} // namespace dlc::rt::test
