//===- Training.cpp - Running a training-step package step by step --------===//
//
// The state lives twice on the device: a step reads one copy and writes the
// other (the package's state inputs and outputs may not alias: its kernels
// read a parameter after others have written its new value), and the two
// swap. On a GPU each copy's runs replay their own CUDA Graph
// (CudaGraph keeps both).
//
//===----------------------------------------------------------------------===//
#include "runtime/Training.h"

#include "runtime/Checked.h"

#include <cstring>
#include <set>

namespace dlc::rt {

TrainingSession::~TrainingSession() {
  if (!session_)
    return;
  for (auto &copy : state_)
    for (void *p : copy)
      session_->freeDeviceMemory(p);
  for (void *p : batchBuffers_)
    session_->freeDeviceMemory(p);
  for (void *p : otherOutputs_)
    session_->freeDeviceMemory(p);
}

Result<std::unique_ptr<TrainingSession>>
TrainingSession::create(const Package &package, const SessionOptions &options) {
  if (package.state.empty())
    return Status::error("the package is no training step (compile the model "
                         "with --train)");
  Result<std::unique_ptr<Session>> session = Session::create(package, options);
  if (!session)
    return session.status();
  std::unique_ptr<TrainingSession> t(new TrainingSession());
  t->session_ = session.take();
  // validatePackage checked the state against the inputs, the outputs and
  // the constants.
  const Package &p = t->package();
  std::set<uint32_t> stateInputs, stateOutputs;
  for (const StateTensor &s : p.state) {
    stateInputs.insert(s.input);
    stateOutputs.insert(s.output);
  }
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    if (stateInputs.count(uint32_t(i)))
      continue;
    if (p.inputs[i].shape.empty())
      return Status::error("input '" +
                           (i < p.inputNames.size() ? p.inputNames[i] : "") +
                           "' of the training step is a scalar; batch inputs "
                           "have rows (dimension 0)");
    t->batchInputs_.push_back(i);
  }
  auto allocate = [&](uint64_t bytes, const std::string &what,
                      std::vector<void *> &into) -> Status {
    Result<void *> m = t->session_->allocateDeviceMemory(bytes, what);
    if (!m)
      return m.status();
    into.push_back(*m);
    return Status::ok();
  };
  for (size_t i : t->batchInputs_)
    DLC_RT_RETURN_IF_ERROR(allocate(p.inputs[i].byteSize(),
                                    "input #" + std::to_string(i),
                                    t->batchBuffers_));
  for (size_t o = 0; o < p.outputs.size(); ++o)
    if (!stateOutputs.count(uint32_t(o))) {
      DLC_RT_RETURN_IF_ERROR(allocate(p.outputs[o].byteSize(),
                                      "output #" + std::to_string(o),
                                      t->otherOutputs_));
      t->otherOutputIndices_.push_back(o);
      if (p.skippedOutput != 0 && o == p.skippedOutput)
        t->skippedBuffer_ = t->otherOutputs_.back();
    }
  for (auto &copy : t->state_)
    for (const StateTensor &s : p.state)
      DLC_RT_RETURN_IF_ERROR(
          allocate(s.initialBytes, "state '" + s.name + "'", copy));
  for (size_t k = 0; k < p.state.size(); ++k)
    DLC_RT_RETURN_IF_ERROR(t->session_->copyToDevice(
        t->state_[0][k], p.constants.data() + p.state[k].initialOffset,
        p.state[k].initialBytes));
  return t;
}

TensorDesc TrainingSession::batchDesc(size_t k) const {
  TensorDesc d = package().inputs[batchInputs_[k]];
  d.shape[0] *= int64_t(microBatches());
  return d;
}

