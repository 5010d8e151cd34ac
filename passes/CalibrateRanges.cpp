//===- CalibrateRanges.cpp - Value ranges on calibration inputs ----------===//
//
// Evaluates the function with the reference interpreter on calibration
// inputs and records, on every op of one float result, the largest
// magnitude that result took (dlc.amax). dlc-assign-precision reads the
// ranges: a value that would overflow fp16 keeps f32 storage. See Passes.td
// and docs/precision.md.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "ir/Reference.h"
#include "passes/Passes.h"
#include "runtime/Package.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Debug.h"

#include <cmath>

#define DEBUG_TYPE "dlc-calibrate-ranges"

namespace mlir::dlc {
#define GEN_PASS_DEF_CALIBRATERANGES
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

LogicalResult
mlir::dlc::calibrateRanges(func::FuncOp func,
                           const std::vector<rt::HostTensor> &inputs) {
  llvm::DenseMap<Operation *, double> ranges;
  std::string why;
  FailureOr<std::vector<rt::HostTensor>> outputs = failure();
  {
    // The interpreter's errors (a model too large for it, say) are the
    // reason the ranges are missing, not errors of the compile.
    ScopedDiagnosticHandler quiet(func.getContext(), [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Error)
        return failure();
      if (why.empty())
        why = diag.str();
      return success();
    });
    outputs = evaluateReference(
        func, inputs, [&](OpResult result, ArrayRef<double> values) {
          Operation *op = result.getOwner();
          auto type = dyn_cast<RankedTensorType>(result.getType());
          if (op->getNumResults() != 1 || isa<ConstantOp>(op) || !type ||
              !isa<FloatType>(type.getElementType()))
            return;
          double amax = 0;
          for (double v : values)
            amax = std::isnan(v) ? HUGE_VAL : std::max(amax, std::fabs(v));
          ranges[op] = amax;
        });
  }
  if (failed(outputs)) {
    func.emitWarning() << "values not calibrated, so no range check: " << why;
    return failure();
  }
  // The model's float inputs (an FP8 product's scale may come from one).
  Builder builder(func.getContext());
  for (auto [i, input] : llvm::enumerate(inputs)) {
    if (i >= func.getNumArguments() || !isFloat(input.dtype))
      continue;
    double amax = 0;
    for (int64_t j = 0, n = input.numElements(); j < n; ++j) {
      double v = input.getAsDouble(j);
      amax = std::isnan(v) ? HUGE_VAL : std::max(amax, std::fabs(v));
    }
    func.setArgAttr(i, attr::kAmax, builder.getF64FloatAttr(amax));
  }
  func.walk([&](Operation *op) {
    if (auto found = ranges.find(op); found != ranges.end()) {
      setAmax(op, found->second);
      LLVM_DEBUG(llvm::dbgs()
                 << "amax " << found->second << ": " << *op << "\n");
    }
  });
  setCalibrated(func);
  return success();
}

FailureOr<std::vector<rt::HostTensor>>
mlir::dlc::seededInputs(func::FuncOp func, uint64_t seed) {
  std::vector<rt::TensorDesc> descs;
  for (Type type : func.getArgumentTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    std::optional<rt::DType> dtype =
        tensor ? dtypeOf(tensor.getElementType()) : std::nullopt;
    if (!dtype || !tensor.hasStaticShape())
      return failure();
    rt::TensorDesc desc;
    desc.dtype = *dtype;
    desc.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
    descs.push_back(std::move(desc));
  }
  return rt::randomTensors(descs, seed);
}

namespace {

struct CalibrateRangesPass
    : public ::mlir::dlc::impl::CalibrateRangesBase<CalibrateRangesPass> {
  using CalibrateRangesBase::CalibrateRangesBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || isCalibrated(func))
      return;
    FailureOr<std::vector<rt::HostTensor>> inputs = seededInputs(func, seed);
    if (failed(inputs)) {
      func.emitWarning() << "values not calibrated, so no range check: an "
                            "argument has no seeded values";
      return;
    }
    // A model the interpreter cannot evaluate compiles without ranges.
    (void)calibrateRanges(func, *inputs);
  }
};

} // namespace
