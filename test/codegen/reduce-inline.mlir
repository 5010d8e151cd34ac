// RUN: dlc run %s --device=sim --check --seed=11 | FileCheck %s --check-prefix=SIM
// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=NVRTC
// Reductions that are not over the trailing dimensions, end to end through
// fusion: the sim run and the NVRTC compile. reduce-inline-kernels.mlir checks
// the CUDA source of each kernel as written.

// NVRTC: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM: check output_2: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%z: tensor<32x8xf32>, %sc: tensor<1x8xf32>, %i: tensor<3x5x7xi32>, %y: tensor<4x6xf32>) -> (tensor<1x8xf32>, tensor<3x1x7xi32>, tensor<1x6xi64>) {
  %col = dlc.kernel (%z, %sc) : (tensor<32x8xf32>, tensor<1x8xf32>) -> tensor<1x8xf32> {
  ^bb0(%a0: tensor<32x8xf32>, %a1: tensor<1x8xf32>):
    %e = dlc.exp %a0 : tensor<32x8xf32>
    %m = dlc.mul %e, %a1 : (tensor<32x8xf32>, tensor<1x8xf32>) -> tensor<32x8xf32>
    %s = dlc.reduce sum %m {axes = array<i64: 0>} : (tensor<32x8xf32>) -> tensor<1x8xf32>
    dlc.yield %s : tensor<1x8xf32>
  }
  %mx = dlc.kernel (%i) : (tensor<3x5x7xi32>) -> tensor<3x1x7xi32> {
  ^bb0(%a0: tensor<3x5x7xi32>):
    %s = dlc.reduce max %a0 {axes = array<i64: 1>} : (tensor<3x5x7xi32>) -> tensor<3x1x7xi32>
    dlc.yield %s : tensor<3x1x7xi32>
  }
  %am = dlc.kernel (%y) : (tensor<4x6xf32>) -> tensor<1x6xi64> {
  ^bb0(%a0: tensor<4x6xf32>):
    %s = dlc.argmax %a0 {axis = 0 : i64} : (tensor<4x6xf32>) -> tensor<1x6xi64>
    dlc.yield %s : tensor<1x6xi64>
  }
  return %col, %mx, %am : tensor<1x8xf32>, tensor<3x1x7xi32>, tensor<1x6xi64>
}
