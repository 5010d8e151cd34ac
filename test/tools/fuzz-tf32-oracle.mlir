// RUN: env DLC_CACHE_DIR=%t.cache dlc-fuzz --check=%s --input-seed=5000456 --configs=tf32 2>&1 | FileCheck %s
// RUN: env DLC_CACHE_DIR=%t.cache not dlc-fuzz --check=%s --input-seed=5000456 --configs=tf32 --inject-error 2>&1 | FileCheck %s --check-prefix=INJECTED
// The tf32 configuration of dlc-fuzz checks f32 outputs of TF32 matrix
// products against a reference whose product operands are perturbed by
// TF32's unit roundoff. x times x rounds x once on the device: the
// perturbation must move both operands alike, or the two cancel and the
// sensitivity is that of f32 (seed 5000456 was reported as a mismatch of
// 3e-4 against a sensitivity of 2e-7).
// CHECK: ok (sim)
// INJECTED: FAILED [sim tf32] mismatch
func.func @main(%arg0: tensor<1xf32>) -> (tensor<1x1xf32>) {
  %v1 = dlc.reshape %arg0 : tensor<1xf32> -> tensor<1x1xf32>
  %v2 = dlc.matmul %v1, %v1 {transpose_a} : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  %v3 = dlc.sub %v1, %v2 : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  return %v3 : tensor<1x1xf32>
}
