// RUN: dlc compile %s --emit=fused | FileCheck %s

// A column sum feeding a row kernel: it reduces over another axis than the
// row kernel's rows, so it stays a kernel of its own.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: // kernel k0: 1 op (reduce; pointwise template)
// CHECK-NEXT: //   reads 128 B (1 input), writes 32 B (1 output)
// CHECK-NEXT: //   not fused: consumer kernel k1 of %[[K0:.*]]: it reduces over other axes than the consumer row kernel's rows
// CHECK-NEXT: %[[K0]] = dlc.kernel(%arg0)
// CHECK: // kernel k1: 3 ops (sub, reduce; row template)
// CHECK-NEXT: //   reads 160 B (2 inputs), writes 128 B (1 output)
// CHECK-NEXT: //   not fused: producer %[[K0]] (kernel k0): it reduces over other axes than the consumer row kernel's rows
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c = dlc.reduce sum %x {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %y = dlc.sub %x, %c : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %m = dlc.reduce max %y {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = dlc.sub %y, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
