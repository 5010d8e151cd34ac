//===- DlcInterfaces.td - Traits and interfaces of dlc ops -*- tablegen -*-===//
//
// What the passes and code generation ask of an op, declared on the op:
// its class (elementwise, data movement, window, reduction), whether it may
// stand inside a dlc.kernel, its cost for fusion, its gradient and its
// precision policy. A new op states these in DlcOps.td and nowhere else.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_INTERFACES_TD
#define DLC_INTERFACES_TD

include "mlir/IR/OpBase.td"

//===----------------------------------------------------------------------===//
// Op classes (C++: ir/Traits.h, namespace mlir::dlc::trait)
//===----------------------------------------------------------------------===//

class Dlc_Trait<string name> : NativeOpTrait<name> {
  let cppNamespace = "::mlir::dlc::trait";
}

/// May stand inside a dlc.kernel's body: code generation has an emitter for
/// it. The dlc.kernel verifier rejects every other op in a body.
def Dlc_KernelBody : Dlc_Trait<"KernelBody">;
/// Computes each result element from the operand elements at the same
/// (broadcast) position.
def Dlc_Elementwise : Dlc_Trait<"Elementwise">;
/// Only moves data (transpose, reshape, slice, concat, pad, tile): each
/// result element is one input element or a constant.
def Dlc_DataMovement : Dlc_Trait<"DataMovement">;
/// Computes each result element from a window or a gathered position of its
/// input (conv2d, conv_transpose2d, pool2d, im2col, gather, resize): it fuses
/// like data movement, but an elementwise producer fused into it would be
/// recomputed for every read.
def Dlc_Window : Dlc_Trait<"Window">;
/// Combines elements along axes (reduce, argmax).
def Dlc_Reduction : Dlc_Trait<"Reduction">;
/// Every operand and result is within the 2^40-byte tensor limit, checked
/// before the op's own verifier computes with its shapes.
def Dlc_TensorSizeLimit : Dlc_Trait<"TensorSizeLimit">;

//===----------------------------------------------------------------------===//
// Cost (used by dlc-fuse's cost model)
//===----------------------------------------------------------------------===//

def Dlc_CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::mlir::dlc";
  let description = [{
    The arithmetic an op performs, in FP32-operation equivalents of a CUDA
    core, and the bytes it moves when it runs as a kernel of its own. Fusion
    weighs the arithmetic of a fused kernel against the memory traffic it
    saves.
  }];
  let methods = [
    InterfaceMethod<
      "Operations per result element (a transcendental or a division counts "
      "as several fused multiply-adds).",
      "int64_t", "getOpsPerElement", (ins), [{}], [{ return 1; }]>,
    InterfaceMethod<
      "Floating-point or integer operations of the whole op.",
      "double", "getFlops", (ins), [{}], [{
        double elements = 0;
        for (::mlir::Type type : $_op->getResultTypes())
          if (auto shaped = ::llvm::dyn_cast<::mlir::ShapedType>(type))
            elements += double(shaped.getNumElements());
        return elements * double($_op.getOpsPerElement());
      }]>,
    InterfaceMethod<
      "Bytes read and written when the op runs alone: each operand and "
      "result once.",
      "int64_t", "getBytesMoved", (ins), [{}], [{
        return ::mlir::dlc::operandAndResultBytes($_op);
      }]>,
  ];
}

//===----------------------------------------------------------------------===//
// Gradient (reverse-mode autodiff)
//===----------------------------------------------------------------------===//

def Dlc_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mlir::dlc";
  let description = [{
    The op's rule for reverse-mode differentiation: given the gradient of the
    loss with respect to each result (null where a result does not reach the
    loss), build the gradient with respect to each operand (null where an
    operand is not differentiable, such as an index or a boolean). Operand
    gradients have the operand's type: a broadcast operand's gradient is
    summed over the broadcast dimensions. The rule only builds dlc ops after
    the op, so every later pass (fusion, memory planning) sees the backward
    graph as ordinary IR.
  }];
  let methods = [
    InterfaceMethod<
      "Appends one gradient per operand to `operandGradients` (null for a "
      "non-differentiable operand).",
      "::llvm::LogicalResult", "buildGradient",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ArrayRef<::mlir::Value>":$resultGradients,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGradients)>,
  ];
}

//===----------------------------------------------------------------------===//
// Precision policy (mixed-precision assignment)
//===----------------------------------------------------------------------===//

def Dlc_PrecisionPolicyOpInterface : OpInterface<"PrecisionPolicyOpInterface"> {
  let cppNamespace = "::mlir::dlc";
  let description = [{
    How an op may run under reduced precision: `Allow` where it is as
    accurate in f16/bf16 as its inputs (data movement, max, comparisons),
    `Prefer` where reduced precision is the point (matrix products on tensor
    cores), `Deny` where it must compute in f32 (exp, log, reductions of
    many terms, normalizations), like the allow/deny lists of PyTorch's
    autocast and TensorRT's layer precision. Ops without the interface are
    treated as `Deny`.
  }];
  let methods = [
    InterfaceMethod<"The op's precision class.",
      "::mlir::dlc::PrecisionClass", "getPrecisionClass", (ins), [{}],
      [{ return ::mlir::dlc::PrecisionClass::Allow; }]>,
  ];
}

//===----------------------------------------------------------------------===//
// Layout policy (layout selection)
//===----------------------------------------------------------------------===//

def Dlc_LayoutOpInterface : OpInterface<"LayoutOpInterface"> {
  let cppNamespace = "::mlir::dlc";
  let description = [{
    How an op's meaning depends on the order of its tensors' dimensions, for
    layout selection (`dlc-assign-layout`: channels-last where tensor cores
    and GEMM epilogues want it):
    `Agnostic` where permuting the dimensions of every operand and result
    alike gives the same op (elementwise ops), so a layout passes through it
    unchanged; `Axes` where the op names dimensions in attributes (reduce,
    transpose, slice, concat, pad, tile), so a layout change permutes its
    attributes; `Spatial` where the op reads its first operand and writes
    its result as NCHW images (convolutions, pooling, resize): in another
    layout it is wrapped in transposes, which its kernel absorbs into its
    indexing (or `dlc-lower-conv` into the GEMM it becomes). Ops without the
    interface are `Fixed`: they read their own layout (products the last two
    dimensions, reshapes the row-major order), so their operands are given
    to them in the model's layout.
  }];
  let methods = [
    InterfaceMethod<"The op's layout class.",
      "::mlir::dlc::LayoutClass", "getLayoutClass", (ins), [{}],
      [{ return ::mlir::dlc::LayoutClass::Agnostic; }]>,
    InterfaceMethod<[{
        For `Agnostic` and `Axes` ops: the same op on `operands`, which are
        the op's operands with their dimensions permuted by `perm` (new
        dimension `i` is old dimension `perm[i]`); its results are the op's
        results permuted alike. Null where the op has no such form.
      }],
      "::mlir::Operation *", "permuteLayout",
      (ins "::mlir::OpBuilder &":$builder, "::llvm::ArrayRef<int64_t>":$perm,
           "::mlir::ValueRange":$operands), [{}],
      [{ return ::mlir::dlc::permuteAgnosticOp($_op, builder, perm, operands); }]>,
  ];
}

#endif // DLC_INTERFACES_TD
