// RUN: dlc-opt %s --split-input-file --dlc-test-codegen="print-source=true reference=false" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-codegen -o /dev/null
// Row template corner cases found by dlc-fuzz.
// The kernels of row-edge.mlir as `dlc compile row-edge.mlir --emit=fused`
// forms them; the second RUN line builds their package and runs the reference
// interpreter on them.

// An integer max names its operand twice; the shuffle result goes into a
// variable so that every lane runs every shuffle exactly once.
// CHECK-LABEL: // k0: reduce (row, 15 rows of 17;
// CHECK: for (int s = 16; s > 0; s >>= 1) {
// CHECK-NEXT: const int other = __shfl_xor_sync(0xffffffffu, [[ACC:acc[0-9]+]], s);
// CHECK-NEXT: [[ACC]] = ([[ACC]] > other ? [[ACC]] : other);
// CHECK-NEXT: }

// Rows of one element: the full-shape output is written by lane 0.
// CHECK-LABEL: // k1: clamp+reduce+cmp+select+mul (row, 340 rows of 1;
// CHECK: if (lane == 0) {
// CHECK: out0[row] =

func.func @main(%i: tensor<5x3x17xi32>, %x: tensor<340x1xf32>) -> (tensor<5x3x1xi32>, tensor<340x1xf32>) attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  %k0 = dlc.kernel(%i) {dlc.offsets = array<i64: -1>} : (tensor<5x3x17xi32>) -> tensor<5x3x1xi32> {
  ^bb0(%a0: tensor<5x3x17xi32>):
    %0 = dlc.reduce max %a0 {axes = array<i64: 2>} : (tensor<5x3x17xi32>) -> tensor<5x3x1xi32>
    dlc.yield %0 : tensor<5x3x1xi32>
  }
  %k1 = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<340x1xf32>) -> tensor<340x1xf32> {
  ^bb0(%a0: tensor<340x1xf32>):
    %0 = dlc.clamp %a0 {max = 4.062500e-01 : f64, min = -1.156250e+00 : f64} : tensor<340x1xf32>
    %1 = dlc.reduce min %0 {axes = array<i64: 1>} : (tensor<340x1xf32>) -> tensor<340x1xf32>
    %2 = dlc.cmp eq, %0, %1 : (tensor<340x1xf32>, tensor<340x1xf32>) -> tensor<340x1xi1>
    %3 = dlc.select %2, %0, %1 : (tensor<340x1xi1>, tensor<340x1xf32>, tensor<340x1xf32>) -> tensor<340x1xf32>
    %4 = dlc.mul %3, %3 : (tensor<340x1xf32>, tensor<340x1xf32>) -> tensor<340x1xf32>
    dlc.yield %4 : tensor<340x1xf32>
  }
  return %k0, %k1 : tensor<5x3x1xi32>, tensor<340x1xf32>
}
