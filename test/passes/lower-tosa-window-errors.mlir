// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlc-lower-tosa
// Convolutions, pooling, gather and resize that verify as TOSA but that dlc
// cannot lower as given are reported at the op with what dlc expects.

func.func @conv_int_result(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xi32>) -> tensor<1x6x6x4xi32> {
  // expected-error @+1 {{'tosa.conv2d' op dlc supports floating-point convolutions only, but got 'tensor<1x8x8x3xf32>' and 'tensor<4x3x3x3xf32>' -> 'tensor<1x6x6x4xi32>'}}
  %0 = tosa.conv2d %x, %w, %b {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xi32>) -> tensor<1x6x6x4xi32>
  return %0 : tensor<1x6x6x4xi32>
}

// -----

func.func @depthwise_channels(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x3x2xf32>, %b: tensor<8xf32>) -> tensor<1x6x6x8xf32> {
  // expected-error @+1 {{'tosa.depthwise_conv2d' op expects a weight of shape [KH, KW, 4, M], but got 'tensor<3x3x3x2xf32>'}}
  %0 = tosa.depthwise_conv2d %x, %w, %b {dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x6x6x4xf32>, tensor<3x3x3x2xf32>, tensor<8xf32>) -> tensor<1x6x6x8xf32>
  return %0 : tensor<1x6x6x8xf32>
}

// -----

func.func @conv_channels(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x2xf32>, %b: tensor<4xf32>) -> tensor<1x6x6x4xf32> {
  // expected-error @+1 {{'tosa.conv2d' op expects a weight of shape [OC, KH, KW, 3], but got 'tensor<4x3x3x2xf32>'}}
  %0 = tosa.conv2d %x, %w, %b {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x2xf32>, tensor<4xf32>) -> tensor<1x6x6x4xf32>
  return %0 : tensor<1x6x6x4xf32>
}

// -----

