// RUN: dlc compile %s --no-cubin -o %t.dlcpkg 2>&1 | FileCheck %s
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=17 | FileCheck %s --check-prefix=SIM
// Matrix products become GEMM steps with row-major strides taken from the
// stored layouts. Batch dimensions: B shared by all batches folds the batch
// into M (one GEMM); a partial broadcast ([2, 1] with [1, 3]) gives one
// batched GEMM per outer batch index; a transposed A keeps the batch with a
// zero stride for B.

// 1 (folded) + 2 (partial broadcast) + 1 (batched, transposed A) + 1 (f16)
// CHECK: 4 ops -> 0 fused kernels, 5 GEMM calls

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM: check output_2: relative error {{.*}} ok
// SIM: check output_3: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%a: tensor<2x3x4x5xf32>, %b: tensor<1x1x5x6xf32>, %c: tensor<2x1x4x5xf32>, %d: tensor<1x3x5x6xf32>, %e: tensor<2x3x5x4xf32>, %h: tensor<4x8xf16>, %g: tensor<16x8xf16>) -> (tensor<2x3x4x6xf32>, tensor<2x3x4x6xf32>, tensor<2x3x4x6xf32>, tensor<4x16xf16>) {
  %0 = dlc.matmul %a, %b : (tensor<2x3x4x5xf32>, tensor<1x1x5x6xf32>) -> tensor<2x3x4x6xf32>
  %1 = dlc.matmul %c, %d : (tensor<2x1x4x5xf32>, tensor<1x3x5x6xf32>) -> tensor<2x3x4x6xf32>
  %2 = dlc.matmul %e, %b {transpose_a} : (tensor<2x3x5x4xf32>, tensor<1x1x5x6xf32>) -> tensor<2x3x4x6xf32>
  %3 = dlc.matmul %h, %g {transpose_b} : (tensor<4x8xf16>, tensor<16x8xf16>) -> tensor<4x16xf16>
  return %0, %1, %2, %3 : tensor<2x3x4x6xf32>, tensor<2x3x4x6xf32>, tensor<2x3x4x6xf32>, tensor<4x16xf16>
}
