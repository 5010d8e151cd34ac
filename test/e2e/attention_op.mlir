// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=1 | FileCheck %s
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=2 | FileCheck %s
// RUN: env DLC_ATTENTION_SIM_MMA=1 dlc compile %s --no-cubin -o %t.mma.dlcpkg
// RUN: dlc run %t.mma.dlcpkg --device=sim --check --seed=3 | FileCheck %s
// dlc.attention written directly, checked against the reference
// interpreter's definition of the op:
// output_0: causal with more queries (9) than keys (5): the first four
//   queries see no key and are rows of zeros; k and v broadcast over q's
//   batch of 4;
// output_1: f16 (the tensor-core path on sm_80+, and on the sim with
//   DLC_ATTENTION_SIM_MMA=1), causal, 70 queries and keys, k and v shared by
//   two heads, an f32 mask per key;
// output_2: no keys at all: zeros.

// COMPILE: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// CHECK: check output_0: relative error {{.*}} ok
// CHECK: check output_1: relative error {{.*}} ok
// CHECK: check output_2: relative error {{.*}} ok
// CHECK-NOT: FAILED

func.func @main(%q: tensor<4x9x16xf32>, %k: tensor<1x5x16xf32>, %v: tensor<1x5x8xf32>, %qh: tensor<2x2x70x32xf16>, %kh: tensor<2x1x70x32xf16>, %vh: tensor<2x1x70x32xf16>, %mh: tensor<1x1x1x70xf32>, %qz: tensor<2x3x8xf32>, %kz: tensor<2x0x8xf32>, %vz: tensor<2x0x8xf32>) -> (tensor<4x9x8xf32>, tensor<2x2x70x32xf16>, tensor<2x3x8xf32>) {
  %0 = dlc.attention %q, %k, %v {causal, scale = 2.5e-01 : f64} : (tensor<4x9x16xf32>, tensor<1x5x16xf32>, tensor<1x5x8xf32>) -> tensor<4x9x8xf32>
  %1 = dlc.attention %qh, %kh, %vh, %mh {causal, scale = 0.17677669529663687 : f64} : (tensor<2x2x70x32xf16>, tensor<2x1x70x32xf16>, tensor<2x1x70x32xf16>, tensor<1x1x1x70xf32>) -> tensor<2x2x70x32xf16>
  %2 = dlc.attention %qz, %kz, %vz {scale = 1.0 : f64} : (tensor<2x3x8xf32>, tensor<2x0x8xf32>, tensor<2x0x8xf32>) -> tensor<2x3x8xf32>
  return %0, %1, %2 : tensor<4x9x8xf32>, tensor<2x2x70x32xf16>, tensor<2x3x8xf32>
}
