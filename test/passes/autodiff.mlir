// RUN: dlc-opt %s --split-input-file --dlc-autodiff='loss=mse' | FileCheck %s --check-prefix=MSE
// RUN: dlc-opt %s --split-input-file --dlc-autodiff='loss=cross_entropy' | FileCheck %s --check-prefix=CE
// RUN: dlc-opt %s --split-input-file --dlc-autodiff | FileCheck %s --check-prefix=SUM

// A linear layer: the weight's gradient is a product with a transpose flag
// (no transpose kernel); the input's is not built (x is no parameter).
// MSE-LABEL: func.func @linear
// MSE-SAME: (%[[W:.*]]: tensor<4x2xf32> {dlc.param = "w"}, %[[X:.*]]: tensor<3x4xf32>, %[[T:.*]]: tensor<3x2xf32> {onnx.name = "target"})
// MSE-SAME: -> (tensor<f32>, tensor<4x2xf32> {dlc.gradient_of = 0 : i64})
// MSE: %[[Y:.*]] = dlc.matmul %[[X]], %[[W]]
// MSE: %[[D:.*]] = dlc.sub %[[Y]], %[[T]]
// MSE: %[[SQ:.*]] = dlc.mul %[[D]], %[[D]]
// MSE: dlc.reduce sum %[[SQ]] {axes = array<i64: 0, 1>}
// MSE: dlc.constant dense<0.166666672> : tensor<1x1xf32>
// MSE: %[[K:.*]] = dlc.constant dense<0.333333343> : tensor<1x1xf32>
// MSE: %[[G:.*]] = dlc.mul %[[D]], %[[K]]
// MSE: %[[GW:.*]] = dlc.matmul %[[X]], %[[G]] {transpose_a} : (tensor<3x4xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// MSE-NOT: transpose_b
// MSE: return %{{.*}}, %[[GW]] : tensor<f32>, tensor<4x2xf32>
func.func @linear(%w: tensor<4x2xf32> {dlc.param = "w"}, %x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %y = dlc.matmul %x, %w : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Cross-entropy on logits [B, C] with labels [B]: the loss from the row's
// maximum (logsumexp - picked logit, mean over the batch) and the
// gradient (softmax - onehot) / B built directly, not differentiated
// through the max. A constant marked dlc.param becomes the first argument.
// CE-LABEL: func.func @classifier
// CE-SAME: (%[[W:.*]]: tensor<4x3xf32> {dlc.initial = dense<5.000000e-01> : tensor<4x3xf32>, dlc.param = "head.weight"}, %[[X:.*]]: tensor<2x4xf32>, %[[L:.*]]: tensor<2xi64> {onnx.name = "labels"})
// CE-SAME: -> (tensor<f32>, tensor<4x3xf32> {dlc.gradient_of = 0 : i64})
// CE: %[[Z:.*]] = dlc.matmul %[[X]], %[[W]]
// CE: %[[M:.*]] = dlc.reduce max %[[Z]] {axes = array<i64: 1>}
// CE: %[[E:.*]] = dlc.exp
// CE: %[[S:.*]] = dlc.reduce sum %[[E]] {axes = array<i64: 1>}
// CE: dlc.constant dense<{{\[\[}}0, 1, 2]]> : tensor<1x3xi64>
// CE: %[[HIT:.*]] = dlc.cmp eq
// CE: %[[P:.*]] = dlc.div %[[E]], %[[S]]
// CE: %[[OH:.*]] = dlc.select %[[HIT]]
// CE: %[[D:.*]] = dlc.sub %[[P]], %[[OH]]
// CE: %[[G:.*]] = dlc.mul %[[D]]
// CE: dlc.matmul %[[X]], %[[G]] {transpose_a}
// CE-NOT: dlc.reduce max
// CE: return
func.func @classifier(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = dlc.constant {dlc.param = "head.weight"} dense<0.5> : tensor<4x3xf32>
  %z = dlc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  return %z : tensor<2x3xf32>
}

// -----

// `sum`: a model that computes its own loss returns it; a parameter the
// loss does not reach gets zeros, and the other results go.
// SUM-LABEL: func.func @own_loss
// SUM-SAME: -> (tensor<f32>, tensor<1x3xf32> {dlc.gradient_of = 0 : i64}, tensor<2xf32> {dlc.gradient_of = 1 : i64})
// SUM: %[[E:.*]] = dlc.exp %arg0
// SUM: %[[Z:.*]] = dlc.constant dense<0.000000e+00> : tensor<2xf32>
// SUM: return %{{.*}}, %{{.*}}, %[[Z]]
func.func @own_loss(%a: tensor<1x3xf32> {dlc.param = "a"}, %b: tensor<2xf32> {dlc.param = "b"}) -> (tensor<1x3xf32>, tensor<2xf32>) {
  %e = dlc.exp %a : tensor<1x3xf32>
  return %e, %b : tensor<1x3xf32>, tensor<2xf32>
}

// -----

// Dropout: the gradient is a dropout of the incoming gradient with the
// forward's offset and key (the mask regenerated, never stored).
// SUM-LABEL: func.func @dropout
// SUM: %[[O:.*]] = dlc.constant dense<0> : tensor<1x1xi64>
// SUM: %[[Y:.*]] = dlc.mul
// SUM: dlc.dropout %[[Y]], %[[O]] {ratio = 2.500000e-01 : f64, seed = 9 : i64, stream = 4 : i64}
// SUM: %[[G:.*]] = dlc.dropout %{{.*}}, %[[O]] {ratio = 2.500000e-01 : f64, seed = 9 : i64, stream = 4 : i64}
// SUM: dlc.mul %[[G]]
func.func @dropout(%w: tensor<1x8xf32> {dlc.param = "w"}, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %o = dlc.constant dense<0> : tensor<1x1xi64>
  %y = dlc.mul %x, %w : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %d = dlc.dropout %y, %o {ratio = 0.25 : f64, seed = 9 : i64, stream = 4 : i64} : (tensor<4x8xf32>, tensor<1x1xi64>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
