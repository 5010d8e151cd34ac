//===- KernelEmitter.h - One fused kernel, one emitter per kind -*- C++ -*-===//
//
// Internal to codegen/: a dlc.kernel becomes one `extern "C" __global__`
// function. Its body comes from an expression emitter that computes the
// value of any body op at a multi-dimensional index given as C expressions:
// it walks the use-def chain from the yielded values back to the block
// arguments, turning data movement (broadcast, transpose, reshape, slice,
// tile, pad, concat) into index arithmetic, so no intermediate tensor is ever
// materialized. The kernel plan's kind (analysis/KernelAnalysis.h) picks the
// template that lays the iteration space out over threads, a subclass each
// (createKernelEmitter, as XLA's GetFusionEmitter):
//
//   OpEmitters.cpp        values of elementwise, data movement, reduction,
//                         gather and resize ops
//   WindowEmitters.cpp    im2col, conv2d, conv_transpose2d, pool2d
//   PointwiseEmitter.cpp  one thread per output element (or vector of them)
//   RowEmitter.cpp        one warp or block per row, reductions cooperative
//   GemmEmitter.cpp       a tiled matrix product, the body as its epilogue
//
//===----------------------------------------------------------------------===//
#ifndef DLC_CODEGEN_KERNELEMITTER_H
#define DLC_CODEGEN_KERNELEMITTER_H

#include "analysis/KernelAnalysis.h"
#include "codegen/CudaEmitter.h"
#include "codegen/CudaTypes.h"
#include "codegen/SourceBuilder.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>

namespace mlir::dlc {

/// The static shape of `v`.
inline ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

class KernelEmitter : public SourceBuilder {
public:
  ~KernelEmitter() override;

  /// Appends the kernel's comment, constant tables, function and sim
  /// trampoline to `source` and describes it in `out`.
  LogicalResult emit(std::string &source, EmittedKernel &out);

protected:
  KernelEmitter(KernelOp kernel, const KernelPlan &plan, unsigned number);

  //===--- What a template provides --------------------------------------===//
  /// Lays the plan's iteration space out over threads and emits the writes
  /// of every output; sets the launch shape in `out`.
  virtual void emitTemplate(EmittedKernel &out) = 0;
  /// The template for the kernel's comment ("pointwise, 64 elements, 1 per
  /// thread").
  virtual std::string describeTemplate() const = 0;
  virtual bool usesBarriers() const = 0;
  /// A value the template computed up front (a row reduction) at `idx`.
  virtual std::optional<std::string> precomputed(Value v,
                                                 ArrayRef<std::string> idx) {
    return std::nullopt;
  }
  /// A read of kernel input `arg` at `idx` the template serves itself
  /// (vector loads, rows cached in registers); nothing: a plain load.
  virtual std::optional<std::string> readArgument(BlockArgument arg,
                                                  ArrayRef<std::string> idx) {
    return std::nullopt;
  }

  //===--- Values (OpEmitters.cpp) ---------------------------------------===//
  /// Diagnoses `op` (the first error only) and fails the kernel.
  void fail(Operation *op, const Twine &message);
  /// Declares `const <type> vN = expr;` in the current scope.
  std::string def(rt::DType e, const std::string &expr);
  /// The value of `v` at `idx` as a C variable or literal of its compute
  /// type; emits whatever statements it needs.
  std::string val(Value v, ArrayRef<std::string> idx);
  /// Kernel input `arg` loaded from memory at `idx`.
  std::string loadArgument(BlockArgument arg, ArrayRef<std::string> idx);
  /// `T result = init; if (conds) { result = read(); }`: a conditional
  /// scope nothing computed inside moves out of.
  std::string guarded(rt::DType e, ArrayRef<std::string> conds,
                      const std::string &init,
                      llvm::function_ref<std::string()> read);

  KernelOp kernel;
  const KernelPlan &plan;
  bool hadError = false;

private:
  std::string compute(Value v, ArrayRef<std::string> idx);
  std::string computeBlockArg(BlockArgument arg, ArrayRef<std::string> idx);
  std::string computeConstant(ConstantOp op, ArrayRef<std::string> idx);
  std::string computeUnary(Operation *op, ArrayRef<std::string> idx);
  std::string computeBinary(Operation *op, ArrayRef<std::string> idx);
  std::string computeCast(CastOp op, ArrayRef<std::string> idx);
  std::string computeDropout(DropoutOp op, ArrayRef<std::string> idx);
  std::string computeReduce(ReduceOp op, ArrayRef<std::string> idx);
  std::string computeArgMax(ArgMaxOp op, ArrayRef<std::string> idx);
  std::string computePad(PadOp op, ArrayRef<std::string> idx);
  std::string computeConcat(ConcatOp op, ArrayRef<std::string> idx);
  std::string computeGather(GatherOp op, ArrayRef<std::string> idx);
  std::string computeResize(ResizeOp op, ArrayRef<std::string> idx);
  /// Splat (or one-element) constants become literals.
  std::optional<std::string> splatLiteral(Value v);
  std::string cacheKey(Value v, ArrayRef<std::string> idx);

  //===--- Windows (WindowEmitters.cpp) ----------------------------------===//
  std::string computeIm2Col(Im2ColOp op, ArrayRef<std::string> idx);
  std::string computeConv2D(Conv2DOp op, ArrayRef<std::string> idx);
  std::string computeConvTranspose2D(ConvTranspose2DOp op,
                                     ArrayRef<std::string> idx);
  std::string computePool2D(Pool2DOp op, ArrayRef<std::string> idx);
  /// The window loop of conv2d, conv_transpose2d and pool2d: `float acc =
  /// init;`, then loops over the window positions `sizes`. In the loops,
  /// `guard(vars)` gives the conditions under which a position is read
  /// (nothing: never), and `accumulate(vars, acc)`, under them, the
  /// statement that folds it into acc. Returns acc.
  std::string
  windowLoop(const std::string &init, ArrayRef<int64_t> sizes,
             llvm::function_ref<
                 std::optional<SmallVector<std::string>>(ArrayRef<std::string>)>
                 guard,
             llvm::function_ref<std::string(ArrayRef<std::string>,
                                            const std::string &)>
                 accumulate);
  /// `acc` (an f32 accumulator) rounded to `e`, in place.
  std::string roundAccumulator(rt::DType e, const std::string &acc);
};

/// The emitter of `kernel` for its plan's kind; `number` names it (k3).
std::unique_ptr<KernelEmitter>
createKernelEmitter(KernelOp kernel, const KernelPlan &plan, unsigned number);
std::unique_ptr<KernelEmitter> createPointwiseEmitter(KernelOp kernel,
                                                      const KernelPlan &plan,
                                                      unsigned number);
std::unique_ptr<KernelEmitter>
createRowEmitter(KernelOp kernel, const KernelPlan &plan, unsigned number);
std::unique_ptr<KernelEmitter>
createGemmEmitter(KernelOp kernel, const KernelPlan &plan, unsigned number);

} // namespace mlir::dlc

#endif // DLC_CODEGEN_KERNELEMITTER_H
