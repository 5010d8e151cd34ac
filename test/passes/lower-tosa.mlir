// RUN: dlc-opt %s --dlc-lower-tosa | FileCheck %s
// RUN: dlc-opt %s --dlc-lower-tosa | FileCheck %s --check-prefix=NOTOSA
// Every supported TOSA operation becomes dlc operations.

// NOTOSA-NOT: tosa.
// NOTOSA-NOT: arith.

// CHECK-LABEL: func.func @elementwise_binary
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<1x8xf32>)
func.func @elementwise_binary(%a: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  // CHECK: %[[ADD:.*]] = dlc.add %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %0 = tosa.add %a, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: %[[SUB:.*]] = dlc.sub %[[ADD]], %[[B]] : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %1 = tosa.sub %0, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: %[[MUL:.*]] = dlc.mul %[[SUB]], %[[A]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = tosa.mul %1, %a {shift = 0 : i8} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: %[[MAX:.*]] = dlc.max %[[MUL]], %[[B]]
  %3 = tosa.maximum %2, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: %[[MIN:.*]] = dlc.min %[[MAX]], %[[B]]
  %4 = tosa.minimum %3, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: %[[POW:.*]] = dlc.pow %[[MIN]], %[[B]]
  %5 = tosa.pow %4, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: return %[[POW]]
  return %5 : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @rank_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf32>, %[[B:.*]]: tensor<8xf32>)
func.func @rank_broadcast(%a: tensor<2x4x8xf32>, %b: tensor<8xf32>) -> tensor<2x4x8xf32> {
  // CHECK: %[[R:.*]] = dlc.reshape %[[B]] : tensor<8xf32> -> tensor<1x1x8xf32>
  // CHECK: dlc.add %[[A]], %[[R]] : (tensor<2x4x8xf32>, tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
  %0 = "tosa.add"(%a, %b) : (tensor<2x4x8xf32>, tensor<8xf32>) -> tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}

// CHECK-LABEL: func.func @integer_ops
// CHECK-SAME: (%[[A:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi32>)
func.func @integer_ops(%a: tensor<4xi32>, %b: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  // CHECK: dlc.div %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %0 = tosa.int_div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: dlc.and %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = tosa.bitwise_and %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: dlc.or %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = tosa.bitwise_or %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  // CHECK: dlc.mul %[[A]], %[[B]] : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %3 = tosa.mul %a, %b {shift = 0 : i8} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// An i32 multiply with a shift: (a * b + 2^(s-1)) >> s in 64 bits, the
// arithmetic shift being a flooring division by 2^s.
// CHECK-LABEL: func.func @mul_shift
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xi32>, %[[B:.*]]: tensor<8xi32>)
func.func @mul_shift(%a: tensor<4x8xi32>, %b: tensor<8xi32>) -> tensor<4x8xi32> {
  // CHECK: %[[BR:.*]] = dlc.reshape %[[B]] : tensor<8xi32> -> tensor<1x8xi32>
  // CHECK: %[[A64:.*]] = dlc.cast %[[A]] : tensor<4x8xi32> -> tensor<4x8xi64>
  // CHECK: %[[B64:.*]] = dlc.cast %[[BR]] : tensor<1x8xi32> -> tensor<1x8xi64>
  // CHECK: %[[P:.*]] = dlc.mul %[[A64]], %[[B64]] : (tensor<4x8xi64>, tensor<1x8xi64>) -> tensor<4x8xi64>
  // CHECK: %[[ROUND:.*]] = dlc.constant dense<4> : tensor<1x1xi64>
  // CHECK: %[[X:.*]] = dlc.add %[[P]], %[[ROUND]]
  // CHECK: %[[D:.*]] = dlc.constant dense<8> : tensor<1x1xi64>
  // CHECK: %[[Q:.*]] = dlc.div %[[X]], %[[D]]
  // CHECK: %[[QD:.*]] = dlc.mul %[[Q]], %[[D]]
  // CHECK: %[[REM:.*]] = dlc.sub %[[X]], %[[QD]]
  // CHECK: %[[ZERO:.*]] = dlc.constant dense<0> : tensor<1x1xi64>
  // CHECK: %[[NEG:.*]] = dlc.cmp lt, %[[REM]], %[[ZERO]] : (tensor<4x8xi64>, tensor<1x1xi64>) -> tensor<4x8xi1>
  // CHECK: %[[NEG64:.*]] = dlc.cast %[[NEG]] : tensor<4x8xi1> -> tensor<4x8xi64>
  // CHECK: %[[F:.*]] = dlc.sub %[[Q]], %[[NEG64]]
  // CHECK: %[[R:.*]] = dlc.cast %[[F]] : tensor<4x8xi64> -> tensor<4x8xi32>
  // CHECK: return %[[R]]
  %0 = "tosa.mul"(%a, %b) {shift = 3 : i8} : (tensor<4x8xi32>, tensor<8xi32>) -> tensor<4x8xi32>
  return %0 : tensor<4x8xi32>
}