Result<double> TrainingSession::step(const std::vector<HostTensor> &batch) {
  const Package &p = package();
  if (batch.size() != batchInputs_.size())
    return Status::error("a training step takes " +
                         std::to_string(batchInputs_.size()) +
                         " batch tensors, got " + std::to_string(batch.size()));
  for (size_t k = 0; k < batch.size(); ++k) {
    TensorDesc want = batchDesc(k);
    const HostTensor &t = batch[k];
    if (t.dtype != want.dtype || t.shape != want.shape ||
        t.data.size() != want.byteSize()) {
      size_t i = batchInputs_[k];
      std::string name = i < p.inputNames.size() && !p.inputNames[i].empty()
                             ? p.inputNames[i]
                             : "arg" + std::to_string(i);
      return Status::error(
          "batch tensor #" + std::to_string(k) + " ('" + name +
          "'): expected " + describe(want.dtype, want.shape) + ", got " +
          describe(t.dtype, t.shape) +
          (microBatches() > 1
               ? " (" + std::to_string(microBatches()) + " micro-batches of " +
                     std::to_string(p.inputs[i].shape[0]) + " rows)"
               : ""));
    }
  }
  std::vector<const void *> inputs(p.inputs.size());
  std::vector<void *> outputs(p.outputs.size());
  for (size_t k = 0; k < batchInputs_.size(); ++k)
    inputs[batchInputs_[k]] = batchBuffers_[k];
  for (size_t k = 0; k < otherOutputs_.size(); ++k)
    outputs[otherOutputIndices_[k]] = otherOutputs_[k];
  // outputs[0], the loss, is otherOutputs_[0] (validatePackage: no state
  // is written to output 0).
  int current = current_;
  double sum = 0;
  float skipped = 0;
  for (uint32_t m = 0; m < microBatches(); ++m) {
    for (size_t k = 0; k < batchInputs_.size(); ++k) {
      uint64_t bytes = p.inputs[batchInputs_[k]].byteSize();
      DLC_RT_RETURN_IF_ERROR(session_->copyToDevice(
          batchBuffers_[k], batch[k].data.data() + size_t(m) * bytes, bytes));
    }
    for (size_t k = 0; k < p.state.size(); ++k) {
      inputs[p.state[k].input] = state_[current][k];
      outputs[p.state[k].output] = state_[1 - current][k];
    }
    float loss = 0;
    Status ran = session_->runOnDevice(inputs, outputs);
    if (ran)
      ran = session_->copyFromDevice(&loss, otherOutputs_[0], sizeof loss);
    if (ran && skippedBuffer_ && m + 1 == microBatches())
      ran = session_->copyFromDevice(&skipped, skippedBuffer_, sizeof skipped);
    if (!ran) {
      if (m == 0)
        return ran;
      // Micro-batch m - 1 overwrote the state this step started from; the
      // state after it is whole (its gradients accumulated).
      current_ = current;
      return Status::error(ran.message() + " (in micro-batch " +
                           std::to_string(m + 1) + " of " +
                           std::to_string(microBatches()) +
                           "; the gradients of the ones before stay "
                           "accumulated)");
    }
    sum += double(loss);
    current = 1 - current;
  }
  // The new state is current only once every micro-batch ran.
  current_ = current;
  lastSkipped_ = skipped != 0;
  ++steps_;
  return sum / double(microBatches());
}

std::vector<std::string> TrainingSession::parameterNames() const {
  std::vector<std::string> names;
  for (const StateTensor &s : package().state)
    if (s.trainable)
      names.push_back(s.name);
  return names;
}

std::vector<std::string> TrainingSession::bufferNames() const {
  std::vector<std::string> names;
  for (const StateTensor &s : package().state)
    if (s.buffer)
      names.push_back(s.name);
  return names;
}

Result<size_t> TrainingSession::find(const std::string &name) const {
  const std::vector<StateTensor> &state = package().state;
  for (size_t k = 0; k < state.size(); ++k)
    if (state[k].name == name)
      return k;
  std::string list;
  for (size_t k = 0; k < state.size() && k < 8; ++k)
    list += (k ? ", " : "") + state[k].name;
  if (state.size() > 8)
    list += ", ...";
  return Status::error("the training step has no state tensor '" + name +
                       "' (it has " + list + ")");
}

Result<HostTensor> TrainingSession::read(const std::string &name) {
  Result<size_t> k = find(name);
  if (!k)
    return k.status();
  const TensorDesc &d = package().inputs[package().state[*k].input];
  Result<HostTensor> t = HostTensor::allocate(d.dtype, d.shape, name);
  if (!t)
    return t.status();
  DLC_RT_RETURN_IF_ERROR(session_->copyFromDevice(
      t->data.data(), state_[current_][*k], t->data.size()));
  return t;
}

Status TrainingSession::write(const std::string &name,
                              const HostTensor &value) {
  Result<size_t> k = find(name);
  if (!k)
    return k.status();
  const TensorDesc &d = package().inputs[package().state[*k].input];
  if (value.dtype != d.dtype || value.shape != d.shape ||
      value.data.size() != d.byteSize())
    return Status::error("state '" + name + "' is " +
                         describe(d.dtype, d.shape) + ", not " +
                         describe(value.dtype, value.shape));
  return session_->copyToDevice(state_[current_][*k], value.data.data(),
                                value.data.size());
}

} // namespace dlc::rt
