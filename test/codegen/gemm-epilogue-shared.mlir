// RUN: dlc compile %s --emit=cuda | FileCheck %s
// RUN: dlc compile %s --no-cubin -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: env DLC_GEMM_EPILOGUE_FALLBACK=1 dlc run %t.dlcpkg --device=sim --check --seed=3 | FileCheck %s --check-prefix=SIM
// A product with a bias whose operands broadcast over an outer batch of 1024
// is 1024 GEMM calls, and every call needs the same epilogue kernel: it is
// emitted once and all calls share it (the sim runs it after each plain
// product with DLC_GEMM_EPILOGUE_FALLBACK=1, which the reference checks).

// COMPILE: 1 ops -> 0 fused kernels, 1024 GEMM calls

// CHECK: // gemm_epi0: the epilogue of a 4x3x8 GEMM (batch 2) without cuBLASLt
// CHECK-NEXT: extern "C" __global__ void __launch_bounds__(256) gemm_epi0(float* __restrict__ c, const float* __restrict__ bias) {
// CHECK: x += (bias[i % 3LL]);
// CHECK-NOT: gemm_epi1
// CHECK-NOT: __global__

// SIM: check output_0: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%a: tensor<1024x1x4x8xf32>, %b: tensor<1x2x8x3xf32>, %bias: tensor<3xf32>) -> tensor<1024x2x4x3xf32> {
  %0 = dlc.matmul %a, %b bias(%bias) : (tensor<1024x1x4x8xf32>, tensor<1x2x8x3xf32>, tensor<3xf32>) -> tensor<1024x2x4x3xf32>
  return %0 : tensor<1024x2x4x3xf32>
}