// CHECK-LABEL: func.func @elementwise_unary
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
func.func @elementwise_unary(%x: tensor<4xf16>) -> tensor<4xf16> {
  // CHECK: %[[V0:.*]] = dlc.exp %[[X]] : tensor<4xf16>
  %0 = tosa.exp %x : (tensor<4xf16>) -> tensor<4xf16>
  // CHECK: %[[V1:.*]] = dlc.log %[[V0]] : tensor<4xf16>
  %1 = tosa.log %0 : (tensor<4xf16>) -> tensor<4xf16>
  // CHECK: %[[V2:.*]] = dlc.tanh %[[V1]] : tensor<4xf16>
  %2 = tosa.tanh %1 : (tensor<4xf16>) -> tensor<4xf16>
  // CHECK: %[[V3:.*]] = dlc.sigmoid %[[V2]] : tensor<4xf16>
  %3 = tosa.sigmoid %2 : (tensor<4xf16>) -> tensor<4xf16>
  // CHECK: %[[V4:.*]] = dlc.erf %[[V3]] : tensor<4xf16>
  %4 = tosa.erf %3 : (tensor<4xf16>) -> tensor<4xf16>
  // CHECK: %[[V5:.*]] = dlc.rsqrt %[[V4]] : tensor<4xf16>
  %5 = tosa.rsqrt %4 : (tensor<4xf16>) -> tensor<4xf16>
  // CHECK: %[[V6:.*]] = dlc.reciprocal %[[V5]] : tensor<4xf16>
  %6 = tosa.reciprocal %5 : (tensor<4xf16>) -> tensor<4xf16>
  // CHECK: %[[V7:.*]] = dlc.abs %[[V6]] : tensor<4xf16>
  %7 = tosa.abs %6 : (tensor<4xf16>) -> tensor<4xf16>
  // CHECK: %[[V8:.*]] = dlc.neg %[[V7]] : tensor<4xf16>
  %8 = tosa.negate %7 : (tensor<4xf16>) -> tensor<4xf16>
  // CHECK: return %[[V8]]
  return %8 : tensor<4xf16>
}

