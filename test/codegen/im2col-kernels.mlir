// RUN: dlc-opt %s --split-input-file --dlc-test-codegen="print-source=true reference=false" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-codegen -o /dev/null
// A 3x3 convolution from NHWC: the transpose inside the im2col kernel is
// index arithmetic only; the GEMM multiplies the filter by the columns, and
// bias + relu run in the epilogue kernel over the GEMM's result.
// The kernels of im2col.mlir as `dlc compile im2col.mlir --emit=fused` forms
// them; the second RUN line builds their package and runs the reference
// interpreter on them.

// CHECK-LABEL: // k0: transpose+im2col (pointwise, 2592 elements
// CHECK: const int t0 = i2 / 9;
// CHECK: const int t6 = t4 + t2 - 1;
// CHECK-NEXT: const int t7 = t5 + t3 - 1;
// CHECK: if (t6 >= 0 && t6 < 12 && t7 >= 0 && t7 < 8) {
// CHECK-NEXT: const float v10 = in0[t9];
// CHECK-NEXT: p8 = v10;
// CHECK-LABEL: // k1: reshape+add+clamp (pointwise, 1536 elements
// CHECK: fminf(fmaxf(

func.func @main(%x: tensor<1x12x8x3xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<1x16x1x1xf32>) -> tensor<1x16x12x8xf32> attributes {dlc.arena_bytes = 16640 : i64, dlc.intermediate_bytes = 16512 : i64} {
  %cols = dlc.kernel(%x) {dlc.offsets = array<i64: 0>} : (tensor<1x12x8x3xf32>) -> tensor<1x1x27x96xf32> {
  ^bb0(%a0: tensor<1x12x8x3xf32>):
    %0 = dlc.transpose %a0 {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x12x8x3xf32>) -> tensor<1x3x12x8xf32>
    %1 = dlc.im2col %0 {dilations = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x12x8xf32>) -> tensor<1x1x27x96xf32>
    dlc.yield %1 : tensor<1x1x27x96xf32>
  }
  %filter = dlc.reshape %w : tensor<16x3x3x3xf32> -> tensor<1x16x27xf32>
  %columns = dlc.reshape %cols : tensor<1x1x27x96xf32> -> tensor<1x27x96xf32>
  %product = dlc.matmul %filter, %columns {dlc.offsets = array<i64: 10496>} : (tensor<1x16x27xf32>, tensor<1x27x96xf32>) -> tensor<1x16x96xf32>
  %out = dlc.kernel(%product, %b) {dlc.offsets = array<i64: -1>} : (tensor<1x16x96xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x12x8xf32> {
  ^bb0(%a0: tensor<1x16x96xf32>, %a1: tensor<1x16x1x1xf32>):
    %0 = dlc.reshape %a0 : tensor<1x16x96xf32> -> tensor<1x16x12x8xf32>
    %1 = dlc.add %0, %a1 : (tensor<1x16x12x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x12x8xf32>
    %2 = dlc.clamp %1 {max = 3.000000e+38 : f64, min = 0.000000e+00 : f64} : tensor<1x16x12x8xf32>
    dlc.yield %2 : tensor<1x16x12x8xf32>
  }
  return %out : tensor<1x16x12x8xf32>
}
