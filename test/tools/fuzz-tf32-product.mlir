// RUN: env DLC_CACHE_DIR=%t.cache dlc-fuzz --check=%s --input-seed=7000188 --configs=tf32 2>&1 | FileCheck %s
// The tf32 configuration's sensitivity of a 1x1 product whose two operands
// TF32 rounds the same way: one random draw of opposite signs cancels in
// the perturbed reference (sensitivity 2e-7 against an error of 2.4e-4,
// seed 7000188). The checker also moves every product operand upward and
// takes the larger sensitivity.
// CHECK: ok (sim)
module {
  func.func @main(%arg0: tensor<28x1x32x13xf32>, %arg1: tensor<1x1x1x1xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) {
    %v2 = tosa.clamp %arg1 {min_int = 0 : i64, max_int = 0 : i64, min_fp = 0.75 : f32, max_fp = 1.25 : f32} : (tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
    %v3 = tosa.reduce_prod %v2 {axis = 0 : i32} : (tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
    %v4 = tosa.mul %v3, %v3 {shift = 0 : i8} : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
    %v5 = "tosa.const"() {value = dense<0.375> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
    %v6 = dlc.cmp ne, %arg1, %v5 : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xi1>
    %v7 = "tosa.const"() {value = dense<-0.75> : tensor<1x1x1x1xf32>} : () -> tensor<1x1x1x1xf32>
    %v8 = tosa.select %v6, %v4, %v7 : (tensor<1x1x1x1xi1>, tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
    %v10 = dlc.matmul %arg1, %v8 : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
    return %v10, %v2 : tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>
  }
}
