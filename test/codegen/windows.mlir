// RUN: dlc run %s --device=sim --check --seed=7 | FileCheck %s --check-prefix=SIM
// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=NVRTC
// Window ops in the pointwise template end to end, through fusion (which may
// merge kernels): the sim run and the NVRTC compile. windows-kernels.mlir
// checks the CUDA source of the kernel of each op.

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM: check output_2: relative error {{.*}} ok
// SIM: check output_3: relative error {{.*}} ok
// SIM: check output_4: relative error {{.*}} ok
// SIM-NOT: FAILED

// NVRTC: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

func.func @main(%x: tensor<1x2x6x6xf32>, %w: tensor<2x1x3x3xf32>, %t: tensor<8x4xf32>, %i: tensor<3xi64>) -> (tensor<1x2x3x3xf32>, tensor<1x2x6x6xf32>, tensor<3x4xf32>, tensor<1x2x12x12xf32>, tensor<1x2x3x3xf32>) {
  %0 = dlc.pool2d avg %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  %1 = dlc.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x2x6x6xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x6x6xf32>
  %2 = dlc.gather %t, %i {axis = 0 : i64} : (tensor<8x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %3 = dlc.resize %x {mode = "linear", coordinate_mode = "half_pixel"} : (tensor<1x2x6x6xf32>) -> tensor<1x2x12x12xf32>
  %4 = dlc.pool2d max %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
  return %0, %1, %2, %3, %4 : tensor<1x2x3x3xf32>, tensor<1x2x6x6xf32>, tensor<3x4xf32>, tensor<1x2x12x12xf32>, tensor<1x2x3x3xf32>
}
