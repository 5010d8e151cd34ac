// RUN: dlc-opt --split-input-file --dlc-lower-conv=library-conv=false %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-lower-conv %s | FileCheck %s --check-prefix=LIB

// A 3x3 convolution: im2col into [N, G, C*KH*KW, OH*OW], then one GEMM with
// the filter viewed as [1, OC, C*KH*KW] (rank 3 without groups); the product
// is viewed as NCHW.
// CHECK-LABEL: func.func @general
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>)
// CHECK: %[[C:.*]] = dlc.im2col %[[X]] {dilations = array<i64: 1, 1>, groups = 1 : i64, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>) -> tensor<2x1x27x16xf32>
// CHECK: %[[WR:.*]] = dlc.reshape %[[W]] : tensor<16x3x3x3xf32> -> tensor<1x16x27xf32>
// CHECK: %[[CR:.*]] = dlc.reshape %[[C]] : tensor<2x1x27x16xf32> -> tensor<2x27x16xf32>
// CHECK: %[[P:.*]] = dlc.matmul %[[WR]], %[[CR]] {acc_type = f32, dlc.from_conv} : (tensor<1x16x27xf32>, tensor<2x27x16xf32>) -> tensor<2x16x16xf32>
// CHECK: %[[Y:.*]] = dlc.reshape %[[P]] : tensor<2x16x16xf32> -> tensor<2x16x4x4xf32>
// CHECK: return %[[Y]]
func.func @general(%x: tensor<2x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<2x16x4x4xf32> {
  %0 = dlc.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64, acc_type = f32} : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x4x4xf32>
  return %0 : tensor<2x16x4x4xf32>
}

// -----

// A 1x1, stride-1, unpadded convolution needs no im2col: the input viewed
// as [N, C, H*W] is already the GEMM's right operand. A constant filter is
// reshaped at compile time.
// CHECK-LABEL: func.func @pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x5x5xf32>)
// CHECK-NOT: dlc.im2col
// CHECK-DAG: %[[W:.*]] = dlc.constant dense<{{.*}}> : tensor<1x8x4xf32>
// CHECK-DAG: %[[XR:.*]] = dlc.reshape %[[X]] : tensor<2x4x5x5xf32> -> tensor<2x4x25xf32>
// CHECK: %[[P:.*]] = dlc.matmul %[[W]], %[[XR]] {dlc.from_conv} : (tensor<1x8x4xf32>, tensor<2x4x25xf32>) -> tensor<2x8x25xf32>
// CHECK: dlc.reshape %[[P]] : tensor<2x8x25xf32> -> tensor<2x8x5x5xf32>
func.func @pointwise(%x: tensor<2x4x5x5xf32>) -> tensor<2x8x5x5xf32> {
  %w = dlc.constant dense<0.5> : tensor<8x4x1x1xf32>
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x4x5x5xf32>, tensor<8x4x1x1xf32>) -> tensor<2x8x5x5xf32>
  return %0 : tensor<2x8x5x5xf32>
}

// -----

// Groups become a GEMM batch dimension: [1, G, OC/G, K] x [N, G, K, OH*OW].
// CHECK-LABEL: func.func @grouped
// CHECK: dlc.im2col %{{.*}} {{.*}}groups = 2 : i64{{.*}} : (tensor<1x4x6x6xf16>) -> tensor<1x2x18x36xf16>
// CHECK: dlc.reshape %{{.*}} : tensor<6x2x3x3xf16> -> tensor<1x2x3x18xf16>
// CHECK: dlc.matmul %{{.*}}, %{{.*}} : (tensor<1x2x3x18xf16>, tensor<1x2x18x36xf16>) -> tensor<1x2x3x36xf16>
// CHECK: dlc.reshape %{{.*}} : tensor<1x2x3x36xf16> -> tensor<1x6x6x6xf16>
func.func @grouped(%x: tensor<1x4x6x6xf16>, %w: tensor<6x2x3x3xf16>) -> tensor<1x6x6x6xf16> {
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x6x6xf16>, tensor<6x2x3x3xf16>) -> tensor<1x6x6x6xf16>
  return %0 : tensor<1x6x6x6xf16>
}

