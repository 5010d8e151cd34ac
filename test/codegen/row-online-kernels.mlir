// RUN: dlc-opt %s --split-input-file --dlc-test-codegen="print-source=true reference=false" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-codegen -o /dev/null
// Rows too long for the register cache (20000 and 40000 f32 elements, more
// than 32 per thread of a 512-thread block): softmax and log-softmax compute
// the row maximum and the sum of exp(x - max) in one pass (online softmax),
// merging (max, sum) pairs across lanes and warps, so the row is read twice
// instead of three times.
// The kernels of row-online.mlir as `dlc compile row-online.mlir --emit=fused`
// forms them; the second RUN line builds their package and runs the reference
// interpreter on them.

// CHECK-LABEL: // k0:
// CHECK: float [[M:acc[0-9]+]] = __uint_as_float(0xff800000u); float [[S:acc[0-9]+]] = 0.0f;
// CHECK-NEXT: for (int [[J:j[0-9]+]] = tid; [[J]] < 20000; [[J]] += 512) {
// CHECK: const float [[X:v[0-9]+]] = in0[
// CHECK-NEXT: if ([[X]] > [[M]]) {
// CHECK-NEXT: [[S]] = [[S]] * expf([[M]] - [[X]]);
// CHECK-NEXT: [[M]] = [[X]];
// CHECK-NEXT: }
// CHECK-NEXT: [[S]] = [[S]] + ([[X]] == [[M]] ? 1.0f : expf([[X]] - [[M]]));
// CHECK-NEXT: }
// CHECK: const float om = __shfl_xor_sync(0xffffffffu, [[M]], s);
// CHECK-NEXT: const float os = __shfl_xor_sync(0xffffffffu, [[S]], s);
// CHECK-NEXT: const float nm = fmaxf([[M]], om);
// CHECK-NEXT: [[S]] = ([[M]] == nm ? [[S]] : [[S]] * expf([[M]] - nm)) + (om == nm ? os : os * expf(om - nm));
// CHECK-NEXT: [[M]] = nm;
// CHECK: __syncthreads();
// One more pass: the outputs.
// CHECK: for (int [[J:j[0-9]+]] = tid; [[J]] < 20000; [[J]] += 512) {
// CHECK: = in0[
// CHECK: out0[
// CHECK-NOT: in0[
// CHECK-LABEL: // k1:
// CHECK: if ({{v[0-9]+}} > [[M:acc[0-9]+]]) {

func.func @main(%x: tensor<6x20000xf32>, %y: tensor<3x40000xf32>) -> (tensor<6x20000xf32>, tensor<3x40000xf32>) attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  %softmax = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<6x20000xf32>) -> tensor<6x20000xf32> {
  ^bb0(%a0: tensor<6x20000xf32>):
    %0 = dlc.reduce max %a0 {axes = array<i64: 1>} : (tensor<6x20000xf32>) -> tensor<6x1xf32>
    %1 = dlc.sub %a0, %0 : (tensor<6x20000xf32>, tensor<6x1xf32>) -> tensor<6x20000xf32>
    %2 = dlc.exp %1 : tensor<6x20000xf32>
    %3 = dlc.reduce sum %2 {axes = array<i64: 1>} : (tensor<6x20000xf32>) -> tensor<6x1xf32>
    %4 = dlc.div %2, %3 : (tensor<6x20000xf32>, tensor<6x1xf32>) -> tensor<6x20000xf32>
    dlc.yield %4 : tensor<6x20000xf32>
  }
  %logsoftmax = dlc.kernel(%y) {dlc.offsets = array<i64: -1>} : (tensor<3x40000xf32>) -> tensor<3x40000xf32> {
  ^bb0(%a0: tensor<3x40000xf32>):
    %0 = dlc.reduce max %a0 {axes = array<i64: 1>} : (tensor<3x40000xf32>) -> tensor<3x1xf32>
    %1 = dlc.sub %a0, %0 : (tensor<3x40000xf32>, tensor<3x1xf32>) -> tensor<3x40000xf32>
    %2 = dlc.exp %1 : tensor<3x40000xf32>
    %3 = dlc.reduce sum %2 {axes = array<i64: 1>} : (tensor<3x40000xf32>) -> tensor<3x1xf32>
    %4 = dlc.log %3 : tensor<3x1xf32>
    %5 = dlc.sub %1, %4 : (tensor<3x40000xf32>, tensor<3x1xf32>) -> tensor<3x40000xf32>
    dlc.yield %5 : tensor<3x40000xf32>
  }
  return %softmax, %logsoftmax : tensor<6x20000xf32>, tensor<3x40000xf32>
}
