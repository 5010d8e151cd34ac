// RUN: dlc-opt --split-input-file --dlc-lower-tosa %s | FileCheck %s
// TOSA's convolution family is NHWC; dlc's ops are NCHW: the lowering
// transposes activations and filters in, applies the dlc op, adds the bias in
// NCHW and transposes back (the transposes fuse into neighbouring kernels).

// CHECK-LABEL: func.func @conv2d
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x3xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK: %[[XT:.*]] = dlc.transpose %[[X]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x8x8xf32>
// CHECK: %[[WT:.*]] = dlc.transpose %[[W]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf32>
// pad [top, bottom, left, right] = [1, 0, 2, 0] becomes [top, left, bottom, right].
// CHECK: %[[C:.*]] = dlc.conv2d %[[XT]], %[[WT]] {dilations = array<i64: 1, 2>, groups = 1 : i64, pads = array<i64: 1, 2, 0, 0>, strides = array<i64: 2, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x6xf32>
// CHECK: %[[BR:.*]] = dlc.reshape %[[B]] : tensor<4xf32> -> tensor<1x4x1x1xf32>
// CHECK: %[[A:.*]] = dlc.add %[[C]], %[[BR]]
// CHECK: %[[Y:.*]] = dlc.transpose %[[A]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x4x6xf32>) -> tensor<1x4x6x4xf32>
// CHECK: return %[[Y]]
func.func @conv2d(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x6x4xf32> {
  %0 = tosa.conv2d %x, %w, %b {dilation = array<i64: 1, 2>, pad = array<i64: 1, 0, 2, 0>, stride = array<i64: 2, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x4xf32>
  return %0 : tensor<1x4x6x4xf32>
}

// -----

// Depthwise: weight [KH, KW, C, M] becomes [C*M, 1, KH, KW] with C groups;
// a zero bias adds nothing.
// CHECK-LABEL: func.func @depthwise
// CHECK-SAME: (%[[X:.*]]: tensor<1x6x6x4xf32>, %[[W:.*]]: tensor<3x3x4x2xf32>)
// CHECK: %[[WT:.*]] = dlc.transpose %[[W]] {perm = array<i64: 2, 3, 0, 1>} : (tensor<3x3x4x2xf32>) -> tensor<4x2x3x3xf32>
// CHECK: %[[WR:.*]] = dlc.reshape %[[WT]] : tensor<4x2x3x3xf32> -> tensor<8x1x3x3xf32>
// CHECK: %[[C:.*]] = dlc.conv2d %{{.*}}, %[[WR]] {dilations = array<i64: 1, 1>, groups = 4 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>}
// CHECK-NOT: dlc.add
// CHECK: dlc.transpose %[[C]] {perm = array<i64: 0, 2, 3, 1>}
// CHECK-NOT: dlc.constant
func.func @depthwise(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x4x2xf32>) -> tensor<1x6x6x8xf32> {
  %b = "tosa.const"() {value = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %0 = tosa.depthwise_conv2d %x, %w, %b {dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

// transpose_conv2d: filter [OC, KH, KW, IC] -> [IC, OC, KH, KW]; a negative
// out_pad crops (ONNX pads), a positive bottom one below the stride is
// output_padding.
// CHECK-LABEL: func.func @transpose_conv
// CHECK: dlc.transpose %{{.*}} {perm = array<i64: 3, 0, 1, 2>} : (tensor<2x3x3x5xf32>) -> tensor<5x2x3x3xf32>
// CHECK: dlc.conv_transpose2d %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 0>, pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 2>} : (tensor<1x5x4x4xf32>, tensor<5x2x3x3xf32>) -> tensor<1x2x9x8xf32>
func.func @transpose_conv(%x: tensor<1x4x4x5xf32>, %w: tensor<2x3x3x5xf32>, %b: tensor<2xf32>) -> tensor<1x9x8x2xf32> {
  %0 = tosa.transpose_conv2d %x, %w, %b {out_pad = array<i64: -1, 1, 0, -1>, stride = array<i64: 2, 2>, out_shape = array<i64: 1, 9, 8, 2>} : (tensor<1x4x4x5xf32>, tensor<2x3x3x5xf32>, tensor<2xf32>) -> tensor<1x9x8x2xf32>
  return %0 : tensor<1x9x8x2xf32>
}

// -----

// Pools: padding never counts for TOSA's average.
// CHECK-LABEL: func.func @pools
// CHECK: dlc.pool2d max %{{.*}} {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
// CHECK: dlc.pool2d avg %{{.*}} {kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
func.func @pools(%x: tensor<1x8x8x3xf32>) -> (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) {
  %0 = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
  %1 = tosa.avg_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, acc_type = f32} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
  return %0, %1 : tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>
}

// -----

// Batched gather: batch n's rows start at n*K of the values viewed as
// [N*K, C].
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[V:.*]]: tensor<2x5x3xf32>, %[[I:.*]]: tensor<2x4xi32>)
// CHECK-DAG: %[[OFF:.*]] = dlc.constant dense<{{\[\[}}0], [5]]> : tensor<2x1xi32>
// CHECK-DAG: %[[VR:.*]] = dlc.reshape %[[V]] : tensor<2x5x3xf32> -> tensor<10x3xf32>
// CHECK: %[[J:.*]] = dlc.add %[[I]], %[[OFF]]
// CHECK: dlc.gather %[[VR]], %[[J]] {axis = 0 : i64} : (tensor<10x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
func.func @gather(%v: tensor<2x5x3xf32>, %i: tensor<2x4xi32>) -> tensor<2x4x3xf32> {
  %0 = tosa.gather %v, %i : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

// Resize: offset 0 is asymmetric, 2 * offset = d - n is half pixel; TOSA's
// nearest neighbour rounds halves up.
// CHECK-LABEL: func.func @resize
// CHECK: dlc.resize %{{.*}} {coordinate_mode = "asymmetric", mode = "nearest", nearest_mode = "round_prefer_ceil"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
// CHECK: dlc.resize %{{.*}} {mode = "linear"} : (tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
func.func @resize(%x: tensor<1x4x4x3xf32>) -> (tensor<1x8x8x3xf32>, tensor<1x8x8x3xf32>) {
  %0 = tosa.resize %x {scale = array<i64: 2, 1, 2, 1>, offset = array<i64: 0, 0>, border = array<i64: 1, 1>, mode = "NEAREST_NEIGHBOR"} : (tensor<1x4x4x3xf32>) -> tensor<1x8x8x3xf32>
  %1 = tosa.resize %x {scale = array<i64: 4, 2, 4, 2>, offset = array<i64: -1, -1>, border = array<i64: 1, 1>, mode = "BILINEAR"} : (tensor<1x4x4x3xf32>) -> tensor<1x8x8x3xf32>
  return %0, %1 : tensor<1x8x8x3xf32>, tensor<1x8x8x3xf32>
}
