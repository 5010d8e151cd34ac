//===- Training.h - Running a training-step package step by step -*- C++
//-*-===//
//
// A training session: a training-step package (Package::state, made by
// `dlc compile --train`, docs/training.md) on a device, with its parameters
// and optimizer state resident there from step to step. Each step uploads
// the batch, runs the package (one CUDA Graph replay on a GPU) and reads
// back the loss; nothing else crosses to the host unless asked for.
//
//   auto package = dlc::compileFile("model.onnx", options); // options.train
//   auto trainer = dlc::rt::TrainingSession::create(*package, {});
//   for (...) { auto loss = (*trainer)->step({x, labels}); }
//   auto w = (*trainer)->read("fc1.weight");
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_TRAINING_H
#define DLC_RUNTIME_TRAINING_H

#include "runtime/Runtime.h"

#include <memory>
#include <string>
#include <vector>

namespace dlc::rt {

class TrainingSession {
public:
  /// Opens `package`, which must be a training step, on the device of
  /// `options`, with its state's initial values.
  static Result<std::unique_ptr<TrainingSession>>
  create(const Package &package, const SessionOptions &options);
  ~TrainingSession();
  TrainingSession(const TrainingSession &) = delete;
  TrainingSession &operator=(const TrainingSession &) = delete;

  const Package &package() const { return session_->package(); }
  std::string deviceDescription() const {
    return session_->deviceDescription();
  }
  bool usesCudaGraph() const { return session_->usesCudaGraph(); }

  /// The micro-batches one optimizer step takes (`--accumulate`, 1 without).
  uint32_t microBatches() const { return package().microBatches; }
  /// What step() takes: the package's inputs that are not state (the data
  /// and the labels or targets), in order, as indexes into
  /// package().inputs.
  const std::vector<size_t> &batchInputs() const { return batchInputs_; }
  /// The tensor step() takes for batchInputs()[k]: the input's type with
  /// microBatches() times its rows (dimension 0).
  TensorDesc batchDesc(size_t k) const;

  /// One optimizer step on `batch` (one tensor per batchInputs(), each as
  /// batchDesc gives): with several micro-batches, the package runs once
  /// per consecutive slice of rows, accumulating gradients, and updates
  /// on the last. Returns the loss before the update, the mean of the
  /// micro-batches' losses. A step that fails in its first micro-batch
  /// leaves the state as it was; one that fails in a later one leaves the
  /// state after the micro-batches that ran (their gradients accumulated,
  /// the update not applied), and says so.
  Result<double> step(const std::vector<HostTensor> &batch);
  /// Optimizer steps done so far (skipped ones included).
  uint64_t stepsDone() const { return steps_; }
  /// Whether the last step skipped its update because a gradient was not
  /// finite (dynamic loss scaling, as GradScaler skips optimizer.step()).
  bool lastStepSkipped() const { return lastSkipped_; }

  /// The names of the parameters (trainable state), in the package's order.
  std::vector<std::string> parameterNames() const;
  /// The names of the model's buffers (state the forward pass updates:
  /// batch normalization's running statistics), in the package's order;
  /// with the parameters, what a checkpoint of the model holds (PyTorch's
  /// state_dict).
  std::vector<std::string> bufferNames() const;
  /// Copies state tensor `name` (a parameter or an optimizer's state, as
  /// Package::state names them) from the device.
  Result<HostTensor> read(const std::string &name);
  /// Replaces state tensor `name` with `value`, which must have its type.
  Status write(const std::string &name, const HostTensor &value);

private:
  TrainingSession() = default;
  /// The index into package().state of `name`, or an error naming the
  /// state tensors.
  Result<size_t> find(const std::string &name) const;

  std::unique_ptr<Session> session_;
  std::vector<size_t> batchInputs_;
  /// Two copies of the state: a step reads state_[current_] and writes the
  /// other, which then becomes current.
  std::vector<void *> state_[2];
  int current_ = 0;
  /// The device buffers of the batch inputs (one micro-batch each), and
  /// of the outputs that are not state (the loss first).
  std::vector<void *> batchBuffers_;
  std::vector<void *> otherOutputs_;
  /// The package output each of otherOutputs_ is.
  std::vector<size_t> otherOutputIndices_;
  /// The buffer of Package::skippedOutput, if any.
  void *skippedBuffer_ = nullptr;
  uint64_t steps_ = 0;
  bool lastSkipped_ = false;
};

} // namespace dlc::rt

#endif // DLC_RUNTIME_TRAINING_H
