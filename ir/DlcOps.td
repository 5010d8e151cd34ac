//===- DlcOps.td - Operations of the dlc dialect -----------*- tablegen -*-===//
#ifndef DLC_OPS_TD
#define DLC_OPS_TD

include "ir/DlcDialect.td"
include "ir/DlcInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def Dlc_ConstantOp : Dlc_Op<"constant",
    [ConstantLike, Pure, Dlc_KernelBody,
     AllTypesMatch<["value", "result"]>]> {
  let summary = "tensor constant";
  let description = [{
    A constant tensor. Splat constants used by a fused kernel become literals
    in the generated code; other constants are stored in the package.

    ```mlir
    %c = dlc.constant dense<[1.0, 2.0]> : tensor<2xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// The traits of every elementwise op (layout agnostic).
defvar Dlc_ElementwiseTraits = [Pure, Dlc_Elementwise, Dlc_KernelBody,
                                Dlc_LayoutOpInterface];
/// An op that names dimensions in its attributes (LayoutClass::Axes), with
/// its permuted form in ir/Policies.cpp.
defvar Dlc_LayoutAxes = DeclareOpInterfaceMethods<Dlc_LayoutOpInterface,
                                                  ["getLayoutClass", "permuteLayout"]>;
/// An op on NCHW images (LayoutClass::Spatial).
defvar Dlc_LayoutSpatial =
    DeclareOpInterfaceMethods<Dlc_LayoutOpInterface, ["getLayoutClass"]>;
/// An op with a rule in ir/Gradients.cpp.
defvar Dlc_Differentiable = DeclareOpInterfaceMethods<Dlc_GradientOpInterface>;
/// An op as accurate in f16/bf16 as its inputs (the interface's default).
defvar Dlc_ReducedPrecisionSafe = Dlc_PrecisionPolicyOpInterface;
/// An op whose point is reduced precision (tensor-core products).
defvar Dlc_PrefersReducedPrecision =
    DeclareOpInterfaceMethods<Dlc_PrecisionPolicyOpInterface, ["getPrecisionClass"]>;

class Dlc_UnaryOp<string mnemonic, string what,
                  list<Trait> traits = [Dlc_CostOpInterface]> :
    Dlc_Op<mnemonic, !listconcat(traits, Dlc_ElementwiseTraits,
                                 [SameOperandsAndResultType])> {
  let summary = "elementwise " # what;
  let description = [{
    Applies }] # what # [{ to every element.

    ```mlir
    %y = dlc.}] # mnemonic # [{ %x : tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

/// `cost`: operations per element (CostOpInterface); the special function
/// unit's transcendentals and divisions count several FMAs.
/// Constant operands fold through the dialect's canonicalization
/// (FoldConstantOperands, which evaluates the op with the reference
/// interpreter), so each op's semantics are written once.
class Dlc_FloatUnaryOp<string mnemonic, string what, int cost = 1,
                       list<Trait> extra = []> :
    Dlc_UnaryOp<mnemonic, what, !listconcat(
        [DeclareOpInterfaceMethods<Dlc_CostOpInterface, ["getOpsPerElement"]>],
        extra)> {
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyFloatElements(getOperation());
    }
    int64_t $cppClass::getOpsPerElement() { return }] # cost # [{; }
  }];
}

def Dlc_ExpOp : Dlc_FloatUnaryOp<"exp", "the natural exponential", 8, [Dlc_Differentiable]>;
def Dlc_LogOp : Dlc_FloatUnaryOp<"log", "the natural logarithm", 8, [Dlc_Differentiable]>;
def Dlc_TanhOp : Dlc_FloatUnaryOp<"tanh", "the hyperbolic tangent", 8, [Dlc_Differentiable]>;
def Dlc_SigmoidOp : Dlc_FloatUnaryOp<"sigmoid", "the logistic function 1 / (1 + exp(-x))", 8, [Dlc_Differentiable]>;
def Dlc_ErfOp : Dlc_FloatUnaryOp<"erf", "the Gauss error function", 8, [Dlc_Differentiable]>;
def Dlc_RsqrtOp : Dlc_FloatUnaryOp<"rsqrt", "the reciprocal square root", 4, [Dlc_Differentiable]>;
def Dlc_SqrtOp : Dlc_FloatUnaryOp<"sqrt", "the square root", 4, [Dlc_Differentiable]>;
def Dlc_ReciprocalOp : Dlc_FloatUnaryOp<"reciprocal", "1 / x", 4, [Dlc_Differentiable]>;
def Dlc_AbsOp : Dlc_UnaryOp<"abs", "the absolute value",
    [Dlc_CostOpInterface, Dlc_Differentiable, Dlc_ReducedPrecisionSafe]>;
def Dlc_NegOp : Dlc_UnaryOp<"neg", "negation",
    [Dlc_CostOpInterface, Dlc_Differentiable, Dlc_ReducedPrecisionSafe]>;

