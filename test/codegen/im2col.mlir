// RUN: dlc run %s --device=sim --check --seed=8 | FileCheck %s --check-prefix=SIM
// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=NVRTC
// A 3x3 convolution from NHWC end to end, through fusion: the sim run and the
// NVRTC compile. im2col-kernels.mlir checks the CUDA source of the im2col and
// epilogue kernels that fusion forms here.

// SIM: check output_0: relative error {{.*}} ok

// NVRTC: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

func.func @main(%x: tensor<1x12x8x3xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<1x16x1x1xf32>) -> tensor<1x16x12x8xf32> {
  %t = dlc.transpose %x {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x12x8x3xf32>) -> tensor<1x3x12x8xf32>
  %0 = dlc.conv2d %t, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x3x12x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x12x8xf32>
  %1 = dlc.add %0, %b : (tensor<1x16x12x8xf32>, tensor<1x16x1x1xf32>) -> tensor<1x16x12x8xf32>
  %2 = dlc.clamp %1 {min = 0.0 : f64, max = 3.0e38 : f64} : tensor<1x16x12x8xf32>
  return %2 : tensor<1x16x12x8xf32>
}
