//===- Train.cpp - `dlc train`: the training loop
//--------------------------===//
//
// Runs a training-step package (rt::Package::state, docs/training.md) over
// data sets held in .npy files: batches in order or shuffled per epoch, the
// parameters and optimizer state fed from each step to the next, the loss
// logged, the weights loaded from and saved to .npz archives.
//
//===----------------------------------------------------------------------===//
#include "tools/dlc/Train.h"

#include "runtime/Npz.h"
#include "runtime/Support.h"
#include "runtime/Training.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <unistd.h>

namespace dlc::tools {

using rt::HostTensor;
using rt::Status;

namespace {

std::string describe(const rt::TensorDesc &d) {
  return rt::describe(d.dtype, d.shape);
}

/// The data inputs of the step (neither state nor the labels), and the
/// labels input (`labels` or `target`, the last input), if any.
struct Inputs {
  std::vector<size_t> data;
  std::optional<size_t> labels;
};

Inputs classify(const rt::Package &p) {
  std::set<uint32_t> state;
  for (const rt::StateTensor &t : p.state)
    state.insert(t.input);
  Inputs in;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    if (state.count(uint32_t(i)))
      continue;
    std::string name = i < p.inputNames.size() ? p.inputNames[i] : "";
    if (i + 1 == p.inputs.size() && (name == "labels" || name == "target"))
      in.labels = i;
    else
      in.data.push_back(i);
  }
  return in;
}

std::string inputName(const rt::Package &p, size_t i) {
  return i < p.inputNames.size() && !p.inputNames[i].empty()
             ? p.inputNames[i]
             : "arg" + std::to_string(i);
}

/// Checks that `set` holds rows of input `i`'s shape after its first
/// dimension; returns its row count.
rt::Result<int64_t> rowsOf(const rt::Package &p, size_t i,
                           const HostTensor &set, const std::string &file) {
  const rt::TensorDesc &want = p.inputs[i];
  if (want.shape.empty() || set.dtype != want.dtype ||
      set.shape.size() != want.shape.size() ||
      !std::equal(set.shape.begin() + 1, set.shape.end(),
                  want.shape.begin() + 1) ||
      set.shape[0] < 1) {
    std::string rows = rt::dtypeName(want.dtype) + std::string("[N");
    for (size_t d = 1; d < want.shape.size(); ++d)
      rows += ", " + std::to_string(want.shape[d]);
    return Status::error(
        file + ": holds " + rt::describe(set.dtype, set.shape) + "; input '" +
        inputName(p, i) + "' takes batches " + describe(want) +
        ", so its data set must be " + rows + "] (N >= 1 rows)");
  }
  return set.shape[0];
}

/// Row `row` of each batch position: in order, or a seeded permutation of
/// the rows per epoch (Fisher-Yates on a 64-bit Mersenne twister, the
/// same on every machine).
class RowOrder {
public:
  RowOrder(int64_t rows, bool shuffle, uint64_t seed)
      : rows_(rows), shuffle_(shuffle), seed_(seed) {}
  int64_t row(uint64_t position) {
    uint64_t epoch = position / uint64_t(rows_);
    int64_t index = int64_t(position % uint64_t(rows_));
    if (!shuffle_)
      return index;
    if (epoch != epoch_ || order_.empty()) {
      epoch_ = epoch;
      order_.resize(size_t(rows_));
      for (int64_t i = 0; i < rows_; ++i)
        order_[size_t(i)] = i;
      std::mt19937_64 random(seed_ * 0x9e3779b97f4a7c15ull + epoch);
      for (int64_t i = rows_ - 1; i > 0; --i) {
        int64_t j = int64_t(random() % uint64_t(i + 1));
        std::swap(order_[size_t(i)], order_[size_t(j)]);
      }
    }
    return order_[size_t(index)];
  }

private:
  int64_t rows_;
  bool shuffle_;
  uint64_t seed_, epoch_ = 0;
  std::vector<int64_t> order_;
};

/// Copies rows `order(position .. position + rows)` of `set` into `batch`
/// (of the set's row type, allocated once).
void fillBatch(HostTensor &batch, const HostTensor &set, RowOrder &order,
               uint64_t position) {
  if (batch.shape.empty() || batch.shape[0] <= 0)
    return;
  size_t rowBytes = batch.data.size() / size_t(batch.shape[0]);
  for (int64_t r = 0; r < batch.shape[0]; ++r) {
    int64_t row = order.row(position + uint64_t(r));
    std::memcpy(batch.data.data() + size_t(r) * rowBytes,
                set.data.data() + size_t(row) * rowBytes, rowBytes);
  }
}

} // namespace

