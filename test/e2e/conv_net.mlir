// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=1 | FileCheck %s
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=2 | FileCheck %s
// A small convolutional network in f32, end to end: every kernel compiles
// with NVRTC for sm_80 and sm_90, and the sim device matches the reference
// interpreter. Dense convolutions run as im2col + GEMM (the bias and relu
// fuse into the GEMM's epilogue kernel); the depthwise convolution runs
// directly, fused with its BN-style scale/shift and relu6; pooling, the
// transposed convolution, gather (with negative indices), resize and the
// strided slice are direct kernels.

// COMPILE: 25 ops -> 14 fused kernels, 4 GEMM calls
// COMPILE-SAME: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// CHECK: check output_0: relative error {{.*}} ok
// CHECK: check output_1: relative error {{.*}} ok
// CHECK: check output_2: relative error {{.*}} ok
// CHECK: check output_3: relative error {{.*}} ok
// CHECK: check output_4: relative error {{.*}} ok
// CHECK: check output_5: relative error {{.*}} ok
// CHECK: check output_6: relative error {{.*}} ok
// CHECK: check output_7: relative error {{.*}} ok
// CHECK: check output_8: relative error {{.*}} ok
// CHECK: check output_9: relative error {{.*}} ok
// CHECK-NOT: FAILED