def Dlc_NotOp : Dlc_Op<"not", !listconcat(Dlc_ElementwiseTraits,
    [SameOperandsAndResultType, Dlc_CostOpInterface])> {
  let summary = "logical negation of a boolean tensor";
  let description = [{
    ```mlir
    %y = dlc.not %x : tensor<4xi1>
    ```
  }];
  let arguments = (ins Dlc_BoolTensor:$input);
  let results = (outs Dlc_BoolTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

def Dlc_ClampOp : Dlc_Op<"clamp", !listconcat(Dlc_ElementwiseTraits,
    [SameOperandsAndResultType, Dlc_CostOpInterface, Dlc_Differentiable,
     Dlc_ReducedPrecisionSafe])> {
  let summary = "elementwise clamp to [min, max]";
  let description = [{
    `min(max(x, min), max)`; the bounds are given as f64 and converted to the
    element type.

    ```mlir
    %y = dlc.clamp %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, F64Attr:$min, F64Attr:$max);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

class Dlc_BinaryOp<string mnemonic, string what, int cost = 1,
                   list<Trait> extra = []> :
    Dlc_Op<mnemonic, !listconcat(Dlc_ElementwiseTraits,
        [DeclareOpInterfaceMethods<Dlc_CostOpInterface, ["getOpsPerElement"]>],
        extra)> {
  let summary = "elementwise " # what # " with broadcasting";
  let description = [{
    Computes }] # what # [{ of two tensors of the same rank and element type.
    A dimension of size 1 in one operand stretches to the other's size.

    ```mlir
    %z = dlc.}] # mnemonic # [{ %x, %y : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$lhs, Dlc_Tensor:$rhs);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::verify() {
      return verifyBroadcastElementwise(getOperation(), /*sameResultElementType=*/true);
    }
    int64_t $cppClass::getOpsPerElement() { return }] # cost # [{; }
  }];
}

def Dlc_AddOp : Dlc_BinaryOp<"add", "the sum", 1, [Dlc_Differentiable, Dlc_ReducedPrecisionSafe]>;
def Dlc_SubOp : Dlc_BinaryOp<"sub", "the difference", 1, [Dlc_Differentiable, Dlc_ReducedPrecisionSafe]>;
def Dlc_MulOp : Dlc_BinaryOp<"mul", "the product", 1, [Dlc_Differentiable, Dlc_ReducedPrecisionSafe]>;
def Dlc_DivOp : Dlc_BinaryOp<"div", "the quotient (integer division truncates)", 4,
    [Dlc_Differentiable]>;
def Dlc_MaxOp : Dlc_BinaryOp<"max", "the maximum", 1, [Dlc_Differentiable, Dlc_ReducedPrecisionSafe]>;
def Dlc_MinOp : Dlc_BinaryOp<"min", "the minimum", 1, [Dlc_Differentiable, Dlc_ReducedPrecisionSafe]>;
def Dlc_PowOp : Dlc_BinaryOp<"pow", "lhs raised to the power rhs", 8, [Dlc_Differentiable]>;
def Dlc_AndOp : Dlc_BinaryOp<"and", "the logical or bitwise and">;
def Dlc_OrOp : Dlc_BinaryOp<"or", "the logical or bitwise or">;

