// RUN: dlc-opt %s --dlc-autodiff='loss-scale=true' | FileCheck %s

// A model returning its own scalar loss (loss=sum: the value itself), with
// dynamic loss scaling: the scale is state after the parameters and
// multiplies the gradient the sweep starts from; the loss stays unscaled.
// CHECK-LABEL: func.func @scaled
// CHECK-SAME: (%[[W:.*]]: tensor<3xf32> {dlc.param = "w"}, %[[S:.*]]: tensor<f32> {dlc.initial = dense<6.553600e+04> : tensor<f32>, dlc.state = "grad_scaler.scale"}, %{{.*}}: tensor<3xf32>)
// CHECK-SAME: -> (tensor<f32>, tensor<3xf32> {dlc.gradient_of = 0 : i64})
// CHECK: %[[L:.*]] = dlc.reshape %{{.*}} : tensor<1xf32> -> tensor<f32>
// CHECK: %[[ONE:.*]] = dlc.constant dense<1.000000e+00> : tensor<f32>
// CHECK: %[[F:.*]] = dlc.reshape %[[S]] : tensor<f32> -> tensor<f32>
// CHECK: %[[SEED:.*]] = dlc.mul %[[ONE]], %[[F]]
// CHECK: %[[LOSS:.*]] = dlc.reshape %[[L]]
// CHECK: return %[[LOSS]],
func.func @scaled(%w: tensor<3xf32> {dlc.param = "w"}, %x: tensor<3xf32>) -> tensor<f32> {
  %p = dlc.mul %w, %x : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %s = dlc.reduce sum %p {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<1xf32>
  %l = dlc.reshape %s : tensor<1xf32> -> tensor<f32>
  return %l : tensor<f32>
}