// -----

// Depthwise convolutions (one input channel and at most 4 outputs per group)
// stay direct; so do transposed convolutions.
// CHECK-LABEL: func.func @direct
// CHECK-NOT: dlc.matmul
// CHECK: dlc.conv2d
// CHECK: dlc.conv_transpose2d
// CHECK-NOT: dlc.matmul
func.func @direct(%x: tensor<1x4x6x6xf32>, %w: tensor<8x1x3x3xf32>, %t: tensor<8x2x2x2xf32>) -> tensor<1x2x12x12xf32> {
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x6x6xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  %1 = dlc.conv_transpose2d %0, %t {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x8x6x6xf32>, tensor<8x2x2x2xf32>) -> tensor<1x2x12x12xf32>
  return %1 : tensor<1x2x12x12xf32>
}

// -----

// One input channel but many outputs per group is a GEMM again.
// CHECK-LABEL: func.func @wide_depthwise
// CHECK: dlc.im2col
// CHECK: dlc.matmul
func.func @wide_depthwise(%x: tensor<1x2x6x6xf32>, %w: tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32> {
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x2x6x6xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// Channels-last (dlc.channels_last, from dlc-assign-layout): the product has
// the channels on its columns, [N*H*W, OC], viewed as NHWC. A 1x1
// convolution of a channels-last input multiplies that input viewed as
// [N*H*W, C] by the filter transposed; the transposes around it go.
// CHECK-LABEL: func.func @channels_last_pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<2x5x5x4xf32>)
// CHECK-NOT: dlc.transpose
// CHECK-DAG: %[[XR:.*]] = dlc.reshape %[[X]] : tensor<2x5x5x4xf32> -> tensor<50x4xf32>
// CHECK-DAG: %[[W:.*]] = dlc.constant dense<5.000000e-01> : tensor<8x4xf32>
// CHECK: %[[P:.*]] = dlc.matmul %[[XR]], %[[W]] {dlc.from_conv, transpose_b} : (tensor<50x4xf32>, tensor<8x4xf32>) -> tensor<50x8xf32>
// CHECK: %[[Y:.*]] = dlc.reshape %[[P]] : tensor<50x8xf32> -> tensor<2x5x5x8xf32>
// CHECK: return %[[Y]]
// LIB-LABEL: func.func @channels_last_pointwise
// LIB: dlc.matmul
// LIB-NOT: dlc.conv
func.func @channels_last_pointwise(%x: tensor<2x5x5x4xf32>) -> tensor<2x5x5x8xf32> {
  %w = dlc.constant dense<0.5> : tensor<8x4x1x1xf32>
  %xn = dlc.transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<2x5x5x4xf32>) -> tensor<2x4x5x5xf32>
  %0 = dlc.conv2d %xn, %w {dlc.channels_last, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x4x5x5xf32>, tensor<8x4x1x1xf32>) -> tensor<2x8x5x5xf32>
  %1 = dlc.transpose %0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x8x5x5xf32>) -> tensor<2x5x5x8xf32>
  return %1 : tensor<2x5x5x8xf32>
}

// -----

