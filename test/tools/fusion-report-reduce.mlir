// RUN: dlc compile %s --emit=fused | FileCheck %s

// A row maximum feeding a column sum: the column sum's kernel is pointwise
// (one thread per column), where the row maximum would be recomputed for
// every element it is broadcast to, so the row reduction cannot join it.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: // kernel k0: 1 op (reduce; row template)
// CHECK-NEXT: //   reads 128 B (1 input), writes 16 B (1 output)
// CHECK-NEXT: //   not fused: consumer kernel k1 of %[[K0:.*]]: a reduction in a pointwise kernel would be recomputed for every element it is broadcast to
// CHECK-NEXT: %[[K0]] = dlc.kernel(%arg0)
// CHECK: // kernel k1: 3 ops (sub, exp, reduce; pointwise template)
// CHECK-NEXT: //   reads 144 B (2 inputs), writes 32 B (1 output)
// CHECK-NEXT: //   not fused: producer %[[K0]] (kernel k0): a reduction in a pointwise kernel would be recomputed for every element it is broadcast to
// CHECK-NEXT: dlc.kernel(%arg0, %[[K0]])
func.func @main(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  %m = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = dlc.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = dlc.exp %s : tensor<4x8xf32>
  %c = dlc.reduce sum %e {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  return %c : tensor<1x8xf32>
}
