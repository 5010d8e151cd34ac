// RUN: dlc run %s --device=sim --check --seed=5 | FileCheck %s --check-prefix=SIM
// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=NVRTC
// Data movement inside a kernel, end to end through fusion: the sim run and
// the NVRTC compile. index-maps-kernels.mlir checks the CUDA source of each
// kernel as written.

// NVRTC: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM: check output_2: relative error {{.*}} ok
// SIM: check output_3: relative error {{.*}} ok
// SIM: check output_4: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%x: tensor<4x6xf32>, %y: tensor<4x3xf32>, %h: tensor<6x4xf16>, %z: tensor<4x9xf32>) -> (tensor<6x4xf32>, tensor<4x11xf32>, tensor<8x9xf32>, tensor<2x12xbf16>, tensor<4x2x3xf32>) {
  %t = dlc.kernel (%x, %h) : (tensor<4x6xf32>, tensor<6x4xf16>) -> tensor<6x4xf32> {
  ^bb0(%a0: tensor<4x6xf32>, %a1: tensor<6x4xf16>):
    %0 = dlc.transpose %a0 {perm = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
    %1 = dlc.cast %a1 : tensor<6x4xf16> -> tensor<6x4xf32>
    %2 = dlc.add %0, %1 : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
    dlc.yield %2 : tensor<6x4xf32>
  }
  %p = dlc.kernel (%y) : (tensor<4x3xf32>) -> tensor<4x11xf32> {
  ^bb0(%a0: tensor<4x3xf32>):
    %0 = dlc.pad %a0 {low = array<i64: 0, 2>, high = array<i64: 0, 6>, value = 1.5 : f64} : (tensor<4x3xf32>) -> tensor<4x11xf32>
    %1 = dlc.sigmoid %0 : tensor<4x11xf32>
    dlc.yield %1 : tensor<4x11xf32>
  }
  %c = dlc.kernel (%x, %y) : (tensor<4x6xf32>, tensor<4x3xf32>) -> tensor<8x9xf32> {
  ^bb0(%a0: tensor<4x6xf32>, %a1: tensor<4x3xf32>):
    %0 = dlc.concat %a0, %a1 {axis = 1 : i64} : (tensor<4x6xf32>, tensor<4x3xf32>) -> tensor<4x9xf32>
    %1 = dlc.tile %0 {multiples = array<i64: 2, 1>} : (tensor<4x9xf32>) -> tensor<8x9xf32>
    dlc.yield %1 : tensor<8x9xf32>
  }
  %r = dlc.kernel (%x) : (tensor<4x6xf32>) -> tensor<2x12xbf16> {
  ^bb0(%a0: tensor<4x6xf32>):
    %0 = dlc.reshape %a0 : tensor<4x6xf32> -> tensor<2x12xf32>
    %1 = dlc.cast %0 : tensor<2x12xf32> -> tensor<2x12xbf16>
    dlc.yield %1 : tensor<2x12xbf16>
  }
  %s = dlc.kernel (%z) : (tensor<4x9xf32>) -> tensor<4x2x3xf32> {
  ^bb0(%a0: tensor<4x9xf32>):
    %0 = dlc.slice %a0 {start = array<i64: 0, 2>} : (tensor<4x9xf32>) -> tensor<4x6xf32>
    %1 = dlc.reshape %0 : tensor<4x6xf32> -> tensor<4x2x3xf32>
    %2 = dlc.neg %1 : tensor<4x2x3xf32>
    dlc.yield %2 : tensor<4x2x3xf32>
  }
  return %t, %p, %c, %r, %s : tensor<6x4xf32>, tensor<4x11xf32>, tensor<8x9xf32>, tensor<2x12xbf16>, tensor<4x2x3xf32>
}
