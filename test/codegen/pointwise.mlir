// RUN: dlc run %s --device=sim --check --seed=3 | FileCheck %s --check-prefix=SIM
// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=NVRTC
// The pointwise template end to end, through fusion (which may merge these
// kernels): the sim run and the NVRTC compile. pointwise-kernels.mlir checks
// the CUDA source of each kernel as written.

// NVRTC: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM: check output_2: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%x: tensor<64x128xf32>, %b: tensor<1x128xf32>, %u: tensor<3x5xf32>, %w: tensor<3x1xf32>) -> (tensor<64x128xf32>, tensor<64x128xf16>, tensor<3x5xf32>) {
  %k0 = dlc.kernel (%x, %b) : (tensor<64x128xf32>, tensor<1x128xf32>) -> tensor<64x128xf32> {
  ^bb0(%a0: tensor<64x128xf32>, %a1: tensor<1x128xf32>):
    %0 = dlc.add %a0, %a1 : (tensor<64x128xf32>, tensor<1x128xf32>) -> tensor<64x128xf32>
    %c = dlc.constant dense<2.0> : tensor<64x128xf32>
    %1 = dlc.mul %0, %c : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
    %2 = dlc.exp %1 : tensor<64x128xf32>
    dlc.yield %2 : tensor<64x128xf32>
  }
  %k1 = dlc.kernel (%x) : (tensor<64x128xf32>) -> tensor<64x128xf16> {
  ^bb0(%a0: tensor<64x128xf32>):
    %0 = dlc.tanh %a0 : tensor<64x128xf32>
    %1 = dlc.cast %0 : tensor<64x128xf32> -> tensor<64x128xf16>
    dlc.yield %1 : tensor<64x128xf16>
  }
  %k2 = dlc.kernel (%u, %w) : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32> {
  ^bb0(%a0: tensor<3x5xf32>, %a1: tensor<3x1xf32>):
    %0 = dlc.sub %a0, %a1 : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
    dlc.yield %0 : tensor<3x5xf32>
  }
  return %k0, %k1, %k2 : tensor<64x128xf32>, tensor<64x128xf16>, tensor<3x5xf32>
}
