// RUN: dlc-opt --split-input-file --dlc-split-concat-product %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-split-concat-product --dlc-fuse-epilogue %s | FileCheck %s --check-prefix=EPI

// A feature concat before a Linear (the weight [N, K] with transpose_b):
// the weight's columns are split at compile time and the second product
// adds the first's result.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[A:.*]]: tensor<64x3xf32>, %[[B:.*]]: tensor<64x1xf32>)
// CHECK-NEXT: %[[W1:.*]] = dlc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [5.000000e+00, 6.000000e+00, 7.000000e+00]]> : tensor<2x3xf32>
// CHECK-NEXT: %[[W2:.*]] = dlc.constant dense<{{\[}}[4.000000e+00], [8.000000e+00]]> : tensor<2x1xf32>
// CHECK-NEXT: %[[P:.*]] = dlc.matmul %[[A]], %[[W1]] {transpose_b} : (tensor<64x3xf32>, tensor<2x3xf32>) -> tensor<64x2xf32>
// CHECK-NEXT: %[[Q:.*]] = dlc.matmul %[[B]], %[[W2]] addend(%[[P]]) {transpose_b} : (tensor<64x1xf32>, tensor<2x1xf32>, tensor<64x2xf32>) -> tensor<64x2xf32>
// CHECK-NOT: dlc.concat
// CHECK: return %[[Q]]
func.func @linear(%a: tensor<64x3xf32>, %b: tensor<64x1xf32>) -> tensor<64x2xf32> {
  %w = dlc.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %c = dlc.concat %a, %b {axis = 1 : i64} : (tensor<64x3xf32>, tensor<64x1xf32>) -> tensor<64x4xf32>
  %y = dlc.matmul %c, %w {transpose_b} : (tensor<64x4xf32>, tensor<2x4xf32>) -> tensor<64x2xf32>
  return %y : tensor<64x2xf32>
}

// -----

// SqueezeNet's fire module in NHWC: two branches concatenated along the
// channels, viewed as rows for the next 1x1 convolution (a weight [K, N]:
// its rows are split). With dlc-fuse-epilogue the bias and relu after the
// view go on the last product, which keeps its addend.
// CHECK-LABEL: func.func @fire
// CHECK-SAME: (%[[E1:.*]]: tensor<1x4x4x8xf32>, %[[E3:.*]]: tensor<1x4x4x8xf32>)
// CHECK: %[[W1:.*]] = dlc.constant dense<{{\[}}[0.000000e+00, 1.000000e+00], [2.000000e+00, {{.*}}, [1.400000e+01, 1.500000e+01]]> : tensor<8x2xf32>
// CHECK-NEXT: %[[W3:.*]] = dlc.constant dense<{{\[}}[1.600000e+01, 1.700000e+01], {{.*}}, [3.000000e+01, 3.100000e+01]]> : tensor<8x2xf32>
// CHECK-NEXT: %[[V1:.*]] = dlc.reshape %[[E1]] : tensor<1x4x4x8xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[P:.*]] = dlc.matmul %[[V1]], %[[W1]] : (tensor<16x8xf32>, tensor<8x2xf32>) -> tensor<16x2xf32>
// CHECK-NEXT: %[[V3:.*]] = dlc.reshape %[[E3]] : tensor<1x4x4x8xf32> -> tensor<16x8xf32>
// CHECK-NEXT: dlc.matmul %[[V3]], %[[W3]] addend(%[[P]]) : (tensor<16x8xf32>, tensor<8x2xf32>, tensor<16x2xf32>) -> tensor<16x2xf32>
// CHECK-NOT: dlc.concat
// EPI-LABEL: func.func @fire
// EPI: %[[P:.*]] = dlc.matmul %{{.*}}, %{{.*}} : (tensor<16x8xf32>, tensor<8x2xf32>) -> tensor<16x2xf32>
// EPI: %[[Q:.*]] = dlc.matmul %{{.*}}, %{{.*}} bias(%{{.*}}) addend(%[[P]]) epilogue(relu) : (tensor<16x8xf32>, tensor<8x2xf32>, tensor<2xf32>, tensor<16x2xf32>) -> tensor<16x2xf32>
// EPI: %[[R:.*]] = dlc.reshape %[[Q]] : tensor<16x2xf32> -> tensor<1x4x4x2xf32>
// EPI: return %[[R]]
func.func @fire(%e1: tensor<1x4x4x8xf32>, %e3: tensor<1x4x4x8xf32>) -> tensor<1x4x4x2xf32> {
  %w = dlc.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [10.0, 11.0], [12.0, 13.0], [14.0, 15.0], [16.0, 17.0], [18.0, 19.0], [20.0, 21.0], [22.0, 23.0], [24.0, 25.0], [26.0, 27.0], [28.0, 29.0], [30.0, 31.0]]> : tensor<16x2xf32>
  %bias = dlc.constant dense<[[[[0.5, -0.5]]]]> : tensor<1x1x1x2xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1x1xf32>
  %c = dlc.concat %e1, %e3 {axis = 3 : i64} : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x4x16xf32>
  %rows = dlc.reshape %c : tensor<1x4x4x16xf32> -> tensor<16x16xf32>
  %p = dlc.matmul %rows, %w : (tensor<16x16xf32>, tensor<16x2xf32>) -> tensor<16x2xf32>
  %v = dlc.reshape %p : tensor<16x2xf32> -> tensor<1x4x4x2xf32>
  %s = dlc.add %v, %bias : (tensor<1x4x4x2xf32>, tensor<1x1x1x2xf32>) -> tensor<1x4x4x2xf32>
  %r = dlc.max %s, %zero : (tensor<1x4x4x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x2xf32>
  return %r : tensor<1x4x4x2xf32>
}

