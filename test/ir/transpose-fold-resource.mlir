// RUN: dlc-opt %s --canonicalize | FileCheck %s
// A transpose of a dense_resource constant (an ONNX initializer: a filter
// made KRSC for a library convolution, a bias permuted by layout selection)
// folds at compile time into a new resource, so no kernel permutes weights
// on every run.
// CHECK-LABEL: func.func @fold_resource
// CHECK-NEXT: %[[C:.*]] = dlc.constant dense_resource<w_t> : tensor<3x2xf32>
// CHECK-NEXT: return %[[C]]
// CHECK: w_t: "0x080000000000803F00008040000000400000A040000040400000C040"
func.func @fold_resource() -> tensor<3x2xf32> {
  %w = dlc.constant dense_resource<w> : tensor<2x3xf32>
  %t = dlc.transpose %w {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}
