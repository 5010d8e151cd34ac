// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlc-lower-tosa
// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlc-fuse
// RUN: dlc-opt %s --split-input-file --verify-diagnostics --dlc-plan-memory
// A tensor may span at most 2^40 bytes: beyond that, sizes and strides could
// overflow 64-bit arithmetic in the passes and code generation. Every pass
// that computes with shapes checks this first and names each value at fault.

// expected-error @+1 {{'func.func' op argument #0 has type 'tensor<1099511627776xf32>', which is larger than the 2^40 bytes (1 TiB) dlc supports for one tensor}}
func.func @huge_argument(%x: tensor<1099511627776xf32>) -> tensor<1099511627776xf32> {
  // expected-error @+1 {{'dlc.exp' op result #0 has type 'tensor<1099511627776xf32>', which is larger}}
  %0 = dlc.exp %x : tensor<1099511627776xf32>
  return %0 : tensor<1099511627776xf32>
}

// -----

// Exactly 2^40 bytes is accepted.
func.func @at_the_limit(%x: tensor<274877906944xf32>) -> tensor<274877906944xf32> {
  %0 = dlc.exp %x : tensor<274877906944xf32>
  return %0 : tensor<274877906944xf32>
}

// -----

// A zero extent does not make the other extents' strides small.
// expected-error @+1 {{'func.func' op argument #0 has type 'tensor<0x2305843009213693952xf32>', which is larger}}
func.func @zero_extent(%x: tensor<0x2305843009213693952xf32>) -> tensor<0x2305843009213693952xf32> {
  return %x : tensor<0x2305843009213693952xf32>
}

// -----

// An intermediate value alone can be too large.
func.func @huge_intermediate(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @+1 {{'dlc.tile' op result #0 has type 'tensor<4398046511104x8xf32>', which is larger}}
  %0 = dlc.tile %x {multiples = array<i64: 1099511627776, 1>} : (tensor<4x8xf32>) -> tensor<4398046511104x8xf32>
  %1 = dlc.slice %0 {start = array<i64: 0, 0>, size = array<i64: 4, 8>} : (tensor<4398046511104x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