// CHECK-LABEL: func.func @clamp
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>)
func.func @clamp(%x: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4xi32>) {
  // Floats clamp to min_fp/max_fp.
  // CHECK: %[[C0:.*]] = dlc.clamp %[[X]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<4xf32>
  %0 = tosa.clamp %x {min_int = -1 : i64, max_int = 1 : i64, min_fp = 0.0 : f32, max_fp = 6.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  // Integers clamp to min_int/max_int, limited to the element type's range
  // (max = 2147483647.0).
  // CHECK: %[[C1:.*]] = dlc.clamp %[[I]] {max = 0x41DFFFFFFFC00000 : f64, min = -5.000000e+00 : f64} : tensor<4xi32>
  %1 = tosa.clamp %i {min_int = -5 : i64, max_int = 9223372036854775807 : i64, min_fp = 0.0 : f32, max_fp = 0.0 : f32} : (tensor<4xi32>) -> tensor<4xi32>
  // Clamping to the whole range of i32 does nothing.
  // CHECK-NOT: dlc.clamp
  %2 = tosa.clamp %i {min_int = -2147483648 : i64, max_int = 2147483647 : i64, min_fp = 0.0 : f32, max_fp = 0.0 : f32} : (tensor<4xi32>) -> tensor<4xi32>
  // CHECK: return %[[C0]], %[[C1]], %[[I]]
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi32>, tensor<4xi32>
}

// CHECK-LABEL: func.func @cast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @cast_identity(%x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
  // CHECK: %[[C:.*]] = dlc.cast %[[X]] : tensor<4xf32> -> tensor<4xi32>
  %0 = tosa.cast %x : (tensor<4xf32>) -> tensor<4xi32>
  %1 = tosa.identity %x : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: return %[[C]], %[[X]]
  return %0, %1 : tensor<4xi32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<3xi32>) {
  // CHECK-DAG: %[[F:.*]] = dlc.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: %[[I:.*]] = dlc.constant dense<[1, 2, 3]> : tensor<3xi32>
  %0 = "tosa.const"() {value = dense<[1.0, 2.0]> : tensor<2xf32>} : () -> tensor<2xf32>
  %1 = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  // CHECK: return %[[F]], %[[I]]
  return %0, %1 : tensor<2xf32>, tensor<3xi32>
}

// CHECK-LABEL: func.func @compare_select
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<1x8xf32>)
func.func @compare_select(%a: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xi1>) {
  // CHECK: %[[GT:.*]] = dlc.cmp gt, %[[A]], %[[B]] : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xi1>
  %0 = tosa.greater %a, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xi1>
  // CHECK: %[[GE:.*]] = dlc.cmp ge, %[[A]], %[[B]]
  %1 = tosa.greater_equal %a, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xi1>
  // CHECK: %[[EQ:.*]] = dlc.cmp eq, %[[A]], %[[B]]
  %2 = tosa.equal %a, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xi1>
  // CHECK: %[[S:.*]] = dlc.select %[[GT]], %[[A]], %[[B]] : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %3 = tosa.select %0, %a, %b : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: return %[[S]], %[[GE]], %[[EQ]]
  return %3, %1, %2 : tensor<4x8xf32>, tensor<4x8xi1>, tensor<4x8xi1>
}

