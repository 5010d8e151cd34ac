// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=5 | FileCheck %s
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=6 | FileCheck %s
// TOSA's convolution family (NHWC) lowered to the NCHW dlc ops, end to end:
// conv2d with bias and clamp, depthwise_conv2d with a channel multiplier,
// max_pool2d, avg_pool2d (padding not counted), resize (bilinear half pixel
// and nearest asymmetric), transpose_conv2d with bias, and a batched gather.

// COMPILE: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// CHECK: check output_0: relative error {{.*}} ok
// CHECK: check output_1: relative error {{.*}} ok
// CHECK: check output_2: relative error {{.*}} ok
// CHECK: check output_3: relative error {{.*}} ok
// CHECK: check output_4: relative error {{.*}} ok
// CHECK: check output_5: relative error {{.*}} ok
// CHECK: check output_6: relative error {{.*}} ok
// CHECK-NOT: FAILED

func.func @main(%x: tensor<1x8x8x3xf32>, %w: tensor<4x3x3x3xf32>, %dw: tensor<3x3x4x2xf32>, %tw: tensor<2x2x2x8xf32>, %v: tensor<2x8x3xf32>, %i: tensor<2x4xi32>)
    -> (tensor<1x4x4x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x8x8x8xf32>, tensor<1x4x4x8xf32>, tensor<1x8x8x2xf32>, tensor<2x4x3xf32>) {
  %b = "tosa.const"() {value = dense<[0.1, -0.2, 0.3, 0.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %c = tosa.conv2d %x, %w, %b {pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x3xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %r = tosa.clamp %c {min_fp = 0.0 : f32, max_fp = 6.0 : f32, min_int = 0 : i64, max_int = 6 : i64} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %z8 = "tosa.const"() {value = dense<0.0> : tensor<8xf32>} : () -> tensor<8xf32>
  %d = tosa.depthwise_conv2d %r, %dw, %z8 {pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>) -> tensor<1x4x4x8xf32>
  %m = tosa.max_pool2d %d {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>} : (tensor<1x4x4x8xf32>) -> tensor<1x2x2x8xf32>
  %a = tosa.avg_pool2d %d {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 0, 1, 0>, acc_type = f32} : (tensor<1x4x4x8xf32>) -> tensor<1x2x2x8xf32>
  %rl = tosa.resize %d {scale = array<i64: 4, 2, 4, 2>, offset = array<i64: -1, -1>, border = array<i64: 1, 1>, mode = "BILINEAR"} : (tensor<1x4x4x8xf32>) -> tensor<1x8x8x8xf32>
  %rn = tosa.resize %m {scale = array<i64: 2, 1, 2, 1>, offset = array<i64: 0, 0>, border = array<i64: 1, 1>, mode = "NEAREST_NEIGHBOR"} : (tensor<1x2x2x8xf32>) -> tensor<1x4x4x8xf32>
  %z2 = "tosa.const"() {value = dense<[0.5, -0.5]> : tensor<2xf32>} : () -> tensor<2xf32>
  %t = tosa.transpose_conv2d %d, %tw, %z2 {out_pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>, out_shape = array<i64: 1, 8, 8, 2>} : (tensor<1x4x4x8xf32>, tensor<2x2x2x8xf32>, tensor<2xf32>) -> tensor<1x8x8x2xf32>
  %g = tosa.gather %v, %i : (tensor<2x8x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  return %d, %m, %a, %rl, %rn, %t, %g : tensor<1x4x4x8xf32>, tensor<1x2x2x8xf32>, tensor<1x2x2x8xf32>, tensor<1x8x8x8xf32>, tensor<1x4x4x8xf32>, tensor<1x8x8x2xf32>, tensor<2x4x3xf32>
}
