// RUN: not dlc-opt %s 2>&1 | FileCheck %s
// RUN: not dlc compile %s -o %t.dlcpkg 2>&1 | FileCheck %s
// MLIR 19 parses integers in an i1 dense array and then crashes printing
// the attribute (found by fuzz-parse); dlc rejects them before parsing.
// `array<i1: true, false>` is fine, and so is this comment's `array<i1: 1>`.
// i1 spelled `i01` is i1 too (found by fuzz-parse again):
// invalid-bool-array-width.mlir.

// CHECK: invalid-bool-array.mlir:[[@LINE+2]]:113: error: elements of array<i1: ...> must be true or false
// CHECK-NOT: error
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {a = array<i1: true, false>, b = array<i1: true, -1>} {
  return %x : tensor<4xf32>
}
