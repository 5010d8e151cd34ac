// RUN: dlc-opt %s | dlc-opt | FileCheck %s
// Every dlc operation survives printing and parsing again.

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xf32>, tensor<2x2xi32>, tensor<3xi1>, tensor<f16>) {
  // CHECK: dlc.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
  %0 = dlc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: dlc.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
  %1 = dlc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  // CHECK: dlc.constant dense<[true, false, true]> : tensor<3xi1>
  %2 = dlc.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK: dlc.constant dense<5.000000e-01> : tensor<f16>
  %3 = dlc.constant dense<0.5> : tensor<f16>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2x2xi32>, tensor<3xi1>, tensor<f16>
}

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[I:.*]]: tensor<4xi32>, %[[B:.*]]: tensor<4xi1>)
func.func @unary(%x: tensor<4x8xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>) {
  // CHECK: dlc.exp %[[X]] : tensor<4x8xf32>
  %0 = dlc.exp %x : tensor<4x8xf32>
  // CHECK: dlc.log %[[X]] : tensor<4x8xf32>
  %1 = dlc.log %x : tensor<4x8xf32>
  // CHECK: dlc.tanh %[[X]] : tensor<4x8xf32>
  %2 = dlc.tanh %x : tensor<4x8xf32>
  // CHECK: dlc.sigmoid %[[X]] : tensor<4x8xf32>
  %3 = dlc.sigmoid %x : tensor<4x8xf32>
  // CHECK: dlc.erf %[[X]] : tensor<4x8xf32>
  %4 = dlc.erf %x : tensor<4x8xf32>
  // CHECK: dlc.rsqrt %[[X]] : tensor<4x8xf32>
  %5 = dlc.rsqrt %x : tensor<4x8xf32>
  // CHECK: dlc.sqrt %[[X]] : tensor<4x8xf32>
  %6 = dlc.sqrt %x : tensor<4x8xf32>
  // CHECK: dlc.reciprocal %[[X]] : tensor<4x8xf32>
  %7 = dlc.reciprocal %x : tensor<4x8xf32>
  // CHECK: dlc.abs %[[I]] : tensor<4xi32>
  %8 = dlc.abs %i : tensor<4xi32>
  // CHECK: dlc.neg %[[X]] : tensor<4x8xf32>
  %9 = dlc.neg %x : tensor<4x8xf32>
  // CHECK: dlc.not %[[B]] : tensor<4xi1>
  %10 = dlc.not %b : tensor<4xi1>
  // CHECK: dlc.clamp %[[X]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<4x8xf32>
  %11 = dlc.clamp %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<1x8xf32>, %[[I:.*]]: tensor<4x8xi32>, %[[B:.*]]: tensor<4x1xi1>)
func.func @binary(%x: tensor<4x8xf32>, %y: tensor<1x8xf32>, %i: tensor<4x8xi32>, %b: tensor<4x1xi1>) {
  // CHECK: dlc.add %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %0 = dlc.add %x, %y : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: dlc.sub %[[Y]], %[[X]] : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = dlc.sub %y, %x : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: dlc.mul %[[X]], %[[X]] : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = dlc.mul %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: dlc.div %[[I]], %[[I]] : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %3 = dlc.div %i, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  // CHECK: dlc.max %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %4 = dlc.max %x, %y : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: dlc.min %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %5 = dlc.min %x, %y : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: dlc.pow %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %6 = dlc.pow %x, %y : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: dlc.and %[[I]], %[[I]] : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  %7 = dlc.and %i, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  // CHECK: dlc.or %[[B]], %[[B]] : (tensor<4x1xi1>, tensor<4x1xi1>) -> tensor<4x1xi1>
  %8 = dlc.or %b, %b : (tensor<4x1xi1>, tensor<4x1xi1>) -> tensor<4x1xi1>
  // CHECK: %[[M:.*]] = dlc.cmp gt, %[[X]], %[[Y]] : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xi1>
  %9 = dlc.cmp gt, %x, %y : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xi1>
  // CHECK: dlc.cmp eq, %[[I]], %[[I]] : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  %10 = dlc.cmp eq, %i, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  // CHECK: dlc.cmp ne, %[[X]], %[[X]]
  %11 = dlc.cmp ne, %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: dlc.cmp lt, %[[X]], %[[X]]
  %12 = dlc.cmp lt, %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: dlc.cmp le, %[[X]], %[[X]]
  %13 = dlc.cmp le, %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: dlc.cmp ge, %[[X]], %[[X]]
  %14 = dlc.cmp ge, %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: dlc.select %[[B]], %[[X]], %[[Y]] : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %15 = dlc.select %b, %x, %y : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  // CHECK: dlc.cast %[[X]] : tensor<4x8xf32> -> tensor<4x8xbf16>
  %16 = dlc.cast %x : tensor<4x8xf32> -> tensor<4x8xbf16>
  // CHECK: dlc.cast %[[M]] : tensor<4x8xi1> -> tensor<4x8xi64>
  %17 = dlc.cast %9 : tensor<4x8xi1> -> tensor<4x8xi64>
  return
}

