//===- Passes.td - dlc compiler passes ---------------------*- tablegen -*-===//
#ifndef DLC_PASSES_TD
#define DLC_PASSES_TD

include "mlir/Pass/PassBase.td"

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
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
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
    Option<"fusionNotes", "fusion-notes", "bool", "false",
           "Record on each dlc.kernel why neighbours were not fused "
           "(dlc.fusion_notes, shown by dlc compile --emit=fused)">,
  ];
  let dependentDialects = ["::mlir::dlc::DlcDialect"];
}

def PlanMemory : Pass<"dlc-plan-memory", "func::FuncOp"> {
  let summary = "Assign every intermediate tensor an offset in one arena";
  let description = [{
    Computes the live range of every buffer produced by a `dlc.kernel` or
    `dlc.matmul` over the schedule (the order of operations), then packs
    buffers whose live ranges do not overlap into the same bytes of one
    arena (offsets aligned to 256 bytes), largest first, best fit. A pointwise
    kernel may write its result over an operand that dies there (in-place).
    Results returned by the function are written straight into the output
    buffers and get offset -1. Reshapes are views and share their operand's
    buffer.

    The pass annotates each producer with `dlc.offsets` (one byte offset per
    result) and the function with `dlc.arena_bytes` and
    `dlc.intermediate_bytes` (the sum of all intermediate buffers, the
    footprint without reuse).

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
    a kernel without a memory plan. Registered in dlc-opt only.
  }];
  let options = [
    Option<"package", "package", "bool", "true",
           "Build the package (codegen/Codegen.h)">,
    Option<"reference", "reference", "bool", "true",
           "Evaluate the function with the reference interpreter">,
    Option<"sourceOnly", "source-only", "bool", "false",
           "Instead of the package, emit the CUDA source only "
           "(generateCudaSource, as `dlc compile --emit=cuda`)">,
  ];
}

#endif // DLC_PASSES_TD
