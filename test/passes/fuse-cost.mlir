// RUN: dlc-opt --split-input-file --dlc-fuse=fusion-notes %s | FileCheck %s

// The cost model: a producer broadcast into a larger iteration space is
// computed once per element of that space, which is free while the kernel
// stays memory-bound. A chain of 20 tanh on a 512-vector broadcast over
// 65536 rows: the add and 18 tanh fuse (~4.9e9 operations, as much as the
// kernel's 268 MB of traffic is worth); the 19th would make the kernel
// compute-bound, so the first two form a kernel of their own.
// CHECK-LABEL: func.func @compute_bound
// CHECK: %[[E:.*]] = dlc.kernel(%arg0) {dlc.fusion_notes = [{reason = "it would be recomputed 65536 times per element, making the kernel compute-bound ({{[0-9]+}} operations against {{[0-9]+}} for its memory traffic), slower than a kernel of its own", result = 0 : i64}]}
// CHECK-COUNT-2: dlc.tanh
// CHECK: dlc.yield
// CHECK: dlc.kernel(%[[E]], %arg1) {dlc.fusion_notes = [{operand = 0 : i64, reason = "it would be recomputed 65536 times per element
// CHECK-COUNT-18: dlc.tanh
// CHECK: dlc.add
// CHECK-NOT: dlc.kernel
func.func @compute_bound(%m: tensor<1x512xf32>, %x: tensor<65536x512xf32>) -> tensor<65536x512xf32> {
  %t0 = dlc.tanh %m : tensor<1x512xf32>
  %t1 = dlc.tanh %t0 : tensor<1x512xf32>
  %t2 = dlc.tanh %t1 : tensor<1x512xf32>
  %t3 = dlc.tanh %t2 : tensor<1x512xf32>
  %t4 = dlc.tanh %t3 : tensor<1x512xf32>
  %t5 = dlc.tanh %t4 : tensor<1x512xf32>
  %t6 = dlc.tanh %t5 : tensor<1x512xf32>
  %t7 = dlc.tanh %t6 : tensor<1x512xf32>
  %t8 = dlc.tanh %t7 : tensor<1x512xf32>
  %t9 = dlc.tanh %t8 : tensor<1x512xf32>
  %t10 = dlc.tanh %t9 : tensor<1x512xf32>
  %t11 = dlc.tanh %t10 : tensor<1x512xf32>
  %t12 = dlc.tanh %t11 : tensor<1x512xf32>
  %t13 = dlc.tanh %t12 : tensor<1x512xf32>
  %t14 = dlc.tanh %t13 : tensor<1x512xf32>
  %t15 = dlc.tanh %t14 : tensor<1x512xf32>
  %t16 = dlc.tanh %t15 : tensor<1x512xf32>
  %t17 = dlc.tanh %t16 : tensor<1x512xf32>
  %t18 = dlc.tanh %t17 : tensor<1x512xf32>
  %t19 = dlc.tanh %t18 : tensor<1x512xf32>
  %y = dlc.add %x, %t19 : (tensor<65536x512xf32>, tensor<1x512xf32>) -> tensor<65536x512xf32>
  return %y : tensor<65536x512xf32>
}

// -----

// A bias vector's GELU broadcast over 8192 rows: ~5e7 extra operations,
// less than a launch: fused.
// CHECK-LABEL: func.func @cheap_broadcast
// CHECK: dlc.kernel(%arg1, %arg0) :
// CHECK: dlc.erf
// CHECK: dlc.add
// CHECK-NOT: dlc.kernel
func.func @cheap_broadcast(%x: tensor<8192x768xf32>, %b: tensor<1x768xf32>) -> tensor<8192x768xf32> {
  %e = dlc.erf %b : tensor<1x768xf32>
  %y = dlc.add %x, %e : (tensor<8192x768xf32>, tensor<1x768xf32>) -> tensor<8192x768xf32>
  return %y : tensor<8192x768xf32>
}

// -----

// In a row kernel a value of the per-row shape is computed once per row,
// however long the rows: the exp of the row maximum is not recomputed.
// CHECK-LABEL: func.func @per_row
// CHECK: dlc.kernel(%arg0) :
// CHECK-NOT: dlc.kernel
func.func @per_row(%x: tensor<64x65536xf32>) -> tensor<64x65536xf32> {
  %m = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<64x65536xf32>) -> tensor<64x1xf32>
  %e = dlc.exp %m : tensor<64x1xf32>
  %y = dlc.mul %x, %e : (tensor<64x65536xf32>, tensor<64x1xf32>) -> tensor<64x65536xf32>
  return %y : tensor<64x65536xf32>
}