// CHECK-LABEL: func.func @dropout
func.func @dropout(%x: tensor<4x8xbf16>, %o: tensor<1x1xi64>) {
  // CHECK: dlc.dropout %{{.*}}, %{{.*}} {ratio = 1.000000e-01 : f64, seed = 42 : i64, stream = 3 : i64} : (tensor<4x8xbf16>, tensor<1x1xi64>) -> tensor<4x8xbf16>
  %0 = dlc.dropout %x, %o {ratio = 0.1 : f64, seed = 42 : i64, stream = 3 : i64} : (tensor<4x8xbf16>, tensor<1x1xi64>) -> tensor<4x8xbf16>
  return
}

// CHECK-LABEL: func.func @reductions
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
func.func @reductions(%x: tensor<4x8xf32>) {
  // CHECK: dlc.reduce sum %[[X]] {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %0 = dlc.reduce sum %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // CHECK: dlc.reduce max %[[X]] {axes = array<i64: 0, 1>} : (tensor<4x8xf32>) -> tensor<1x1xf32>
  %1 = dlc.reduce max %x {axes = array<i64: 0, 1>} : (tensor<4x8xf32>) -> tensor<1x1xf32>
  // CHECK: dlc.reduce min %[[X]] {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %2 = dlc.reduce min %x {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  // CHECK: dlc.reduce prod %[[X]] {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %3 = dlc.reduce prod %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  // CHECK: dlc.argmax %[[X]] {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xi32>
  %4 = dlc.argmax %x {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xi32>
  // CHECK: dlc.argmax %[[X]] {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<1x8xi64>
  %5 = dlc.argmax %x {axis = 0 : i64} : (tensor<4x8xf32>) -> tensor<1x8xi64>
  return
}

// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf16>, %[[B:.*]]: tensor<1x16x8xf16>)
func.func @matmul(%a: tensor<2x4x8xf16>, %b: tensor<1x16x8xf16>) -> tensor<2x4x16xf16> {
  // CHECK: dlc.matmul %[[A]], %[[B]] {acc_type = f32, transpose_b} : (tensor<2x4x8xf16>, tensor<1x16x8xf16>) -> tensor<2x4x16xf16>
  %0 = dlc.matmul %a, %b {transpose_b, acc_type = f32} : (tensor<2x4x8xf16>, tensor<1x16x8xf16>) -> tensor<2x4x16xf16>
  // CHECK: dlc.matmul %[[A]], %[[A]] {transpose_a} : (tensor<2x4x8xf16>, tensor<2x4x8xf16>) -> tensor<2x8x8xf16>
  %1 = dlc.matmul %a, %a {transpose_a} : (tensor<2x4x8xf16>, tensor<2x4x8xf16>) -> tensor<2x8x8xf16>
  return %0 : tensor<2x4x16xf16>
}

// CHECK-LABEL: func.func @matmul_epilogue
// CHECK-SAME: (%[[A:.*]]: tensor<2x4x8xf16>, %[[B:.*]]: tensor<2x8x16xf16>, %[[C:.*]]: tensor<16xf16>, %[[R:.*]]: tensor<2x4x16xf16>)
func.func @matmul_epilogue(%a: tensor<2x4x8xf16>, %b: tensor<2x8x16xf16>, %c: tensor<16xf16>, %r: tensor<2x4x16xf16>) -> (tensor<2x4x16xf16>, tensor<2x4x16xf16>, tensor<2x4x16xf16>) {
  // CHECK: dlc.matmul %[[A]], %[[B]] bias(%[[C]]) addend(%[[R]]) epilogue(gelu_tanh) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<16xf16>, tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %0 = dlc.matmul %a, %b bias(%c) addend(%r) epilogue(gelu_tanh) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<16xf16>, tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  // CHECK: dlc.matmul %[[A]], %[[B]] addend(%[[R]]) epilogue(relu) {acc_type = f32} : (tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  %1 = dlc.matmul %a, %b addend(%r) epilogue(relu) {acc_type = f32} : (tensor<2x4x8xf16>, tensor<2x8x16xf16>, tensor<2x4x16xf16>) -> tensor<2x4x16xf16>
  // epilogue(none) is the default and not printed.
  // CHECK: dlc.matmul %[[A]], %[[B]] : (tensor<2x4x8xf16>, tensor<2x8x16xf16>) -> tensor<2x4x16xf16>
  %2 = dlc.matmul %a, %b epilogue(none) : (tensor<2x4x8xf16>, tensor<2x8x16xf16>) -> tensor<2x4x16xf16>
  return %0, %1, %2 : tensor<2x4x16xf16>, tensor<2x4x16xf16>, tensor<2x4x16xf16>
}

// CHECK-LABEL: func.func @data_movement
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x3xf32>)
func.func @data_movement(%x: tensor<4x8xf32>, %y: tensor<4x3xf32>) {
  // CHECK: dlc.transpose %[[X]] {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %0 = dlc.transpose %x {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  // CHECK: dlc.reshape %[[X]] : tensor<4x8xf32> -> tensor<2x16xf32>
  %1 = dlc.reshape %x : tensor<4x8xf32> -> tensor<2x16xf32>
  // CHECK: dlc.slice %[[X]] {start = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<3x3xf32>
  %2 = dlc.slice %x {start = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<3x3xf32>
  // CHECK: dlc.concat %[[X]], %[[Y]] {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
  %3 = dlc.concat %x, %y {axis = 1 : i64} : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
  // CHECK: dlc.pad %[[X]] {high = array<i64: 0, 2>, low = array<i64: 1, 0>, value = -1.000000e+00 : f64} : (tensor<4x8xf32>) -> tensor<5x10xf32>
  %4 = dlc.pad %x {low = array<i64: 1, 0>, high = array<i64: 0, 2>, value = -1.0 : f64} : (tensor<4x8xf32>) -> tensor<5x10xf32>
  // CHECK: dlc.tile %[[X]] {multiples = array<i64: 2, 1>} : (tensor<4x8xf32>) -> tensor<8x8xf32>
  %5 = dlc.tile %x {multiples = array<i64: 2, 1>} : (tensor<4x8xf32>) -> tensor<8x8xf32>
  return
}

// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<1x8xf32>)
func.func @kernel(%x: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  // CHECK: %[[K0:.*]], %[[K1:.*]] = dlc.kernel(%[[X]], %[[B]]) : (tensor<4x8xf32>, tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  // CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<4x8xf32>, %[[A1:.*]]: tensor<1x8xf32>):
  // CHECK-NEXT:   %[[S:.*]] = dlc.add %[[A0]], %[[A1]]
  // CHECK-NEXT:   %[[E:.*]] = dlc.exp %[[S]]
  // CHECK-NEXT:   %[[R:.*]] = dlc.reduce sum %[[E]]
  // CHECK-NEXT:   dlc.yield %[[E]], %[[R]] : tensor<4x8xf32>, tensor<4x1xf32>
  // CHECK-NEXT: }
  %k:2 = dlc.kernel (%x, %b) : (tensor<4x8xf32>, tensor<1x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  ^bb0(%a0: tensor<4x8xf32>, %a1: tensor<1x8xf32>):
    %0 = dlc.add %a0, %a1 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
    %1 = dlc.exp %0 : tensor<4x8xf32>
    %2 = dlc.reduce sum %1 {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
    dlc.yield %1, %2 : tensor<4x8xf32>, tensor<4x1xf32>
  }
  // CHECK: return %[[K0]], %[[K1]]
  return %k#0, %k#1 : tensor<4x8xf32>, tensor<4x1xf32>
}

// CHECK-LABEL: func.func @windows
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<8x2x3x3xf32>, %[[T:.*]]: tensor<4x2x3x3xf32>, %[[I:.*]]: tensor<2x3xi64>)
func.func @windows(%x: tensor<1x4x8x8xf32>, %w: tensor<8x2x3x3xf32>, %t: tensor<4x2x3x3xf32>, %i: tensor<2x3xi64>) {
  // CHECK: dlc.conv2d %[[X]], %[[W]] {acc_type = f32, dilations = array<i64: 1, 2>, groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 1>} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x6xf32>
  %0 = dlc.conv2d %x, %w {strides = array<i64: 2, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 2>, groups = 2 : i64, acc_type = f32} : (tensor<1x4x8x8xf32>, tensor<8x2x3x3xf32>) -> tensor<1x8x4x6xf32>
  // CHECK: dlc.conv_transpose2d %[[X]], %[[T]] {dilations = array<i64: 1, 1>, groups = 1 : i64, output_padding = array<i64: 1, 0>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x16x15xf32>
  %1 = dlc.conv_transpose2d %x, %t {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 0>, groups = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x2x16x15xf32>
  // CHECK: dlc.pool2d max %[[X]] {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %2 = dlc.pool2d max %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: dlc.pool2d avg %[[X]] {count_include_pad, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %3 = dlc.pool2d avg %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, count_include_pad} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: dlc.gather %[[X]], %[[I]] {axis = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<2x3xi64>) -> tensor<1x4x2x3x8xf32>
  %4 = dlc.gather %x, %i {axis = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<2x3xi64>) -> tensor<1x4x2x3x8xf32>
  // CHECK: dlc.resize %[[X]] {mode = "nearest", nearest_mode = "floor"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x16x16xf32>
  %5 = dlc.resize %x {mode = "nearest", coordinate_mode = "half_pixel", nearest_mode = "floor"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x16x16xf32>
  // CHECK: dlc.resize %[[X]] {coordinate_mode = "align_corners", mode = "linear"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x5xf32>
  %6 = dlc.resize %x {mode = "linear", coordinate_mode = "align_corners"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x5xf32>
  // CHECK: dlc.slice %[[X]] {start = array<i64: 0, 1, 0, 7>, strides = array<i64: 1, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x2x3x1xf32>
  %7 = dlc.slice %x {start = array<i64: 0, 1, 0, 7>, strides = array<i64: 1, 2, 3, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x2x3x1xf32>
  // CHECK: dlc.im2col %[[X]] {dilations = array<i64: 1, 1>, groups = 2 : i64, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x2x18x64xf32>
  %8 = dlc.im2col %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x2x18x64xf32>
  return
}

// A library convolution (channels-last), plain and with its epilogue.
// CHECK-LABEL: func.func @library_conv
// CHECK: dlc.conv %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, groups = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x4x4x6xf32>
// CHECK: dlc.conv %{{.*}}, %{{.*}} bias(%{{.*}}) addend(%{{.*}}) epilogue(relu) {dilations = array<i64: 1, 1>, groups = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x6xbf16>, tensor<6x1x1x6xbf16>, tensor<6xbf16>, tensor<1x4x4x6xbf16>) -> tensor<1x4x4x6xbf16>
func.func @library_conv(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x2xf32>, %y: tensor<1x4x4x6xbf16>, %v: tensor<6x1x1x6xbf16>, %b: tensor<6xbf16>) -> (tensor<1x4x4x6xf32>, tensor<1x4x4x6xbf16>) {
  %0 = dlc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 2 : i64} : (tensor<1x8x8x4xf32>, tensor<6x3x3x2xf32>) -> tensor<1x4x4x6xf32>
  %1 = dlc.conv %y, %v bias(%b) addend(%y) epilogue(relu) {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x4x4x6xbf16>, tensor<6x1x1x6xbf16>, tensor<6xbf16>, tensor<1x4x4x6xbf16>) -> tensor<1x4x4x6xbf16>
  return %0, %1 : tensor<1x4x4x6xf32>, tensor<1x4x4x6xbf16>
}