// CHECK-LABEL: func.func @logical
// CHECK-SAME: (%[[A:.*]]: tensor<4xi1>, %[[B:.*]]: tensor<4xi1>)
func.func @logical(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // CHECK: %[[N:.*]] = dlc.not %[[A]] : tensor<4xi1>
  %0 = tosa.logical_not %a : (tensor<4xi1>) -> tensor<4xi1>
  // CHECK: %[[AND:.*]] = dlc.and %[[N]], %[[B]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = tosa.logical_and %0, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: %[[OR:.*]] = dlc.or %[[AND]], %[[B]]
  %2 = tosa.logical_or %1, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: %[[XOR:.*]] = dlc.cmp ne, %[[OR]], %[[A]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %3 = tosa.logical_xor %2, %a : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  // CHECK: return %[[XOR]]
  return %3 : tensor<4xi1>
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @reductions(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<1x8xf32>, tensor<4x1xf32>, tensor<1x8xf32>) {
  // CHECK: %[[S:.*]] = dlc.reduce sum %[[X]] {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %0 = tosa.reduce_sum %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // CHECK: %[[MX:.*]] = dlc.reduce max %[[X]] {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %1 = tosa.reduce_max %x {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  // CHECK: %[[MN:.*]] = dlc.reduce min %[[X]] {axes = array<i64: 1>}
  %2 = tosa.reduce_min %x {axis = 1 : i32} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // CHECK: %[[P:.*]] = dlc.reduce prod %[[X]] {axes = array<i64: 0>}
  %3 = tosa.reduce_prod %x {axis = 0 : i32} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  // CHECK: return %[[S]], %[[MX]], %[[MN]], %[[P]]
  return %0, %1, %2, %3 : tensor<4x1xf32>, tensor<1x8xf32>, tensor<4x1xf32>, tensor<1x8xf32>
}

// CHECK-LABEL: func.func @bool_reductions
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xi1>)
func.func @bool_reductions(%x: tensor<4x8xi1>) -> (tensor<4x1xi1>, tensor<1x8xi1>) {
  // CHECK: %[[I:.*]] = dlc.cast %[[X]] : tensor<4x8xi1> -> tensor<4x8xi32>
  // CHECK: %[[MIN:.*]] = dlc.reduce min %[[I]] {axes = array<i64: 1>} : (tensor<4x8xi32>) -> tensor<4x1xi32>
  // CHECK: %[[Z:.*]] = dlc.constant dense<0> : tensor<1x1xi32>
  // CHECK: %[[ALL:.*]] = dlc.cmp ne, %[[MIN]], %[[Z]] : (tensor<4x1xi32>, tensor<1x1xi32>) -> tensor<4x1xi1>
  %0 = tosa.reduce_all %x {axis = 1 : i32} : (tensor<4x8xi1>) -> tensor<4x1xi1>
  // CHECK: %[[I2:.*]] = dlc.cast %[[X]] : tensor<4x8xi1> -> tensor<4x8xi32>
  // CHECK: %[[MAX:.*]] = dlc.reduce max %[[I2]] {axes = array<i64: 0>} : (tensor<4x8xi32>) -> tensor<1x8xi32>
  // CHECK: %[[ANY:.*]] = dlc.cmp ne, %[[MAX]], %{{.*}} : (tensor<1x8xi32>, tensor<1x1xi32>) -> tensor<1x8xi1>
  %1 = tosa.reduce_any %x {axis = 0 : i32} : (tensor<4x8xi1>) -> tensor<1x8xi1>
  // CHECK: return %[[ALL]], %[[ANY]]
  return %0, %1 : tensor<4x1xi1>, tensor<1x8xi1>
}

// TOSA's argmax drops the reduced axis; dlc.argmax keeps it as 1.
// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x8x3xf32>)
func.func @argmax(%x: tensor<4x8x3xf32>) -> tensor<4x3xi32> {
  // CHECK: %[[A:.*]] = dlc.argmax %[[X]] {axis = 1 : i64} : (tensor<4x8x3xf32>) -> tensor<4x1x3xi32>
  // CHECK: %[[R:.*]] = dlc.reshape %[[A]] : tensor<4x1x3xi32> -> tensor<4x3xi32>
  %0 = tosa.argmax %x {axis = 1 : i32} : (tensor<4x8x3xf32>) -> tensor<4x3xi32>
  // CHECK: return %[[R]]
  return %0 : tensor<4x3xi32>
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf32>, %[[B:.*]]: tensor<2x8x16xf32>)
func.func @matmul(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x4x16xf32> {
  // CHECK: %[[C:.*]] = dlc.matmul %[[A]], %[[B]] : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %0 = tosa.matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // CHECK: return %[[C]]
  return %0 : tensor<2x4x16xf32>
}

// f16 operands with an f32 result: the operands are widened (exactly) first.
// CHECK-LABEL: func.func @matmul_widening
// CHECK-SAME: (%[[A:.*]]: tensor<1x4x8xf16>, %[[B:.*]]: tensor<1x8x16xf16>)
func.func @matmul_widening(%a: tensor<1x4x8xf16>, %b: tensor<1x8x16xf16>) -> tensor<1x4x16xf32> {
  // CHECK: %[[AW:.*]] = dlc.cast %[[A]] : tensor<1x4x8xf16> -> tensor<1x4x8xf32>
  // CHECK: %[[BW:.*]] = dlc.cast %[[B]] : tensor<1x8x16xf16> -> tensor<1x8x16xf32>
  // CHECK: dlc.matmul %[[AW]], %[[BW]] : (tensor<1x4x8xf32>, tensor<1x8x16xf32>) -> tensor<1x4x16xf32>
  %0 = tosa.matmul %a, %b : (tensor<1x4x8xf16>, tensor<1x8x16xf16>) -> tensor<1x4x16xf32>
  return %0 : tensor<1x4x16xf32>
}

// CHECK-LABEL: func.func @fully_connected
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>)
func.func @fully_connected(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<4x16xf32> {
  // CHECK: %[[M:.*]] = dlc.matmul %[[X]], %[[W]] {transpose_b} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  // CHECK: %[[BR:.*]] = dlc.reshape %[[B]] : tensor<16xf32> -> tensor<1x16xf32>
  // CHECK: %[[Y:.*]] = dlc.add %[[M]], %[[BR]] : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %0 = tosa.fully_connected %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // CHECK: return %[[Y]]
  return %0 : tensor<4x16xf32>
}

// A zero bias adds nothing.
// CHECK-LABEL: func.func @fully_connected_zero_bias
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<16x8xf32>)
func.func @fully_connected_zero_bias(%x: tensor<4x8xf32>, %w: tensor<16x8xf32>) -> tensor<4x16xf32> {
  // CHECK-NOT: dlc.constant
  // CHECK: %[[M:.*]] = dlc.matmul %[[X]], %[[W]] {transpose_b}
  // CHECK-NEXT: return %[[M]]
  %b = "tosa.const"() {value = dense<0.0> : tensor<16xf32>} : () -> tensor<16xf32>
  %0 = tosa.fully_connected %x, %w, %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// The permutation constant becomes the perm attribute and disappears.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>)
func.func @transpose(%x: tensor<2x4x8xf32>) -> tensor<8x2x4xf32> {
  // CHECK-NOT: dlc.constant
  // CHECK: %[[T:.*]] = dlc.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : (tensor<2x4x8xf32>) -> tensor<8x2x4xf32>
  %p = "tosa.const"() {value = dense<[2, 0, 1]> : tensor<3xi32>} : () -> tensor<3xi32>
  %0 = tosa.transpose %x, %p : (tensor<2x4x8xf32>, tensor<3xi32>) -> tensor<8x2x4xf32>
  // CHECK-NEXT: return %[[T]]
  return %0 : tensor<8x2x4xf32>
}

// A permutation constant with another user stays.
// CHECK-LABEL: func.func @transpose_shared_perm
func.func @transpose_shared_perm(%x: tensor<4x8xi64>) -> (tensor<8x4xi64>, tensor<2xi64>) {
  // CHECK: %[[P:.*]] = dlc.constant dense<[1, 0]> : tensor<2xi64>
  // CHECK: %[[T:.*]] = dlc.transpose %{{.*}} {perm = array<i64: 1, 0>}
  %p = "tosa.const"() {value = dense<[1, 0]> : tensor<2xi64>} : () -> tensor<2xi64>
  %0 = tosa.transpose %x, %p : (tensor<4x8xi64>, tensor<2xi64>) -> tensor<8x4xi64>
  // CHECK: return %[[T]], %[[P]]
  return %0, %p : tensor<8x4xi64>, tensor<2xi64>
}

// CHECK-LABEL: func.func @reshape_slice_concat_tile
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x2xf32>)
func.func @reshape_slice_concat_tile(%x: tensor<4x8xf32>, %y: tensor<4x2xf32>) -> (tensor<2x16xf32>, tensor<2x3xf32>, tensor<4x10xf32>, tensor<8x24xf32>) {
  // CHECK: %[[R:.*]] = dlc.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x16xf32>
  %0 = tosa.reshape %x {new_shape = array<i64: 2, 16>} : (tensor<4x8xf32>) -> tensor<2x16xf32>
  // CHECK: %[[S:.*]] = dlc.slice %[[X]] {start = array<i64: 1, 4>} : (tensor<4x8xf32>) -> tensor<2x3xf32>
  %1 = tosa.slice %x {start = array<i64: 1, 4>, size = array<i64: 2, 3>} : (tensor<4x8xf32>) -> tensor<2x3xf32>
  // CHECK: %[[C:.*]] = dlc.concat %[[X]], %[[Y]] {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
  %2 = tosa.concat %x, %y {axis = 1 : i32} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
  // CHECK: %[[T:.*]] = dlc.tile %[[X]] {multiples = array<i64: 2, 3>} : (tensor<4x8xf32>) -> tensor<8x24xf32>
  %3 = tosa.tile %x {multiples = array<i64: 2, 3>} : (tensor<4x8xf32>) -> tensor<8x24xf32>
  // CHECK: return %[[R]], %[[S]], %[[C]], %[[T]]
  return %0, %1, %2, %3 : tensor<2x16xf32>, tensor<2x3xf32>, tensor<4x10xf32>, tensor<8x24xf32>
}

// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<3xi32>)
func.func @pad(%x: tensor<4x8xf32>, %i: tensor<3xi32>) -> (tensor<5x13xf32>, tensor<7x8xf32>, tensor<6xi32>) {
  // CHECK-NOT: dlc.constant
  // CHECK: %[[P0:.*]] = dlc.pad %[[X]] {high = array<i64: 1, 3>, low = array<i64: 0, 2>, value = 1.500000e+00 : f64} : (tensor<4x8xf32>) -> tensor<5x13xf32>
  %pad = "tosa.const"() {value = dense<[[0, 1], [2, 3]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %v = "tosa.const"() {value = dense<1.5> : tensor<f32>} : () -> tensor<f32>
  %0 = tosa.pad %x, %pad, %v : (tensor<4x8xf32>, tensor<2x2xi32>, tensor<f32>) -> tensor<5x13xf32>
  // Without pad_const the value is 0; a flat padding list works too.
  // CHECK: %[[P1:.*]] = dlc.pad %[[X]] {high = array<i64: 2, 0>, low = array<i64: 1, 0>, value = 0.000000e+00 : f64} : (tensor<4x8xf32>) -> tensor<7x8xf32>
  %flat = "tosa.const"() {value = dense<[1, 2, 0, 0]> : tensor<4xi64>} : () -> tensor<4xi64>
  %1 = tosa.pad %x, %flat : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<7x8xf32>
  // CHECK: %[[P2:.*]] = dlc.pad %[[I]] {high = array<i64: 0>, low = array<i64: 3>, value = -7.000000e+00 : f64} : (tensor<3xi32>) -> tensor<6xi32>
  %ipad = "tosa.const"() {value = dense<[[3, 0]]> : tensor<1x2xi32>} : () -> tensor<1x2xi32>
  %iv = "tosa.const"() {value = dense<-7> : tensor<i32>} : () -> tensor<i32>
  %2 = tosa.pad %i, %ipad, %iv : (tensor<3xi32>, tensor<1x2xi32>, tensor<i32>) -> tensor<6xi32>
  // CHECK: return %[[P0]], %[[P1]], %[[P2]]
  return %0, %1, %2 : tensor<5x13xf32>, tensor<7x8xf32>, tensor<6xi32>
}

// Already lowered dlc operations are left alone.
// CHECK-LABEL: func.func @mixed
func.func @mixed(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[E:.*]] = dlc.exp
  %0 = dlc.exp %x : tensor<4xf32>
  // CHECK: dlc.tanh %[[E]]
  %1 = tosa.tanh %0 : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
