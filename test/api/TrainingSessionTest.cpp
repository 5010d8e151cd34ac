//===- TrainingSessionTest.cpp - The C++ training API ---------------------===//
//
// rt::TrainingSession against the training-step package run by hand
// (Session::run, the state fed from each step's outputs to the next): the
// same losses and state bit for bit, with and without micro-batches;
// reading and writing state by name; what it refuses.
//
//===----------------------------------------------------------------------===//
#include "dlc/dlc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <string>

namespace {

using dlc::rt::DeviceKind;
using dlc::rt::DType;
using dlc::rt::HostTensor;
using dlc::rt::Package;
using dlc::rt::TrainingSession;

const char *kMlp = R"mlir(
func.func @main(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %w1 = dlc.constant {dlc.param = "fc1.weight"} dense<[[0.1, -0.2, 0.3, 0.05, -0.1], [0.2, 0.1, -0.3, 0.25, 0.1], [-0.1, 0.3, 0.2, -0.2, 0.05], [0.3, -0.1, 0.1, 0.2, -0.3]]> : tensor<4x5xf32>
  %b1 = dlc.constant {dlc.param = "fc1.bias"} dense<0.01> : tensor<1x5xf32>
  %w2 = dlc.constant {dlc.param = "fc2.weight"} dense<[[0.1, -0.2], [0.05, -0.1], [0.15, -0.25], [0.1, -0.3], [-0.1, 0.3]]> : tensor<5x2xf32>
  %h = dlc.matmul %x, %w1 : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %hb = dlc.add %h, %b1 : (tensor<3x5xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>
  %t = dlc.tanh %hb : tensor<3x5xf32>
  %y = dlc.matmul %t, %w2 : (tensor<3x5xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
)mlir";

Package compileStep(unsigned accumulate) {
  dlc::CompileOptions options;
  options.train = true;
  options.loss = "cross_entropy";
  options.optimizer = "adamw";
  options.lr = 0.05;
  options.weightDecay = 0.01;
  options.accumulate = accumulate;
  options.compileCubins = false;
  auto package = dlc::compile(kMlp, options);
  EXPECT_TRUE(package) << package.message();
  return package ? package.take() : Package();
}

/// Rows `first ..` of a data set of 24 rows: x f32[n, 4], labels i64[n].
std::vector<HostTensor> batchOf(int64_t first, int64_t rows) {
  HostTensor x(DType::F32, {rows, 4}), y(DType::I64, {rows});
  for (int64_t r = 0; r < rows; ++r) {
    int64_t row = (first + r) % 24;
    for (int64_t c = 0; c < 4; ++c)
      x.setFromDouble(r * 4 + c, std::sin(double(row * 4 + c)));
    y.setFromDouble(r, double(row % 2));
  }
  return {x, y};
}

/// The step run by hand: `steps` optimizer steps of `micro` micro-batches,
/// the state carried over on the host. Returns the losses and the state.
std::pair<std::vector<double>, std::map<std::string, HostTensor>>
byHand(const Package &p, int steps, unsigned micro) {
  auto session = dlc::rt::Session::create(p, {DeviceKind::Sim});
  EXPECT_TRUE(session) << session.message();
  std::map<std::string, HostTensor> state;
  for (const dlc::rt::StateTensor &s : p.state) {
    HostTensor v(p.inputs[s.input].dtype, p.inputs[s.input].shape);
    std::memcpy(v.data.data(), p.constants.data() + s.initialOffset,
                s.initialBytes);
    state[s.name] = v;
  }
  std::vector<double> losses;
  for (int step = 0; step < steps; ++step) {
    double sum = 0;
    for (unsigned m = 0; m < micro; ++m) {
      std::vector<HostTensor> in = batchOf((step * micro + m) * 3, 3);
      std::vector<HostTensor> args(p.inputs.size());
      size_t next = 0;
      for (size_t i = 0; i < p.inputs.size(); ++i) {
        auto s = std::find_if(p.state.begin(), p.state.end(),
                              [&](const auto &t) { return t.input == i; });
        args[i] = s != p.state.end() ? state[s->name] : in[next++];
      }
      auto out = (*session)->run(args);
      EXPECT_TRUE(out) << out.message();
      sum += (*out)[0].getAsDouble(0);
      for (const dlc::rt::StateTensor &s : p.state)
        state[s.name] = (*out)[s.output];
    }
    losses.push_back(sum / micro);
  }
  return {losses, state};
}

void expectResidentMatchesByHand(unsigned micro) {
  Package p = compileStep(micro);
  ASSERT_FALSE(p.state.empty());
  EXPECT_EQ(p.microBatches, micro);
  auto [losses, state] = byHand(p, 4, micro);

  auto trainer = TrainingSession::create(p, {DeviceKind::Sim});
  ASSERT_TRUE(trainer) << trainer.message();
  TrainingSession &t = **trainer;
  ASSERT_EQ(t.batchInputs().size(), 2u);
  EXPECT_EQ(t.batchDesc(0).shape, (std::vector<int64_t>{3 * micro, 4}));
  for (int step = 0; step < 4; ++step) {
    auto loss = t.step(batchOf(step * micro * 3, 3 * micro));
    ASSERT_TRUE(loss) << loss.message();
    EXPECT_EQ(*loss, losses[size_t(step)]) << "step " << step;
  }
  EXPECT_EQ(t.stepsDone(), 4u);
  EXPECT_EQ(t.parameterNames(),
            (std::vector<std::string>{"fc1.weight", "fc1.bias", "fc2.weight"}));
  for (const dlc::rt::StateTensor &s : p.state) {
    auto v = t.read(s.name);
    ASSERT_TRUE(v) << v.message();
    EXPECT_EQ(v->data, state[s.name].data) << s.name;
  }
  // Training changed the parameters.
  auto w = t.read("fc2.weight");
  ASSERT_TRUE(w);
  EXPECT_NE(std::memcmp(w->data.data(),
                        p.constants.data() + p.state[2].initialOffset,
                        w->data.size()),
            0);
}

TEST(TrainingSession, ResidentStateMatchesTheStepRunByHand) {
  expectResidentMatchesByHand(1);
}

TEST(TrainingSession, MicroBatchesMatchTheStepRunByHand) {
  expectResidentMatchesByHand(3);
}

TEST(TrainingSession, WriteThenReadAndTrainFromIt) {
  Package p = compileStep(1);
  auto trainer = TrainingSession::create(p, {DeviceKind::Sim});
  ASSERT_TRUE(trainer) << trainer.message();
  TrainingSession &t = **trainer;
  HostTensor w(DType::F32, {5, 2});
  for (int64_t k = 0; k < 10; ++k)
    w.setFromDouble(k, 0.01 * double(k));
  ASSERT_TRUE(t.write("fc2.weight", w));
  auto back = t.read("fc2.weight");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->data, w.data);
  // A step starts from the written value: the same as a fresh session
  // whose package starts there.
  ASSERT_TRUE(t.step(batchOf(0, 3)));
  Package edited = p;
  std::memcpy(edited.constants.data() + edited.state[2].initialOffset,
              w.data.data(), w.data.size());
  auto [losses, state] = byHand(edited, 1, 1);
  EXPECT_EQ(t.read("fc2.weight")->data, state["fc2.weight"].data);
  EXPECT_EQ(t.read("fc1.weight.exp_avg")->data,
            state["fc1.weight.exp_avg"].data);
}

/// GradScaler's rules (torch/amp/grad_scaler.py): a batch that overflows
/// fp16 skips the update (parameters and optimizer state as they were),
/// halves the scale and restarts the growth tracker; a good step counts.
TEST(TrainingSession, Fp16OverflowSkipsTheStepAndHalvesTheScale) {
  dlc::CompileOptions options;
  options.train = true;
  options.loss = "cross_entropy";
  options.optimizer = "adamw";
  options.lr = 0.05;
  options.precision = "fp16";
  options.compileCubins = false;
  auto p = dlc::compile(kMlp, options);
  ASSERT_TRUE(p) << p.message();
  ASSERT_NE(p->skippedOutput, 0u);
  auto trainer = TrainingSession::create(*p, {DeviceKind::Sim});
  ASSERT_TRUE(trainer) << trainer.message();
  TrainingSession &t = **trainer;
  auto scalar = [&](const char *name) {
    auto v = t.read(name);
    EXPECT_TRUE(v) << v.message();
    return v ? v->getAsDouble(0) : NAN;
  };
  EXPECT_EQ(scalar("grad_scaler.scale"), 65536.0);

  ASSERT_TRUE(t.step(batchOf(0, 3)));
  EXPECT_FALSE(t.lastStepSkipped());
  EXPECT_EQ(scalar("grad_scaler.scale"), 65536.0);
  EXPECT_EQ(scalar("grad_scaler.growth_tracker"), 1.0);
  EXPECT_EQ(scalar("adamw.step"), 1.0);
  auto before = t.read("fc1.weight"), moment = t.read("fc1.weight.exp_avg");
  ASSERT_TRUE(before && moment);

  // 1e5 is beyond fp16's 65504: the product's input is infinite.
  std::vector<HostTensor> huge = batchOf(3, 3);
  huge[0].setFromDouble(0, 1e5);
  auto loss = t.step(huge);
  ASSERT_TRUE(loss) << loss.message();
  EXPECT_TRUE(t.lastStepSkipped());
  EXPECT_EQ(scalar("grad_scaler.scale"), 32768.0);
  EXPECT_EQ(scalar("grad_scaler.growth_tracker"), 0.0);
  EXPECT_EQ(scalar("adamw.step"), 1.0);
  EXPECT_EQ(t.read("fc1.weight")->data, before->data);
  EXPECT_EQ(t.read("fc1.weight.exp_avg")->data, moment->data);
  EXPECT_EQ(t.stepsDone(), 2u);

  ASSERT_TRUE(t.step(batchOf(6, 3)));
  EXPECT_FALSE(t.lastStepSkipped());
  EXPECT_EQ(scalar("grad_scaler.scale"), 32768.0);
  EXPECT_EQ(scalar("grad_scaler.growth_tracker"), 1.0);
  EXPECT_EQ(scalar("adamw.step"), 2.0);
  EXPECT_NE(t.read("fc1.weight")->data, before->data);

  // The 2000th good step in a row doubles the scale.
  HostTensor tracker(DType::F32, {});
  tracker.setFromDouble(0, 1999);
  ASSERT_TRUE(t.write("grad_scaler.growth_tracker", tracker));
  ASSERT_TRUE(t.step(batchOf(9, 3)));
  EXPECT_FALSE(t.lastStepSkipped());
  EXPECT_EQ(scalar("grad_scaler.scale"), 65536.0);
  EXPECT_EQ(scalar("grad_scaler.growth_tracker"), 0.0);
}

TEST(TrainingSession, RefusesWhatIsWrong) {
  Package p = compileStep(2);
  auto trainer = TrainingSession::create(p, {DeviceKind::Sim});
  ASSERT_TRUE(trainer) << trainer.message();
  TrainingSession &t = **trainer;
  // One micro-batch's rows where the step takes two.
  auto wrong = t.step(batchOf(0, 3));
  ASSERT_FALSE(wrong);
  EXPECT_EQ(wrong.message(),
            "batch tensor #0 ('arg14'): expected f32[6, 4], got f32[3, 4] (2 "
            "micro-batches of 3 rows)");
  EXPECT_FALSE(t.step({batchOf(0, 6)[0]}));
  EXPECT_EQ(t.stepsDone(), 0u);
  auto unknown = t.read("fc3.weight");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.message().find("no state tensor 'fc3.weight'"),
            std::string::npos);
  EXPECT_FALSE(t.write("fc1.bias", HostTensor(DType::F32, {5})));
  EXPECT_FALSE(t.write("fc1.bias", HostTensor(DType::F16, {1, 5})));

  auto inference = dlc::compile(kMlp, dlc::CompileOptions());
  ASSERT_TRUE(inference);
  auto refused = TrainingSession::create(*inference, {DeviceKind::Sim});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.message().find("no training step"), std::string::npos);
}

} // namespace
