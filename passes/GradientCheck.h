//===- GradientCheck.h - Gradient rules against finite differences -*- C++
//-*-===//
//
// The check behind test/reference/GradientTest.cpp and `dlc-fuzz
// --gradients`: a function's results, weighted by fixed pseudo-random
// numbers and summed, are a loss; dlc-test-gradient builds its gradient with
// respect to every float argument from the ops' rules, the reference
// interpreter evaluates it, and each checked element's derivative must
// match central differences of the loss, computed in the interpreter's
// double precision.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_GRADIENTCHECK_H
#define DLC_PASSES_GRADIENTCHECK_H

#include "runtime/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::dlc {

/// Rewrites `func` (dlc ops only) to return one value of shape [1, ..., 1]:
/// the sum over its float results of each result times fixed pseudo-random
/// weights in [-1, 1). Results of other types are dropped. Fails (with a
/// diagnostic) when there is no float result.
LogicalResult makeWeightedLoss(func::FuncOp func);

struct GradientCheckResult {
  /// Elements compared, and those skipped at a kink (where the differences
  /// with steps h and h/2 disagree: relu at 0, a tie of max).
  int checked = 0, skipped = 0;
  /// The first element whose rule disagrees with the differences, or "".
  std::string mismatch;
};

/// Checks the gradient of `lossFunc` (one float result of one element, as
/// makeWeightedLoss makes) at `inputs` (one per argument; only float ones
/// are differentiated), for at most `maxElements` elements of each float
/// argument (spread over it). Fails, with a diagnostic, when a rule is
/// missing or the interpreter cannot evaluate the function.
FailureOr<GradientCheckResult>
checkGradients(func::FuncOp lossFunc,
               const std::vector<::dlc::rt::HostTensor> &inputs,
               size_t maxElements = SIZE_MAX, double tolerance = 1e-3);

/// Floats uniform in [lo, hi) from a fixed sequence of `seed`.
std::vector<float> pseudoRandom(size_t n, uint64_t seed, double lo, double hi);

} // namespace mlir::dlc

#endif // DLC_PASSES_GRADIENTCHECK_H