func.func @conv_window(%x: tensor<1x2x2x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x1x1x4xf32> {
  // expected-error @+1 {{'tosa.conv2d' op has a window (stride [1, 1], dilation [1, 1], pad [0, 0, 0, 0]) that dlc cannot apply to 'tensor<1x2x2x3xf32>'}}
  %0 = tosa.conv2d %x, %w, %b {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x1x1x4xf32>
  return %0 : tensor<1x1x1x4xf32>
}

// -----

func.func @conv_result(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x7x6x4xf32> {
  // expected-error @+1 {{'tosa.conv2d' op expects result shape [1, 6, 6, 4], but got [1, 7, 6, 4]}}
  %0 = tosa.conv2d %x, %w, %b {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x7x6x4xf32>
  return %0 : tensor<1x7x6x4xf32>
}

// -----

func.func @transpose_conv_int_input(%x: tensor<1x4x4x5xi32>, %w: tensor<2x3x3x5xf32>, %b: tensor<2xf32>) -> tensor<1x6x6x2xf32> {
  // expected-error @+1 {{'tosa.transpose_conv2d' op dlc supports floating-point convolutions only}}
  %0 = tosa.transpose_conv2d %x, %w, %b {out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, out_shape = array<i64: 1, 6, 6, 2>} : (tensor<1x4x4x5xi32>, tensor<2x3x3x5xf32>, tensor<2xf32>) -> tensor<1x6x6x2xf32>
  return %0 : tensor<1x6x6x2xf32>
}

// -----

func.func @transpose_conv_channels(%x: tensor<1x4x4x5xf32>, %w: tensor<2x3x3x4xf32>, %b: tensor<2xf32>) -> tensor<1x6x6x2xf32> {
  // expected-error @+1 {{'tosa.transpose_conv2d' op expects a filter of shape [OC, KH, KW, 5], but got 'tensor<2x3x3x4xf32>'}}
  %0 = tosa.transpose_conv2d %x, %w, %b {out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, out_shape = array<i64: 1, 6, 6, 2>} : (tensor<1x4x4x5xf32>, tensor<2x3x3x4xf32>, tensor<2xf32>) -> tensor<1x6x6x2xf32>
  return %0 : tensor<1x6x6x2xf32>
}

// -----

func.func @transpose_conv_out_pad(%x: tensor<1x4x4x5xf32>, %w: tensor<2x3x3x5xf32>, %b: tensor<2xf32>) -> tensor<1x8x6x2xf32> {
  // expected-error @+1 {{'tosa.transpose_conv2d' op has out_pad [2, 0, 0, 0] and stride [1, 1]; dlc supports only cropping (out_pad <= 0) and a bottom or right out_pad below the stride}}
  %0 = tosa.transpose_conv2d %x, %w, %b {out_pad = array<i64: 2, 0, 0, 0>, stride = array<i64: 1, 1>, out_shape = array<i64: 1, 8, 6, 2>} : (tensor<1x4x4x5xf32>, tensor<2x3x3x5xf32>, tensor<2xf32>) -> tensor<1x8x6x2xf32>
  return %0 : tensor<1x8x6x2xf32>
}

// -----

func.func @transpose_conv_result(%x: tensor<1x4x4x5xf32>, %w: tensor<2x3x3x5xf32>, %b: tensor<2xf32>) -> tensor<1x7x6x2xf32> {
  // expected-error @+1 {{'tosa.transpose_conv2d' op expects result shape [1, 6, 6, 2], but got [1, 7, 6, 2]}}
  %0 = tosa.transpose_conv2d %x, %w, %b {out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, out_shape = array<i64: 1, 7, 6, 2>} : (tensor<1x4x4x5xf32>, tensor<2x3x3x5xf32>, tensor<2xf32>) -> tensor<1x7x6x2xf32>
  return %0 : tensor<1x7x6x2xf32>
}

// -----

func.func @pool_int(%x: tensor<1x8x8x3xi32>) -> tensor<1x4x4x3xi32> {
  // expected-error @+1 {{'tosa.max_pool2d' op dlc supports floating-point pooling of one element type only, but got 'tensor<1x8x8x3xi32>' -> 'tensor<1x4x4x3xi32>'}}
  %0 = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x8x8x3xi32>) -> tensor<1x4x4x3xi32>
  return %0 : tensor<1x4x4x3xi32>
}

// -----

func.func @pool_window(%x: tensor<1x2x2x3xf32>) -> tensor<1x1x1x3xf32> {
  // expected-error @+1 {{'tosa.max_pool2d' op has a window (kernel [3, 3], stride [1, 1], pad [0, 0, 0, 0]) that dlc cannot apply to 'tensor<1x2x2x3xf32>'}}
  %0 = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, stride = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x2x2x3xf32>) -> tensor<1x1x1x3xf32>
  return %0 : tensor<1x1x1x3xf32>
}

// -----

func.func @pool_result(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x3x3xf32> {
  // expected-error @+1 {{'tosa.max_pool2d' op expects result shape [1, 4, 4, 3], but got [1, 4, 3, 3]}}
  %0 = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x8x8x3xf32>) -> tensor<1x4x3x3xf32>
  return %0 : tensor<1x4x3x3xf32>
}

// -----

func.func @gather_result(%v: tensor<2x5x3xf32>, %i: tensor<2x4xi32>) -> tensor<2x4x2xf32> {
  // expected-error @+1 {{'tosa.gather' op expects result type 'tensor<2x4x3xf32>', but got 'tensor<2x4x2xf32>'}}
  %0 = tosa.gather %v, %i : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x2xf32>
  return %0 : tensor<2x4x2xf32>
}

// -----

func.func @resize_int(%x: tensor<1x4x4x3xi32>) -> tensor<1x8x8x3xi32> {
  // expected-error @+1 {{'tosa.resize' op dlc supports floating-point resize of one element type only (integer resize is quantized), but got 'tensor<1x4x4x3xi32>' -> 'tensor<1x8x8x3xi32>'}}
  %0 = tosa.resize %x {scale = array<i64: 2, 1, 2, 1>, offset = array<i64: 0, 0>, border = array<i64: 1, 1>, mode = "NEAREST_NEIGHBOR"} : (tensor<1x4x4x3xi32>) -> tensor<1x8x8x3xi32>
  return %0 : tensor<1x8x8x3xi32>
}

// -----

func.func @resize_channels(%x: tensor<1x4x4x3xf32>) -> tensor<1x8x8x2xf32> {
  // expected-error @+1 {{'tosa.resize' op expects the batch and channel sizes to stay}}
  %0 = tosa.resize %x {scale = array<i64: 2, 1, 2, 1>, offset = array<i64: 0, 0>, border = array<i64: 1, 1>, mode = "NEAREST_NEIGHBOR"} : (tensor<1x4x4x3xf32>) -> tensor<1x8x8x2xf32>
  return %0 : tensor<1x8x8x2xf32>
}
