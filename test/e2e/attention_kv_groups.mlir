// RUN: dlc run %s --device=sim --check --seed=1 | FileCheck %s
// RUN: dlc run %s --device=sim --check --seed=4 | FileCheck %s
// dlc.attention with kv_groups written directly: the kernel against the
// reference interpreter's grouped heads (test/e2e/attention_gqa.mlir checks
// the kernel against the repeated form).
// output_0: f32, 6 query heads in groups of 3 over a packed KV [2, 9, 4, 16]
//   (k at head 0, v at head 2), a per-key mask;
// output_1: bf16 sequence first, 4 query heads in groups of 2, k and v of
//   batch 1 (broadcast), causal.
// CHECK: check output_0: relative error {{.*}} ok
// CHECK: check output_1: relative error {{.*}} ok
func.func @main(%q: tensor<2x9x6x16xf32>, %kv: tensor<2x9x4x16xf32>, %m: tensor<2x1x1x9xf32>, %sq: tensor<12x2x4x32xbf16>, %sk: tensor<12x1x2x32xbf16>, %sv: tensor<12x1x2x32xbf16>) -> (tensor<2x9x6x16xf32>, tensor<12x2x4x32xbf16>) {
  %0 = dlc.attention %q, %kv, %kv, %m {head_offsets = array<i64: 0, 0, 2>, kv_groups = 3 : i64, scale = 2.5e-01 : f64} : (tensor<2x9x6x16xf32>, tensor<2x9x4x16xf32>, tensor<2x9x4x16xf32>, tensor<2x1x1x9xf32>) -> tensor<2x9x6x16xf32>
  %1 = dlc.attention %sq, %sk, %sv {causal, head_offsets = array<i64: 0, 0, 0>, kv_groups = 2 : i64, scale = 0.17677669529663687 : f64, seq_first} : (tensor<12x2x4x32xbf16>, tensor<12x1x2x32xbf16>, tensor<12x1x2x32xbf16>) -> tensor<12x2x4x32xbf16>
  return %0, %1 : tensor<2x9x6x16xf32>, tensor<12x2x4x32xbf16>
}
