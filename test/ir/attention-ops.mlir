// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// dlc.attention survives printing and parsing again, with and without its
// mask and causal flag.

// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x16x32xf16>, %[[K:.*]]: tensor<2x4x24x32xf16>, %[[V:.*]]: tensor<2x4x24x8xf16>, %[[M:.*]]: tensor<2x1x1x24xf32>)
// CHECK: dlc.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x16x32xf16>, tensor<2x4x24x32xf16>, tensor<2x4x24x8xf16>) -> tensor<2x4x16x8xf16>
// CHECK: dlc.attention %[[Q]], %[[K]], %[[V]], %[[M]] {scale = 1.000000e+00 : f64} : (tensor<2x4x16x32xf16>, tensor<2x4x24x32xf16>, tensor<2x4x24x8xf16>, tensor<2x1x1x24xf32>) -> tensor<2x4x16x8xf16>
func.func @attention(%q: tensor<2x4x16x32xf16>, %k: tensor<2x4x24x32xf16>, %v: tensor<2x4x24x8xf16>, %m: tensor<2x1x1x24xf32>) -> (tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>) {
  %0 = dlc.attention %q, %k, %v {scale = 0.125 : f64, causal} : (tensor<2x4x16x32xf16>, tensor<2x4x24x32xf16>, tensor<2x4x24x8xf16>) -> tensor<2x4x16x8xf16>
  %1 = dlc.attention %q, %k, %v, %m {scale = 1.0 : f64} : (tensor<2x4x16x32xf16>, tensor<2x4x24x32xf16>, tensor<2x4x24x8xf16>, tensor<2x1x1x24xf32>) -> tensor<2x4x16x8xf16>
  return %0, %1 : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>
}
