// RUN: dlc-opt %s --dlc-schedule-memory | FileCheck %s

// An SGD step's shape: two weight gradients, then the updates (returned)
// at the end. Each update moves up to its gradient, so a gradient's buffer
// is freed as soon as it is complete; the learning-rate constant comes
// along. The scalar from arguments only (the step count) goes first.
// CHECK-LABEL: func.func @step
// CHECK: %[[T:.*]] = dlc.add %arg4
// CHECK: %[[G1:.*]] = dlc.matmul %arg2, %arg3 {transpose_a}
// CHECK: %[[LR:.*]] = dlc.constant dense<1.000000e-01>
// CHECK: %[[S1:.*]] = dlc.mul %[[G1]], %[[LR]]
// CHECK: %[[W1:.*]] = dlc.sub %arg0, %[[S1]]
// CHECK: %[[G2:.*]] = dlc.matmul %arg3, %arg2 {transpose_a}
// CHECK: dlc.mul %[[G2]]
// CHECK: %[[W2:.*]] = dlc.sub %arg1
// CHECK: return %[[W1]], %[[W2]], %[[T]]
func.func @step(%w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>, %x: tensor<64x16xf32>, %d: tensor<64x16xf32>, %t: tensor<f32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<f32>) {
  %g1 = dlc.matmul %x, %d {transpose_a} : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
  %g2 = dlc.matmul %d, %x {transpose_a} : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
  %one = dlc.constant dense<1.0> : tensor<f32>
  %t1 = dlc.add %t, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %lr = dlc.constant dense<0.1> : tensor<1x1xf32>
  %s1 = dlc.mul %g1, %lr : (tensor<16x16xf32>, tensor<1x1xf32>) -> tensor<16x16xf32>
  %n1 = dlc.sub %w1, %s1 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %s2 = dlc.mul %g2, %lr : (tensor<16x16xf32>, tensor<1x1xf32>) -> tensor<16x16xf32>
  %n2 = dlc.sub %w2, %s2 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %n1, %n2, %t1 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<f32>
}
