// RUN: dlc compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: dlc run %s --device=sim --check --seed=1 | FileCheck %s
// Head splits and merge around an attention whose values have another head
// size than its queries and keys, all three sliced out of one packed
// product: dlc-attention-layout reads them in place (no transpose kernel
// is left), and the result matches the reference.
// FUSED: dlc.attention {{.*}}head_offsets = array<i64: 0, 4, 16>
// FUSED-NOT: dlc.kernel
// CHECK: check output_0: relative error {{.*}} ok
func.func @main(%p: tensor<32x160xf32>) -> tensor<32x32xf32> {
  %qs = dlc.slice %p {start = array<i64: 0, 0>} : (tensor<32x160xf32>) -> tensor<32x64xf32>
  %ks = dlc.slice %p {start = array<i64: 0, 64>} : (tensor<32x160xf32>) -> tensor<32x64xf32>
  %vs = dlc.slice %p {start = array<i64: 0, 128>} : (tensor<32x160xf32>) -> tensor<32x32xf32>
  %qr = dlc.reshape %qs : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
  %kr = dlc.reshape %ks : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
  %vr = dlc.reshape %vs : tensor<32x32xf32> -> tensor<2x16x4x8xf32>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %k = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %v = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
  %o = dlc.attention %q, %k, %v {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x8xf32>) -> tensor<2x16x4x8xf32>
  %r = dlc.reshape %ot : tensor<2x16x4x8xf32> -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}
