// RUN: dlc compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: dlc run %s --device=sim --check --seed=1 | FileCheck %s
// RUN: dlc run %s --device=sim --check --seed=2 | FileCheck %s
// A batch-first layer norm viewed sequence-first (PyTorch's batch_first
// nn.TransformerEncoderLayer): the transpose only moves whole rows, so the
// layer norm's row kernel writes each row at its moved place. %y1 has one
// reader, the transpose; %y2 is read by the transpose and by a residual
// add, so its kernel writes both the rows and the moved rows. No kernel
// only transposes, and the results match the reference.
// FUSED: kernel k0: 10 ops (reduce, mul, sub, add, rsqrt, transpose; row template)
// FUSED: kernel k1: 12 ops (matmul epilogue: {{.*}}; row template)
// FUSED: kernel k2: 3 ops (matmul epilogue: transpose, add, exp; pointwise template)
// FUSED-NOT: kernel k3
// CHECK: check output_0: relative error {{.*}} ok
// CHECK: check output_1: relative error {{.*}} ok
// CHECK: check output_2: relative error {{.*}} ok
func.func @main(%x: tensor<2x5x40xf32>, %w: tensor<1x40x40xf32>) -> (tensor<5x2x40xf32>, tensor<5x2x40xf32>, tensor<2x5x40xf32>) {
  %c = dlc.constant dense<2.500000e-02> : tensor<1x1x1xf32>
  %e = dlc.constant dense<1.000000e-05> : tensor<1x1x1xf32>
  %s1 = dlc.reduce sum %x {axes = array<i64: 2>} : (tensor<2x5x40xf32>) -> tensor<2x5x1xf32>
  %m1 = dlc.mul %s1, %c : (tensor<2x5x1xf32>, tensor<1x1x1xf32>) -> tensor<2x5x1xf32>
  %d1 = dlc.sub %x, %m1 : (tensor<2x5x40xf32>, tensor<2x5x1xf32>) -> tensor<2x5x40xf32>
  %q1 = dlc.mul %d1, %d1 : (tensor<2x5x40xf32>, tensor<2x5x40xf32>) -> tensor<2x5x40xf32>
  %v1 = dlc.reduce sum %q1 {axes = array<i64: 2>} : (tensor<2x5x40xf32>) -> tensor<2x5x1xf32>
  %vm1 = dlc.mul %v1, %c : (tensor<2x5x1xf32>, tensor<1x1x1xf32>) -> tensor<2x5x1xf32>
  %ve1 = dlc.add %vm1, %e : (tensor<2x5x1xf32>, tensor<1x1x1xf32>) -> tensor<2x5x1xf32>
  %r1 = dlc.rsqrt %ve1 : tensor<2x5x1xf32>
  %y1 = dlc.mul %d1, %r1 : (tensor<2x5x40xf32>, tensor<2x5x1xf32>) -> tensor<2x5x40xf32>
  %t1 = dlc.transpose %y1 {perm = array<i64: 1, 0, 2>} : (tensor<2x5x40xf32>) -> tensor<5x2x40xf32>
  %p = dlc.matmul %t1, %w : (tensor<5x2x40xf32>, tensor<1x40x40xf32>) -> tensor<5x2x40xf32>
  %pt = dlc.transpose %p {perm = array<i64: 1, 0, 2>} : (tensor<5x2x40xf32>) -> tensor<2x5x40xf32>
  %s2 = dlc.reduce sum %pt {axes = array<i64: 2>} : (tensor<2x5x40xf32>) -> tensor<2x5x1xf32>
  %m2 = dlc.mul %s2, %c : (tensor<2x5x1xf32>, tensor<1x1x1xf32>) -> tensor<2x5x1xf32>
  %d2 = dlc.sub %pt, %m2 : (tensor<2x5x40xf32>, tensor<2x5x1xf32>) -> tensor<2x5x40xf32>
  %q2 = dlc.mul %d2, %d2 : (tensor<2x5x40xf32>, tensor<2x5x40xf32>) -> tensor<2x5x40xf32>
  %v2 = dlc.reduce sum %q2 {axes = array<i64: 2>} : (tensor<2x5x40xf32>) -> tensor<2x5x1xf32>
  %vm2 = dlc.mul %v2, %c : (tensor<2x5x1xf32>, tensor<1x1x1xf32>) -> tensor<2x5x1xf32>
  %ve2 = dlc.add %vm2, %e : (tensor<2x5x1xf32>, tensor<1x1x1xf32>) -> tensor<2x5x1xf32>
  %r2 = dlc.rsqrt %ve2 : tensor<2x5x1xf32>
  %y2 = dlc.mul %d2, %r2 : (tensor<2x5x40xf32>, tensor<2x5x1xf32>) -> tensor<2x5x40xf32>
  %t2 = dlc.transpose %y2 {perm = array<i64: 1, 0, 2>} : (tensor<2x5x40xf32>) -> tensor<5x2x40xf32>
  %g = dlc.matmul %t2, %w : (tensor<5x2x40xf32>, tensor<1x40x40xf32>) -> tensor<5x2x40xf32>
  %gt = dlc.transpose %g {perm = array<i64: 1, 0, 2>} : (tensor<5x2x40xf32>) -> tensor<2x5x40xf32>
  %z = dlc.add %gt, %y2 : (tensor<2x5x40xf32>, tensor<2x5x40xf32>) -> tensor<2x5x40xf32>
  %zs = dlc.exp %z : tensor<2x5x40xf32>
  return %t1, %g, %zs : tensor<5x2x40xf32>, tensor<5x2x40xf32>, tensor<2x5x40xf32>
}
