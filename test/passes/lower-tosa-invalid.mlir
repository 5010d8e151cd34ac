// RUN: dlc-opt %s --allow-unregistered-dialect --split-input-file --verify-diagnostics --dlc-lower-tosa
// Operations dlc cannot lower are reported at their location and the pass
// fails.

func.func @sin(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dlc cannot lower 'tosa.sin' yet}}
  %0 = tosa.sin %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unknown_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{dlc cannot lower 'foo.bar' yet}}
  %0 = "foo.bar"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @other_dialect() -> tensor<4xf32> {
  // expected-error @+1 {{dlc cannot lower 'tensor.empty' yet}}
  %0 = tensor.empty() : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @scalar_constant() {
  // expected-error @+1 {{dlc cannot lower 'arith.constant' yet}}
  %0 = arith.constant 1 : i32
  return
}

// -----

// Every failing operation is reported, not only the first; the body of an
// operation that cannot be lowered is not looked into.
func.func @several(%x: tensor<4xf32>, %c: tensor<i1>) -> tensor<4xf32> {
  // expected-error @+1 {{dlc cannot lower 'tosa.floor' yet}}
  %0 = tosa.floor %x : (tensor<4xf32>) -> tensor<4xf32>
  %1 = tosa.exp %0 : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @+1 {{dlc cannot lower 'tosa.cond_if' yet}}
  %2 = tosa.cond_if %c -> (tensor<4xf32>) {
    %3 = "foo.unreported"(%1) : (tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %3 : tensor<4xf32>
  } else {
    tosa.yield %1 : tensor<4xf32>
  }
  // expected-error @+1 {{dlc cannot lower 'tosa.sin' yet}}
  %4 = tosa.sin %2 : (tensor<4xf32>) -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op dlc requires static shapes, but argument #0 has type 'tensor<?x4xf32>'}}
func.func @dynamic_operand(%x: tensor<?x4xf32>, %y: tensor<1x4xf32>) -> tensor<1x4xf32> {
  // expected-error @+1 {{'tosa.add' op dlc requires static shapes, but operand #0 has type 'tensor<?x4xf32>'}}
  %0 = tosa.add %x, %y : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// expected-error @+2 {{'func.func' op dlc requires static shapes, but argument #0 has type 'tensor<?x4xf32>'}}
// expected-error @+1 {{'func.func' op dlc requires static shapes, but result #0 has type 'tensor<?x4xf32>'}}
func.func @dynamic_argument(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

func.func @unranked(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.exp' op dlc requires static shapes, but result #0 has type 'tensor<*xf32>'}}
  %0 = tosa.exp %x : (tensor<4xf32>) -> tensor<*xf32>
  // expected-error @+1 {{dlc cannot lower 'tensor.cast' yet}}
  %1 = tensor.cast %0 : tensor<*xf32> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// expected-error @+2 {{'func.func' op dlc does not support element type 'i8' (argument #0 has type 'tensor<4xi8>'); supported element types are f32, f16, bf16, i32, i64 and i1}}
// expected-error @+1 {{'func.func' op dlc does not support element type 'i8' (result #0 has type 'tensor<4xi8>')}}
func.func @quantized_argument(%x: tensor<4xi8>) -> tensor<4xi8> {
  // expected-error @+1 {{'tosa.abs' op dlc does not support element type 'i8' (operand #0 has type 'tensor<4xi8>'); supported element types are f32, f16, bf16, i32, i64 and i1}}
  %0 = tosa.abs %x : (tensor<4xi8>) -> tensor<4xi8>
  return %0 : tensor<4xi8>
}

// -----

func.func @f64(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.cast' op dlc does not support element type 'f64' (result #0 has type 'tensor<4xf64>')}}
  %0 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xf64>
  // expected-error @+1 {{'tosa.cast' op dlc does not support element type 'f64' (operand #0 has type 'tensor<4xf64>')}}
  %1 = tosa.cast %0 : (tensor<4xf64>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @transpose_perms_not_constant(%x: tensor<4x8xf32>, %p: tensor<2xi32>) -> tensor<8x4xf32> {
  // expected-error @+1 {{'tosa.transpose' op expects the permutation to be a constant (tosa.const)}}
  %0 = tosa.transpose %x, %p : (tensor<4x8xf32>, tensor<2xi32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @pad_not_constant(%x: tensor<4xf32>, %p: tensor<1x2xi32>) -> tensor<6xf32> {
  // expected-error @+1 {{'tosa.pad' op expects the padding to be a constant (tosa.const)}}
  %0 = tosa.pad %x, %p : (tensor<4xf32>, tensor<1x2xi32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @pad_value_not_constant(%x: tensor<4xf32>, %v: tensor<f32>) -> tensor<6xf32> {
  %p = "tosa.const"() {value = dense<[[1, 1]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  // expected-error @+1 {{'tosa.pad' op expects the pad value to be a scalar constant (tosa.const)}}
  %0 = tosa.pad %x, %p, %v : (tensor<4xf32>, tensor<1x2xi32>, tensor<f32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

func.func @mul_float_shift(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.mul' op expects shift 0 for a floating-point multiply, but got 2}}
  %0 = tosa.mul %x, %x {shift = 2 : i8} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @mul_i64_shift(%x: tensor<4xi64>) -> tensor<4xi64> {
  // expected-error @+1 {{'tosa.mul' op supports a nonzero shift only for i32, but the element type is 'i64'}}
  %0 = tosa.mul %x, %x {shift = 2 : i8} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

func.func @mul_shift_range(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tosa.mul' op expects a shift in [0, 63], but got 64}}
  %0 = tosa.mul %x, %x {shift = 64 : i8} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @integer_exp(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tosa.exp' op dlc supports this operation only on floating-point tensors, but got element type 'i32'}}
  %0 = tosa.exp %x : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @pad_negative(%x: tensor<4xf32>) -> tensor<3xf32> {
  %p = "tosa.const"() {value = dense<[[-1, 0]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  // expected-error @+1 {{'tosa.pad' op expects non-negative padding, but dimension 0 has low -1 and high 0}}
  %0 = tosa.pad %x, %p : (tensor<4xf32>, tensor<1x2xi32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @clamp_float_bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.clamp' op expects min <= max, but got min = 6.000000e+00 and max = 0.000000e+00}}
  %0 = tosa.clamp %x {min_int = 0 : i64, max_int = 0 : i64, min_fp = 6.0 : f32, max_fp = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_int_bounds(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'tosa.clamp' op expects min <= max, but got min = 5.000000e+00 and max = 1.000000e+00}}
  %0 = tosa.clamp %x {min_int = 5 : i64, max_int = 1 : i64, min_fp = 0.0 : f32, max_fp = 0.0 : f32} : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @slice_bounds(%x: tensor<4x8xf32>) -> tensor<2x9xf32> {
  // expected-error @+1 {{'tosa.slice' op slice [1, 10) of dimension 1 is out of bounds for size 8}}
  %0 = tosa.slice %x {start = array<i64: 0, 1>, size = array<i64: 2, 9>} : (tensor<4x8xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

func.func @fully_connected_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<3xf32>) -> tensor<4x16xf32> {
  // expected-error @+1 {{'tosa.fully_connected' op expects a bias of 16 elements (or 1), but got 'tensor<3xf32>'}}
  %0 = tosa.fully_connected %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<3xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

func.func @matmul_shapes(%a: tensor<2x4x8xf32>, %b: tensor<2x7x16xf32>) -> tensor<2x4x16xf32> {
  // expected-error @+1 {{'tosa.matmul' op has incompatible shapes 'tensor<2x4x8xf32>' x 'tensor<2x7x16xf32>' -> 'tensor<2x4x16xf32>'}}
  %0 = tosa.matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x7x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

func.func @argmax_bool(%x: tensor<4x8xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'tosa.argmax' op expects an i32 or i64 result, but got 'tensor<4xi1>'}}
  %0 = tosa.argmax %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @reshape_count(%x: tensor<4x8xf32>) -> tensor<4x5xf32> {
  // expected-error @+1 {{'tosa.reshape' op cannot reshape 32 elements into 20}}
  %0 = tosa.reshape %x {new_shape = array<i64: 4, 5>} : (tensor<4x8xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

func.func @tile_shape(%x: tensor<4x8xf32>) -> tensor<8x9xf32> {
  // expected-error @+1 {{'tosa.tile' op multiples [2, 1] do not tile 'tensor<4x8xf32>' into 'tensor<8x9xf32>'}}
  %0 = tosa.tile %x {multiples = array<i64: 2, 1>} : (tensor<4x8xf32>) -> tensor<8x9xf32>
  return %0 : tensor<8x9xf32>
}

// -----

func.func @quantized_negate(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.negate' op dlc does not support quantized operations}}
  %0 = tosa.negate %x {quantization_info = #tosa.unary_quant<input_zp = 1, output_zp = 2>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @conv2d_result(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<1x8x8x4xf32> {
  // expected-error @+1 {{expects result shape [1, 6, 6, 4], but got [1, 8, 8, 4]}}
  %0 = tosa.conv2d %x, %w, %b {dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  return %0 : tensor<1x8x8x4xf32>
}

// -----

func.func @transpose_conv2d_out_pad(%x: tensor<1x4x4x3xf32>, %w: tensor<2x3x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x11x9x2xf32> {
  // expected-error @+1 {{has out_pad [1, 0, 0, 0] and stride [2, 2]; dlc supports only cropping (out_pad <= 0) and a bottom or right out_pad below the stride}}
  %0 = tosa.transpose_conv2d %x, %w, %b {out_pad = array<i64: 1, 0, 0, 0>, stride = array<i64: 2, 2>, out_shape = array<i64: 1, 10, 9, 2>} : (tensor<1x4x4x3xf32>, tensor<2x3x3x3xf32>, tensor<2xf32>) -> tensor<1x11x9x2xf32>
  return %0 : tensor<1x11x9x2xf32>
}

// -----

func.func @pool_result(%x: tensor<1x8x8x3xf32>) -> tensor<1x3x3x3xf32> {
  // expected-error @+1 {{expects result shape [1, 4, 4, 3], but got [1, 3, 3, 3]}}
  %0 = tosa.max_pool2d %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x8x8x3xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// -----

func.func @resize_offset(%x: tensor<1x4x4x3xf32>) -> tensor<1x8x8x3xf32> {
  // expected-error @+1 {{has scale [2, 1, 2, 1] and offset [1, 1] for 'tensor<1x4x4x3xf32>' -> 'tensor<1x8x8x3xf32>'; dlc supports scales equal to the size ratio with offset 0 (asymmetric) or (d - n) / 2 (half pixel) in both dimensions}}
  %0 = tosa.resize %x {scale = array<i64: 2, 1, 2, 1>, offset = array<i64: 1, 1>, border = array<i64: 0, 0>, mode = "BILINEAR"} : (tensor<1x4x4x3xf32>) -> tensor<1x8x8x3xf32>
  return %0 : tensor<1x8x8x3xf32>
}

// -----

func.func @resize_int(%x: tensor<1x4x4x3xi32>) -> tensor<1x8x8x3xi32> {
  // expected-error @+1 {{dlc supports floating-point resize of one element type only}}
  %0 = tosa.resize %x {scale = array<i64: 2, 1, 2, 1>, offset = array<i64: 0, 0>, border = array<i64: 1, 1>, mode = "NEAREST_NEIGHBOR"} : (tensor<1x4x4x3xi32>) -> tensor<1x8x8x3xi32>
  return %0 : tensor<1x8x8x3xi32>
}
