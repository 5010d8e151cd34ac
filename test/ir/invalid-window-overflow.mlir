// RUN: dlc-opt %s --split-input-file --verify-diagnostics
// Window attributes whose arithmetic overflows 64-bit integers are rejected,
// not computed with undefined behavior (found by fuzz-parse).

func.func @im2col_pads_overflow(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'dlc.im2col' op has sizes, pads, strides or dilations whose arithmetic overflows 64-bit integers}}
  %0 = dlc.im2col %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 4294967296, 4294967296, 4294967296, 4294967296>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x1x36x64xf32>
  return
}

// -----

func.func @conv_dilation_overflow(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op has sizes, pads, strides or dilations whose arithmetic overflows 64-bit integers}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 9223372036854775807, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_pads_overflow(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op has sizes, pads, strides or dilations whose arithmetic overflows 64-bit integers}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 9223372036854775807, 0, 9223372036854775807, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_empty_window(%x: tensor<1x4x8x8xf32>, %w: tensor<2x4x0x3xf32>) {
  // expected-error @+1 {{'dlc.conv2d' op expects a window of at least one element along the rows, but got 0}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<2x4x0x3xf32>) -> tensor<1x2x8x6xf32>
  return
}

// -----

func.func @conv_transpose_stride_overflow(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+1 {{'dlc.conv_transpose2d' op has sizes, pads, strides or dilations whose arithmetic overflows 64-bit integers}}
  %0 = dlc.conv_transpose2d %x, %w {strides = array<i64: 4611686018427387904, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x10x10xf32>
  return
}

// -----

func.func @pool_ceil_overflow(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'dlc.pool2d' op expects result shape [1, 4, 1, 8]}}
  %0 = dlc.pool2d max %x {kernel = array<i64: 1, 1>, strides = array<i64: 4611686018427387904, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x2x8xf32>
  return
}
