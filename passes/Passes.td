//===- Passes.td - dlc compiler passes ---------------------*- tablegen -*-===//
#ifndef DLC_PASSES_TD
#define DLC_PASSES_TD

include "mlir/Pass/PassBase.td"

def InlineCalls : Pass<"dlc-inline-calls", "ModuleOp"> {
  let summary = "Inline the calls of one function of the module by another";
  let description = [{
    Code generation compiles one function, so a `func.call` of another
    function of the module (a helper) is replaced by the callee's body with
    MLIR's inliner; private functions left without callers are removed. The
    first step of the lowering pipeline.

    A call that cannot be inlined is an error at its location: a call of a
    declaration without a body, and a recursive call (a function that calls
    itself, directly or through others), which names the cycle.
  }];
}

def LowerTosa : Pass<"dlc-lower-tosa", "func::FuncOp"> {
  let summary = "Lower TOSA operations to the dlc dialect";
  let description = [{
    Rewrites every supported TOSA operation into dlc operations with the same
    meaning. An operation that cannot be lowered gets an error at its
    location naming it (`dlc cannot lower 'tosa.sin' yet`) and the pass
    fails. Constants used as operands (transpose permutations, pad amounts)
    must be `tosa.const`.

    Before:
    ```mlir
    %0 = tosa.add %a, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
    %1 = tosa.reduce_sum %0 {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    ```
    After:
    ```mlir
    %0 = dlc.add %a, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
    %1 = dlc.reduce sum %0 {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    ```
  }];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def Autodiff : Pass<"dlc-autodiff", "func::FuncOp"> {
  let summary = "Reverse-mode gradients of a loss with respect to parameters";
  let description = [{
    Turns a model into the forward and backward half of a training step.
    Parameters are the function's arguments marked `dlc.param` (their name)
    and the `dlc.constant`s so marked, which become arguments first (with
    their value as `dlc.initial`), before the other arguments. The loss is
    built on the function's first result: `sum` (its elements summed; a
    model that computes its own loss returns it), `mse` (the mean squared
    difference with a new argument of the result's type, PyTorch's
    `MSELoss`) or `cross_entropy` (the result is logits [B, C]; a new i64
    argument [B] holds class indices; softmax cross-entropy averaged over
    the batch, PyTorch's `CrossEntropyLoss`). The loss's gradient with
    respect to the result is built directly (for cross-entropy `(softmax(z)
    - onehot) / B`, one row kernel after fusion), then each op's
    GradientOpInterface rule carries it back, in reverse order, to the
    parameters. The function then returns the loss (rank 0) and one gradient
    per parameter, marked `dlc.gradient_of` with the argument's index.

    With `loss-scale`, dynamic loss scaling (for fp16): a state argument
    `grad_scaler.scale` (f32, starting at 65536, GradScaler's default) after
    the parameters multiplies the loss's gradient, so every gradient is
    scaled; dlc-apply-optimizer unscales them, skips a step whose gradients
    are not finite and updates the scale.

    Before (`loss=mse`):
    ```mlir
    func.func @main(%w: tensor<4x2xf32> {dlc.param = "w"}, %x: tensor<3x4xf32>) -> tensor<3x2xf32> {
      %y = dlc.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
      return %y : tensor<3x2xf32>
    }
    ```
    After:
    ```mlir
    func.func @main(%w: tensor<4x2xf32> {dlc.param = "w"}, %x: tensor<3x4xf32>, %t: tensor<3x2xf32>) -> (tensor<f32>, tensor<4x2xf32> {dlc.gradient_of = 0 : i64}) {
      %y = dlc.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
      %d = dlc.sub %y, %t : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
      ... the mean of d * d, reshaped to the loss, and 2 d / 6 ...
      %gw = dlc.matmul %x, %gy {transpose_a} : (tensor<3x4xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
      return %loss, %gw : tensor<f32>, tensor<4x2xf32>
    }
    ```
  }];
  let options = [
    Option<"loss", "loss", "std::string", "\"sum\"",
           "the loss on the first result: sum, mse or cross_entropy">,
    Option<"lossScale", "loss-scale", "bool", "false",
           "scale the loss's gradient by a state `grad_scaler.scale`">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def ApplyOptimizer : Pass<"dlc-apply-optimizer", "func::FuncOp"> {
  let summary = "One optimizer step from a training step's gradients";
  let description = [{
    Replaces each gradient result (`dlc.gradient_of`, from dlc-autodiff) by
    the parameter's new value, computed as PyTorch's optimizer computes it,
    and adds the optimizer's buffers as state arguments (`dlc.state`,
    starting at zero, `dlc.initial`) with their new values as results. Each
    new value is marked `dlc.updates` with its argument's index; the loss
    stays the first result.

    - `sgd`: `g = grad + weight_decay * p`; with momentum,
      `buf = momentum * buf + g` and `g = g + momentum * buf` (nesterov) or
      `g = buf`; `p = p - lr * g` (dampening 0).
    - `adamw`: `p = p * (1 - lr * weight_decay)`,
      `m = m + (1 - beta1) (g - m)`, `v = beta2 v + (1 - beta2) g^2`,
      `p = p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)`
      with the step count `t` a state of its own.
    - `grad-clip` > 0 first scales every gradient by
      `min(1, grad_clip / (norm + 1e-6))`, `norm` the 2-norm of all of them
      together (`clip_grad_norm_`).
    - `accumulate` = K > 1: the step is one of K micro-batches. Each
      parameter gets a `<name>.grad_sum` state (f32 like it) and the step a
      `accumulate.count`; a step adds its gradients to the sums, and the K-th
      (count + 1 = K) applies the optimizer to the sums / K (clipping
      included) and resets sums and count; the others keep parameters and
      optimizer state (`dlc.select` on the count). The function is marked
      `dlc.micro_batches = K`.
    - Dropout (`dlc.dropout`, whose forward and backward share an offset
      operand): the offsets that are constants become one `rng.offset`
      state (i64, starting at 0, advanced by 1 every run, applying or not),
      so every run draws new masks and the backward regenerates the
      forward's; `dropout-seed` is xor'd into each dropout's seed.

    Before:
    ```mlir
    func.func @main(%w: tensor<4x2xf32> {dlc.param = "w"}, ...) -> (tensor<f32>, tensor<4x2xf32> {dlc.gradient_of = 0 : i64})
    ```
    After (`optimizer=sgd lr=0.1`):
    ```mlir
    func.func @main(%w: tensor<4x2xf32> {dlc.param = "w"}, ...) -> (tensor<f32>, tensor<4x2xf32> {dlc.updates = 0 : i64}) {
      ...
      %s = dlc.mul %gw, %lr : (tensor<4x2xf32>, tensor<1x1xf32>) -> tensor<4x2xf32>
      %w1 = dlc.sub %w, %s : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
      return %loss, %w1 : tensor<f32>, tensor<4x2xf32>
    }
    ```
  }];
  let options = [
    Option<"optimizer", "optimizer", "std::string", "\"sgd\"",
           "sgd or adamw">,
    Option<"lr", "lr", "double", "1e-3", "the learning rate">,
    Option<"momentum", "momentum", "double", "0", "sgd's momentum">,
    Option<"nesterov", "nesterov", "bool", "false", "sgd's Nesterov momentum">,
    Option<"weightDecay", "weight-decay", "double", "0",
           "L2 added to the gradient (sgd) or decoupled decay (adamw)">,
    Option<"beta1", "beta1", "double", "0.9", "adamw's first-moment decay">,
    Option<"beta2", "beta2", "double", "0.999",
           "adamw's second-moment decay">,
    Option<"eps", "eps", "double", "1e-8", "adamw's epsilon">,
    Option<"gradClip", "grad-clip", "double", "0",
           "the largest global gradient norm (0: no clipping)">,
    Option<"accumulate", "accumulate", "unsigned", "1",
           "micro-batches per optimizer step (gradients averaged)">,
    Option<"dropoutSeed", "dropout-seed", "unsigned", "0",
           "xor'd into the seed of every dlc.dropout">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def RecordSourceOps : Pass<"dlc-record-source-ops", "func::FuncOp"> {
  let summary = "Record the number of dlc operations before fusion";
  let description = [{
    Annotates each function with `dlc.source_ops`, its number of dlc ops
    other than constants after lowering: the baseline `dlc compile` compares
    its kernel count with. The last step of the lowering pipeline.

    ```mlir
    func.func @main(...) attributes {dlc.source_ops = 12 : i64} { ... }
    ```
  }];
}

def HorizontalFuse : Pass<"dlc-horizontal-fuse", "func::FuncOp"> {
  let summary = "Merge matrix products of one input with constant weights";
  let description = [{
    Finds groups of at least two `dlc.matmul` in a block with the same lhs
    value, `transpose_a`, `acc_type` and batch shapes whose rhs are
    constants (Q, K and V projections), and computes them as one product
    with the weights concatenated along N (the rhs's last dimension, or the
    one before it with `transpose_b`; weights of the other layout are
    transposed at compile time). Each original result becomes a `dlc.slice`
    of the merged one, which fusion turns into index arithmetic of its
    consumer kernel. When every product's only user adds a constant bias of
    shape [1, ..., 1, N], the biases are concatenated too and one add
    precedes the slices. Groups are formed in block order; a group closes
    when its merged weights would exceed `max-bytes`. Merged constants of
    more than 16 elements are `dense_resource` blobs.

    Before:
    ```mlir
    %q = dlc.matmul %x, %wq {transpose_b} : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
    %k = dlc.matmul %x, %wk {transpose_b} : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
    ```
    After:
    ```mlir
    %w = dlc.constant dense_resource<merged_weights> : tensor<128x64xf32>
    %p = dlc.matmul %x, %w {transpose_b} : (tensor<32x64xf32>, tensor<128x64xf32>) -> tensor<32x128xf32>
    %q = dlc.slice %p {start = array<i64: 0, 0>} : (tensor<32x128xf32>) -> tensor<32x64xf32>
    %k = dlc.slice %p {start = array<i64: 0, 64>} : (tensor<32x128xf32>) -> tensor<32x64xf32>
    ```
  }];
  let options = [
    Option<"maxBytes", "max-bytes", "int64_t", "268435456",
           "Largest size in bytes of the merged weights of one group">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def FormAttention : Pass<"dlc-form-attention", "func::FuncOp"> {
  let summary = "Recognise scaled dot-product attention and form dlc.attention";
  let description = [{
    Finds `matmul(softmax(scale * matmul(Q, K^T) + mask), V)` in the forms
    the TOSA lowering and the ONNX importer produce and replaces it with one
    `dlc.attention`, whose kernel never writes the scores to memory:

    - K^T as `transpose_b`, an explicit `dlc.transpose` (possibly under a
      reshape of batch dimensions; the transposes are composed) or any
      other value (a transpose is inserted); `transpose_a` on Q and
      `transpose_b` on V likewise;
    - the scale as `dlc.mul` or `dlc.div` by a splat constant after the
      first product, or on its Q or K operand, any number of times;
    - masks: `dlc.add` of a tensor (an input or a constant) to the scores
      and `dlc.select(cond, fill, scores)` / `dlc.select(cond, scores, fill)`
      with a splat fill of `-inf` or a finite value at most -2^126, such as
      the lowest f32 (masked_fill). A constant
      mask that hides exactly the keys `j > i + (Sk - Sq)` (values 0 and
      `-inf` or at most -2^126; for a select, the boolean pattern) with
      `Sk >= Sq` becomes `causal`; a finite splat mask shifts every score
      alike and is dropped;
    - between them, `dlc.reshape`s that view the batch of `[Sq, Sk]` score
      matrices another way (a window mask added to `[B / W, W, H, S, S]`):
      the mask terms behind a view are viewed back in the scores' shape,
      tiled first where the view merges dimensions the term has in part;
    - the softmax over the last axis as `reduce max`, `sub`, `exp`,
      `reduce sum` and `div` (or `reciprocal` and `mul`), or without the
      max subtraction, optionally computed in f32 between casts from and
      back to f16/bf16.

    Every intermediate (scores, probabilities, softmax parts) must have no
    other user, the products accumulate in f32 and carry no epilogue, and
    the head sizes must be at most `max-head-dim`; otherwise the ops stay.

    Before:
    ```mlir
    %s = dlc.matmul %q, %k {transpose_b} : (tensor<8x64x32xf32>, tensor<8x64x32xf32>) -> tensor<8x64x64xf32>
    %t = dlc.mul %s, %c : (tensor<8x64x64xf32>, tensor<1x1x1xf32>) -> tensor<8x64x64xf32>
    %m = dlc.reduce max %t {axes = array<i64: 2>} : (tensor<8x64x64xf32>) -> tensor<8x64x1xf32>
    %d = dlc.sub %t, %m : (tensor<8x64x64xf32>, tensor<8x64x1xf32>) -> tensor<8x64x64xf32>
    %e = dlc.exp %d : tensor<8x64x64xf32>
    %z = dlc.reduce sum %e {axes = array<i64: 2>} : (tensor<8x64x64xf32>) -> tensor<8x64x1xf32>
    %p = dlc.div %e, %z : (tensor<8x64x64xf32>, tensor<8x64x1xf32>) -> tensor<8x64x64xf32>
    %o = dlc.matmul %p, %v : (tensor<8x64x64xf32>, tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
    ```
    After:
    ```mlir
    %o = dlc.attention %q, %k, %v {scale = 0.17677669529663687 : f64} : (tensor<8x64x32xf32>, tensor<8x64x32xf32>, tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
    ```
  }];
  let options = [
    Option<"maxHeadDim", "max-head-dim", "int64_t", "256",
           "Largest head size (of q/k and of v) that forms dlc.attention">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def AttentionLayout : Pass<"dlc-attention-layout", "func::FuncOp"> {
  let summary = "Give dlc.attention the layout of its projections";
  let description = [{
    Rewrites a `dlc.attention` whose operands are head splits
    (`transpose [0, 2, 1, 3]` of a `[B, S, H, D]` value, under a reshape
    merging B and H) and whose result is merged back the same way into the
    op's heads layout (`head_offsets`): it reads q, k and v where the
    projections wrote them and writes `[B, S, H, Dv]`, so the split and
    merge transposes (each a kernel reading and writing the whole tensor)
    disappear. A split that slices whole heads out of the last dimension
    of a wider product (a packed QKV projection; or a slice of such a
    slice, as a decoder layer's keys and values in the memory projection
    horizontal fusion shares between layers) reads that product
    directly, at a head offset; so does the packed split of timm and
    torchvision (`[B, S, 3, H, D]` transposed by `[2, 0, 3, 1, 4]`, q, k and
    v one index of its first dimension each). Operands without a split are
    transposed
    into the layout and other uses of the result get it transposed back;
    the rewrite is made only when it removes more transposes than it adds.
    A mask is reshaped to `[B | 1, H | 1, Sq | 1, Sk | 1]`. Both the
    batch-first layout `[B, S, H, D]` (split by `transpose [0, 2, 1, 3]`)
    and the sequence-first one of `nn.MultiheadAttention` exports
    (`[S, B, H, D]`, split by `transpose [1, 2, 0, 3]`, or as
    `transpose [1, 0, 2]` of `[S, B * H, D]` reshaped from `[S, B, H * D]`;
    the op's `seq_first`) are recognised.

    Before:
    ```mlir
    %s = dlc.slice %qkv {start = array<i64: 0, 64>} : (tensor<32x192xf32>) -> tensor<32x64xf32>
    %r = dlc.reshape %s : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
    %k = dlc.transpose %r {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
    ... (q and v alike)
    %o = dlc.attention %q, %k, %v {scale = 2.500000e-01 : f64} : (...) -> tensor<2x4x16x16xf32>
    %m = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
    ```
    After:
    ```mlir
    %p = dlc.reshape %qkv : tensor<32x192xf32> -> tensor<2x16x12x16xf32>
    %m = dlc.attention %p, %p, %p {head_offsets = array<i64: 0, 4, 8>, scale = 2.500000e-01 : f64} : (...) -> tensor<2x16x4x16xf32>
    ```
  }];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def CalibrateRanges : Pass<"dlc-calibrate-ranges", "func::FuncOp"> {
  let summary = "Record the range of every value on calibration inputs";
  let description = [{
    Evaluates the function with the reference interpreter (ir/Reference.h)
    on calibration inputs and records on every op of one float result the
    largest magnitude the result took (`dlc.amax`, an f64; NaN counts as
    +inf), then marks the function `dlc.calibrated` so that the ranges are
    not computed again. The inputs are seeded (uniform in [-1, 1) for
    floats, as `dlc run --seed` makes them) unless the caller calibrated
    the function on given inputs first (`mlir::dlc::calibrateRanges`,
    which `dlc run --input` uses). A model the interpreter cannot evaluate
    (too large, say) gets a warning and no ranges.

    dlc-assign-precision reads the ranges for fp16, whose largest value is
    65504: a value that would come near it keeps f32 storage (the layer
    norm or sum of squares that overflows fp16, pytorch#66707); and for fp8,
    whose activations' quantizing scales (448 / amax) come from them. The
    model's float inputs get theirs as argument attributes (`dlc.amax`).

    Before:
    ```mlir
    %s = dlc.mul %x, %x : tensor<4x1024xf32>
    ```
    After (inputs whose values reach 300):
    ```mlir
    func.func @main(...) attributes {dlc.calibrated} {
      %s = dlc.mul %x, %x {dlc.amax = 9.0e+04 : f64} : tensor<4x1024xf32>
    ```
  }];
  let options = [
    Option<"seed", "seed", "uint64_t", "1",
           "seed of the calibration inputs">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def AssignPrecision : Pass<"dlc-assign-precision", "func::FuncOp"> {
  let summary = "Choose the storage type of every value: low precision for "
                "matrix products, f32 where accuracy needs it";
  let description = [{
    Mixed-precision assignment, as PyTorch's autocast and TensorRT's
    `--bf16`/`--fp16` do. Each op's PrecisionPolicyOpInterface class
    decides (ir/Policies.cpp; docs/precision.md has the table):

    - `Prefer` (matrix products, attention, convolutions): f32 float
      operands are cast to the low type; the result is stored in it (the
      product still accumulates in f32).
    - `Deny` (exp, log, pow, rsqrt, reductions, ops without the interface):
      low operands are cast to f32; the result is f32.
    - `Allow` (data movement, add, mul, max, comparisons, casts): the widest
      type of its float operands that are not constants; constants take
      that type (they are weights and literals, converted here once, so an
      f32 bias does not promote a bf16 product back to f32).

    Under fp16, whose largest value is 65504, an op whose result reached
    more than half of that on the calibration inputs (`dlc.amax`, from
    dlc-calibrate-ranges) or that takes a constant beyond it stays f32, with
    a remark saying why. An op marked `dlc.precision = "f32"` (by a user, or
    by `--precision-tolerance`) computes and stores in f32 as a `Deny` op
    does.

    Under fp8 the low type is bf16, and a matrix product of a calibrated
    activation and a constant weight matrix (K and N multiples of 16)
    takes E4M3 operands instead: the weights quantized now with scale
    448 / amax (and transposed to [N, K], cuBLASLt's FP8 layout), the
    activation by a `dlc.cast {scale = 448 / amax}`, the product's
    `lhs_scale`/`rhs_scale` undoing both, its result bf16. A product whose
    activation a cuBLAS call or an attention kernel produces stays bf16
    (its quantizing cast would be a kernel of its own); each product that
    stays bf16 gets a remark saying why.

    Constants cast to the low type are converted at compile time (the
    package stores them in it). The function's arguments and results keep
    their declared types (casts at the entry and before the return) unless
    `io-precision=low`: then its f32 ones take the low type (bf16 under
    fp8), the caller passing and receiving that, and the entry's casts
    widen them where an op wants f32. Inside
    fused kernels every value is computed in f32 registers; the low type is
    the storage between kernels and the operands of matrix products. Casts
    are ordinary `dlc.cast` ops that fusion absorbs into their producer or
    consumer kernel.

    Before (`precision=bf16`):
    ```mlir
    %p = dlc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %e = dlc.exp %p : tensor<4x16xf32>
    ```
    After:
    ```mlir
    %xl = dlc.cast %x : tensor<4x8xf32> -> tensor<4x8xbf16>
    %wl = dlc.constant dense<...> : tensor<8x16xbf16>
    %p = dlc.matmul %xl, %wl : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
    %pf = dlc.cast %p : tensor<4x16xbf16> -> tensor<4x16xf32>
    %e = dlc.exp %pf : tensor<4x16xf32>
    ```
  }];
  let options = [
    Option<"precision", "precision", "std::string", "\"f32\"",
           "f32, tf32 (both leave every type as it is), bf16, fp16 or fp8">,
    Option<"ioPrecision", "io-precision", "std::string", "\"declared\"",
           "declared (arguments and results keep their types) or low (f32 "
           "ones take the low type)">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def AssignLayout : Pass<"dlc-assign-layout", "func::FuncOp"> {
  let summary = "Choose channels-last (NHWC) or NCHW for 4-D activations";
  let description = [{
    Layout as a per-value decision. Convolutions, pooling and resizes (the
    ops of `LayoutClass::Spatial`) and the ops between them whose meaning
    does not depend on the order of dimensions (`Agnostic`: elementwise) or
    that name dimensions in attributes (`Axes`: reduce, concat, slice, pad,
    tile, transpose) form clusters of connected values; each cluster is
    NCHW (the model's layout) or NHWC. In an NHWC cluster every `Agnostic`
    and `Axes` op is rebuilt on channels-last operands through its
    `permuteLayout` (its attributes permuted, constants folded), and every
    dense convolution is marked `dlc.channels_last`, which `dlc-lower-conv`
    computes as a product with the channels on the columns, so its bias,
    activation and residual add fuse into the GEMM's epilogue. Depthwise
    convolutions, pooling and resizes read and write through transposes that
    their kernels absorb into their indexing. A transpose that remains sits
    at the cluster's boundary: a model input or output, or an op of fixed
    layout (a flatten, a product), where one that only moves size-1
    dimensions is a free view.

    `layout=auto` decides per cluster, after XLA's and Inductor's rules:
    NCHW where no convolution is a GEMM, where grouped convolutions carry
    most of the convolutions' work, where the graph has few convolutions
    (at least 300 ops per convolution), or where the bytes the fused
    epilogues save do not pay for the boundary transposes; NHWC otherwise
    (and for f16/bf16 convolutions whose channel counts are multiples of 8,
    tensor cores' preferred shape). `nhwc` makes every cluster with a
    convolution, pooling or resize channels-last; `nchw` keeps the model's
    layout. The function's `dlc.layouts` records each cluster's choice, its
    reason and the estimated bytes saved, for the fusion report.

    Before:
    ```mlir
    %c = dlc.conv2d %x, %w {...} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
    %b = dlc.add %c, %bias : (tensor<1x8x4x4xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x4x4xf32>
    %r = dlc.max %b, %zero : (tensor<1x8x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x4x4xf32>
    ```
    After (`layout=nhwc`):
    ```mlir
    %c = dlc.conv2d %x, %w {dlc.channels_last, ...} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
    %t = dlc.transpose %c {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x4x4xf32>) -> tensor<1x4x4x8xf32>
    %b = dlc.add %t, %bias_nhwc : (tensor<1x4x4x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x4x4x8xf32>
    %r = dlc.max %b, %zero : (tensor<1x4x4x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x8xf32>
    %y = dlc.transpose %r {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x8xf32>) -> tensor<1x8x4x4xf32>
    ```
  }];
  let options = [
    Option<"layout", "layout", "std::string", "\"auto\"",
           "auto, nchw or nhwc">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def LowerConv : Pass<"dlc-lower-conv", "func::FuncOp"> {
  let summary = "Compute dense convolutions as matrix products";
  let description = [{
    Rewrites every `dlc.conv2d` that is not depthwise (one input channel and
    at most 4 output channels per group) into a `dlc.matmul`: a 1x1,
    stride-1, unpadded convolution multiplies the filter viewed as [OC, C]
    by the input viewed as [N, C, H*W]; any other first gathers its windows
    with `dlc.im2col` into [N, G, C/G*KH*KW, OH*OW] and multiplies the
    filter viewed as [1, G, OC/G, C/G*KH*KW] by that. The product is viewed
    as [N, OC, OH, OW]. Depthwise convolutions, `dlc.conv_transpose2d` and
    `dlc.pool2d` stay: code generation computes them directly in fused
    kernels.

    Before:
    ```mlir
    %y = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x8x8xf32>
    ```
    After:
    ```mlir
    %c = dlc.im2col %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>) -> tensor<1x1x27x64xf32>
    %c3 = dlc.reshape %c : tensor<1x1x27x64xf32> -> tensor<1x27x64xf32>
    %w3 = dlc.reshape %w : tensor<16x3x3x3xf32> -> tensor<1x16x27xf32>
    %p = dlc.matmul %w3, %c3 : (tensor<1x16x27xf32>, tensor<1x27x64xf32>) -> tensor<1x16x64xf32>
    %y = dlc.reshape %p : tensor<1x16x64xf32> -> tensor<1x16x8x8xf32>
    ```
  }];
  let options = [
    Option<"libraryConv", "library-conv", "bool", "true",
           "a channels-last convolution other than a 1x1 one becomes a "
           "library convolution (dlc.conv) where one takes it: symmetric "
           "padding, f32, f16 or bf16">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def SplitConcatProduct : Pass<"dlc-split-concat-product", "func::FuncOp"> {
  let summary = "Compute a product of a concat as a sum of products";
  let description = [{
    A `dlc.matmul` whose left operand is a `dlc.concat` along the
    contraction dimension (through reshapes that keep the rows' width),
    read by nothing else, with a constant right operand, becomes one
    product per part with the weight sliced at compile time, summed:
    `concat(x1, x2) @ W = x1 @ W[0:k1] + x2 @ W[k1:]`. The concat would be
    a kernel that only moves data (between library calls fusion cannot
    enter), reading and writing every part before the GEMM reads them
    again. Each product after the first takes the partial sum before it as
    its addend (cuBLASLt's `beta * C`); `dlc-fuse-epilogue`, next, puts the
    bias and activation on the last product.

    It applies where it pays: it saves the concat's read and write and
    costs, per part after the first, the result's write and read, and a
    launch (`launch-bytes`) per part beyond two. f32 products only (a 16-bit
    product would round each partial sum before adding the next), without
    `transpose_a`, scales or an epilogue yet.

    Before:
    ```mlir
    %c = dlc.concat %x1, %x2 {axis = 1 : i64} : (tensor<64x96xf32>, tensor<64x32xf32>) -> tensor<64x128xf32>
    %y = dlc.matmul %c, %w {transpose_b} : (tensor<64x128xf32>, tensor<16x128xf32>) -> tensor<64x16xf32>
    ```
    After (`%w1`, `%w2`: the constant's columns 0-95 and 96-127):
    ```mlir
    %p1 = dlc.matmul %x1, %w1 {transpose_b} : (tensor<64x96xf32>, tensor<16x96xf32>) -> tensor<64x16xf32>
    %y = dlc.matmul %x2, %w2 addend(%p1) {transpose_b} : (tensor<64x32xf32>, tensor<16x32xf32>, tensor<64x16xf32>) -> tensor<64x16xf32>
    ```
  }];
  let options = [
    Option<"launchBytes", "launch-bytes", "double", "4194304.0",
           "bytes of memory traffic one launch is worth (dlc-fuse-gemm's)">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def FuseEpilogue : Pass<"dlc-fuse-epilogue", "func::FuncOp"> {
  let summary = "Fold bias, residual and activation into matrix products";
  let description = [{
    Folds what follows a `dlc.matmul` into its epilogue (computed by
    cuBLASLt inside the GEMM, so the product is written once instead of
    being read back by an elementwise kernel): a `dlc.add` of a bias of
    shape `[1, ..., 1, N]` (a constant or any other value) becomes `bias`,
    a `dlc.add` of a tensor of the product's type (a residual) becomes
    `addend`, in either order, then `relu` (`dlc.max(x, 0)`, or the TOSA
    form `dlc.clamp` to `[0, largest]`) or `gelu_tanh` (the op sequence of
    the ONNX importer's `Gelu(approximate="tanh")` and its reorderings:
    `0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))` with `x^3` as
    products or `dlc.pow(x, 3)`) becomes `epilogue`. erf-GELU stays for the
    fused elementwise kernel (cuBLASLt's GELU is the tanh form).

    Only f32, f16 and bf16 products accumulating in f32 over a non-empty
    contraction, only when every intermediate value has no other user, and
    only ops in the product's block are folded. IR without such chains is
    left unchanged.

    Before:
    ```mlir
    %p = dlc.matmul %x, %w {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>) -> tensor<8x128xf32>
    %q = dlc.add %p, %b : (tensor<8x128xf32>, tensor<1x128xf32>) -> tensor<8x128xf32>
    %r = dlc.clamp %q {max = 3.4028234663852886E+38 : f64, min = 0.000000e+00 : f64} : tensor<8x128xf32>
    ```
    After:
    ```mlir
    %r = dlc.matmul %x, %w bias(%b) epilogue(relu) {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>, tensor<1x128xf32>) -> tensor<8x128xf32>
    ```
  }];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def FuseGemm : Pass<"dlc-fuse-gemm", "func::FuncOp"> {
  let summary = "A product and the kernel that reads it become one generated GEMM";
  let description = [{
    After fusion, a `dlc.matmul` whose only reader is a pointwise kernel
    that reads it elementwise (erf-GELU, SiLU, a clamp with an upper
    bound, a cast: what cuBLASLt's epilogues cannot compute) would write
    the product and read it back. This pass moves the product into that
    kernel: the kernel becomes a generated GEMM (analysis: the Gemm
    template) whose epilogue computes the kernel's results from each
    element of the product in registers. The product's bias, addend and
    activation stay on it and are applied first.

    Only f32 products (cuBLAS runs them without tensor cores as well; a
    TF32, f16 or bf16 product keeps the library's tensor-core call) of at
    most `max-flops` floating-point operations, with a grid that fits (at
    most 65535 tiles of 64 rows and 65535 batches), and only when every use
    of the product's value in the kernel is elementwise at the product's
    shape.

    And only where it is expected to pay: the generated main loop runs at
    `relative-speed` times the library's, so it costs `flops * (1 /
    relative-speed - 1)` operations more, which at `flops-per-byte` (the
    library's f32 rate over the memory bandwidth) is worth that many bytes
    of traffic; it saves the product's write and read and one launch
    (`launch-bytes`). The defaults (a 0.5 speed for the 64x64-tile CUDA-core
    loop against cuBLAS's SGEMM; 16 FLOP per byte and 4 MiB per launch, an
    H100's ~54 TFLOP/s SGEMM over 3.35 TB/s and ~1.25 us) are estimates, not
    measurements: products with a short contraction (k up to about 64) are
    generated, the deep ones of a transformer keep the library.
    `relative-speed=1` generates every eligible product.

    Before:
    ```mlir
    %p = dlc.matmul %x, %w bias(%b) : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<128xf32>) -> tensor<8x128xf32>
    %k = dlc.kernel(%p) : (tensor<8x128xf32>) -> tensor<8x128xf32> {
    ^bb0(%a: tensor<8x128xf32>):
      %e = dlc.erf %a : tensor<8x128xf32>
      dlc.yield %e : tensor<8x128xf32>
    }
    ```
    After:
    ```mlir
    %k = dlc.kernel(%x, %w, %b) : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<128xf32>) -> tensor<8x128xf32> {
    ^bb0(%a0: tensor<8x64xf32>, %a1: tensor<64x128xf32>, %a2: tensor<128xf32>):
      %p = dlc.matmul %a0, %a1 bias(%a2) : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<128xf32>) -> tensor<8x128xf32>
      %e = dlc.erf %p : tensor<8x128xf32>
      dlc.yield %e : tensor<8x128xf32>
    }
    ```
  }];
  let options = [
    Option<"maxFlops", "max-flops", "double", "4294967296.0",
           "largest product (2 m n k per batch) made a generated GEMM">,
    Option<"relativeSpeed", "relative-speed", "double", "0.5",
           "the generated main loop's speed over the library's (1: every "
           "eligible product is generated)">,
    Option<"flopsPerByte", "flops-per-byte", "double", "16.0",
           "the library's f32 GEMM rate over the memory bandwidth">,
    Option<"launchBytes", "launch-bytes", "double", "4194304.0",
           "a launch's cost in bytes of memory traffic">
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def MergeKernels : Pass<"dlc-merge-kernels", "func::FuncOp"> {
  let summary = "One launch for independent pointwise kernels of one shape";
  let description = [{
    After fusion, kernels that do not depend on each other and iterate over
    the same shape (the Q, K and V head splits that read one QKV product,
    the two halves of a gated activation) become one kernel with the
    results of both: one launch instead of several, and inputs they share
    are read once. A kernel merges into the nearest earlier one with the
    same pointwise iteration space when no user of the earlier kernel's
    results comes before it (so neither depends on the other, and the
    merged kernel can stand where the later one was), the merged body
    still has a pointwise plan, stays within `max-ops-per-kernel` and
    `max-outputs-per-kernel` (every result is a vector held in registers
    until its store; past some dozens ptxas spills), and its
    iteration space has at most `max-elements` elements (16M; beyond that a
    launch costs little next to the kernel's own time, and merging only
    raises register pressure).

    Before:
    ```mlir
    %a = dlc.kernel (%x) : (tensor<8x64xf32>) -> tensor<8x64xf32> { ... }
    %b = dlc.kernel (%x, %y) : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32> { ... }
    ```
    After:
    ```mlir
    %m:2 = dlc.kernel (%x, %y) : (tensor<8x64xf32>, tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) { ... }
    ```
  }];
  let options = [
    Option<"maxOpsPerKernel", "max-ops-per-kernel", "unsigned", "256",
           "Largest number of operations in a merged kernel">,
    Option<"maxElements", "max-elements", "int64_t", "16777216",
           "Largest iteration space (elements) of kernels that merge">,
    Option<"maxOutputsPerKernel", "max-outputs-per-kernel", "unsigned", "32",
           "Largest number of results of a merged kernel">,
  ];
}

def Fuse : Pass<"dlc-fuse", "func::FuncOp"> {
  let summary = "Group dlc operations into fused kernels";
  let description = [{
    Forms `dlc.kernel` regions: chains of elementwise, broadcast and data
    movement operations become one kernel, and a reduction fuses with its
    elementwise producers and consumers, so softmax and layernorm each
    become a single kernel that reads its row once per reduction phase.
    Matrix products stay outside kernels (they become cuBLAS calls), as do
    reshapes between kernels and matrix products (they are free views).
    A transpose that only moves dimensions of size 1 (a sequence-first
    [S, 1, E] layer made batch-first [1, S, E]) leaves every element where
    it was: it becomes such a reshape first, not a kernel that copies (the
    attention passes, which run before, read transposes as head splits).
    A kernel that would only copy a contiguous block of a buffer in memory
    (a channel range of an NCHW tensor at batch 1) is not made: the slice
    stays outside, marked `dlc.view`, at a 256-byte aligned offset, and is
    read in place (`%s = dlc.slice %p {dlc.view, start = array<i64: 0, 24,
    0>}` before a matrix product).
    Splat constants are copied into the kernels that use them.

    Before:
    ```mlir
    %0 = dlc.add %x, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
    %1 = dlc.exp %0 : tensor<4x8xf32>
    ```
    After:
    ```mlir
    %k = dlc.kernel (%x, %b) : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32> {
    ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<1x8xf32>):
      %0 = dlc.add %a0, %a1 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
      %1 = dlc.exp %0 : tensor<4x8xf32>
      dlc.yield %1 : tensor<4x8xf32>
    }
    ```
  }];
  let options = [
    Option<"maxOpsPerKernel", "max-ops-per-kernel", "unsigned", "256",
           "Largest number of operations fused into one kernel">,
    Option<"maxOutputsPerKernel", "max-outputs-per-kernel", "unsigned", "32",
           "Largest number of results one kernel writes">,
    Option<"fusionNotes", "fusion-notes", "bool", "false",
           "Record on each dlc.kernel why neighbours were not fused "
           "(dlc.fusion_notes, shown by dlc compile --emit=fused)">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def ScheduleMemory : Pass<"dlc-schedule-memory", "func::FuncOp"> {
  let summary = "Move ops up to where they free memory";
  let description = [{
    In block order, a pure op moves up to right after the latest of its
    operands (constants and views of arguments, free to recreate, come
    along: moved when only it reads them, copied otherwise) when it is the
    last reader there of intermediate values whose bytes are at least
    those of the intermediate values it creates (returned values are the
    outputs', not intermediate). In a training step each parameter's
    update so moves up to its gradient, whose buffer is then freed as soon
    as it is complete instead of living to the end of the backward pass.

    Before:
    ```mlir
    %g1 = dlc.matmul %x1, %d1 {transpose_a} ...   // a gradient
    %g2 = dlc.matmul %x2, %d2 {transpose_a} ...
    %w1n = dlc.sub %w1, %g1 ...                    // returned
    ```
    After:
    ```mlir
    %g1 = dlc.matmul %x1, %d1 {transpose_a} ...
    %w1n = dlc.sub %w1, %g1 ...
    %g2 = dlc.matmul %x2, %d2 {transpose_a} ...
    ```

    Then memory-aware list scheduling (`list-scheduling`, on by default),
    as XLA's scheduler does: from the ops whose operands are computed, the
    one that frees the most intermediate bytes net of those it creates
    (the earliest in the current order on a tie), repeated until every op
    is placed. The new order is kept only when its estimate (each value
    live from its op to its last reader through views, as
    dlc-rematerialize counts) peaks lower than the current one's.

    Before (the two large values live together):
    ```mlir
    %a = dlc.exp %x : tensor<64x64xf32>
    %b = dlc.exp %y : tensor<64x64xf32>
    %sa = dlc.reduce sum %a ... -> tensor<64x1xf32>
    %sb = dlc.reduce sum %b ... -> tensor<64x1xf32>
    ```
    After:
    ```mlir
    %a = dlc.exp %x : tensor<64x64xf32>
    %sa = dlc.reduce sum %a ... -> tensor<64x1xf32>
    %b = dlc.exp %y : tensor<64x64xf32>
    %sb = dlc.reduce sum %b ... -> tensor<64x1xf32>
    ```
  }];
  let options = [
    Option<"listScheduling", "list-scheduling", "bool", "true",
           "list-schedule the block for memory after the moves">
  ];
}

def Rematerialize : Pass<"dlc-rematerialize", "func::FuncOp"> {
  let summary = "Recompute values instead of keeping them, to fit a memory budget";
  let description = [{
    Activation checkpointing under a budget. The estimate: every value of a
    top-level op (not constants, views or returned values) is a buffer from
    its op to its last use in the schedule; the peak is the largest total
    live at one op. While the peak exceeds the budget, the value live across
    the peak (defined before it, not used at it, used after it) whose
    recomputation frees the most bytes there per operation is recomputed:
    its op is cloned (marked `dlc.recompute`) right before its first use
    after the peak, and the uses from there on read the clone. Its operands
    must then live until that use: the bytes freed are the value's minus
    those of operands not already live at the peak (function arguments and
    constants cost nothing). Recomputable: pure elementwise, data movement
    and reduction ops, products and convolutions (by their FLOPs from the
    cost interface, so products are recomputed last); not attention. A
    recomputed pointwise chain fuses into the kernel that uses it.

    In a training step (results marked `dlc.gradient_of` or `dlc.updates`)
    a second plan recomputes whole runs of forward segments first (Chen et
    al.'s checkpoints, passes/Segments.cpp): the forward pass (what the
    loss is computed from; backward ops the schedule placed among its ops
    first move to right before their first backward reader) is cut after
    each op where at most one value is still read by later forward ops (a
    residual block's output); a run of up to 8 consecutive segments is
    recomputed from the value entering it right before the backward pass
    first reads one of its values. Which runs is a 0-1 program solved by
    GLPK (opened at run time; at most 50 subproblems per program,
    `solver-seconds` as a backstop): the least recomputed operations such
    that the estimate, with each chosen run's change to it, stays within
    the target
    everywhere (or, where that is out of reach, the lowest peak the runs
    reach). Single values are then recomputed as above where the estimate
    is still over. The plan that fits with fewer operations (or else peaks
    lower) is kept; `dlc.recompute_plan` on the function says which and
    how the segments were chosen ("optimal", "solver's limit", or why none).

    `budget` (bytes) counts the function's arguments, results and packaged
    constants as well; `activation-fraction` is a fraction of the peak
    without recomputation (of `activation-baseline` where given: `dlc
    compile --activation-budget` passes the keep-everything plan's arena,
    measured after fusion and memory planning). Without either the pass
    only measures. The function gets `dlc.activation_bytes` (the peak
    after the decisions) and `dlc.recompute_flops`; when nothing more frees
    memory and the peak
    is still above the budget, an error names the smallest budget that
    fits.

    Before (`budget` leaves room for one of %a, %b at a time):
    ```mlir
    %a = dlc.exp %x ...
    %b = dlc.matmul %a, %a ...      // peak: %a and %b live
    %c = dlc.mul %b, %a ...
    ```
    After:
    ```mlir
    %a = dlc.exp %x ...
    %b = dlc.matmul %a, %a ...
    %a2 = dlc.exp %x {dlc.recompute} ...
    %c = dlc.mul %b, %a2 ...
    ```
  }];
  let options = [
    Option<"budget", "budget", "uint64_t", "0",
           "the most bytes the function may take (0: none)">,
    Option<"activationFraction", "activation-fraction", "double", "0",
           "the most intermediate bytes as a fraction of the peak without "
           "recomputation (0: none)">,
    Option<"activationBaseline", "activation-baseline", "int64_t", "0",
           "what `activation-fraction` is a fraction of, in bytes: the "
           "keep-everything plan's arena, which the compiler measures "
           "(0: the estimate's peak without recomputation)">,
    Option<"solverSeconds", "solver-seconds", "double", "10",
           "the time limit of GLPK's choice of forward segments (0: no "
           "choice of segments, single values only, as without GLPK)">,
    Option<"tighten", "tighten", "double", "1",
           "a factor (0, 1] on the target of the estimate: the compiler's "
           "next try when the plan after fusion missed the budget">,
  ];
}

def PlanMemory : Pass<"dlc-plan-memory", "func::FuncOp"> {
  let summary = "Assign every intermediate tensor an offset in one arena";
  let description = [{
    Computes the live range of every buffer produced by a `dlc.kernel`,
    `dlc.matmul` or `dlc.attention` over the schedule (the order of
    operations), then packs buffers whose live ranges do not overlap into the
    same bytes of one arena (offsets aligned to 256 bytes): in five orders
    (by size, by length of life, by both, by start, by end), each buffer at
    the lowest aligned offset (first fit) or in the smallest gap (best fit)
    that no buffer with an overlapping live range occupies, keeping the
    smallest arena. When that is above the lower bound (the most bytes live
    at one point of the schedule), an exact depth-first search over
    placements in order of offset (MiniMalloc's, ArenaSearch.h) looks for
    a packing within the bound, then within 1/64 above it, then bisects
    toward the best found, in a bounded amount of work; where it finds
    none, a local search over the orders (random moves, fixed seed)
    continues from the best. A pointwise kernel may write its result over
    an operand that dies there (in-place).
    Results returned by the function are written straight into the output
    buffers and get offset -1. Reshapes are views and share their operand's
    buffer.

    The pass annotates each producer with `dlc.offsets` (one byte offset per
    result) and the function with `dlc.arena_bytes`,
    `dlc.arena_lower_bound` and `dlc.intermediate_bytes` (the sum of all
    intermediate buffers, the footprint without reuse).

    ```mlir
    %k = dlc.kernel (%x) {dlc.offsets = array<i64: 0>} : ...
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "256",
           "Byte alignment of every buffer in the arena">,
    Option<"allowInPlace", "in-place", "bool", "true",
           "Let pointwise kernels write over operands that die there">,
  ];
}

def TestCodegen : Pass<"dlc-test-codegen", "func::FuncOp"> {
  let summary = "Test only: build a package and run the reference interpreter";
  let description = [{
    Runs the later stages of `dlc compile` / `dlc run --check` on the function
    as given: the package builder (CUDA source, schedule and constants; no
    cubins are compiled) and the reference interpreter (on inputs whose
    elements are all 1). Whatever they cannot handle is reported as an error
    at the function or op, and the pass fails. The IR is not changed.

    It lets `dlc-opt -verify-diagnostics` tests reach the diagnostics of code
    generation and of the reference interpreter with hand-written IR, such as
    a kernel without a memory plan. With `print-source`, it is the
    codegen-only entry of lit tests: the CUDA source of the kernels as
    written, whatever fusion would have made of them. Registered in dlc-opt
    only.
  }];
  let options = [
    Option<"package", "package", "bool", "true",
           "Build the package (codegen/Codegen.h)">,
    Option<"reference", "reference", "bool", "true",
           "Evaluate the function with the reference interpreter">,
    Option<"sourceOnly", "source-only", "bool", "false",
           "Instead of the package, emit the CUDA source only "
           "(generateCudaSource, as `dlc compile --emit=cuda`)">,
    Option<"printSource", "print-source", "bool", "false",
           "Emit the CUDA source only, and print it to stdout: code "
           "generation of hand-written dlc.kernel IR, without fusion">,
  ];
}

def TestGradient : Pass<"dlc-test-gradient", "func::FuncOp"> {
  let summary = "Test only: reverse-mode gradients through the op rules";
  let description = [{
    Differentiates the sum of the function's single float result with
    respect to each float argument, through each op's GradientOpInterface
    (ir/Gradients.cpp), and returns the gradients after the result. An op on
    the path without a rule is an error at the op. It lets lit tests check
    the rules on hand-written IR until training builds on them.

    Before:
    ```mlir
    func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = dlc.exp %x : tensor<4xf32>
      return %y : tensor<4xf32>
    }
    ```
    After:
    ```mlir
    func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %y = dlc.exp %x : tensor<4xf32>
      %one = dlc.constant dense<1.0> : tensor<4xf32>
      %g = dlc.mul %one, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      return %y, %g : tensor<4xf32>, tensor<4xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def TestOpInterfaces : Pass<"dlc-test-op-interfaces", "func::FuncOp"> {
  let summary = "Test only: report what each dlc op declares about itself";
  let description = [{
    Emits a remark at every dlc op of the function listing its classes
    (traits), its operations per element (CostOpInterface), its precision
    class (PrecisionPolicyOpInterface; `deny` without it), its layout class
    (LayoutOpInterface; `fixed` without it) and whether it has a gradient
    rule. Lit tests check the table.
  }];
}

#endif // DLC_PASSES_TD
