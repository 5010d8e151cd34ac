// RUN: dlc-opt %s --split-input-file --dlc-test-codegen="print-source=true reference=false" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-codegen -o /dev/null
// Window ops in the pointwise template: each output element loops over its
// window; reads outside the input are guarded (only the bounds that can
// fail are tested); an average divides by per-row and per-column counts
// computed at compile time; gather wraps negative indices and clamps;
// resize reads compile-time coordinate tables.
// The kernels of windows.mlir as `dlc compile windows.mlir --emit=fused
// --no-merge-kernels` forms them; the second RUN line builds their package and
// runs the reference interpreter on them.

// CHECK-LABEL: // k0: pool2d (pointwise, 18 elements
// CHECK: static __device__ const int k0_c0[3] = {
// CHECK-NEXT: 2, 3, 3};
// CHECK: float acc0 = 0.0f;
// CHECK-NEXT: for (int k1 = 0; k1 < 3; ++k1) for (int k2 = 0; k2 < 3; ++k2) {
// CHECK-NEXT: const int t3 = i2 * 2 + k1 - 1;
// CHECK-NEXT: const int t4 = i3 * 2 + k2 - 1;
// CHECK-NEXT: const int t5 = i1 * 36 + t3 * 6 + t4;
// CHECK-NEXT: if (t3 >= 0 && t4 >= 0) {
// CHECK-NEXT: const float v6 = in0[t5];
// CHECK-NEXT: acc0 += v6;
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: const int t7 = k0_c0[i2];
// CHECK-NEXT: const int t8 = k0_c0[i3];
// CHECK-NEXT: const float v9 = acc0 / (float)(t7 * t8);
// CHECK-NEXT: out0[tid] = v9;

// The depthwise convolution: the filter read moves out of the guard's
// condition but stays in the loop.
// CHECK-LABEL: // k1: conv2d (pointwise, 72 elements
// CHECK: for (int k1 = 0; k1 < 3; ++k1) for (int k2 = 0; k2 < 3; ++k2) {
// CHECK: const int t7 = i1 * 9 + k1 * 3 + k2;
// CHECK-NEXT: if (t3 >= 0 && t3 < 6 && t4 >= 0 && t4 < 6) {
// CHECK-NEXT: const float v6 = in0[t5];
// CHECK-NEXT: const float v8 = in1[t7];
// CHECK-NEXT: acc0 += v6 * v8;

// CHECK-LABEL: // k2: gather (pointwise, 12 elements
// CHECK: const long long v0 = in1[i0];
// CHECK-NEXT: const int t1 = (int)((v0 < 0 ? v0 + 8 : v0) < 0 ? 0 : (v0 < 0 ? v0 + 8 : v0) > 7 ? 7 : (v0 < 0 ? v0 + 8 : v0));
// CHECK-NEXT: const int t2 = t1 * 4 + i1;
// CHECK-NEXT: const float v3 = in0[t2];

// Bilinear half-pixel 2x upsampling: source rows, their neighbours and the
// weights are tables; four reads per output.
// CHECK-LABEL: // k3: resize (pointwise, 288 elements
// CHECK: static __device__ const int k3_c0[12] = {
// CHECK-NEXT: 0, 0, 0, 1, 1, 2, 2, 3,
// CHECK-NEXT: 3, 4, 4, 5};
// CHECK: static __device__ const float k3_c2[12] = {
// CHECK-NEXT: 0.75f, 0.25f, 0.75f, 0.25f, 0.75f, 0.25f, 0.75f, 0.25f,
// CHECK: const float v14 = (1.0f - v2) * (1.0f - v5) * v7 + v2 * (1.0f - v5) * v9 + (1.0f - v2) * v5 * v11 + v2 * v5 * v13;

// An unpadded max pool needs no guard.
// CHECK-LABEL: // k4: pool2d (pointwise, 18 elements
// CHECK: float acc0 = __uint_as_float(0xff800000u);
// CHECK-NOT: if (
// CHECK: acc0 = fmaxf(acc0, v6);

func.func @main(%x: tensor<1x2x6x6xf32>, %w: tensor<2x1x3x3xf32>, %t: tensor<8x4xf32>, %i: tensor<3xi64>) -> (tensor<1x2x3x3xf32>, tensor<1x2x6x6xf32>, tensor<3x4xf32>, tensor<1x2x12x12xf32>, tensor<1x2x3x3xf32>) attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  %avgpool = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  ^bb0(%a0: tensor<1x2x6x6xf32>):
    %0 = dlc.pool2d avg %a0 {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
    dlc.yield %0 : tensor<1x2x3x3xf32>
  }
  %conv = dlc.kernel(%x, %w) {dlc.offsets = array<i64: -1>} : (tensor<1x2x6x6xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x6x6xf32> {
  ^bb0(%a0: tensor<1x2x6x6xf32>, %a1: tensor<2x1x3x3xf32>):
    %0 = dlc.conv2d %a0, %a1 {dilations = array<i64: 1, 1>, groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x6x6xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x6x6xf32>
    dlc.yield %0 : tensor<1x2x6x6xf32>
  }
  %gathered = dlc.kernel(%t, %i) {dlc.offsets = array<i64: -1>} : (tensor<8x4xf32>, tensor<3xi64>) -> tensor<3x4xf32> {
  ^bb0(%a0: tensor<8x4xf32>, %a1: tensor<3xi64>):
    %0 = dlc.gather %a0, %a1 {axis = 0 : i64} : (tensor<8x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
    dlc.yield %0 : tensor<3x4xf32>
  }
  %resized = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x12x12xf32> {
  ^bb0(%a0: tensor<1x2x6x6xf32>):
    %0 = dlc.resize %a0 {mode = "linear"} : (tensor<1x2x6x6xf32>) -> tensor<1x2x12x12xf32>
    dlc.yield %0 : tensor<1x2x12x12xf32>
  }
  %maxpool = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32> {
  ^bb0(%a0: tensor<1x2x6x6xf32>):
    %0 = dlc.pool2d max %a0 {kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x2x6x6xf32>) -> tensor<1x2x3x3xf32>
    dlc.yield %0 : tensor<1x2x3x3xf32>
  }
  return %avgpool, %conv, %gathered, %resized, %maxpool : tensor<1x2x3x3xf32>, tensor<1x2x6x6xf32>, tensor<3x4xf32>, tensor<1x2x12x12xf32>, tensor<1x2x3x3xf32>
}
