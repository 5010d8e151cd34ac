// RUN: dlc compile %s --emit=cuda | FileCheck %s
// RUN: dlc run %s --device=sim --check --seed=3 | FileCheck %s --check-prefix=SIM
// Rows too long for the register cache (20000 and 40000 f32 elements, more
// than 32 per thread of a 512-thread block): softmax and log-softmax compute
// the row maximum and the sum of exp(x - max) in one pass (online softmax),
// merging (max, sum) pairs across lanes and warps, so the row is read twice
// instead of three times.

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

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%x: tensor<6x20000xf32>, %y: tensor<3x40000xf32>) -> (tensor<6x20000xf32>, tensor<3x40000xf32>) {
  %m = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<6x20000xf32>) -> tensor<6x1xf32>
  %s = dlc.sub %x, %m : (tensor<6x20000xf32>, tensor<6x1xf32>) -> tensor<6x20000xf32>
  %e = dlc.exp %s : tensor<6x20000xf32>
  %t = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<6x20000xf32>) -> tensor<6x1xf32>
  %d = dlc.div %e, %t : (tensor<6x20000xf32>, tensor<6x1xf32>) -> tensor<6x20000xf32>
  %m2 = dlc.reduce max %y {axes = array<i64: 1>} : (tensor<3x40000xf32>) -> tensor<3x1xf32>
  %s2 = dlc.sub %y, %m2 : (tensor<3x40000xf32>, tensor<3x1xf32>) -> tensor<3x40000xf32>
  %e2 = dlc.exp %s2 : tensor<3x40000xf32>
  %t2 = dlc.reduce sum %e2 {axes = array<i64: 1>} : (tensor<3x40000xf32>) -> tensor<3x1xf32>
  %l = dlc.log %t2 : tensor<3x1xf32>
  %d2 = dlc.sub %s2, %l : (tensor<3x40000xf32>, tensor<3x1xf32>) -> tensor<3x40000xf32>
  return %d, %d2 : tensor<6x20000xf32>, tensor<3x40000xf32>
}