// Any other channels-last convolution multiplies its im2col columns
// [N, K, OH*OW], transposed, by the filter [1, OC, K], transposed; an NCHW
// user gets a transpose of the NHWC product.
// CHECK-LABEL: func.func @channels_last_general
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>)
// CHECK: %[[C:.*]] = dlc.im2col %[[X]] {{.*}} : (tensor<2x3x8x8xf32>) -> tensor<2x1x27x16xf32>
// CHECK-DAG: %[[WR:.*]] = dlc.reshape %[[W]] : tensor<16x3x3x3xf32> -> tensor<1x16x27xf32>
// CHECK-DAG: %[[CR:.*]] = dlc.reshape %[[C]] : tensor<2x1x27x16xf32> -> tensor<2x27x16xf32>
// CHECK: %[[P:.*]] = dlc.matmul %[[CR]], %[[WR]] {dlc.from_conv, transpose_a, transpose_b} : (tensor<2x27x16xf32>, tensor<1x16x27xf32>) -> tensor<2x16x16xf32>
// CHECK: %[[Y:.*]] = dlc.reshape %[[P]] : tensor<2x16x16xf32> -> tensor<2x4x4x16xf32>
// CHECK: %[[N:.*]] = dlc.transpose %[[Y]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[Y]], %[[N]]
// With library convolutions (the default) the same convolution is one
// dlc.conv: its NCHW input transposed to NHWC (a model input), the filter
// to KRSC, no im2col.
// LIB-LABEL: func.func @channels_last_general
// LIB-SAME: (%[[X:.*]]: tensor<2x3x8x8xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>)
// LIB-NOT: dlc.im2col
// LIB-DAG: %[[XT:.*]] = dlc.transpose %[[X]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x3x8x8xf32>) -> tensor<2x8x8x3xf32>
// LIB-DAG: %[[WT:.*]] = dlc.transpose %[[W]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<16x3x3x3xf32>) -> tensor<16x3x3x3xf32>
// LIB: %[[Y:.*]] = dlc.conv %[[XT]], %[[WT]] {dilations = array<i64: 1, 1>, groups = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x8x3xf32>, tensor<16x3x3x3xf32>) -> tensor<2x4x4x16xf32>
// LIB: %[[N:.*]] = dlc.transpose %[[Y]] {perm = array<i64: 0, 3, 1, 2>}
// LIB: return %[[Y]], %[[N]]
func.func @channels_last_general(%x: tensor<2x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) -> (tensor<2x4x4x16xf32>, tensor<2x16x4x4xf32>) {
  %0 = dlc.conv2d %x, %w {dlc.channels_last, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<2x16x4x4xf32>
  %1 = dlc.transpose %0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x16x4x4xf32>) -> tensor<2x4x4x16xf32>
  return %1, %0 : tensor<2x4x4x16xf32>, tensor<2x16x4x4xf32>
}

// -----

// A channels-last 1x1 convolution of an NCHW value (a model input) needs no
// transpose either: the input viewed as [C, H*W] (batch 1) is its columns.
// CHECK-LABEL: func.func @channels_last_nchw_input
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x5x5xf32>, %[[W:.*]]: tensor<8x4x1x1xf32>)
// CHECK-NOT: dlc.transpose
// CHECK-DAG: %[[WR:.*]] = dlc.reshape %[[W]] : tensor<8x4x1x1xf32> -> tensor<8x4xf32>
// CHECK-DAG: %[[XR:.*]] = dlc.reshape %[[X]] : tensor<1x4x5x5xf32> -> tensor<4x25xf32>
// CHECK: dlc.matmul %[[XR]], %[[WR]] {dlc.from_conv, transpose_a, transpose_b} : (tensor<4x25xf32>, tensor<8x4xf32>) -> tensor<25x8xf32>
func.func @channels_last_nchw_input(%x: tensor<1x4x5x5xf32>, %w: tensor<8x4x1x1xf32>) -> tensor<1x5x5x8xf32> {
  %0 = dlc.conv2d %x, %w {dlc.channels_last, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x5x5xf32>
  %1 = dlc.transpose %0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x8x5x5xf32>) -> tensor<1x5x5x8xf32>
  return %1 : tensor<1x5x5x8xf32>
}

// -----

// Asymmetric padding (TensorFlow's SAME with an even window) is not
// cuDNN's: the convolution stays im2col and a GEMM.
// LIB-LABEL: func.func @asymmetric
// LIB: dlc.im2col
// LIB: dlc.matmul
// LIB-NOT: dlc.conv
func.func @asymmetric(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x2x2xf32>) -> tensor<1x4x8x8xf32> {
  %0 = dlc.conv2d %x, %w {dlc.channels_last, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x2x2xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}
