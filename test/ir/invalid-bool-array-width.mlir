// RUN: not dlc-opt %s 2>&1 | FileCheck %s
// RUN: not dlc compile %s -o %t.dlcpkg 2>&1 | FileCheck %s
// MLIR reads the width of an integer type as a number: `i01` is i1, and an
// `array<i01: -1>` crashed MLIR 19's printer as `array<i1: -1>` did (found
// by fuzz-parse; see invalid-bool-array.mlir).

// CHECK: invalid-bool-array-width.mlir:[[@LINE+2]]:81: error: elements of array<i1: ...> must be true or false
// CHECK-NOT: error
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {b = array<i001: -1>} {
  return %x : tensor<4xf32>
}
