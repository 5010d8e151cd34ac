// RUN: dlc compile %s --emit=fused | FileCheck %s

// The add and tanh before a depthwise convolution stay in a kernel of their
// own: fused, they would be recomputed for each of the 9 reads of the 3x3
// window. The clamp after it fuses.
// CHECK-LABEL: func.func @main
// CHECK-NEXT: // kernel k0: 2 ops (add, tanh; pointwise template)
// CHECK-NEXT: //   reads 1040 B (2 inputs), writes 1024 B (1 output)
// CHECK-NEXT: //   not fused: consumer kernel k1 of %[[K0:.*]]: as a window op's producer it would be recomputed for every read of the window
// CHECK-NEXT: %[[K0]] = dlc.kernel(%arg0, %arg2)
// CHECK: // kernel k1: 2 ops (conv2d, clamp; pointwise template)
// CHECK-NEXT: //   reads 1168 B (2 inputs), writes 1024 B (1 output)
// CHECK-NEXT: //   not fused: producer %[[K0]] (kernel k0): as a window op's producer it would be recomputed for every read of the window
// CHECK-NEXT: dlc.kernel(%[[K0]], %arg1)
func.func @main(%x: tensor<1x4x8x8xf32>, %wd: tensor<4x1x3x3xf32>, %b: tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32> {
  %a = dlc.add %x, %b : (tensor<1x4x8x8xf32>, tensor<1x4x1x1xf32>) -> tensor<1x4x8x8xf32>
  %r = dlc.tanh %a : tensor<1x4x8x8xf32>
  %d = dlc.conv2d %r, %wd {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  %c = dlc.clamp %d {min = 0.0 : f64, max = 6.0 : f64} : tensor<1x4x8x8xf32>
  return %c : tensor<1x4x8x8xf32>
}
