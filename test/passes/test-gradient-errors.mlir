// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlc-test-gradient

func.func @no_rule(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32> {
  // expected-error @+1 {{'dlc.resize' op has no gradient rule}}
  %r = dlc.resize %x {mode = "nearest"} : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
  return %r : tensor<1x1x4x4xf32>
}

// -----

func.func @product_reduction(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'dlc.reduce' op has no gradient rule for a product reduction yet}}
  %m = dlc.reduce prod %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %m : tensor<2x1xf32>
}

// -----

func.func @epilogue(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %bias: tensor<4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'dlc.matmul' op has no gradient rule for a product with an epilogue yet (differentiate before fusion)}}
  %c = dlc.matmul %a, %b bias(%bias) epilogue(relu) : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// -----

// expected-error @+1 {{dlc-test-gradient expects one float result}}
func.func @integer_result(%x: tensor<4xi32>) -> tensor<4xi32> {
  return %x : tensor<4xi32>
}
