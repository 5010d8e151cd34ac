// RUN: dlc-opt %s --split-input-file --verify-diagnostics
// Verifiers that compute with shapes reject tensors over the 2^40-byte limit
// and attribute values whose arithmetic overflows, instead of overflowing
// (found by fuzz-pipeline).

func.func @tile_overflow(%x: tensor<4294967296xi1>) {
  // expected-error @+1 {{'dlc.tile' op has attribute values whose arithmetic with the input shape overflows 64-bit integers}}
  %0 = dlc.tile %x {multiples = array<i64: 4294967296>} : (tensor<4294967296xi1>) -> tensor<8xi1>
  return
}

// -----

func.func @pad_overflow(%x: tensor<4xf32>) {
  // expected-error @+1 {{'dlc.pad' op has attribute values whose arithmetic with the input shape overflows 64-bit integers}}
  %0 = dlc.pad %x {low = array<i64: 9223372036854775807>, high = array<i64: 1>, value = 0.0 : f64} : (tensor<4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @slice_overflow(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dlc.slice' op has attribute values whose arithmetic with the input shape overflows 64-bit integers}}
  %0 = dlc.slice %x {start = array<i64: 1>, strides = array<i64: 4611686018427387904>} : (tensor<8xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @reshape_huge(%x: tensor<8xf32>) {
  // expected-error @+1 {{'dlc.reshape' op result #0 has type 'tensor<4294967296x4294967296xf32>', which is larger than the 2^40 bytes (1 TiB) dlc supports for one tensor}}
  %0 = dlc.reshape %x : tensor<8xf32> -> tensor<4294967296x4294967296xf32>
  return
}

// -----

func.func @matmul_huge_operand(%a: tensor<2x9223372036854775807xf32>, %b: tensor<2x2xf32>) {
  // expected-error @+1 {{'dlc.matmul' op operand #0 has type 'tensor<2x9223372036854775807xf32>', which is larger than the 2^40 bytes}}
  %0 = dlc.matmul %a, %b : (tensor<2x9223372036854775807xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return
}
