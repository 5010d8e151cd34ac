// RUN: dlc-opt %s --canonicalize --split-input-file | FileCheck %s
// Folds and canonicalization patterns of the dlc dialect.

// A transpose of the last two dimensions becomes a matmul flag.
// CHECK-LABEL: func.func @transpose_into_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x8x4xf32>, %[[B:.*]]: tensor<2x16x8xf32>)
func.func @transpose_into_matmul(%a: tensor<2x8x4xf32>, %b: tensor<2x16x8xf32>) -> tensor<2x4x16xf32> {
  // CHECK-NOT: dlc.transpose
  // CHECK: %[[C:.*]] = dlc.matmul %[[A]], %[[B]] {transpose_a, transpose_b} : (tensor<2x8x4xf32>, tensor<2x16x8xf32>) -> tensor<2x4x16xf32>
  %ta = dlc.transpose %a {perm = array<i64: 0, 2, 1>} : (tensor<2x8x4xf32>) -> tensor<2x4x8xf32>
  %tb = dlc.transpose %b {perm = array<i64: 0, 2, 1>} : (tensor<2x16x8xf32>) -> tensor<2x8x16xf32>
  %0 = dlc.matmul %ta, %tb : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<2x4x16xf32>
}

// -----

// A weight transposed, then given a batch dimension for a batched product
// (what PyTorch's Linear exports when the weight is a parameter to train):
// the flag, on the weight given the batch dimension.
// CHECK-LABEL: func.func @transpose_through_unit_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<4x5x8xf32>, %[[W:.*]]: tensor<24x8xf32>)
func.func @transpose_through_unit_reshape(%x: tensor<4x5x8xf32>, %w: tensor<24x8xf32>) -> tensor<4x5x24xf32> {
  // CHECK-NOT: dlc.transpose
  // CHECK: %[[R:.*]] = dlc.reshape %[[W]] : tensor<24x8xf32> -> tensor<1x24x8xf32>
  // CHECK: dlc.matmul %[[X]], %[[R]] {transpose_b} : (tensor<4x5x8xf32>, tensor<1x24x8xf32>) -> tensor<4x5x24xf32>
  %t = dlc.transpose %w {perm = array<i64: 1, 0>} : (tensor<24x8xf32>) -> tensor<8x24xf32>
  %r = dlc.reshape %t : tensor<8x24xf32> -> tensor<1x8x24xf32>
  %0 = dlc.matmul %x, %r : (tensor<4x5x8xf32>, tensor<1x8x24xf32>) -> tensor<4x5x24xf32>
  return %0 : tensor<4x5x24xf32>
}

// -----

// A transpose into an operand that is already transposed clears the flag.
// CHECK-LABEL: func.func @transpose_cancels_flag
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8x16xf32>)
func.func @transpose_cancels_flag(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[C:.*]] = dlc.matmul %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %tb = dlc.transpose %b {perm = array<i64: 1, 0>} : (tensor<8x16xf32>) -> tensor<16x8xf32>
  %0 = dlc.matmul %a, %tb {transpose_b} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<4x16xf32>
}

// -----

