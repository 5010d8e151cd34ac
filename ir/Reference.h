//===- Reference.h - Double-precision reference interpreter -------*- C++
//-*-===//
//
// A slow, simple evaluator of dlc IR on the CPU. It is the ground truth that
// the generated kernels are checked against (`dlc run --check`), so it favours
// being obviously right over being fast: every value is a flat vector of
// doubles plus a shape, and every op is a direct transcription of its
// description in ir/DlcOps.td.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_IR_REFERENCE_H
#define DLC_IR_REFERENCE_H

#include "ir/Dialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "runtime/Tensor.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mlir::dlc {

/// The elements the reference interpreter's tensors may hold in all (2 GiB
/// of doubles): inputs and every op's result, which are kept to the end.
constexpr int64_t kReferenceElementBudget = int64_t(1) << 28;

/// Evaluates `func` op by op in double precision on the CPU. `func` must hold
/// dlc IR (dlc ops, dlc.kernel, func.return), before or after fusion and
/// memory planning. Inputs and outputs are host tensors of the function's
/// argument and result types.
///
/// Rounding: values of f32 ops stay in double precision; values of f16/bf16
/// ops are rounded to the op's element type after each op, like the device;
/// dlc.cast rounds to its result type; outputs are rounded to their types.
/// Integer ops wrap like two's-complement integers of their width and
/// integer division truncates. i64 values are exact up to 2^53.
///
/// Wrong input count, type or shape, an op that is not dlc, or an integer
/// division by zero are diagnosed at the function or op and give failure;
/// so is a tensor of more than 2^30 elements, or a value that would bring
/// the elements of all tensors over kReferenceElementBudget.
FailureOr<std::vector<rt::HostTensor>>
evaluateReference(func::FuncOp func, const std::vector<rt::HostTensor> &inputs);

/// Called with every op result the interpreter computes (ops inside a
/// dlc.kernel included, dlc.kernel's own results not: they are its body's
/// values), as doubles after the op's rounding, in evaluation order.
using ReferenceObserver =
    llvm::function_ref<void(OpResult result, ArrayRef<double> values)>;

/// evaluateReference, showing every intermediate value to `observe`: the
/// taps of the precision report and the calibration of value ranges.
FailureOr<std::vector<rt::HostTensor>>
evaluateReference(func::FuncOp func, const std::vector<rt::HostTensor> &inputs,
                  ReferenceObserver observe);

/// The value of `op` (a dlc op of one result whose operands are all
/// dlc.constant ops) as the reference interpreter computes it, rounded to
/// the result's element type: what constant folding of non-splat values
/// uses (one definition of every op's meaning). Failure, with no
/// diagnostic, for another op, a result of more than `maxElements`
/// elements, or a value the interpreter refuses (an integer division by
/// zero).
FailureOr<DenseElementsAttr> evaluateOnConstants(Operation *op,
                                                 int64_t maxElements);

/// The elements of a dlc.constant (dense or dense_resource) as doubles, in
/// row-major order; failure, with no diagnostic, for one of more than
/// `maxElements` elements or whose data cannot be read.
FailureOr<std::vector<double>> constantValues(ConstantOp op,
                                              int64_t maxElements);

/// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1,
/// 2, 3", SC'11) of `counter` under `key`: dlc.dropout's generator, as the
/// reference computes it (the kernels' copy is dlc_philox in
/// codegen/Prelude.cuh; test/reference checks this one against the
/// published known-answer vectors, and every sim run the two against each
/// other).
std::array<uint32_t, 4> philox4x32(std::array<uint32_t, 4> counter,
                                   std::array<uint32_t, 2> key);

} // namespace mlir::dlc

#endif // DLC_IR_REFERENCE_H