Status runTraining(const rt::Package &p, const TrainSetup &setup) {
  if (p.state.empty())
    return Status::error(
        "the package is no training step (compile the model with --train, "
        "or give dlc train the model)");
  // validatePackage: output 0 is the loss, one f32.
  Inputs in = classify(p);
  if (setup.steps == 0)
    return Status::error("--steps needs at least 1 step");

  // The data sets: --input files for the data inputs, --labels for the
  // labels or target.
  std::vector<std::string> names;
  for (size_t i : in.data)
    names.push_back(inputName(p, i));
  if (setup.inputSpecs.size() != in.data.size()) {
    std::string list;
    for (const std::string &n : names)
      list += (list.empty() ? "" : ", ") + n;
    return Status::error(
        "the training step takes " + std::to_string(in.data.size()) +
        " data input(s) (" + list + "), but " +
        std::to_string(setup.inputSpecs.size()) + " --input files were given");
  }
  std::map<size_t, HostTensor> sets;
  std::map<size_t, std::string> files;
  for (size_t k = 0; k < setup.inputSpecs.size(); ++k) {
    std::string spec = setup.inputSpecs[k], file = spec;
    size_t target = in.data[k];
    if (size_t eq = spec.find('='); eq != std::string::npos) {
      std::string name = spec.substr(0, eq);
      auto it = std::find(names.begin(), names.end(), name);
      if (it != names.end()) {
        target = in.data[size_t(it - names.begin())];
        file = spec.substr(eq + 1);
      } else if (access(spec.c_str(), F_OK) != 0) {
        std::string list;
        for (const std::string &n : names)
          list += (list.empty() ? "" : ", ") + n;
        return Status::error("--input '" + spec +
                             "' does not name a data input of the training "
                             "step; they are " +
                             list);
      }
    }
    if (sets.count(target))
      return Status::error("input '" + inputName(p, target) +
                           "' is given twice");
    rt::Result<HostTensor> t = rt::readNpy(file);
    if (!t)
      return t.status();
    sets[target] = t.take();
    files[target] = file;
  }
  if (in.labels) {
    if (setup.labels.empty())
      return Status::error("the training step takes '" +
                           inputName(p, *in.labels) +
                           "': give them with --labels FILE.npy");
    rt::Result<HostTensor> t = rt::readNpy(setup.labels);
    if (!t)
      return t.status();
    sets[*in.labels] = t.take();
    files[*in.labels] = setup.labels;
  } else if (!setup.labels.empty()) {
    return Status::error("--labels: the training step takes no labels (its "
                         "loss is the model's own output)");
  }
  int64_t rows = -1;
  std::string firstFile;
  for (auto &[i, set] : sets) {
    rt::Result<int64_t> n = rowsOf(p, i, set, files[i]);
    if (!n)
      return n.status();
    if (rows >= 0 && *n != rows)
      return Status::error(files[i] + ": " + std::to_string(*n) +
                           " rows, but " + firstFile + " has " +
                           std::to_string(rows));
    rows = *n;
    firstFile = files[i];
  }
  int64_t batch = in.data.empty() ? 1 : p.inputs[in.data[0]].shape[0];
  if (setup.batchSize && setup.batchSize != batch)
    return Status::error(
        "--batch-size " + std::to_string(setup.batchSize) +
        ": the model takes batches of " + std::to_string(batch) +
        " (export it with that batch size, or give an ONNX model's dynamic "
        "batch dimension with --input-shape)");
  if (in.labels && p.inputs[*in.labels].dtype == rt::DType::I64) {
    // Class indices are 0 ... C-1 (the upper bound is the logits', which
    // the step does not return).
    const HostTensor &labels = sets[*in.labels];
    for (int64_t k = 0, n = labels.numElements(); k < n; ++k)
      if (labels.getAsDouble(k) < 0)
        return Status::error(setup.labels + ": label " +
                             std::to_string(int64_t(labels.getAsDouble(k))) +
                             " at row " + std::to_string(k) +
                             " is negative (class indices are 0 ... C-1)");
  }

  rt::SessionOptions options;
  options.device = setup.device;
  options.maxMemory = setup.maxMemory;
  auto trainer = rt::TrainingSession::create(p, options);
  if (!trainer)
    return trainer.status();
  rt::TrainingSession &t = **trainer;

  // The model's weights: its parameters and buffers (PyTorch's
  // state_dict), what --save-weights writes and --load-weights reads.
  std::vector<std::string> weightNames = t.parameterNames();
  for (const std::string &name : t.bufferNames())
    weightNames.push_back(name);
  // Parameters and buffers from --load-weights, over the package's initial
  // values.
  if (!setup.loadWeights.empty()) {
    uint64_t paramBytes = 0;
    size_t params = 0;
    for (const rt::StateTensor &s : p.state)
      if (s.trainable || s.buffer) {
        paramBytes += s.initialBytes;
        ++params;
      }
    // Each member is a parameter's .npy: its data and a header (at most a
    // few KiB); the archive adds its directory.
    rt::Result<rt::NamedTensors> loaded =
        rt::readNpz(setup.loadWeights, paramBytes + 65536 * (params + 1),
                    paramBytes + 65536, params);
    if (!loaded)
      return loaded.status();
    std::set<std::string> seen;
    for (const auto &[name, tensor] : *loaded) {
      if (std::find(weightNames.begin(), weightNames.end(), name) ==
          weightNames.end())
        return Status::error(setup.loadWeights + ": array '" + name +
                             "' is no parameter or buffer of the model");
      if (Status s = t.write(name, tensor); !s)
        return Status::error(setup.loadWeights + ": " + s.message());
      seen.insert(name);
    }
    for (const std::string &name : weightNames)
      if (!seen.count(name))
        return Status::error(setup.loadWeights + ": no array for '" + name +
                             "'");
  }
  for (const std::string &out : {setup.saveWeights, setup.lossLog})
    if (!out.empty())
      if (Status s = rt::checkOutputPath(out, setup.protectedFiles); !s)
        return s;

  const uint64_t micro = t.microBatches();
  if (!setup.quiet)
    std::fprintf(
        stderr,
        "training on %s: %lld rows, batches of %lld%s, %llu "
        "steps\n",
        t.deviceDescription().c_str(), (long long)rows, (long long)batch,
        micro > 1 ? (" x " + std::to_string(micro) + " accumulated").c_str()
                  : "",
        (unsigned long long)setup.steps);

  RowOrder order(rows, setup.shuffle, setup.seed);
  // Each step's batch tensors (every micro-batch's rows), allocated once: a
  // package's micro-batches times its rows may not fit.
  std::vector<HostTensor> args;
  for (size_t k = 0; k < t.batchInputs().size(); ++k) {
    rt::TensorDesc d = t.batchDesc(k);
    rt::Result<HostTensor> a = HostTensor::allocate(
        d.dtype, d.shape,
        "the batch of input '" + inputName(p, t.batchInputs()[k]) + "'");
    if (!a)
      return a.status();
    args.push_back(a.take());
  }
  // With dynamic loss scaling a third column marks the skipped steps.
  const bool scaled = p.skippedOutput != 0;
  std::string log = scaled ? "step,loss,skipped\n" : "step,loss\n";
  const bool progress = !setup.quiet && isatty(2);
  auto start = std::chrono::steady_clock::now();
  for (uint64_t step = 0; step < setup.steps; ++step) {
    uint64_t position = step * micro * uint64_t(batch);
    for (size_t k = 0; k < args.size(); ++k)
      fillBatch(args[k], sets[t.batchInputs()[k]], order, position);
    rt::Result<double> loss = t.step(args);
    if (!loss)
      return Status::error("step " + std::to_string(step) + ": " +
                           loss.message());
    char line[64];
    std::snprintf(line, sizeof line, "%llu,%.9g%s\n", (unsigned long long)step,
                  *loss,
                  !scaled               ? ""
                  : t.lastStepSkipped() ? ",1"
                                        : ",0");
    log += line;
    if (progress) {
      double seconds = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - start)
                           .count();
      std::fprintf(stderr, "\rstep %llu/%llu  loss %.6g  %.1f steps/s   ",
                   (unsigned long long)(step + 1),
                   (unsigned long long)setup.steps, *loss,
                   double(step + 1) / std::max(seconds, 1e-9));
    }
  }
  if (progress)
    std::fprintf(stderr, "\n");
  if (!setup.lossLog.empty())
    if (Status s = rt::writeFileAtomic(setup.lossLog, log.data(), log.size());
        !s)
      return s;
  if (!setup.saveWeights.empty()) {
    rt::NamedTensors weights;
    for (const std::string &name : weightNames) {
      rt::Result<HostTensor> w = t.read(name);
      if (!w)
        return w.status();
      weights.push_back({name, w.take()});
    }
    if (Status s = rt::writeNpz(setup.saveWeights, weights); !s)
      return s;
  }
  return Status();
}

} // namespace dlc::tools