// -----

// Left alone: the concat has another reader (it is written anyway); the
// weight is an argument (not split at compile time); the concat is along
// the rows, not the contraction; a bf16 product (each partial sum would be
// rounded); a product as wide as the concat (the partial result's write
// and read cost more than the concat); three small parts (a launch more
// than the concat kernel's is worth more than the bytes saved).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-6: dlc.concat
// CHECK-NOT: addend
func.func @kept(%a: tensor<64x8xf32>, %b: tensor<64x8xf32>, %w: tensor<4x16xf32>, %h: tensor<64x8xbf16>, %g: tensor<64x8xbf16>) -> (tensor<64x4xf32>, tensor<64x16xf32>, tensor<64x4xf32>, tensor<128x4xf32>, tensor<64x4xbf16>, tensor<64x64xf32>, tensor<64x4xf32>) {
  %cw = dlc.constant dense<1.0> : tensor<4x16xf32>
  %c = dlc.concat %a, %b {axis = 1 : i64} : (tensor<64x8xf32>, tensor<64x8xf32>) -> tensor<64x16xf32>
  %y0 = dlc.matmul %c, %cw {transpose_b} : (tensor<64x16xf32>, tensor<4x16xf32>) -> tensor<64x4xf32>
  %c1 = dlc.concat %a, %b {axis = 1 : i64} : (tensor<64x8xf32>, tensor<64x8xf32>) -> tensor<64x16xf32>
  %y1 = dlc.matmul %c1, %w {transpose_b} : (tensor<64x16xf32>, tensor<4x16xf32>) -> tensor<64x4xf32>
  %rw = dlc.constant dense<1.0> : tensor<4x8xf32>
  %c2 = dlc.concat %a, %b {axis = 0 : i64} : (tensor<64x8xf32>, tensor<64x8xf32>) -> tensor<128x8xf32>
  %y2 = dlc.matmul %c2, %rw {transpose_b} : (tensor<128x8xf32>, tensor<4x8xf32>) -> tensor<128x4xf32>
  %hw = dlc.constant dense<1.0> : tensor<4x16xbf16>
  %c3 = dlc.concat %h, %g {axis = 1 : i64} : (tensor<64x8xbf16>, tensor<64x8xbf16>) -> tensor<64x16xbf16>
  %y3 = dlc.matmul %c3, %hw {transpose_b} : (tensor<64x16xbf16>, tensor<4x16xbf16>) -> tensor<64x4xbf16>
  %ww = dlc.constant dense<1.0> : tensor<64x16xf32>
  %c4 = dlc.concat %a, %b {axis = 1 : i64} : (tensor<64x8xf32>, tensor<64x8xf32>) -> tensor<64x16xf32>
  %y4 = dlc.matmul %c4, %ww {transpose_b} : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<64x64xf32>
  %tw = dlc.constant dense<1.0> : tensor<4x24xf32>
  %c5 = dlc.concat %a, %b, %a {axis = 1 : i64} : (tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>) -> tensor<64x24xf32>
  %y5 = dlc.matmul %c5, %tw {transpose_b} : (tensor<64x24xf32>, tensor<4x24xf32>) -> tensor<64x4xf32>
  return %y0, %c, %y1, %y2, %y3, %y4, %y5 : tensor<64x4xf32>, tensor<64x16xf32>, tensor<64x4xf32>, tensor<128x4xf32>, tensor<64x4xbf16>, tensor<64x64xf32>, tensor<64x4xf32>
}

// -----

