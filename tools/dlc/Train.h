//===- Train.h - `dlc train`: the training loop -----------------*- C++ -*-===//
#ifndef DLC_TOOLS_DLC_TRAIN_H
#define DLC_TOOLS_DLC_TRAIN_H

#include "runtime/Runtime.h"

#include <string>
#include <vector>

namespace dlc::tools {

/// What `dlc train` was asked (docs/training.md).
struct TrainSetup {
  rt::DeviceKind device = rt::DeviceKind::Sim;
  uint64_t maxMemory = 0;
  /// `[NAME=]FILE.npy` per data input: the whole data set along dimension 0.
  std::vector<std::string> inputSpecs;
  /// The labels (cross_entropy: i64 class indices [N]) or targets (mse).
  std::string labels;
  std::string loadWeights, saveWeights, lossLog;
  uint64_t steps = 1;
  /// 0: the model's batch size; otherwise it must be that.
  int64_t batchSize = 0;
  bool shuffle = false;
  uint64_t seed = 0;
  bool quiet = false;
  /// Files the outputs must not replace (the model and the data).
  std::vector<std::string> protectedFiles;
};

/// Runs `setup.steps` steps of the training-step package `package`: step s
/// takes rows [s B, (s + 1) B) of every data set, wrapping around (a
/// seeded permutation of the rows per epoch with `shuffle`), and feeds each
/// step's new parameters and optimizer state to the next.
rt::Status runTraining(const rt::Package &package, const TrainSetup &setup);

} // namespace dlc::tools

#endif // DLC_TOOLS_DLC_TRAIN_H
