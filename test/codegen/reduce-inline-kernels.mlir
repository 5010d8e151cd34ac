// RUN: dlc-opt %s --split-input-file --dlc-test-codegen="print-source=true reference=false" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-codegen -o /dev/null
// A reduction that is not over the trailing dimensions runs as a serial loop
// per output element inside the pointwise template; what does not depend on
// the loop index is computed before the loop.
// The kernels of reduce-inline.mlir as `dlc compile reduce-inline.mlir
// --emit=fused` forms them; the second RUN line builds their package and runs
// the reference interpreter on them.

// Column sums of exp(x) * scale[j]: the scale is loaded once per thread.
// CHECK-LABEL: // k0: exp+mul+reduce (pointwise, 8 elements, 1 per thread;
// CHECK: if (tid < 8) {
// CHECK-NEXT: const int i1 = tid;
// CHECK-NEXT: float [[ACC:r[0-9]+]] = 0.0f;
// CHECK-NEXT: const float [[S:v[0-9]+]] = in1[tid];
// CHECK-NEXT: for (int [[K:k[0-9]+]] = 0; [[K]] < 32; ++[[K]]) {
// CHECK-NEXT: const int [[T:t[0-9]+]] = [[K]] * 8 + i1;
// CHECK-NEXT: const float [[X:v[0-9]+]] = in0[[[T]]];
// CHECK-NEXT: const float [[E:v[0-9]+]] = expf([[X]]);
// CHECK-NEXT: const float [[M:v[0-9]+]] = [[E]] * [[S]];
// CHECK-NEXT: [[ACC]] = [[ACC]] + [[M]];
// CHECK-NEXT: }
// CHECK-NEXT: out0[tid] = [[ACC]];

// Maximum over the middle axis of an i32 tensor and argmax over the first.
// CHECK-LABEL: // k1: reduce
// CHECK: int [[ACC:r[0-9]+]] = (-2147483647 - 1);
// CHECK-NEXT: for (int [[K:k[0-9]+]] = 0; [[K]] < 5; ++[[K]]) {
// CHECK: [[ACC]] = ([[ACC]] > [[X:v[0-9]+]] ? [[ACC]] : [[X]]);
// CHECK-LABEL: // k2: argmax
// CHECK: float [[BV:bv[0-9]+]] = 0; long long [[BI:bi[0-9]+]] = -1;
// CHECK-NEXT: for (int [[K:k[0-9]+]] = 0; [[K]] < 4; ++[[K]]) {
// CHECK: if ([[BI]] < 0 || [[X:v[0-9]+]] > [[BV]]) { [[BV]] = [[X]]; [[BI]] = [[K]]; }

func.func @main(%z: tensor<32x8xf32>, %sc: tensor<1x8xf32>, %i: tensor<3x5x7xi32>, %y: tensor<4x6xf32>) -> (tensor<1x8xf32>, tensor<3x1x7xi32>, tensor<1x6xi64>) attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  %colsum = dlc.kernel(%z, %sc) {dlc.offsets = array<i64: -1>} : (tensor<32x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32> {
  ^bb0(%a0: tensor<32x8xf32>, %a1: tensor<1x8xf32>):
    %0 = dlc.exp %a0 : tensor<32x8xf32>
    %1 = dlc.mul %0, %a1 : (tensor<32x8xf32>, tensor<1x8xf32>) -> tensor<32x8xf32>
    %2 = dlc.reduce sum %1 {axes = array<i64: 0>} : (tensor<32x8xf32>) -> tensor<1x8xf32>
    dlc.yield %2 : tensor<1x8xf32>
  }
  %max = dlc.kernel(%i) {dlc.offsets = array<i64: -1>} : (tensor<3x5x7xi32>) -> tensor<3x1x7xi32> {
  ^bb0(%a0: tensor<3x5x7xi32>):
    %0 = dlc.reduce max %a0 {axes = array<i64: 1>} : (tensor<3x5x7xi32>) -> tensor<3x1x7xi32>
    dlc.yield %0 : tensor<3x1x7xi32>
  }
  %argmax = dlc.kernel(%y) {dlc.offsets = array<i64: -1>} : (tensor<4x6xf32>) -> tensor<1x6xi64> {
  ^bb0(%a0: tensor<4x6xf32>):
    %0 = dlc.argmax %a0 {axis = 0 : i64} : (tensor<4x6xf32>) -> tensor<1x6xi64>
    dlc.yield %0 : tensor<1x6xi64>
  }
  return %colsum, %max, %argmax : tensor<1x8xf32>, tensor<3x1x7xi32>, tensor<1x6xi64>
}
