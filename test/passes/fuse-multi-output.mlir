// RUN: dlc-opt --split-input-file --dlc-fuse=fusion-notes %s | FileCheck %s
// Multi-output fusion across kernels: a kernel over the same rows that reads
// values of a row kernel joins it, so a layer norm whose statistics are also
// results is one kernel (before, the normalization was a kernel of its own
// reading back the centred rows).

// CHECK-LABEL: func.func @layernorm_with_statistics
// CHECK: %[[M:.*]], %[[R:.*]], %[[Y:.*]] = dlc.kernel(%arg0)
// CHECK-SAME: -> (tensor<64x1xf32>, tensor<64x1xf32>, tensor<64x256xf32>)
// CHECK-NOT: dlc.kernel
// CHECK: return %[[Y]], %[[M]], %[[R]]
func.func @layernorm_with_statistics(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x1xf32>, tensor<64x1xf32>) {
  %s = dlc.reduce sum %x {axes = array<i64: 1>} : (tensor<64x256xf32>) -> tensor<64x1xf32>
  %c = dlc.constant dense<3.906250e-03> : tensor<1x1xf32>
  %m = dlc.mul %s, %c : (tensor<64x1xf32>, tensor<1x1xf32>) -> tensor<64x1xf32>
  %d = dlc.sub %x, %m : (tensor<64x256xf32>, tensor<64x1xf32>) -> tensor<64x256xf32>
  %d2 = dlc.mul %d, %d : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  %v = dlc.reduce sum %d2 {axes = array<i64: 1>} : (tensor<64x256xf32>) -> tensor<64x1xf32>
  %vm = dlc.mul %v, %c : (tensor<64x1xf32>, tensor<1x1xf32>) -> tensor<64x1xf32>
  %e = dlc.constant dense<1.0e-05> : tensor<1x1xf32>
  %ve = dlc.add %vm, %e : (tensor<64x1xf32>, tensor<1x1xf32>) -> tensor<64x1xf32>
  %r = dlc.rsqrt %ve : tensor<64x1xf32>
  %y = dlc.mul %d, %r : (tensor<64x256xf32>, tensor<64x1xf32>) -> tensor<64x256xf32>
  return %y, %m, %r : tensor<64x256xf32>, tensor<64x1xf32>, tensor<64x1xf32>
}

// -----

// CHECK-LABEL: func.func @softmax_with_max
// CHECK: dlc.kernel(%arg0)
// CHECK-SAME: -> (tensor<8x1xf32>, tensor<8x100xf32>)
// CHECK-NOT: dlc.kernel
func.func @softmax_with_max(%x: tensor<8x100xf32>) -> (tensor<8x100xf32>, tensor<8x1xf32>) {
  %m = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<8x100xf32>) -> tensor<8x1xf32>
  %d = dlc.sub %x, %m : (tensor<8x100xf32>, tensor<8x1xf32>) -> tensor<8x100xf32>
  %e = dlc.exp %d : tensor<8x100xf32>
  %s = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<8x100xf32>) -> tensor<8x1xf32>
  %p = dlc.div %e, %s : (tensor<8x100xf32>, tensor<8x1xf32>) -> tensor<8x100xf32>
  return %p, %m : tensor<8x100xf32>, tensor<8x1xf32>
}

// -----

// Other rows: the product with the sums stays a kernel of its own.
// CHECK-LABEL: func.func @different_rows
// CHECK-COUNT-2: dlc.kernel
func.func @different_rows(%x: tensor<8x100xf32>, %y: tensor<100x8xf32>) -> (tensor<100x8xf32>, tensor<8x1xf32>) {
  %s = dlc.reduce sum %x {axes = array<i64: 1>} : (tensor<8x100xf32>) -> tensor<8x1xf32>
  %r = dlc.reshape %s : tensor<8x1xf32> -> tensor<1x8xf32>
  %o = dlc.mul %y, %r : (tensor<100x8xf32>, tensor<1x8xf32>) -> tensor<100x8xf32>
  return %o, %s : tensor<100x8xf32>, tensor<8x1xf32>
}

// -----

// A path from the row kernel to its consumer through a matmul: merging
// would make a cycle, so the consumer stays apart.
// CHECK-LABEL: func.func @through_matmul
// CHECK: dlc.kernel(%arg0)
// CHECK: dlc.matmul
// CHECK: dlc.kernel
func.func @through_matmul(%x: tensor<8x100xf32>, %w: tensor<100x100xf32>) -> (tensor<8x100xf32>, tensor<8x1xf32>) {
  %s = dlc.reduce sum %x {axes = array<i64: 1>} : (tensor<8x100xf32>) -> tensor<8x1xf32>
  %d = dlc.sub %x, %s : (tensor<8x100xf32>, tensor<8x1xf32>) -> tensor<8x100xf32>
  %m = dlc.matmul %d, %w : (tensor<8x100xf32>, tensor<100x100xf32>) -> tensor<8x100xf32>
  %y = dlc.mul %d, %s : (tensor<8x100xf32>, tensor<8x1xf32>) -> tensor<8x100xf32>
  %z = dlc.add %y, %m : (tensor<8x100xf32>, tensor<8x100xf32>) -> tensor<8x100xf32>
  return %z, %s : tensor<8x100xf32>, tensor<8x1xf32>
}
