// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=1 | FileCheck %s
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=2 | FileCheck %s
// RUN: env DLC_ATTENTION_SIM_MMA=1 dlc compile %s --no-cubin -o %t.mma.dlcpkg
// RUN: dlc run %t.mma.dlcpkg --device=sim --check --seed=3 | FileCheck %s
// dlc.attention in the heads layout (head_offsets) written directly, checked
// against the reference interpreter:
// output_0: f32, a packed QKV [2, 9, 6, 16] (q, k, v at heads 0, 2, 4), a
//   per-key mask;
// output_1: f16 (the tensor-core path on sm_80+ and with
//   DLC_ATTENTION_SIM_MMA=1), causal, q separate from a packed KV whose
//   batch of 1 broadcasts, 70 queries and keys;
// output_2: bf16, head size 64, three heads out of nine, a mask per head
//   and key, 33 queries and keys;
// output_3: f32, sequence first (seq_first): a packed QKV [9, 2, 6, 16], a
//   full [B, H, Sq, Sk] mask;
// output_4: f16 sequence first, causal with 20 queries and 37 keys, keys
//   and values of batch 1 (broadcast), head size 32.

// COMPILE: cubins: sm_80 (at most {{[0-9]+}} registers, {{[^)]*}}) sm_90 (at most {{[0-9]+}} registers, {{[^)]*}})

// CHECK: check output_0: relative error {{.*}} ok
// CHECK: check output_1: relative error {{.*}} ok
// CHECK: check output_2: relative error {{.*}} ok
// CHECK: check output_3: relative error {{.*}} ok
// CHECK: check output_4: relative error {{.*}} ok
// CHECK-NOT: FAILED

func.func @main(%qkv: tensor<2x9x6x16xf32>, %m: tensor<2x1x1x9xf32>, %q: tensor<2x70x2x32xf16>, %kv: tensor<1x70x4x32xf16>, %p: tensor<2x33x9x64xbf16>, %pm: tensor<1x3x1x33xbf16>, %s: tensor<9x2x6x16xf32>, %sm: tensor<2x2x9x9xf32>, %sq: tensor<20x2x2x32xf16>, %skv: tensor<37x1x4x32xf16>) -> (tensor<2x9x2x16xf32>, tensor<2x70x2x32xf16>, tensor<2x33x3x64xbf16>, tensor<9x2x2x16xf32>, tensor<20x2x2x32xf16>) {
  %0 = dlc.attention %qkv, %qkv, %qkv, %m {head_offsets = array<i64: 0, 2, 4>, scale = 2.5e-01 : f64} : (tensor<2x9x6x16xf32>, tensor<2x9x6x16xf32>, tensor<2x9x6x16xf32>, tensor<2x1x1x9xf32>) -> tensor<2x9x2x16xf32>
  %1 = dlc.attention %q, %kv, %kv {causal, head_offsets = array<i64: 0, 0, 2>, scale = 0.17677669529663687 : f64} : (tensor<2x70x2x32xf16>, tensor<1x70x4x32xf16>, tensor<1x70x4x32xf16>) -> tensor<2x70x2x32xf16>
  %2 = dlc.attention %p, %p, %p, %pm {head_offsets = array<i64: 0, 3, 6>, scale = 1.25e-01 : f64} : (tensor<2x33x9x64xbf16>, tensor<2x33x9x64xbf16>, tensor<2x33x9x64xbf16>, tensor<1x3x1x33xbf16>) -> tensor<2x33x3x64xbf16>
  %3 = dlc.attention %s, %s, %s, %sm {head_offsets = array<i64: 0, 2, 4>, scale = 2.5e-01 : f64, seq_first} : (tensor<9x2x6x16xf32>, tensor<9x2x6x16xf32>, tensor<9x2x6x16xf32>, tensor<2x2x9x9xf32>) -> tensor<9x2x2x16xf32>
  %4 = dlc.attention %sq, %skv, %skv {causal, head_offsets = array<i64: 0, 0, 2>, scale = 0.17677669529663687 : f64, seq_first} : (tensor<20x2x2x32xf16>, tensor<37x1x4x32xf16>, tensor<37x1x4x32xf16>) -> tensor<20x2x2x32xf16>
  return %0, %1, %2, %3, %4 : tensor<2x9x2x16xf32>, tensor<2x70x2x32xf16>, tensor<2x33x3x64xbf16>, tensor<9x2x2x16xf32>, tensor<20x2x2x32xf16>
}