func.func @main(%x: tensor<2x4x11x11xf32>, %w1: tensor<8x4x3x3xf32>, %b1: tensor<1x8x1x1xf32>,
                %w2: tensor<8x2x3x3xf32>, %wd: tensor<16x1x3x3xf32>, %s: tensor<1x16x1x1xf32>, %t: tensor<1x16x1x1xf32>,
                %w3: tensor<6x16x1x1xf32>, %wt: tensor<6x3x3x3xf32>,
                %table: tensor<10x6xf32>, %ids: tensor<2x3xi64>, %cols: tensor<3x8xf32>, %pick: tensor<2xi32>)
    -> (tensor<3x2xf32>, tensor<2x8x11x11xf32>, tensor<2x6x3x3xf32>, tensor<2x6x1x1xf32>, tensor<2x3x7x7xf32>, tensor<2x3x6xf32>, tensor<2x6x6x6xf32>, tensor<2x6x5x5xf32>, tensor<2x4x4x6xf32>, tensor<2x6x2x2xf32>) {
  // conv + bias + relu (padded, stride 1)
  %c1 = dlc.conv2d %x, %w1 {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x4x11x11xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x11x11xf32>
  %a1 = dlc.add %c1, %b1 : (tensor<2x8x11x11xf32>, tensor<1x8x1x1xf32>) -> tensor<2x8x11x11xf32>
  %r1 = dlc.clamp %a1 {min = 0.0 : f64, max = 3.0e38 : f64} : tensor<2x8x11x11xf32>
  // max pool 3x3 stride 2 pad 1
  %p1 = dlc.pool2d max %r1 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x8x11x11xf32>) -> tensor<2x8x6x6xf32>
  // grouped conv (4 groups), stride 2, dilation 2 in W: H (6+2-3)/2+1 = 3, W (6+2-5)/2+1 = 2
  %c2 = dlc.conv2d %p1, %w2 {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 2>, groups = 4 : i64} : (tensor<2x8x6x6xf32>, tensor<8x2x3x3xf32>) -> tensor<2x8x3x2xf32>
  // depthwise with multiplier 2 + BN-style mul/add + relu6
  %d = dlc.conv2d %p1, %wd {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 8 : i64} : (tensor<2x8x6x6xf32>, tensor<16x1x3x3xf32>) -> tensor<2x16x6x6xf32>
  %dm = dlc.mul %d, %s : (tensor<2x16x6x6xf32>, tensor<1x16x1x1xf32>) -> tensor<2x16x6x6xf32>
  %da = dlc.add %dm, %t : (tensor<2x16x6x6xf32>, tensor<1x16x1x1xf32>) -> tensor<2x16x6x6xf32>
  %dr = dlc.clamp %da {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x16x6x6xf32>
  // 1x1 conv
  %c3 = dlc.conv2d %dr, %w3 {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x16x6x6xf32>, tensor<6x16x1x1xf32>) -> tensor<2x6x6x6xf32>
  // avg pool 3x3 stride 2 with pads and count_include_pad
  %p2 = dlc.pool2d avg %c3 {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 0, 0>, count_include_pad} : (tensor<2x6x6x6xf32>) -> tensor<2x6x3x3xf32>
  // global average pool
  %gs = dlc.reduce sum %c3 {axes = array<i64: 2, 3>} : (tensor<2x6x6x6xf32>) -> tensor<2x6x1x1xf32>
  %inv = dlc.constant dense<0.027777777777777776> : tensor<1x1x1x1xf32>
  %gap = dlc.mul %gs, %inv : (tensor<2x6x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<2x6x1x1xf32>
  // conv transpose, stride 2, asymmetric pads, output_padding 1: 2*2 + 1 + 3 - 1 = 7
  %ct = dlc.conv_transpose2d %p2, %wt {strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 0, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, groups = 1 : i64} : (tensor<2x6x3x3xf32>, tensor<6x3x3x3xf32>) -> tensor<2x3x7x7xf32>
  // embedding lookup: ids in [0, 8) shifted to [-5, 3)
  %five = dlc.constant dense<5> : tensor<1x1xi64>
  %sid = dlc.sub %ids, %five : (tensor<2x3xi64>, tensor<1x1xi64>) -> tensor<2x3xi64>
  %e = dlc.gather %table, %sid {axis = 0 : i64} : (tensor<10x6xf32>, tensor<2x3xi64>) -> tensor<2x3x6xf32>
  // resize nearest (asymmetric floor, pytorch 'nearest') and bilinear (half_pixel)
  %rn = dlc.resize %p2 {mode = "nearest", coordinate_mode = "asymmetric", nearest_mode = "floor"} : (tensor<2x6x3x3xf32>) -> tensor<2x6x6x6xf32>
  %rl = dlc.resize %p2 {mode = "linear", coordinate_mode = "half_pixel"} : (tensor<2x6x3x3xf32>) -> tensor<2x6x5x5xf32>
  // strided slice
  %sl = dlc.slice %x {start = array<i64: 0, 0, 1, 0>, strides = array<i64: 1, 1, 3, 2>} : (tensor<2x4x11x11xf32>) -> tensor<2x4x4x6xf32>
  // avg pool without count_include_pad in ceil mode (3 -> 2 rows), then data movement fused after it
  %p3 = dlc.pool2d avg %c2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 1>, pads = array<i64: 0, 0, 0, 0>} : (tensor<2x8x3x2xf32>) -> tensor<2x8x2x1xf32>
  %p3r = dlc.reshape %p3 : tensor<2x8x2x1xf32> -> tensor<2x16xf32>
  %p3s = dlc.slice %p3r {start = array<i64: 0, 0>} : (tensor<2x16xf32>) -> tensor<2x12xf32>
  %p3o = dlc.reshape %p3s : tensor<2x12xf32> -> tensor<2x6x2x1xf32>
  %p3t = dlc.tile %p3o {multiples = array<i64: 1, 1, 1, 2>} : (tensor<2x6x2x1xf32>) -> tensor<2x6x2x2xf32>
  // gather along the last axis
  %ga = dlc.gather %cols, %pick {axis = 1 : i64} : (tensor<3x8xf32>, tensor<2xi32>) -> tensor<3x2xf32>
  return %ga, %r1, %p2, %gap, %ct, %e, %rn, %rl, %sl, %p3t : tensor<3x2xf32>, tensor<2x8x11x11xf32>, tensor<2x6x3x3xf32>, tensor<2x6x1x1xf32>, tensor<2x3x7x7xf32>, tensor<2x3x6xf32>, tensor<2x6x6x6xf32>, tensor<2x6x5x5xf32>, tensor<2x4x4x6xf32>, tensor<2x6x2x2xf32>
}
