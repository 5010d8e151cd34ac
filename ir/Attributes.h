//===- Attributes.h - The dlc dialect's discardable attributes --*- C++ -*-===//
//
// Passes annotate ops and functions with a few `dlc.`-prefixed attributes
// that later stages read (memory planning's offsets and arena size for code
// generation, fusion's notes for the fusion report). Their names live here
// once, with typed accessors, and DlcDialect::verifyOperationAttribute checks
// every one of them wherever it appears.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_IR_ATTRIBUTES_H
#define DLC_IR_ATTRIBUTES_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>

namespace mlir::dlc {

namespace attr {
/// On dlc.kernel, dlc.matmul and dlc.attention: per result, its byte offset
/// in the arena, or -1 for a result that is a function output.
constexpr llvm::StringLiteral kOffsets = "dlc.offsets";
/// On the function: the arena's size in bytes.
constexpr llvm::StringLiteral kArenaBytes = "dlc.arena_bytes";
/// On the function: the bytes of all intermediate values before reuse.
constexpr llvm::StringLiteral kIntermediateBytes = "dlc.intermediate_bytes";
/// On the function: the number of compute ops before fusion.
constexpr llvm::StringLiteral kSourceOps = "dlc.source_ops";
/// On the function: the largest total of intermediate bytes live at one
/// point of the schedule (buffers shared in place counted once), which no
/// arena can be smaller than (dlc-plan-memory).
constexpr llvm::StringLiteral kArenaLowerBound = "dlc.arena_lower_bound";
/// On an op: a second computation of a value, placed where it is used again
/// instead of keeping the first across the schedule (dlc-rematerialize).
constexpr llvm::StringLiteral kRecompute = "dlc.recompute";
/// On the function: the largest total of intermediate bytes live at one
/// point before fusion, after dlc-rematerialize's decisions.
constexpr llvm::StringLiteral kActivationBytes = "dlc.activation_bytes";
/// On the function: the operations of the recomputed ops (CostOpInterface).
constexpr llvm::StringLiteral kRecomputeFlops = "dlc.recompute_flops";
/// On a function (dlc-rematerialize): how its recomputation was chosen
/// (runs of forward segments by the solver, or single values).
constexpr llvm::StringLiteral kRecomputePlan = "dlc.recompute_plan";
/// On a dlc.matmul: it computes a convolution (dlc-lower-conv made it).
constexpr llvm::StringLiteral kFromConv = "dlc.from_conv";
/// On a dlc.conv2d: layout selection keeps its input and result
/// channels-last (NHWC), so dlc-lower-conv computes it as a product with the
/// channels on the columns (dlc-assign-layout).
constexpr llvm::StringLiteral kChannelsLast = "dlc.channels_last";
/// On the function: layout selection's choice per cluster of connected
/// convolutions, as dictionaries {layout = "nhwc"|"nchw", convolutions =
/// i64, bytes_saved = i64, reason = "..."} (for the fusion report).
constexpr llvm::StringLiteral kLayouts = "dlc.layouts";
/// On a top-level dlc.slice after fusion (dlc-fuse): the slice is a view,
/// a contiguous block of its operand's buffer (SliceOp::contiguousOffset)
/// at a 256-byte aligned offset, read in place instead of copied.
constexpr llvm::StringLiteral kView = "dlc.view";
/// The alignment of a view's offset: a buffer's (dlc-plan-memory's default).
constexpr int64_t kViewAlignment = 256;
/// On dlc.kernel: why neighbours stayed out, as dictionaries
/// {operand|result = index : i64, reason = "..."}.
constexpr llvm::StringLiteral kFusionNotes = "dlc.fusion_notes";
/// On an op of one float result, or as an argument attribute of a function:
/// the largest magnitude the value took on the calibration inputs
/// (dlc-calibrate-ranges), an f64 >= 0 (or +inf).
constexpr llvm::StringLiteral kAmax = "dlc.amax";
/// On the function: its ops carry the ranges of a calibration
/// (dlc-calibrate-ranges does not run again).
constexpr llvm::StringLiteral kCalibrated = "dlc.calibrated";
/// On an op: the storage type dlc-assign-precision must keep for it, as a
/// string; "f32" keeps the op and its results in f32 (what
/// --precision-tolerance and a user's annotation ask for).
constexpr llvm::StringLiteral kPrecision = "dlc.precision";
/// An ONNX model's name of a graph input or output, on the function's
/// argument or result (the importer sets it; packages record it).
constexpr llvm::StringLiteral kOnnxName = "onnx.name";

// Training (docs/training.md). A training step is a function whose
// persistent state (parameters, optimizer buffers) comes in as arguments and
// goes out, updated, as results.
/// A trainable parameter: its name (an ONNX initializer's), on a function
/// argument, or on a dlc.constant that dlc-autodiff lifts into one.
constexpr llvm::StringLiteral kParam = "dlc.param";
/// Persistent state that is not trained (an optimizer's buffers, its step
/// count): its name, on a function argument.
constexpr llvm::StringLiteral kState = "dlc.state";
/// A buffer of the model: state the forward pass updates but training does
/// not (batch normalization's running statistics), saved with the
/// parameters: its name, on a function argument or on a float dlc.constant
/// that dlc-autodiff lifts into one.
constexpr llvm::StringLiteral kBuffer = "dlc.buffer";
/// On a function result: the new value of the buffer of this name (the
/// ONNX importer; dlc-autodiff turns it into dlc.updates).
constexpr llvm::StringLiteral kBufferUpdate = "dlc.buffer_update";
/// The value a parameter or state argument starts from (an elements
/// attribute of the argument's type).
constexpr llvm::StringLiteral kInitial = "dlc.initial";
/// On a function result: the gradient of the loss with respect to argument
/// #n (dlc-autodiff).
constexpr llvm::StringLiteral kGradientOf = "dlc.gradient_of";
/// On a function result: the new value of parameter or state argument #n
/// (dlc-apply-optimizer).
constexpr llvm::StringLiteral kUpdates = "dlc.updates";
/// On a training step: the micro-batches (i64, 2 or more) one optimizer
/// step accumulates gradients over (dlc-apply-optimizer's accumulate).
constexpr llvm::StringLiteral kMicroBatches = "dlc.micro_batches";
/// On a training step's result (unit): 1.0 when the step skipped its update
/// because a gradient was not finite (dynamic loss scaling), else 0.0.
constexpr llvm::StringLiteral kStepSkipped = "dlc.step_skipped";
/// The state names of dynamic loss scaling (GradScaler's scale and
/// growth tracker).
constexpr llvm::StringLiteral kLossScaleState = "grad_scaler.scale";
constexpr llvm::StringLiteral kGrowthTrackerState =
    "grad_scaler.growth_tracker";
} // namespace attr

/// The planned arena offsets of `op`'s results, if planned.
std::optional<ArrayRef<int64_t>> getPlannedOffsets(Operation *op);
void setPlannedOffsets(Operation *op, ArrayRef<int64_t> offsets);

/// The function-level sizes memory planning and lowering record.
std::optional<int64_t> getArenaBytes(Operation *func);
void setArenaBytes(Operation *func, int64_t bytes);
std::optional<int64_t> getIntermediateBytes(Operation *func);
void setIntermediateBytes(Operation *func, int64_t bytes);
std::optional<int64_t> getSourceOpCount(Operation *func);
void setSourceOpCount(Operation *func, int64_t count);
std::optional<int64_t> getArenaLowerBound(Operation *func);
void setArenaLowerBound(Operation *func, int64_t bytes);
/// The bytes a function holds besides its arena: its arguments, its
/// results and the constants the package stores (those outside kernels,
/// but for splats only kernels read: literals). Its peak device memory is
/// this plus the arena.
int64_t residentBytes(FunctionOpInterface func);
/// Whether a dlc.matmul computes a convolution.
bool isFromConv(Operation *matmul);
void setFromConv(Operation *matmul);

/// Whether layout selection made a dlc.conv2d channels-last.
bool isChannelsLast(Operation *conv);
void setChannelsLast(Operation *conv);
/// Layout selection's choices (null when it made none).
ArrayAttr getLayoutChoices(Operation *func);
void setLayoutChoices(Operation *func, ArrayAttr choices);

/// Whether `op` reads its operand's buffer in place: a reshape, or a
/// slice that dlc-fuse keeps as a view of a contiguous block (attr::kView).
bool isBufferView(Operation *op);

/// A kernel's fusion notes (null when it has none).
ArrayAttr getFusionNotes(Operation *kernel);
void setFusionNotes(Operation *kernel, ArrayAttr notes);
void removeFusionNotes(Operation *kernel);
/// An operand number that `remapFusionNotes` drops the notes of.
constexpr unsigned kDroppedOperand = ~0u;
/// `kernel`'s fusion notes for a kernel made from it, appended to `notes`
/// (each once): note operand n becomes operandMap[n] (its notes dropped
/// where that is kDroppedOperand), result r becomes r + resultOffset.
void remapFusionNotes(Operation *kernel, ArrayRef<unsigned> operandMap,
                      unsigned resultOffset, SmallVectorImpl<Attribute> &notes);

/// The calibrated largest magnitude of `op`'s result, if calibrated.
std::optional<double> getAmax(Operation *op);
void setAmax(Operation *op, double amax);
/// The same for any value: an op's result or a function's argument.
std::optional<double> getAmax(Value value);
bool isCalibrated(Operation *func);
void setCalibrated(Operation *func);
/// Whether `op` is to be kept in f32 (dlc.precision = "f32").
bool keepsF32(Operation *op);
void setKeepF32(Operation *op);

/// Checks a `dlc.`-prefixed attribute on `op`: a known name, of its kind,
/// with values in range. DlcDialect::verifyOperationAttribute.
LogicalResult verifyDlcAttribute(Operation *op, NamedAttribute attribute);
/// Verifies a `dlc.` attribute on argument `index` of region `region` of
/// `op` (dlc.amax, dlc.param, dlc.state, dlc.initial on a function's
/// arguments).
LogicalResult verifyDlcArgAttribute(Operation *op, unsigned region,
                                    unsigned index, NamedAttribute attribute);
/// Verifies a `dlc.` attribute on result `index` of a function
/// (dlc.gradient_of, dlc.updates).
LogicalResult verifyDlcResultAttribute(Operation *op, unsigned index,
                                       NamedAttribute attribute);
/// The name of a parameter or state argument (dlc.param or dlc.state), or
/// "".
StringRef persistentName(FunctionOpInterface func, unsigned arg);

} // namespace mlir::dlc

#endif // DLC_IR_ATTRIBUTES_H
