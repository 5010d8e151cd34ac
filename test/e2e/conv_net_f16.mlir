// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=3 | FileCheck %s
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=4 | FileCheck %s
// The convolution ops in f16: a strided conv (im2col + f16 GEMM) with bias
// and relu6, a strided depthwise conv, bilinear resize (align_corners), a
// transposed convolution and a ceil-mode max pool. Direct kernels accumulate
// in f32 and round their results to f16 like the reference.

// COMPILE: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// CHECK: check output_0: relative error {{.*}} ok
// CHECK: check output_1: relative error {{.*}} ok
// CHECK: check output_2: relative error {{.*}} ok
// CHECK: check output_3: relative error {{.*}} ok
// CHECK: check output_4: relative error {{.*}} ok
// CHECK-NOT: FAILED

func.func @main(%x: tensor<1x4x9x9xf16>, %w1: tensor<8x4x3x3xf16>, %b1: tensor<1x8x1x1xf16>, %wd: tensor<8x1x3x3xf16>, %wt: tensor<8x4x2x2xf16>) -> (tensor<1x8x5x5xf16>, tensor<1x8x3x3xf16>, tensor<1x8x6x6xf16>, tensor<1x4x6x6xf16>, tensor<1x8x3x3xf16>) {
  %c1 = dlc.conv2d %x, %w1 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x9x9xf16>, tensor<8x4x3x3xf16>) -> tensor<1x8x5x5xf16>
  %a1 = dlc.add %c1, %b1 : (tensor<1x8x5x5xf16>, tensor<1x8x1x1xf16>) -> tensor<1x8x5x5xf16>
  %r1 = dlc.clamp %a1 {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x8x5x5xf16>
  %d = dlc.conv2d %r1, %wd {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 8 : i64} : (tensor<1x8x5x5xf16>, tensor<8x1x3x3xf16>) -> tensor<1x8x3x3xf16>
  %r = dlc.resize %d {mode = "linear", coordinate_mode = "align_corners"} : (tensor<1x8x3x3xf16>) -> tensor<1x8x6x6xf16>
  %ct = dlc.conv_transpose2d %d, %wt {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>, groups = 1 : i64} : (tensor<1x8x3x3xf16>, tensor<8x4x2x2xf16>) -> tensor<1x4x6x6xf16>
  %p = dlc.pool2d max %r1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>} : (tensor<1x8x5x5xf16>) -> tensor<1x8x3x3xf16>
  return %r1, %d, %r, %ct, %p : tensor<1x8x5x5xf16>, tensor<1x8x3x3xf16>, tensor<1x8x6x6xf16>, tensor<1x4x6x6xf16>, tensor<1x8x3x3xf16>
}
