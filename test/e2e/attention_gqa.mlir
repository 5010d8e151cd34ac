// RUN: dlc compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: dlc run %s --device=sim --check --seed=1 | FileCheck %s
// RUN: dlc run %s --device=sim --check --seed=2 | FileCheck %s
// RUN: env DLC_ATTENTION_SIM_MMA=1 dlc run %s --device=sim --no-cache --check --seed=3 | FileCheck %s
// Grouped-query attention as exported models write it: keys and values of
// fewer heads repeated for groups of query heads (repeat_kv: reshape to
// [B, Hkv, 1, S, D], tile by G, reshape to [B, H, S, D]). dlc-attention-
// layout reads k and v unrepeated (kv_groups) and in the projections'
// layout: no transpose or tile kernel is left, and the results match the
// reference interpreter, which evaluates the repeated form.
// output_0: f32, 4 query heads sharing 2 key/value heads (G = 2);
// output_1: f16, causal, 4 query heads sharing one (multi-query, G = 4),
//   on the tensor-core path with DLC_ATTENTION_SIM_MMA=1;
// output_2: f32, keys and values tiled along the heads dimension itself
//   (query head h uses key head h % 2: not groups, so they stay repeated,
//   by a tile kernel that writes them in the projections' layout: the head
//   split moves out from under the tile);
// output_3: f32, output_0's model with attention written out as the ONNX
//   importer writes it (products, scale, softmax): formed, then grouped.
// FUSED-DAG: dlc.attention {{.*}}head_offsets = array<i64: 0, 0, 0>, kv_groups = 2 : i64
// FUSED-DAG: dlc.attention {{.*}}head_offsets = array<i64: 0, 0, 0>, kv_groups = 4 : i64
// FUSED-DAG: dlc.attention {{.*}}head_offsets = array<i64: 0, 0, 0>, kv_groups = 2 : i64, scale = 2.500000e-01 : f64} : (tensor<2x16x4x16xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32>) -> tensor<2x16x4x16xf32>
// FUSED-DAG: dlc.attention {{[^{]*}}{dlc.offsets = array<i64: {{-?[0-9]+}}>, head_offsets = array<i64: 0, 0, 0>, scale = 2.500000e-01 : f64} : (tensor<2x16x4x16xf32>, tensor<2x16x4x16xf32>, tensor<2x16x4x16xf32>)
// CHECK: check output_0: relative error {{.*}} ok
// CHECK: check output_1: relative error {{.*}} ok
// CHECK: check output_2: relative error {{.*}} ok
// CHECK: check output_3: relative error {{.*}} ok
func.func @main(%q0: tensor<2x16x64xf32>, %k0: tensor<2x16x32xf32>, %v0: tensor<2x16x32xf32>, %q1: tensor<2x24x128xf16>, %k1: tensor<2x24x32xf16>, %v1: tensor<2x24x32xf16>) -> (tensor<2x16x64xf32>, tensor<2x24x128xf16>, tensor<2x16x64xf32>, tensor<2x16x64xf32>) {
  %qr = dlc.reshape %q0 : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %kr = dlc.reshape %k0 : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %vr = dlc.reshape %v0 : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %kt = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %vt = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %ku = dlc.reshape %kt : tensor<2x2x16x16xf32> -> tensor<2x2x1x16x16xf32>
  %vu = dlc.reshape %vt : tensor<2x2x16x16xf32> -> tensor<2x2x1x16x16xf32>
  %ke = dlc.tile %ku {multiples = array<i64: 1, 1, 2, 1, 1>} : (tensor<2x2x1x16x16xf32>) -> tensor<2x2x2x16x16xf32>
  %ve = dlc.tile %vu {multiples = array<i64: 1, 1, 2, 1, 1>} : (tensor<2x2x1x16x16xf32>) -> tensor<2x2x2x16x16xf32>
  %k = dlc.reshape %ke : tensor<2x2x2x16x16xf32> -> tensor<2x4x16x16xf32>
  %v = dlc.reshape %ve : tensor<2x2x2x16x16xf32> -> tensor<2x4x16x16xf32>
  %o = dlc.attention %q, %k, %v {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %r0 = dlc.reshape %ot : tensor<2x16x4x16xf32> -> tensor<2x16x64xf32>

  %qr1 = dlc.reshape %q1 : tensor<2x24x128xf16> -> tensor<2x24x4x32xf16>
  %kr1 = dlc.reshape %k1 : tensor<2x24x32xf16> -> tensor<2x24x1x32xf16>
  %vr1 = dlc.reshape %v1 : tensor<2x24x32xf16> -> tensor<2x24x1x32xf16>
  %qq = dlc.transpose %qr1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x24x4x32xf16>) -> tensor<2x4x24x32xf16>
  %kt1 = dlc.transpose %kr1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x24x1x32xf16>) -> tensor<2x1x24x32xf16>
  %vt1 = dlc.transpose %vr1 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x24x1x32xf16>) -> tensor<2x1x24x32xf16>
  %ku1 = dlc.reshape %kt1 : tensor<2x1x24x32xf16> -> tensor<2x1x1x24x32xf16>
  %vu1 = dlc.reshape %vt1 : tensor<2x1x24x32xf16> -> tensor<2x1x1x24x32xf16>
  %ke1 = dlc.tile %ku1 {multiples = array<i64: 1, 1, 4, 1, 1>} : (tensor<2x1x1x24x32xf16>) -> tensor<2x1x4x24x32xf16>
  %ve1 = dlc.tile %vu1 {multiples = array<i64: 1, 1, 4, 1, 1>} : (tensor<2x1x1x24x32xf16>) -> tensor<2x1x4x24x32xf16>
  %kk = dlc.reshape %ke1 : tensor<2x1x4x24x32xf16> -> tensor<8x24x32xf16>
  %vv = dlc.reshape %ve1 : tensor<2x1x4x24x32xf16> -> tensor<8x24x32xf16>
  %qm = dlc.reshape %qq : tensor<2x4x24x32xf16> -> tensor<8x24x32xf16>
  %o1 = dlc.attention %qm, %kk, %vv {causal, scale = 0.17677669529663687 : f64} : (tensor<8x24x32xf16>, tensor<8x24x32xf16>, tensor<8x24x32xf16>) -> tensor<8x24x32xf16>
  %o1r = dlc.reshape %o1 : tensor<8x24x32xf16> -> tensor<2x4x24x32xf16>
  %ot1 = dlc.transpose %o1r {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x24x32xf16>) -> tensor<2x24x4x32xf16>
  %r1 = dlc.reshape %ot1 : tensor<2x24x4x32xf16> -> tensor<2x24x128xf16>

  %k2 = dlc.tile %kt {multiples = array<i64: 1, 2, 1, 1>} : (tensor<2x2x16x16xf32>) -> tensor<2x4x16x16xf32>
  %v2 = dlc.tile %vt {multiples = array<i64: 1, 2, 1, 1>} : (tensor<2x2x16x16xf32>) -> tensor<2x4x16x16xf32>
  %o2 = dlc.attention %q, %k2, %v2 {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %ot2 = dlc.transpose %o2 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %r2 = dlc.reshape %ot2 : tensor<2x16x4x16xf32> -> tensor<2x16x64xf32>

  %c = dlc.constant dense<4.0> : tensor<1x1x1x1xf32>
  %s3 = dlc.matmul %q, %k {transpose_b} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %t3 = dlc.div %s3, %c : (tensor<2x4x16x16xf32>, tensor<1x1x1x1xf32>) -> tensor<2x4x16x16xf32>
  %m3 = dlc.reduce max %t3 {axes = array<i64: 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x1xf32>
  %d3 = dlc.sub %t3, %m3 : (tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
  %e3 = dlc.exp %d3 : tensor<2x4x16x16xf32>
  %z3 = dlc.reduce sum %e3 {axes = array<i64: 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x1xf32>
  %p3 = dlc.div %e3, %z3 : (tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
  %o3 = dlc.matmul %p3, %v : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %ot3 = dlc.transpose %o3 {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %r3 = dlc.reshape %ot3 : tensor<2x16x4x16xf32> -> tensor<2x16x64xf32>
  return %r0, %r1, %r2, %r3 : tensor<2x16x64xf32>, tensor<2x24x128xf16>, tensor<2x16x64xf32>, tensor<2x16x64xf32>
}