def Dlc_CmpOp : Dlc_Op<"cmp", !listconcat(Dlc_ElementwiseTraits,
    [Dlc_CostOpInterface, Dlc_ReducedPrecisionSafe])> {
  let summary = "elementwise comparison with broadcasting";
  let description = [{
    Compares two tensors of the same rank and element type; the result is a
    boolean tensor of the broadcast shape.

    ```mlir
    %m = dlc.cmp gt, %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    ```
  }];
  let arguments = (ins Dlc_CmpPredicate:$predicate, Dlc_Tensor:$lhs, Dlc_Tensor:$rhs);
  let results = (outs Dlc_BoolTensor:$result);
  let assemblyFormat =
      "$predicate `,` $lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Dlc_SelectOp : Dlc_Op<"select", !listconcat(Dlc_ElementwiseTraits,
    [Dlc_CostOpInterface, Dlc_Differentiable, Dlc_ReducedPrecisionSafe])> {
  let summary = "elementwise choice between two tensors";
  let description = [{
    `cond ? on_true : on_false` elementwise, with broadcasting of all three.

    ```mlir
    %z = dlc.select %m, %x, %y : (tensor<4xi1>, tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins Dlc_BoolTensor:$cond, Dlc_Tensor:$on_true, Dlc_Tensor:$on_false);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat =
      "$cond `,` $on_true `,` $on_false attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Dlc_CastOp : Dlc_Op<"cast", !listconcat(Dlc_ElementwiseTraits,
    [Dlc_CostOpInterface, Dlc_Differentiable, Dlc_ReducedPrecisionSafe])> {
  let summary = "elementwise conversion of the element type";
  let description = [{
    Converts every element to the result's element type. Float to integer
    rounds to nearest even and saturates; float to i1 is `x != 0`. Float to
    f8E4M3FN rounds to nearest even and saturates to +-448 (infinities too;
    NaN stays NaN), as CUDA's `__NV_SATFINITE` conversion.

    A cast to f8E4M3FN may carry a quantization `scale`: each element is
    multiplied by it (in f32) before the conversion, so that the values use
    E4M3's range (`dlc-assign-precision` sets it to 448 / the value's
    calibrated largest magnitude, as Transformer Engine does).

    ```mlir
    %h = dlc.cast %x : tensor<4xf32> -> tensor<4xf16>
    %q = dlc.cast %y {scale = 112.0 : f64} : tensor<4xbf16> -> tensor<4xf8E4M3FN>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, OptionalAttr<F64Attr>:$scale);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dlc_DropoutOp : Dlc_Op<"dropout", [Pure, Dlc_Elementwise, Dlc_KernelBody,
    DeclareOpInterfaceMethods<Dlc_CostOpInterface, ["getOpsPerElement"]>,
    Dlc_Differentiable, Dlc_ReducedPrecisionSafe]> {
  let summary = "dropout with a counter-based random mask";
  let description = [{
    Zeroes each element with probability `ratio` and scales the others by
    `1 / (1 - ratio)` (PyTorch's inverted dropout: `x * mask * scale`, so a
    NaN stays NaN). The mask is a pure function of the element's row-major
    index in the result, the `offset` operand (an i64 scalar of the input's
    rank, which a training step advances every run) and the key (`seed`,
    `stream`): Philox4x32-10 (Salmon et al., SC'11) with counter
    (index, offset) and key (seed's low word, seed's high word xor stream)
    gives a word `r`, and the element is kept when `r >> 8`, a uniform 24-bit
    number, is at least `ceil(ratio * 2^24)`. So the mask is never stored:
    the backward pass regenerates it (the gradient is a dropout of the
    gradient with the same operands and key), and a fused kernel computes it
    where it needs it. `stream` tells the dropouts of one model apart.

    The op has a fixed layout: its mask follows its own row-major order.

    ```mlir
    %y = dlc.dropout %x, %offset {ratio = 0.1 : f64, seed = 0 : i64, stream = 0 : i64}
        : (tensor<8x512xf32>, tensor<1x1xi64>) -> tensor<8x512xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, Dlc_Tensor:$offset, F64Attr:$ratio,
                       I64Attr:$seed, I64Attr:$stream);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat =
      "$input `,` $offset attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The element is kept when the top 24 bits of its random word are at
    /// least this (ceil(ratio * 2^24); 2^24 drops everything).
    uint32_t getKeepThreshold();
    /// What kept elements are multiplied by, 1 / (1 - ratio) in f32 (0
    /// when everything is dropped).
    float getKeptScale();
    /// Philox's key: the seed's low word, its high word xor the stream.
    std::pair<uint32_t, uint32_t> getKey();
  }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Dlc_ReduceOp : Dlc_Op<"reduce", [Pure, Dlc_Reduction, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_Differentiable, Dlc_LayoutAxes]> {
  let summary = "reduction over a set of axes";
  let description = [{
    Combines the elements along `axes` with `sum`, `max`, `min` or `prod`.
    Reduced dimensions stay in the result with size 1. Floating-point
    reductions accumulate in f32 at least.

    ```mlir
    %s = dlc.reduce sum %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Dlc_ReduceKind:$kind, Dlc_Tensor:$input,
                       DenseI64ArrayAttr:$axes);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat =
      "$kind $input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
}

def Dlc_ArgMaxOp : Dlc_Op<"argmax", [Pure, Dlc_Reduction, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_LayoutAxes]> {
  let summary = "index of the largest element along an axis";
  let description = [{
    The first index of the maximum along `axis`; that dimension stays in the
    result with size 1.

    ```mlir
    %i = dlc.argmax %x {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xi32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, I64Attr:$axis);
  let results = (outs Dlc_IndexTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Matrix product
//===----------------------------------------------------------------------===//

def Dlc_EpilogueKind : I32EnumAttr<"EpilogueKind",
    "activation applied at the end of a matrix product", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"relu", 1>,
    I32EnumAttrCase<"gelu_tanh", 2>]> {
  let cppNamespace = "::mlir::dlc";
}

def Dlc_MatmulOp : Dlc_Op<"matmul", [Pure, AttrSizedOperandSegments,
    Dlc_TensorSizeLimit, Dlc_Differentiable, Dlc_PrefersReducedPrecision,
    DeclareOpInterfaceMethods<Dlc_CostOpInterface, ["getOpsPerElement"]>]> {
  let summary = "batched matrix product with an optional epilogue";
  let description = [{
    `result[b..., m, n] = act(sum_k A[b..., m, k] * B[b..., k, n]
    + bias[n] + addend[b..., m, n])` where `transpose_a`/`transpose_b` swap
    the last two dimensions of an operand before the product. Both operands
    have the same rank (at least 2) and element type; batch dimensions
    broadcast. Products accumulate in `acc_type` (f32 unless given) and
    become a cuBLAS call.

    With f8E4M3FN operands (`--precision=fp8`) the result is bf16 or f16
    and `lhs_scale` and `rhs_scale` (default 1) dequantize: the product is
    `lhs_scale * rhs_scale * sum_k A * B`, accumulated in f32 (cuBLASLt's
    FP8 matmul with its A and B scales). cuBLASLt wants such a product with
    `transpose_b` and without `transpose_a`.

    The epilogue (a cuBLASLt call; `dlc-fuse-epilogue` forms it) is
    optional: `bias` is a vector of N elements (shape `[N]` or `[1, ..., 1,
    N]`) added to every row, `addend` a tensor of the result's type added
    elementwise (a residual connection), and `epilogue` the activation
    applied last: `relu` (`max(x, 0)`) or `gelu_tanh` (`0.5 x (1 + tanh(
    sqrt(2/pi) (x + 0.044715 x^3)))`). A fused product rounds to the element
    type once, at the end.

    ```mlir
    %c = dlc.matmul %a, %b {transpose_b} : (tensor<2x4x8xf32>, tensor<2x16x8xf32>) -> tensor<2x4x16xf32>
    %d = dlc.matmul %x, %w bias(%b) addend(%r) epilogue(relu) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$lhs, Dlc_Tensor:$rhs,
                       Optional<Dlc_Tensor>:$bias,
                       Optional<Dlc_Tensor>:$addend,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       OptionalAttr<TypeAttr>:$acc_type,
                       DefaultValuedAttr<Dlc_EpilogueKind,
                                         "::mlir::dlc::EpilogueKind::none">:$epilogue,
                       OptionalAttr<F64Attr>:$lhs_scale,
                       OptionalAttr<F64Attr>:$rhs_scale);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs (`bias` `(` $bias^ `)`)? (`addend` `(` $addend^ `)`)?
    (`epilogue` `(` $epilogue^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
  let builders = [
    // A plain product (no bias, addend or activation).
    OpBuilder<(ins "::mlir::Type":$result, "::mlir::Value":$lhs,
                   "::mlir::Value":$rhs, "bool":$transpose_a,
                   "bool":$transpose_b, "::mlir::TypeAttr":$acc_type), [{
      build($_builder, $_state, result, lhs, rhs, /*bias=*/::mlir::Value(),
            /*addend=*/::mlir::Value(), transpose_a, transpose_b, acc_type,
            ::mlir::dlc::EpilogueKind::none, /*lhs_scale=*/::mlir::FloatAttr(),
            /*rhs_scale=*/::mlir::FloatAttr());
    }]>
  ];
  let extraClassDeclaration = [{
    /// Whether the product has an epilogue: a bias, an addend or an
    /// activation.
    bool hasEpilogue() {
      return getBias() || getAddend() ||
             getEpilogue() != ::mlir::dlc::EpilogueKind::none;
    }
  }];
}

def Dlc_AttentionOp : Dlc_Op<"attention", [Pure, Dlc_TensorSizeLimit,
    Dlc_PrefersReducedPrecision]> {
  let summary = "fused scaled dot-product attention";
  let description = [{
    `result[b..., i, :] = sum_j p[i, j] * v[b..., j, :]` with
    `p[i, :] = softmax_j(scale * dot(q[b..., i, :], k[b..., j, :]) + mask[b..., i, j])`
    for q `[B..., Sq, D]`, k `[B..., Sk, D]` and v `[B..., Sk, Dv]`; the
    result is `[B..., Sq, Dv]`. The batch dimensions of q, k, v (and of the
    mask) broadcast like those of `dlc.matmul`.

    The optional `mask` is added to the scaled scores; it has the rank of q,
    every dimension 1 or that of the scores `[B..., Sq, Sk]`, and the element
    type of q or f32. With `causal`, query i sees only the keys
    `j <= i + (Sk - Sq)` (the last query sees every key): the others count
    as `-inf`. A query that sees no key, or only keys whose score is `-inf`,
    gives a result row of zeros (where the decomposed softmax would give
    NaN).

    q, k, v and the result have one element type, f32, f16 or bf16;
    products and the softmax are computed in f32 (at least) and only the
    result is rounded to the element type. Formed by `dlc-form-attention`
    from the matmul-softmax-matmul chain; code generation emits one
    flash-attention kernel per op, which never stores the `Sq x Sk` scores
    in device memory.

    With `head_offsets = array<i64: oq, ok, ov>` the operands are in the
    layout of the projections that produce them, heads beside the head
    size: q `[B, Sq, Nq, D]`, k `[B, Sk, Nk, D]`, v `[B, Sk, Nv, Dv]`, and
    the result is `[B, Sq, H, Dv]`, ready for the output projection as
    `[B * Sq, H * Dv]`. Head `h < H` of the result attends with head
    `oq + h` of q, `ok + h` of k and `ov + h` of v, so one packed QKV
    projection `[B, S, 3H, D]` can be q, k and v at once (offsets 0, H,
    2H). Dimension 0 of q, k and v broadcasts; the mask (rank 4) broadcasts
    to the scores `[B, H, Sq, Sk]`. With `seq_first` as well, the sequence
    dimension comes first, as in PyTorch's `nn.MultiheadAttention`: q
    `[Sq, B, Nq, D]`, k `[Sk, B, Nk, D]`, v `[Sk, B, Nv, Dv]`, result
    `[Sq, B, H, Dv]` (dimension 1 of q, k and v broadcasts).
    `dlc-attention-layout` forms these layouts from the head split and
    merge transposes around the op.

    With `kv_groups = G` as well (grouped-query attention; G = H is
    multi-query attention), G consecutive query heads share one head of k
    and v: head `h` of the result attends with head `oq + h` of q and heads
    `ok + h / G` of k and `ov + h / G` of v, so k and v hold `H / G` heads
    and are read as they are, never repeated G times in memory.

    ```mlir
    %o = dlc.attention %q, %k, %v {scale = 0.125 : f64, causal} : (tensor<8x64x64xf32>, tensor<8x64x64xf32>, tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
    %m = dlc.attention %q, %k, %v, %mask {scale = 0.125 : f64} : (tensor<2x4x16x32xf16>, tensor<2x4x24x32xf16>, tensor<2x4x24x32xf16>, tensor<2x1x1x24xf16>) -> tensor<2x4x16x32xf16>
    %p = dlc.attention %qkv, %qkv, %qkv {head_offsets = array<i64: 0, 4, 8>, scale = 0.125 : f64} : (tensor<2x16x12x32xbf16>, tensor<2x16x12x32xbf16>, tensor<2x16x12x32xbf16>) -> tensor<2x16x4x32xbf16>
    %g = dlc.attention %q, %k, %v {head_offsets = array<i64: 0, 0, 0>, kv_groups = 4 : i64, scale = 0.125 : f64} : (tensor<2x16x8x64xf16>, tensor<2x16x2x64xf16>, tensor<2x16x2x64xf16>) -> tensor<2x16x8x64xf16>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$q, Dlc_Tensor:$k, Dlc_Tensor:$v,
                       Optional<Dlc_Tensor>:$mask, F64Attr:$scale,
                       UnitAttr:$causal,
                       OptionalAttr<DenseI64ArrayAttr>:$head_offsets,
                       UnitAttr:$seq_first,
                       OptionalAttr<I64Attr>:$kv_groups);
  let results = (outs Dlc_Tensor:$result);
  let extraClassDeclaration = [{
    /// Whether the operands and the result are `[B, S, heads, D]`
    /// (`head_offsets` is present).
    bool isHeadsLayout() { return getHeadOffsets().has_value(); }
    /// In the heads layout: the dimensions of the sequence and of the batch
    /// in q, k, v and the result (0 and 1 with `seq_first`, else 1 and 0).
    int64_t seqDim() { return getSeqFirst() ? 0 : 1; }
    int64_t batchDim() { return getSeqFirst() ? 1 : 0; }
    /// Query heads per head of k and v (`kv_groups`, else 1).
    int64_t kvGroupSize() {
      return getKvGroups() ? int64_t(*getKvGroups()) : 1;
    }
    /// Parts of verify().
    ::mlir::LogicalResult verifyHeadsLayout();
    ::mlir::LogicalResult verifyMaskAndScale(::llvm::ArrayRef<int64_t> scores);
  }];
  let assemblyFormat =
      "$q `,` $k `,` $v (`,` $mask^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Dlc_TransposeOp : Dlc_Op<"transpose", [Pure, Dlc_DataMovement, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_Differentiable, Dlc_ReducedPrecisionSafe, Dlc_LayoutAxes]> {
  let summary = "permutation of dimensions";
  let description = [{
    `result[i_0, ..., i_n] = input[j]` with `j[perm[k]] = i_k`, i.e. result
    dimension k is input dimension `perm[k]`.

    ```mlir
    %t = dlc.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
  let extraClassDeclaration = [{
    /// Whether it only moves dimensions of size 1: the others keep their
    /// order, so every element stays where it was and it is a reshape.
    bool movesOnlyUnitDims();
  }];
}

def Dlc_ReshapeOp : Dlc_Op<"reshape", [Pure, Dlc_DataMovement, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_Differentiable, Dlc_ReducedPrecisionSafe]> {
  let summary = "change of shape that keeps the row-major element order";
  let description = [{
    Free at run time: the result shares the input's buffer.

    ```mlir
    %r = dlc.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Dlc_SliceOp : Dlc_Op<"slice", [Pure, Dlc_DataMovement, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_Differentiable, Dlc_ReducedPrecisionSafe,
    Dlc_LayoutAxes]> {
  let summary = "strided sub-tensor";
  let description = [{
    `result[i] = input[start + i * strides]` (elementwise over dimensions);
    the result's shape gives the sizes. `strides` are positive and default
    to all 1 (a contiguous slice).

    ```mlir
    %s = dlc.slice %x {start = array<i64: 0, 2>} : (tensor<4x8xf32>) -> tensor<4x3xf32>
    %t = dlc.slice %x {start = array<i64: 1, 0>, strides = array<i64: 2, 3>} : (tensor<4x8xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, DenseI64ArrayAttr:$start,
                       OptionalAttr<DenseI64ArrayAttr>:$strides);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// When the result is one contiguous block of the (row-major) input,
    /// the element offset of its first element: every dimension before
    /// some dimension d has one element in the result, every one after d
    /// is whole, and d is read with stride 1 (or one element of it).
    std::optional<int64_t> contiguousOffset();
  }];
}

def Dlc_ConcatOp : Dlc_Op<"concat", [Pure, Dlc_DataMovement, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_Differentiable, Dlc_ReducedPrecisionSafe,
    Dlc_LayoutAxes]> {
  let summary = "concatenation along an axis";
  let description = [{
    ```mlir
    %c = dlc.concat %a, %b {axis = 1 : i64} : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins Variadic<Dlc_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, $result)";
  let hasVerifier = 1;
}

def Dlc_PadOp : Dlc_Op<"pad", [Pure, Dlc_DataMovement, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_Differentiable, Dlc_ReducedPrecisionSafe,
    Dlc_LayoutAxes]> {
  let summary = "constant padding";
  let description = [{
    Adds `low[d]` elements before and `high[d]` after dimension d, all equal
    to `value` (converted to the element type).

    ```mlir
    %p = dlc.pad %x {low = array<i64: 0, 1>, high = array<i64: 0, 2>, value = 0.0 : f64} : (tensor<4x8xf32>) -> tensor<4x11xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, DenseI64ArrayAttr:$low,
                       DenseI64ArrayAttr:$high, F64Attr:$value);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
}

def Dlc_TileOp : Dlc_Op<"tile", [Pure, Dlc_DataMovement, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_Differentiable, Dlc_ReducedPrecisionSafe,
    Dlc_LayoutAxes]> {
  let summary = "repetition of a tensor along each dimension";
  let description = [{
    `result[i] = input[i mod shape(input)]`, the result being `multiples`
    times larger in each dimension.

    ```mlir
    %t = dlc.tile %x {multiples = array<i64: 2, 1>} : (tensor<4x8xf32>) -> tensor<8x8xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, DenseI64ArrayAttr:$multiples);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Convolution, pooling, gather and resize (NCHW, ONNX semantics)
//===----------------------------------------------------------------------===//

def Dlc_PoolKind : I32EnumAttr<"PoolKind", "pooling combiner", [
    I32EnumAttrCase<"max", 0>, I32EnumAttrCase<"avg", 1>]> {
  let cppNamespace = "::mlir::dlc";
}

def Dlc_Conv2DOp : Dlc_Op<"conv2d", [Pure, Dlc_Window, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_PrefersReducedPrecision, Dlc_LayoutSpatial,
    Dlc_Differentiable]> {
  let summary = "2-D convolution (ONNX Conv)";
  let description = [{
    `y[n, oc, oh, ow] = sum_{c, kh, kw} x[n, g*C/G + c, oh*sh - top + kh*dh,
    ow*sw - left + kw*dw] * w[oc, c, kh, kw]` where `g = oc / (OC/G)`, the
    sum runs over `c < C/G` and input positions outside the input read 0
    (zero padding). `pads` is `[top, left, bottom, right]`; the result has
    `OH = (H + top + bottom - dh*(KH-1) - 1) / sh + 1` (floor) rows, likewise
    columns. Products accumulate in `acc_type` (f32 unless given). A bias is a
    following `dlc.add` of a `tensor<1xOCx1x1xT>`.

    ```mlir
    %y = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, Dlc_Tensor:$filter,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$groups,
                       OptionalAttr<TypeAttr>:$acc_type);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat =
      "$input `,` $filter attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether it is computed directly in a fused kernel rather than as a
    /// GEMM (dlc-lower-conv): a depthwise convolution (one input channel and
    /// at most 4 output channels per group) has too little arithmetic per
    /// element for a GEMM.
    bool isDirect();
    /// Whether its groups each have several input channels (ResNeXt's
    /// grouped convolutions, not depthwise ones).
    bool isGrouped();
  }];
}

def Dlc_ConvOp : Dlc_Op<"conv", [Pure, AttrSizedOperandSegments,
    Dlc_TensorSizeLimit, Dlc_PrefersReducedPrecision,
    DeclareOpInterfaceMethods<Dlc_CostOpInterface, ["getOpsPerElement"]>]> {
  let summary = "channels-last convolution by a library, with an optional epilogue";
  let description = [{
    `dlc.conv2d` on NHWC tensors, computed by a convolution library (cuDNN
    on the cuda device, a CPU convolution on sim) rather than as im2col and
    a GEMM, so no window copies are written:
    `result[n, oh, ow, oc] = act(sum_{kh, kw, c} input[n, oh*sh - top +
    kh*dh, ow*sw - left + kw*dw, g*C/G + c] * filter[oc, kh, kw, c] +
    bias[oc] + addend[n, oh, ow, oc])` with `g = oc / (OC/G)`; positions
    outside the input read 0. The filter is `[OC, KH, KW, C/G]` (cuDNN's
    KRSC). `pads` is `[top, left, bottom, right]` and symmetric (top =
    bottom, left = right: cuDNN's padding). The epilogue (formed by
    `dlc-fuse-epilogue`) is optional: `bias` of OC elements, `addend` of the
    result's type (a residual), `epilogue` none or relu; the sum is rounded
    to the element type once, at the end. Products accumulate in f32.
    `dlc-lower-conv` makes it of a channels-last `dlc.conv2d`.

    ```mlir
    %y = dlc.conv %x, %w bias(%b) epilogue(relu) {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x3xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x8x8x16xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, Dlc_Tensor:$filter,
                       Optional<Dlc_Tensor>:$bias,
                       Optional<Dlc_Tensor>:$addend,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$groups,
                       DefaultValuedAttr<Dlc_EpilogueKind,
                                         "::mlir::dlc::EpilogueKind::none">:$epilogue);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`bias` `(` $bias^ `)`)? (`addend` `(` $addend^ `)`)?
    (`epilogue` `(` $epilogue^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether it has an epilogue: a bias, an addend or an activation.
    bool hasEpilogue() {
      return getBias() || getAddend() ||
             getEpilogue() != ::mlir::dlc::EpilogueKind::none;
    }
  }];
}

def Dlc_ConvTranspose2DOp : Dlc_Op<"conv_transpose2d", [Pure, Dlc_Window, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_PrefersReducedPrecision, Dlc_LayoutSpatial]> {
  let summary = "2-D transposed convolution (ONNX ConvTranspose)";
  let description = [{
    The gradient of `dlc.conv2d` with respect to its input: every input
    element `x[n, c, ih, iw]` adds `x * w[c, oc', kh, kw]` to
    `y[n, g*OC/G + oc', ih*sh - top + kh*dh, iw*sw - left + kw*dw]` (where
    that position lies inside the result), `g = c / (C/G)`. The filter is
    `[C, OC/G, KH, KW]`; `OH = sh*(H-1) + output_padding_h + (KH-1)*dh + 1 -
    top - bottom`, likewise OW.

    ```mlir
    %y = dlc.conv_transpose2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, Dlc_Tensor:$filter,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$output_padding, I64Attr:$groups,
                       OptionalAttr<TypeAttr>:$acc_type);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat =
      "$input `,` $filter attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Dlc_Pool2DOp : Dlc_Op<"pool2d", [Pure, Dlc_Window, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_ReducedPrecisionSafe, Dlc_LayoutSpatial,
    Dlc_Differentiable]> {
  let summary = "2-D max or average pooling (ONNX MaxPool / AveragePool)";
  let description = [{
    Combines, for each output position, the window `x[n, c, oh*sh - top +
    kh*dh, ow*sw - left + kw*dw]` for `kh < KH, kw < KW` (`kernel = [KH, KW]`,
    `pads = [top, left, bottom, right]`, `dilations` default 1). Positions
    outside the input never contribute to `max`. `avg` divides the sum of the
    in-bounds elements by their count, or with `count_include_pad` by the
    number of window positions inside the padded input
    `[-top, H + bottom) x [-left, W + right)`.

    The result may have one more row (column) than
    `(H + top + bottom - dh*(KH-1) - 1) / sh + 1` (ONNX `ceil_mode`) when that
    last window starts inside the padded input; its positions past the padded
    input count for nothing.

    ```mlir
    %y = dlc.pool2d max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
    ```
  }];
  let arguments = (ins Dlc_PoolKind:$kind, Dlc_Tensor:$input,
                       DenseI64ArrayAttr:$kernel, DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$pads,
                       OptionalAttr<DenseI64ArrayAttr>:$dilations,
                       UnitAttr:$count_include_pad);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat =
      "$kind $input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The dilations, [1, 1] when absent.
    ::llvm::SmallVector<int64_t, 2> getDilationValues() {
      if (auto d = getDilations())
        return ::llvm::SmallVector<int64_t, 2>(d->begin(), d->end());
      return {1, 1};
    }
  }];
}

def Dlc_GatherOp : Dlc_Op<"gather", [Pure, Dlc_Window, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_ReducedPrecisionSafe, Dlc_Differentiable]> {
  let summary = "selection of slices along an axis by index (ONNX Gather)";
  let description = [{
    `result[i_0..i_{a-1}, j..., i_{a+1}...] = data[i_0..i_{a-1},
    indices[j...], i_{a+1}...]`: the result shape is
    `D[:a] ++ shape(indices) ++ D[a+1:]`. A negative index counts from the
    end (`idx + D[a]`). An index still out of range is clamped on the device;
    the reference interpreter reports it as an error.

    ```mlir
    %e = dlc.gather %table, %ids {axis = 0 : i64} : (tensor<100x16xf32>, tensor<2x5xi64>) -> tensor<2x5x16xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$data, Dlc_IndexTensor:$indices,
                       I64Attr:$axis);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat =
      "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Dlc_ResizeOp : Dlc_Op<"resize", [Pure, Dlc_Window, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_ReducedPrecisionSafe, Dlc_LayoutSpatial]> {
  let summary = "nearest or linear resampling (ONNX Resize)";
  let description = [{
    Resizes every dimension from the input's size to the result's (scale =
    out / in). For each result position `x` of a dimension, the source
    coordinate is, by `coordinate_mode`:
    `half_pixel`: `(x + 0.5) / scale - 0.5`;
    `pytorch_half_pixel`: the same, or `-0.5` when the result size is 1;
    `asymmetric`: `x / scale`;
    `align_corners`: `x * (in - 1) / (out - 1)` (0 when out is 1).
    `mode = "nearest"` rounds it by `nearest_mode` (`round_prefer_floor`,
    `round_prefer_ceil`, `floor`, `ceil`) and clamps it to `[0, in - 1]`;
    `mode = "linear"` interpolates between `floor(c)` and `floor(c) + 1`
    (both clamped to `[0, in - 1]`) with weight `c - floor(c)`, separably
    over every dimension (bilinear for the H and W of NCHW).

    ```mlir
    %y = dlc.resize %x {mode = "linear", coordinate_mode = "half_pixel"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, StrAttr:$mode,
                       DefaultValuedStrAttr<StrAttr, "half_pixel">:$coordinate_mode,
                       DefaultValuedStrAttr<StrAttr, "round_prefer_floor">:$nearest_mode);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
}

def Dlc_Im2ColOp : Dlc_Op<"im2col", [Pure, Dlc_Window, Dlc_KernelBody,
    Dlc_TensorSizeLimit, Dlc_ReducedPrecisionSafe]> {
  let summary = "convolution windows as matrix columns (internal)";
  let description = [{
    Created by `dlc-lower-conv` for a `dlc.conv2d` computed as a GEMM:
    `result[n, g, (c*KH + kh)*KW + kw, oh*OW + ow] = x[n, g*C/G + c,
    oh*sh - top + kh*dh, ow*sw - left + kw*dw]` (0 outside the input), of
    shape `[N, G, C/G*KH*KW, OH*OW]` with OH and OW as for `dlc.conv2d`.

    ```mlir
    %cols = dlc.im2col %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x1x27x64xf32>
    ```
  }];
  let arguments = (ins Dlc_Tensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$groups);
  let results = (outs Dlc_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type($input, $result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Fused kernels
//===----------------------------------------------------------------------===//

def Dlc_KernelOp : Dlc_Op<"kernel", [IsolatedFromAbove,
    SingleBlockImplicitTerminator<"YieldOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "a group of tensor operations fused into one GPU kernel";
  let description = [{
    The body computes the results from the block arguments, which are bound
    to the operands. Every intermediate value of the body stays in registers
    or shared memory; only operands are read from and results written to
    device memory. The fusion pass forms kernels; code generation turns each
    one into a CUDA `__global__` function.

    A kernel may hold one `dlc.matmul` whose operands are block arguments
    (`dlc-fuse-gemm` forms it): a generated GEMM whose epilogue computes
    the kernel's results from each element of the product while it is in
    registers. Everything that reads the product must be elementwise at the
    product's own shape, so each element is read where it is computed.

    ```mlir
    %r = dlc.kernel (%x, %b) : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<1x8xf32>):
      %0 = dlc.add %a0, %a1 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
      %1 = dlc.exp %0 : tensor<4x8xf32>
      dlc.yield %1 : tensor<4x8xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<Dlc_Tensor>:$inputs);
  let results = (outs Variadic<Dlc_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat =
      "`(` $inputs `)` attr-dict `:` functional-type($inputs, $results) $body";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::mlir::ValueRange":$inputs)>
  ];
  let extraClassDeclaration = [{
    ::mlir::Block &getBodyBlock() { return getBody().front(); }
    /// Whether its only work is converting element types: its body is
    /// casts and reshapes (views) only, at least one cast. Mixed precision
    /// leaves one only for a model input or output no other kernel reads
    /// or writes (docs/precision.md).
    bool isCastOnly();
    /// Whether its only work is moving data: its body is data-movement ops
    /// (transpose, slice, concat, pad, tile, reshape), not only reshapes.
    bool isDataMovementOnly();
    /// The first op in the body that reads `value` (directly or through
    /// the ops that do) other than elementwise at `shape`, or null: every
    /// such reader is an elementwise op of one result of that shape, up to
    /// the yield. A thread computing one element of `shape` then reads
    /// `value` only at that element (in-place outputs, generated GEMMs).
    static ::mlir::Operation *
    nonElementwiseReader(::mlir::Value value,
                         ::llvm::ArrayRef<int64_t> shape);
  }];
}

def Dlc_YieldOp : Dlc_Op<"yield", [Pure, Terminator, HasParent<"KernelOp">,
    Dlc_KernelBody,
    ReturnLike]> {
  let summary = "results of a fused kernel";
  let description = [{
    ```mlir
    dlc.yield %0, %1 : tensor<4xf32>, tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Variadic<Dlc_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
  let builders = [OpBuilder<(ins), [{ }]>];
}

#endif // DLC_OPS_TD
