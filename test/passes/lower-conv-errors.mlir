// RUN: dlc-opt --split-input-file --verify-diagnostics --dlc-lower-conv=library-conv=false %s

// A convolution within the size limit whose im2col columns (nine copies of
// the input) are not: refused at the convolution, in either layout, before
// any op beyond the limit exists.
func.func @columns_too_large(%x: tensor<1x3x2147483647x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x2147483647x8xf32> {
  // expected-error @+1 {{'dlc.conv2d' op needs im2col columns of shape [1, 1, 27, 17179869176], which are larger than the 2^40 bytes (1 TiB) dlc supports for one tensor}}
  %0 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x2147483647x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x2147483647x8xf32>
  return %0 : tensor<1x16x2147483647x8xf32>
}

// -----

func.func @channels_last_columns_too_large(%x: tensor<1x3x2147483647x8xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<1x16x2147483647x8xf32> {
  // expected-error @+1 {{'dlc.conv2d' op needs im2col columns of shape [1, 1, 27, 17179869176], which are larger than the 2^40 bytes (1 TiB) dlc supports for one tensor}}
  %0 = dlc.conv2d %x, %w {dlc.channels_last, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x2147483647x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x2147483647x8xf32>
  return %0 : tensor<1x16x2147483647x8xf32>
}