// Three parts whose concat is large enough to pay for a launch more
// (4 MiB of traffic, the default): 3 x 1 MiB parts, a 64 KiB result.
// CHECK-LABEL: func.func @three
// CHECK: dlc.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<4096x64xf32>, tensor<4x64xf32>) -> tensor<4096x4xf32>
// CHECK: dlc.matmul %{{.*}}, %{{.*}} addend(%{{.*}}) {transpose_b}
// CHECK: dlc.matmul %{{.*}}, %{{.*}} addend(%{{.*}}) {transpose_b}
// CHECK-NOT: dlc.concat
func.func @three(%a: tensor<4096x64xf32>, %b: tensor<4096x64xf32>, %c: tensor<4096x64xf32>) -> tensor<4096x4xf32> {
  %w = dlc.constant dense<1.0> : tensor<4x192xf32>
  %cat = dlc.concat %a, %b, %c {axis = 1 : i64} : (tensor<4096x64xf32>, tensor<4096x64xf32>, tensor<4096x64xf32>) -> tensor<4096x192xf32>
  %y = dlc.matmul %cat, %w {transpose_b} : (tensor<4096x192xf32>, tensor<4x192xf32>) -> tensor<4096x4xf32>
  return %y : tensor<4096x4xf32>
}

// -----

// A U-Net skip connection in NHWC: a library convolution of the upsampled
// and the skipped features concatenated along the channels becomes two
// convolutions with the filter's input channels (KRSC: the last
// dimension) split, the second adding the first (cuDNN's fused addend);
// with dlc-fuse-epilogue the bias and relu go on the second.
// CHECK-LABEL: func.func @skip
// CHECK-SAME: (%[[U:.*]]: tensor<1x8x8x16xf32>, %[[S:.*]]: tensor<1x8x8x16xf32>)
// CHECK: %[[F1:.*]] = dlc.constant dense<1.000000e+00> : tensor<8x3x3x16xf32>
// CHECK-NEXT: %[[F2:.*]] = dlc.constant dense<1.000000e+00> : tensor<8x3x3x16xf32>
// CHECK-NEXT: %[[C1:.*]] = dlc.conv %[[U]], %[[F1]] {{.*}} : (tensor<1x8x8x16xf32>, tensor<8x3x3x16xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: %[[C2:.*]] = dlc.conv %[[S]], %[[F2]] addend(%[[C1]]) {{.*}} : (tensor<1x8x8x16xf32>, tensor<8x3x3x16xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NOT: dlc.concat
// EPI-LABEL: func.func @skip
// EPI: %[[C1:.*]] = dlc.conv %{{.*}}, %{{.*}} {{{.*}}} : (tensor<1x8x8x16xf32>, tensor<8x3x3x16xf32>) -> tensor<1x8x8x8xf32>
// EPI: %[[C2:.*]] = dlc.conv %{{.*}}, %{{.*}} bias(%{{.*}}) addend(%[[C1]]) epilogue(relu) {{.*}} : (tensor<1x8x8x16xf32>, tensor<8x3x3x16xf32>, tensor<8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
// EPI-NEXT: return %[[C2]]
func.func @skip(%u: tensor<1x8x8x16xf32>, %s: tensor<1x8x8x16xf32>) -> tensor<1x8x8x8xf32> {
  %f = dlc.constant dense<1.0> : tensor<8x3x3x32xf32>
  %bias = dlc.constant dense<[[[[0.5, -0.5, 0.5, -0.5, 0.5, -0.5, 0.5, -0.5]]]]> : tensor<1x1x1x8xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1x1xf32>
  %c = dlc.concat %u, %s {axis = 3 : i64} : (tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) -> tensor<1x8x8x32xf32>
  %y = dlc.conv %c, %f {dilations = array<i64: 1, 1>, groups = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x32xf32>, tensor<8x3x3x32xf32>) -> tensor<1x8x8x8xf32>
  %b = dlc.add %y, %bias : (tensor<1x8x8x8xf32>, tensor<1x1x1x8xf32>) -> tensor<1x8x8x8xf32>
  %r = dlc.max %b, %zero : (tensor<1x8x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// A part with no columns: left alone (no empty product).
// CHECK-LABEL: func.func @empty_part
// CHECK: dlc.concat
// CHECK-NOT: addend
func.func @empty_part(%a: tensor<64x16xf32>, %e: tensor<64x0xf32>) -> tensor<64x4xf32> {
  %w = dlc.constant dense<1.0> : tensor<4x16xf32>
  %c = dlc.concat %a, %e {axis = 1 : i64} : (tensor<64x16xf32>, tensor<64x0xf32>) -> tensor<64x16xf32>
  %y = dlc.matmul %c, %w {transpose_b} : (tensor<64x16xf32>, tensor<4x16xf32>) -> tensor<64x4xf32>
  return %y : tensor<64x4xf32>
}
