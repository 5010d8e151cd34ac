// RUN: dlc-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect --dlc-test-codegen=package=false
// What the reference interpreter (`dlc run --check`, dlc::runReference)
// reports on functions it cannot evaluate, at the function or the op. The
// inputs are all ones.

func.func @tosa_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'tosa.exp' op is not a dlc operation; the reference interpreter evaluates dlc IR only (lower the model with the dlc-lower pipeline first)}}
  %0 = tosa.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @unloaded_resource() -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.constant' op refers to the resource 'missing', whose data is not loaded}}
  %c = dlc.constant dense_resource<missing> : tensor<4xf32>
  return %c : tensor<4xf32>
}

// -----

func.func @short_resource() -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.constant' op the resource 'short' holds 8 bytes, but tensor<4xf32> needs 16 (4 elements of 4 bytes)}}
  %c = dlc.constant dense_resource<short> : tensor<4xf32>
  return %c : tensor<4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x040000000000803F0000803F"
    }
  }
#-}

// -----

func.func @float_and(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'dlc.or' op is not defined on floating-point tensors (it needs i1 or integer operands)}}
  %0 = dlc.or %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @divide_by_zero(%x: tensor<4xi32>) -> tensor<4xi32> {
  %z = dlc.constant dense<[1, 2, 0, 4]> : tensor<4xi32>
  // expected-error @+1 {{'dlc.div' op divides by zero (element 2 of the result)}}
  %0 = dlc.div %x, %z : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// expected-error @+1 {{'func.func' op has no body to evaluate}}
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// -----

// expected-error @+1 {{'func.func' op has several blocks; the reference interpreter evaluates single-block functions}}
func.func @two_blocks(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
^bb1:
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op argument #1 has type 'tensor<?xf32>'; the reference interpreter needs static-shape tensors of f32, f16, bf16, f8E4M3FN, i32, i64 or i1}}
func.func @dynamic_argument(%x: tensor<4xf32>, %y: tensor<?xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

// expected-error @+1 {{'func.func' op result #0 has type 'tensor<4xf64>'; the reference interpreter needs static-shape tensors of f32, f16, bf16, f8E4M3FN, i32, i64 or i1}}
func.func @f64_result(%x: tensor<4xf32>) -> tensor<4xf64> {
  %c = arith.constant dense<1.0> : tensor<4xf64>
  return %c : tensor<4xf64>
}

// -----

// An unregistered op has no dialect: it is reported, not dereferenced.
func.func @unregistered_terminator(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'test.return' op is not a dlc operation; the reference interpreter evaluates dlc IR only}}
  "test.return"(%x) : (tensor<4xf32>) -> ()
}

// -----

// The reference holds every value as doubles: a tensor the device never
// stores (it is fused away) may still be too large for it.
func.func @huge_intermediate(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'dlc.tile' op has a result of 274877906944 elements; the reference interpreter evaluates tensors of at most 1073741824 elements}}
  %0 = dlc.tile %x {multiples = array<i64: 8589934592, 1>} : (tensor<4x8xf32>) -> tensor<34359738368x8xf32>
  %1 = dlc.slice %0 {start = array<i64: 0, 0>, size = array<i64: 4, 8>} : (tensor<34359738368x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
