// RUN: dlc compile %s --no-cubin -o %t.dlcpkg
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=5 | FileCheck %s
// A matrix product over an empty contraction (k = 0) is all zeros. Its stored
// rows are empty, yet BLAS wants leading dimensions of at least 1: the GEMM
// steps must still validate (found by fuzz-pipeline).

// CHECK: output_0: f32[2, 3, 4, 5] [0, 0, 0, 0, 0, 0, ...]
// CHECK: output_1: f16[4, 6] [0, 0, 0, 0, 0, 0, ...]
// CHECK: check output_0: relative error 0 {{.*}} ok
// CHECK: check output_1: relative error 0 {{.*}} ok

func.func @main(%a: tensor<2x3x4x0xf32>, %b: tensor<1x1x0x5xf32>, %h: tensor<4x0xf16>, %g: tensor<6x0xf16>) -> (tensor<2x3x4x5xf32>, tensor<4x6xf16>) {
  %0 = dlc.matmul %a, %b : (tensor<2x3x4x0xf32>, tensor<1x1x0x5xf32>) -> tensor<2x3x4x5xf32>
  %1 = dlc.matmul %h, %g {transpose_b} : (tensor<4x0xf16>, tensor<6x0xf16>) -> tensor<4x6xf16>
  return %0, %1 : tensor<2x3x4x5xf32>, tensor<4x6xf16>
}
