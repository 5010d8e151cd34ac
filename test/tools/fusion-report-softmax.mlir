// RUN: dlc compile %s --emit=fused | FileCheck %s
// The report is made of comments: the output still parses.
// RUN: dlc compile %s --emit=fused | dlc-opt | FileCheck %s --check-prefix=PARSE

// Softmax is one row kernel with nothing left outside it.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: // kernel k0: 5 ops (reduce, sub, exp, div; row template)
// CHECK-NEXT: //   reads 128 B (1 input), writes 128 B (1 output)
// CHECK-NOT: not fused
// CHECK-NEXT: %[[K:.*]] = dlc.kernel(%arg0) {dlc.offsets = array<i64: -1>}
// CHECK-NOT: dlc.fusion_notes
// CHECK-NOT: // kernel
// CHECK: return %[[K]]
// PARSE: dlc.kernel
// PARSE-NOT: //
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = dlc.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = dlc.exp %s : tensor<4x8xf32>
  %t = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = dlc.div %e, %t : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}