// A transpose that moves a batch dimension stays.
// CHECK-LABEL: func.func @batch_transpose_stays
// CHECK-SAME: (%[[A:.*]]: tensor<4x2x8xf32>, %[[B:.*]]: tensor<2x8x16xf32>)
func.func @batch_transpose_stays(%a: tensor<4x2x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  // CHECK: %[[T:.*]] = dlc.transpose %[[A]] {perm = array<i64: 1, 0, 2>}
  // CHECK: dlc.matmul %[[T]], %[[B]] : (tensor<2x4x8xf32>, tensor<2x8x16xf32>)
  %ta = dlc.transpose %a {perm = array<i64: 1, 0, 2>} : (tensor<4x2x8xf32>) -> tensor<2x4x8xf32>
  %0 = dlc.matmul %ta, %b : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  return %0 : tensor<2x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @compose_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @compose_transposes(%x: tensor<2x3x4xf32>) -> tensor<3x4x2xf32> {
  // CHECK: %[[T:.*]] = dlc.transpose %[[X]] {perm = array<i64: 1, 2, 0>} : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  // CHECK-NOT: dlc.transpose
  %0 = dlc.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = dlc.transpose %0 {perm = array<i64: 2, 0, 1>} : (tensor<4x2x3xf32>) -> tensor<3x4x2xf32>
  // CHECK: return %[[T]]
  return %1 : tensor<3x4x2xf32>
}

// -----

// Transposes that compose to the identity disappear.
// CHECK-LABEL: func.func @inverse_transposes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @inverse_transposes(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  // CHECK-NOT: dlc.transpose
  %0 = dlc.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = dlc.transpose %0 {perm = array<i64: 1, 2, 0>} : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  // CHECK: return %[[X]]
  return %1 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @identity_folds
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @identity_folds(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK-NOT: dlc.transpose
  // CHECK-NOT: dlc.reshape
  // CHECK-NOT: dlc.cast
  // CHECK-NOT: dlc.slice
  %0 = dlc.transpose %x {perm = array<i64: 0, 1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = dlc.reshape %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = dlc.cast %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = dlc.slice %x {start = array<i64: 0, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: return %[[X]], %[[X]], %[[X]], %[[X]]
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Chains of reshapes collapse; a round trip disappears.
// CHECK-LABEL: func.func @reshape_chains
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @reshape_chains(%x: tensor<4x8xf32>) -> (tensor<2x16xf32>, tensor<4x8xf32>) {
  // CHECK: %[[R:.*]] = dlc.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x16xf32>
  // CHECK-NOT: dlc.reshape
  %0 = dlc.reshape %x : tensor<4x8xf32> -> tensor<32xf32>
  %1 = dlc.reshape %0 : tensor<32xf32> -> tensor<2x16xf32>
  %2 = dlc.reshape %1 : tensor<2x16xf32> -> tensor<4x8xf32>
  // CHECK: return %[[R]], %[[X]]
  return %1, %2 : tensor<2x16xf32>, tensor<4x8xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_constant
func.func @reshape_constant() -> tensor<2x2xf32> {
  // CHECK: %[[C:.*]] = dlc.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
  // CHECK-NOT: dlc.reshape
  %c = dlc.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = dlc.reshape %c : tensor<4xf32> -> tensor<2x2xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<2x2xf32>
}

// -----

// A cast to a wider type and back is the identity; the reverse is not.
// CHECK-LABEL: func.func @cast_round_trips
// CHECK-SAME: (%[[H:.*]]: tensor<4xf16>, %[[I:.*]]: tensor<4xi32>, %[[F:.*]]: tensor<4xf32>)
func.func @cast_round_trips(%h: tensor<4xf16>, %i: tensor<4xi32>, %f: tensor<4xf32>) -> (tensor<4xf16>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>) {
  %0 = dlc.cast %h : tensor<4xf16> -> tensor<4xf32>
  %1 = dlc.cast %0 : tensor<4xf32> -> tensor<4xf16>
  %2 = dlc.cast %i : tensor<4xi32> -> tensor<4xi64>
  %3 = dlc.cast %2 : tensor<4xi64> -> tensor<4xi32>
  // CHECK: %[[N:.*]] = dlc.cast %[[F]] : tensor<4xf32> -> tensor<4xf16>
  // CHECK: %[[W:.*]] = dlc.cast %[[N]] : tensor<4xf16> -> tensor<4xf32>
  %4 = dlc.cast %f : tensor<4xf32> -> tensor<4xf16>
  %5 = dlc.cast %4 : tensor<4xf16> -> tensor<4xf32>
  // i32 -> f32 loses integers above 2^24.
  // CHECK: %[[IF:.*]] = dlc.cast %[[I]] : tensor<4xi32> -> tensor<4xf32>
  // CHECK: %[[FI:.*]] = dlc.cast %[[IF]] : tensor<4xf32> -> tensor<4xi32>
  %6 = dlc.cast %i : tensor<4xi32> -> tensor<4xf32>
  %7 = dlc.cast %6 : tensor<4xf32> -> tensor<4xi32>
  // CHECK: return %[[H]], %[[I]], %[[W]], %[[FI]]
  return %1, %3, %5, %7 : tensor<4xf16>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// Casts of splat constants fold with dlc.cast's rounding rules.
// CHECK-LABEL: func.func @cast_splat
func.func @cast_splat() -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>, tensor<4xbf16>, tensor<4xi32>) {
  // Round half to even, saturate.
  // CHECK-DAG: %[[R:.*]] = dlc.constant dense<2> : tensor<4xi32>
  // CHECK-DAG: %[[SAT:.*]] = dlc.constant dense<2147483647> : tensor<4xi32>
  // CHECK-DAG: %[[NEG:.*]] = dlc.constant dense<-4> : tensor<4xi32>
  // CHECK-DAG: %[[B:.*]] = dlc.constant dense<true> : tensor<4xi1>
  // CHECK-DAG: %[[ONE:.*]] = dlc.constant dense<1.000000e+00> : tensor<4xf32>
  // CHECK-DAG: %[[BF:.*]] = dlc.constant dense<3.140630e+00> : tensor<4xbf16>
  // CHECK-DAG: %[[NARROW:.*]] = dlc.constant dense<-7> : tensor<4xi32>
  %c0 = dlc.constant dense<2.5> : tensor<4xf32>
  %0 = dlc.cast %c0 : tensor<4xf32> -> tensor<4xi32>
  %c1 = dlc.constant dense<1.0e10> : tensor<4xf32>
  %1 = dlc.cast %c1 : tensor<4xf32> -> tensor<4xi32>
  %c2 = dlc.constant dense<-3.5> : tensor<4xf32>
  %2 = dlc.cast %c2 : tensor<4xf32> -> tensor<4xi32>
  %c3 = dlc.constant dense<0.25> : tensor<4xf32>
  %3 = dlc.cast %c3 : tensor<4xf32> -> tensor<4xi1>
  %c4 = dlc.constant dense<true> : tensor<4xi1>
  %4 = dlc.cast %c4 : tensor<4xi1> -> tensor<4xf32>
  %c5 = dlc.constant dense<3.14159> : tensor<4xf32>
  %5 = dlc.cast %c5 : tensor<4xf32> -> tensor<4xbf16>
  %c6 = dlc.constant dense<-7> : tensor<4xi64>
  %6 = dlc.cast %c6 : tensor<4xi64> -> tensor<4xi32>
  // CHECK-NOT: dlc.cast
  // CHECK: return %[[R]], %[[SAT]], %[[NEG]], %[[B]], %[[ONE]], %[[BF]], %[[NARROW]]
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi1>, tensor<4xf32>, tensor<4xbf16>, tensor<4xi32>
}

// -----

// Casts whose result dlc.cast leaves unspecified are not folded.
// CHECK-LABEL: func.func @cast_splat_unfolded
func.func @cast_splat_unfolded() -> (tensor<4xi32>, tensor<4xi32>) {
  // CHECK: dlc.cast %{{.*}} : tensor<4xf32> -> tensor<4xi32>
  %c0 = dlc.constant dense<0x7FC00000> : tensor<4xf32>
  %0 = dlc.cast %c0 : tensor<4xf32> -> tensor<4xi32>
  // CHECK: dlc.cast %{{.*}} : tensor<4xi64> -> tensor<4xi32>
  %c1 = dlc.constant dense<4294967296> : tensor<4xi64>
  %1 = dlc.cast %c1 : tensor<4xi64> -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}

// -----

// Data movement of a splat constant is a splat constant.
// CHECK-LABEL: func.func @splat_data_movement
func.func @splat_data_movement() -> (tensor<8x4xf32>, tensor<2x3xf32>) {
  // CHECK-DAG: %[[T:.*]] = dlc.constant dense<1.500000e+00> : tensor<8x4xf32>
  // CHECK-DAG: %[[S:.*]] = dlc.constant dense<1.500000e+00> : tensor<2x3xf32>
  // CHECK-NOT: dlc.transpose
  // CHECK-NOT: dlc.slice
  %c = dlc.constant dense<1.5> : tensor<4x8xf32>
  %0 = dlc.transpose %c {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %1 = dlc.slice %c {start = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<2x3xf32>
  // CHECK: return %[[T]], %[[S]]
  return %0, %1 : tensor<8x4xf32>, tensor<2x3xf32>
}

// -----

// A tile that only repeats a batch dimension of size 1 is the matmul's own
// broadcasting; after it goes, the transpose becomes a flag.
// CHECK-LABEL: func.func @batch_tile_into_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<1x16x8xf32>)
func.func @batch_tile_into_matmul(%a: tensor<2x4x8xf32>, %w: tensor<1x16x8xf32>) -> tensor<2x4x16xf32> {
  // CHECK-NOT: dlc.tile
  // CHECK: %[[C:.*]] = dlc.matmul %[[A]], %[[W]] {transpose_b} : (tensor<2x4x8xf32>, tensor<1x16x8xf32>) -> tensor<2x4x16xf32>
  %wt = dlc.transpose %w {perm = array<i64: 0, 2, 1>} : (tensor<1x16x8xf32>) -> tensor<1x8x16xf32>
  %wb = dlc.tile %wt {multiples = array<i64: 2, 1, 1>} : (tensor<1x8x16xf32>) -> tensor<2x8x16xf32>
  %0 = dlc.matmul %a, %wb : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<2x4x16xf32>
}

// -----

// Of two tiles to the batch size one stays (the product needs that batch
// size); a tile of a batch dimension larger than 1 is no broadcast.
// CHECK-LABEL: func.func @tiles_that_stay
// CHECK-SAME: (%[[A:.*]]: tensor<1x4x8xf32>, %[[B:.*]]: tensor<1x8x16xf32>, %[[C:.*]]: tensor<4x4x8xf32>, %[[D:.*]]: tensor<2x8x16xf32>)
func.func @tiles_that_stay(%a: tensor<1x4x8xf32>, %b: tensor<1x8x16xf32>, %c: tensor<4x4x8xf32>, %d: tensor<2x8x16xf32>) -> (tensor<2x4x16xf32>, tensor<4x4x16xf32>) {
  // CHECK: %[[TB:.*]] = dlc.tile %[[B]] {multiples = array<i64: 2, 1, 1>}
  // CHECK: %[[M0:.*]] = dlc.matmul %[[A]], %[[TB]] : (tensor<1x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %ta = dlc.tile %a {multiples = array<i64: 2, 1, 1>} : (tensor<1x4x8xf32>) -> tensor<2x4x8xf32>
  %tb = dlc.tile %b {multiples = array<i64: 2, 1, 1>} : (tensor<1x8x16xf32>) -> tensor<2x8x16xf32>
  %0 = dlc.matmul %ta, %tb : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: %[[TD:.*]] = dlc.tile %[[D]] {multiples = array<i64: 2, 1, 1>}
  // CHECK: %[[M1:.*]] = dlc.matmul %[[C]], %[[TD]] : (tensor<4x4x8xf32>, tensor<4x8x16xf32>) -> tensor<4x4x16xf32>
  %td = dlc.tile %d {multiples = array<i64: 2, 1, 1>} : (tensor<2x8x16xf32>) -> tensor<4x8x16xf32>
  %1 = dlc.matmul %c, %td : (tensor<4x4x8xf32>, tensor<4x8x16xf32>) -> tensor<4x4x16xf32>
  // CHECK: return %[[M0]], %[[M1]]
  return %0, %1 : tensor<2x4x16xf32>, tensor<4x4x16xf32>
}

// -----

// A transpose of a dense constant (a TOSA filter in NHWC order) folds into a
// permuted constant, for every storage type (i1 is bit-packed).
// CHECK-LABEL: func.func @transpose_constant
// CHECK-NOT: dlc.transpose
// CHECK-DAG: dlc.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-DAG: dlc.constant dense<{{\[\[\[}}true, false], [true, false]], {{\[\[}}false, false], [true, true]]]> : tensor<2x2x2xi1>
// CHECK-DAG: dlc.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00, 5.000000e+00], [2.000000e+00, 4.000000e+00, 6.000000e+00]]> : tensor<2x3xf16>
func.func @transpose_constant() -> (tensor<3x2xf32>, tensor<2x2x2xi1>, tensor<2x3xf16>) {
  %0 = dlc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %1 = dlc.transpose %0 {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = dlc.constant dense<[[[true, false], [false, false]], [[true, true], [false, true]]]> : tensor<2x2x2xi1>
  %3 = dlc.transpose %2 {perm = array<i64: 2, 0, 1>} : (tensor<2x2x2xi1>) -> tensor<2x2x2xi1>
  %4 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf16>
  %5 = dlc.transpose %4 {perm = array<i64: 1, 0>} : (tensor<3x2xf16>) -> tensor<2x3xf16>
  return %1, %3, %5 : tensor<3x2xf32>, tensor<2x2x2xi1>, tensor<2x3xf16>
}

// -----

// A reshape of a weight blob is the same blob in the new shape (no copy):
// a bias vector reaches its broadcast add as a constant.
// CHECK-LABEL: func.func @reshape_resource
// CHECK: %[[C:.*]] = dlc.constant dense_resource<bias> : tensor<1x4xf32>
// CHECK-NOT: dlc.reshape
// CHECK: return %[[C]]
func.func @reshape_resource() -> tensor<1x4xf32> {
  %c = dlc.constant dense_resource<bias> : tensor<4xf32>
  %r = dlc.reshape %c : tensor<4xf32> -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}

{-#
  dialect_resources: {
    builtin: {
      bias: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// Constant subexpressions are computed at compile time: an attention
// scale written from the head size (pow(64, 0.5), then its reciprocal, as
// PyTorch exports `1 / math.sqrt(d)` when d comes from a shape) is one
// splat constant, rounded once to the element type; so are unary functions
// of a splat, in f16 too.
// CHECK-LABEL: func.func @fold_constants
// CHECK-DAG: %[[S:.*]] = dlc.constant dense<1.250000e-01> : tensor<1x1xf32>
// CHECK-DAG: %[[E:.*]] = dlc.constant dense<2.718750e+00> : tensor<1xf16>
// CHECK-DAG: %[[M:.*]] = dlc.constant dense<-1.000000e+09> : tensor<1x1xf32>
// CHECK: dlc.mul %{{.*}}, %[[S]]
// CHECK-NOT: dlc.pow
// CHECK-NOT: dlc.reciprocal
// CHECK: return %{{.*}}, %[[E]], %[[M]]
func.func @fold_constants(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<1xf16>, tensor<1x1xf32>) {
  %d = dlc.constant dense<64.0> : tensor<1x1xf32>
  %h = dlc.constant dense<0.5> : tensor<1x1xf32>
  %p = dlc.pow %d, %h : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  %r = dlc.reciprocal %p : tensor<1x1xf32>
  %y = dlc.mul %x, %r : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  %one = dlc.constant dense<1.0> : tensor<1xf16>
  %e = dlc.exp %one : tensor<1xf16>
  %big = dlc.constant dense<1.0e9> : tensor<1x1xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1xf32>
  %m = dlc.sub %zero, %big : (tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x1xf32>
  return %y, %e, %m : tensor<4x8xf32>, tensor<1xf16>, tensor<1x1xf32>
}

// -----

// select(not(c), a, b) is select(c, b, a): a causal mask written as
// masked_fill(~tril, -inf) reaches the attention matcher in one form.
// CHECK-LABEL: func.func @select_of_not
// CHECK-NOT: dlc.not
// CHECK: dlc.select %arg0, %arg2, %arg1
func.func @select_of_not(%c: tensor<4x4xi1>, %a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %n = dlc.not %c : tensor<4x4xi1>
  %s = dlc.select %n, %a, %b : (tensor<4x4xi1>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}

// -----

// Ops of non-splat constants fold through the reference interpreter: the
// select and not of a boolean mask, a concat. An integer division by zero
// (the interpreter refuses it) stays for the device to report, and a value
// over 65536 elements stays computed (folding would store it).
// CHECK-LABEL: func.func @fold_dense
// CHECK-DAG: %[[M:.*]] = dlc.constant dense<{{\[}}[false, true], [false, false]]> : tensor<2x2xi1>
// CHECK-DAG: %[[C:.*]] = dlc.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK-DAG: dlc.div %{{.*}}, %{{.*}} : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
// CHECK-DAG: dlc.tile %{{.*}} {multiples = array<i64: 65537>}
// CHECK: return %[[M]], %[[C]]
func.func @fold_dense() -> (tensor<2x2xi1>, tensor<3xf32>, tensor<2xi32>, tensor<65537xf32>) {
  %tril = dlc.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
  %t = dlc.constant dense<true> : tensor<2x2xi1>
  %f = dlc.constant dense<false> : tensor<1x1xi1>
  %s = dlc.select %tril, %t, %f : (tensor<2x2xi1>, tensor<2x2xi1>, tensor<1x1xi1>) -> tensor<2x2xi1>
  %n = dlc.not %s : tensor<2x2xi1>
  %a = dlc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = dlc.constant dense<[3.0]> : tensor<1xf32>
  %c = dlc.concat %a, %b {axis = 0 : i64} : (tensor<2xf32>, tensor<1xf32>) -> tensor<3xf32>
  %x = dlc.constant dense<[4, 6]> : tensor<2xi32>
  %z = dlc.constant dense<[2, 0]> : tensor<2xi32>
  %q = dlc.div %x, %z : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %one = dlc.constant dense<[1.5]> : tensor<1xf32>
  %big = dlc.tile %one {multiples = array<i64: 65537>} : (tensor<1xf32>) -> tensor<65537xf32>
  return %n, %c, %q, %big : tensor<2x2xi1>, tensor<3xf32>, tensor<2xi32>, tensor<65537xf32>
}
