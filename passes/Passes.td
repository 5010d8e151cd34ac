//===- Passes.td - dlc compiler passes ---------------------*- tablegen -*-===//
#ifndef DLC_PASSES_TD
#define DLC_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerTosa : Pass<"dlc-lower-tosa", "func::FuncOp"> {
  let summary = "Lower TOSA operations to the dlc dialect";
  let description = [{
    Rewrites every supported TOSA operation into dlc operations with the same
    meaning. An operation that cannot be lowered gets an error at its
    location naming it (`dlc cannot lower 'tosa.conv2d' yet`) and the pass
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

#endif // DLC_PASSES_TD
