// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlc-lower-tosa
// TOSA operations that verify but that dlc cannot lower as given are
// reported at the op (or the function) with what dlc expects.

// expected-error @+1 {{'func.func' op dlc requires tensor values, but argument #0 has type 'f32'}}
func.func @not_tensor(%x: f32) -> tensor<4xf32> {
  %0 = "tosa.const"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @clamp_nan(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.clamp' op expects non-NaN clamp bounds}}
  %0 = tosa.clamp %x {min_fp = 0x7FC00000 : f32, max_fp = 6.0 : f32, min_int = 0 : i64, max_int = 6 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @reduce_bool(%x: tensor<4x8xi1>) -> tensor<4x1xi1> {
  // expected-error @+1 {{'tosa.reduce_max' op cannot reduce a boolean tensor}}
  %0 = "tosa.reduce_max"(%x) {axis = 1 : i32} : (tensor<4x8xi1>) -> tensor<4x1xi1>
  return %0 : tensor<4x1xi1>
}

// -----

func.func @reduce_all_float(%x: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @+1 {{'tosa.reduce_all' op expects an i1 input and result type 'tensor<4x1xf32>'}}
  %0 = "tosa.reduce_all"(%x) {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  return %0 : tensor<4x1xf32>
}

// -----

func.func @matmul_int_to_float(%a: tensor<1x4x8xi32>, %b: tensor<1x8x2xi32>) -> tensor<1x4x2xf32> {
  // expected-error @+1 {{'tosa.matmul' op cannot compute a 'f32' product of 'i32' operands}}
  %0 = "tosa.matmul"(%a, %b) : (tensor<1x4x8xi32>, tensor<1x8x2xi32>) -> tensor<1x4x2xf32>
  return %0 : tensor<1x4x2xf32>
}

// -----

func.func @matmul_bool(%a: tensor<1x4x8xi1>, %b: tensor<1x8x2xi1>) -> tensor<1x4x2xi1> {
  // expected-error @+1 {{'tosa.matmul' op cannot multiply boolean matrices}}
  %0 = "tosa.matmul"(%a, %b) : (tensor<1x4x8xi1>, tensor<1x8x2xi1>) -> tensor<1x4x2xi1>
  return %0 : tensor<1x4x2xi1>
}

// -----

func.func @fc_mixed(%x: tensor<2x8xf32>, %w: tensor<4x8xf16>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tosa.fully_connected' op expects input and weight of one element type}}
  %0 = "tosa.fully_connected"(%x, %w, %b) : (tensor<2x8xf32>, tensor<4x8xf16>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @fc_shapes(%x: tensor<2x8xf32>, %w: tensor<4x7xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'tosa.fully_connected' op has incompatible shapes 'tensor<2x8xf32>' x 'tensor<4x7xf32>'^T -> 'tensor<2x4xf32>'}}
  %0 = "tosa.fully_connected"(%x, %w, %b) : (tensor<2x8xf32>, tensor<4x7xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @transpose_result(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %p = "tosa.const"() {value = dense<[1, 0]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+1 {{'tosa.transpose' op expects result shape [3, 2]}}
  %0 = "tosa.transpose"(%x, %p) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @slice_size(%x: tensor<4x8xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'tosa.slice' op expects 2 start indices and a size equal to the result shape [2, 2]}}
  %0 = "tosa.slice"(%x) {start = array<i64: 0, 0>, size = array<i64: 2, 3>} : (tensor<4x8xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @pad_amounts(%x: tensor<2x3xf32>) -> tensor<4x3xf32> {
  %p = "tosa.const"() {value = dense<[1, 1]> : tensor<2xi32>} : () -> tensor<2xi32>
  // expected-error @+1 {{'tosa.pad' op expects 4 padding amounts, but got 2}}
  %0 = "tosa.pad"(%x, %p) : (tensor<2x3xf32>, tensor<2xi32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @identity_shape(%x: tensor<4xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'tosa.identity' op expects the result type to equal the operand type}}
  %0 = "tosa.identity"(%x) : (tensor<4xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @const_element_type() -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.const' op expects a value of the result type 'tensor<4xf32>'}}
  %0 = "tosa.const"() {value = dense<1> : tensor<4xi32>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cast_shape(%x: tensor<4xf32>) -> tensor<2x2xf16> {
  // expected-error @+1 {{'tosa.cast' op expects the result shape to equal the input shape}}
  %0 = "tosa.cast"(%x) : (tensor<4xf32>) -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}
