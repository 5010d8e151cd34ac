// RUN: dlc-opt --split-input-file --dlc-fuse-epilogue %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-fuse-epilogue --dlc-fuse-epilogue %s | FileCheck %s

// The ONNX form: a constant bias added to the product, then max(x, 0). The
// product takes the place of the relu; the constants it no longer needs go.
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<128x64xf32>)
// CHECK-NEXT: %[[B:.*]] = dlc.constant dense<{{.*}}> : tensor<1x128xf32>
// CHECK-NEXT: %[[M:.*]] = dlc.matmul %[[X]], %[[W]] bias(%[[B]]) epilogue(relu) {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>, tensor<1x128xf32>) -> tensor<8x128xf32>
// CHECK-NEXT: return %[[M]]
func.func @bias_relu(%x: tensor<8x64xf32>, %w: tensor<128x64xf32>) -> tensor<8x128xf32> {
  %b = dlc.constant dense<0.5> : tensor<1x128xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1xf32>
  %0 = dlc.matmul %x, %w {transpose_b} : (tensor<8x64xf32>, tensor<128x64xf32>) -> tensor<8x128xf32>
  %1 = dlc.add %0, %b : (tensor<8x128xf32>, tensor<1x128xf32>) -> tensor<8x128xf32>
  %2 = dlc.max %1, %zero : (tensor<8x128xf32>, tensor<1x1xf32>) -> tensor<8x128xf32>
  return %2 : tensor<8x128xf32>
}

// -----

// The TOSA form of relu (a clamp to [0, FLT_MAX]) after a bias that is an
// argument, added on the left; max(0, x) in f16 (its largest value 65504).
// CHECK-LABEL: func.func @clamp_relu
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x16xf32>, %[[B:.*]]: tensor<1x16xf32>, %[[H:.*]]: tensor<4x8xf16>, %[[G:.*]]: tensor<8x2xf16>, %[[C:.*]]: tensor<1x2xf16>)
// CHECK: %[[M:.*]] = dlc.matmul %[[X]], %[[W]] bias(%[[B]]) epilogue(relu) : (tensor<8x64xf32>, tensor<64x16xf32>, tensor<1x16xf32>) -> tensor<8x16xf32>
// CHECK: %[[N:.*]] = dlc.matmul %[[H]], %[[G]] bias(%[[C]]) epilogue(relu) : (tensor<4x8xf16>, tensor<8x2xf16>, tensor<1x2xf16>) -> tensor<4x2xf16>
// CHECK-NEXT: %[[P:.*]] = dlc.matmul %[[H]], %[[G]] epilogue(relu) : (tensor<4x8xf16>, tensor<8x2xf16>) -> tensor<4x2xf16>
// CHECK-NEXT: return %[[M]], %[[N]], %[[P]]
func.func @clamp_relu(%x: tensor<8x64xf32>, %w: tensor<64x16xf32>, %b: tensor<1x16xf32>, %h: tensor<4x8xf16>, %g: tensor<8x2xf16>, %c: tensor<1x2xf16>) -> (tensor<8x16xf32>, tensor<4x2xf16>, tensor<4x2xf16>) {
  %0 = dlc.matmul %x, %w : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  %1 = dlc.add %b, %0 : (tensor<1x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %2 = dlc.clamp %1 {min = 0.0 : f64, max = 3.4028234663852886E+38 : f64} : tensor<8x16xf32>
  %3 = dlc.matmul %h, %g : (tensor<4x8xf16>, tensor<8x2xf16>) -> tensor<4x2xf16>
  %4 = dlc.add %3, %c : (tensor<4x2xf16>, tensor<1x2xf16>) -> tensor<4x2xf16>
  %5 = dlc.clamp %4 {min = 0.0 : f64, max = 65504.0 : f64} : tensor<4x2xf16>
  %zero = dlc.constant dense<0.0> : tensor<1x1xf16>
  %6 = dlc.matmul %h, %g : (tensor<4x8xf16>, tensor<8x2xf16>) -> tensor<4x2xf16>
  %7 = dlc.max %zero, %6 : (tensor<1x1xf16>, tensor<4x2xf16>) -> tensor<4x2xf16>
  return %2, %5, %7 : tensor<8x16xf32>, tensor<4x2xf16>, tensor<4x2xf16>
}

// -----

// A residual add and a bias, in either order, with or without relu; a
// batched product with a [1, 1, N] bias.
// CHECK-LABEL: func.func @residual
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<2x8x16xf32>, %[[B:.*]]: tensor<1x1x16xf32>, %[[R:.*]]: tensor<2x4x16xf32>)
// CHECK-NEXT: %[[M:.*]] = dlc.matmul %[[X]], %[[W]] bias(%[[B]]) addend(%[[R]]) epilogue(relu) : (tensor<2x4x8xf32>, tensor<2x8x16xf32>, tensor<1x1x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: %[[N:.*]] = dlc.matmul %[[X]], %[[W]] bias(%[[B]]) addend(%[[R]]) : (tensor<2x4x8xf32>, tensor<2x8x16xf32>, tensor<1x1x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: %[[P:.*]] = dlc.matmul %[[X]], %[[W]] addend(%[[R]]) : (tensor<2x4x8xf32>, tensor<2x8x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
// CHECK-NEXT: return %[[M]], %[[N]], %[[P]]
func.func @residual(%x: tensor<2x4x8xf32>, %w: tensor<2x8x16xf32>, %b: tensor<1x1x16xf32>, %r: tensor<2x4x16xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>) {
  %zero = dlc.constant dense<0.0> : tensor<1x1x1xf32>
  %0 = dlc.matmul %x, %w : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %1 = dlc.add %0, %b : (tensor<2x4x16xf32>, tensor<1x1x16xf32>) -> tensor<2x4x16xf32>
  %2 = dlc.add %r, %1 : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %3 = dlc.max %2, %zero : (tensor<2x4x16xf32>, tensor<1x1x1xf32>) -> tensor<2x4x16xf32>
  %4 = dlc.matmul %x, %w : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %5 = dlc.add %4, %r : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %6 = dlc.add %5, %b : (tensor<2x4x16xf32>, tensor<1x1x16xf32>) -> tensor<2x4x16xf32>
  %7 = dlc.matmul %x, %w : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  %8 = dlc.add %7, %r : (tensor<2x4x16xf32>, tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %3, %6, %8 : tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>
}

// -----

// tanh-GELU as the ONNX importer writes Gelu(approximate="tanh"):
// 0.5 x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * (x * x) * x))).
// CHECK-LABEL: func.func @gelu_onnx
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<1x16xf32>)
// CHECK-NEXT: %[[M:.*]] = dlc.matmul %[[X]], %[[W]] bias(%[[B]]) epilogue(gelu_tanh) : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: return %[[M]]
func.func @gelu_onnx(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<1x16xf32>) -> tensor<4x16xf32> {
  %m = dlc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %v = dlc.add %m, %b : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %x2 = dlc.mul %v, %v : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %x3 = dlc.mul %x2, %v : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %c0 = dlc.constant dense<4.471500e-02> : tensor<1x1xf32>
  %s = dlc.mul %x3, %c0 : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %inner = dlc.add %v, %s : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %c1 = dlc.constant dense<0.797884583> : tensor<1x1xf32>
  %u = dlc.mul %inner, %c1 : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %t = dlc.tanh %u : tensor<4x16xf32>
  %half = dlc.constant dense<5.000000e-01> : tensor<1x1xf32>
  %h = dlc.mul %v, %half : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %one = dlc.constant dense<1.000000e+00> : tensor<1x1xf32>
  %p = dlc.add %t, %one : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %y = dlc.mul %h, %p : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Other groupings of the same formula: x * (0.5 * (1 + tanh(...))), the
// constants on the left, x^3 as pow(x, 3); in bf16 (constants rounded to
// bf16) after a residual add.
// CHECK-LABEL: func.func @gelu_reordered
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xbf16>, %[[W:.*]]: tensor<8x16xbf16>, %[[R:.*]]: tensor<4x16xbf16>)
// CHECK-NEXT: %[[M:.*]] = dlc.matmul %[[X]], %[[W]] addend(%[[R]]) epilogue(gelu_tanh) : (tensor<4x8xbf16>, tensor<8x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
// CHECK-NEXT: return %[[M]]
func.func @gelu_reordered(%x: tensor<4x8xbf16>, %w: tensor<8x16xbf16>, %r: tensor<4x16xbf16>) -> tensor<4x16xbf16> {
  %m = dlc.matmul %x, %w : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
  %v = dlc.add %m, %r : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %three = dlc.constant dense<3.0> : tensor<1x1xbf16>
  %x3 = dlc.pow %v, %three : (tensor<4x16xbf16>, tensor<1x1xbf16>) -> tensor<4x16xbf16>
  %c0 = dlc.constant dense<4.467770e-02> : tensor<1x1xbf16>
  %s = dlc.mul %c0, %x3 : (tensor<1x1xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %inner = dlc.add %s, %v : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %c1 = dlc.constant dense<7.968750e-01> : tensor<1x1xbf16>
  %u = dlc.mul %c1, %inner : (tensor<1x1xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %t = dlc.tanh %u : tensor<4x16xbf16>
  %one = dlc.constant dense<1.0> : tensor<1x1xbf16>
  %p = dlc.add %one, %t : (tensor<1x1xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %half = dlc.constant dense<0.5> : tensor<1x1xbf16>
  %q = dlc.mul %half, %p : (tensor<1x1xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  %y = dlc.mul %v, %q : (tensor<4x16xbf16>, tensor<4x16xbf16>) -> tensor<4x16xbf16>
  return %y : tensor<4x16xbf16>
}

// -----

// Nothing to fold: IR unchanged. The product is also returned; the add is
// not along the last dimension; an integer product; a product that the add
// broadcasts to a larger shape; an empty contraction; f16 accumulation.
// CHECK-LABEL: func.func @unchanged
// CHECK-NEXT: %[[A:.*]] = dlc.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[B:.*]] = dlc.add %[[A]], %arg2
// CHECK-NEXT: %[[C:.*]] = dlc.matmul %arg0, %arg1 : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[D:.*]] = dlc.add %[[C]], %arg3 : (tensor<4x16xf32>, tensor<4x1xf32>)
// CHECK-NEXT: %[[E:.*]] = dlc.matmul %arg4, %arg5 : (tensor<4x8xi32>, tensor<8x16xi32>) -> tensor<4x16xi32>
// CHECK-NEXT: %[[F:.*]] = dlc.add %[[E]], %arg6
// CHECK-NEXT: %[[G:.*]] = dlc.matmul %arg7, %arg1 : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
// CHECK-NEXT: %[[H:.*]] = dlc.add %[[G]], %arg8 : (tensor<1x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[I:.*]] = dlc.matmul %arg9, %arg10 : (tensor<4x0xf32>, tensor<0x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[J:.*]] = dlc.add %[[I]], %arg2
// CHECK-NEXT: %[[K:.*]] = dlc.matmul %arg11, %arg12 {acc_type = f16} : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
// CHECK-NEXT: %[[L:.*]] = dlc.add %[[K]], %arg13
// CHECK-NEXT: return %[[A]], %[[B]], %[[D]], %[[F]], %[[H]], %[[J]], %[[L]]
func.func @unchanged(%a: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<1x16xf32>, %col: tensor<4x1xf32>,
                     %i: tensor<4x8xi32>, %iw: tensor<8x16xi32>, %ib: tensor<1x16xi32>,
                     %row: tensor<1x8xf32>, %r: tensor<4x16xf32>,
                     %e: tensor<4x0xf32>, %ew: tensor<0x16xf32>,
                     %h: tensor<4x8xf16>, %hw: tensor<8x16xf16>, %hb: tensor<1x16xf16>)
    -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xi32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf16>) {
  %0 = dlc.matmul %a, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = dlc.add %0, %b : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %2 = dlc.matmul %a, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %3 = dlc.add %2, %col : (tensor<4x16xf32>, tensor<4x1xf32>) -> tensor<4x16xf32>
  %4 = dlc.matmul %i, %iw : (tensor<4x8xi32>, tensor<8x16xi32>) -> tensor<4x16xi32>
  %5 = dlc.add %4, %ib : (tensor<4x16xi32>, tensor<1x16xi32>) -> tensor<4x16xi32>
  %6 = dlc.matmul %row, %w : (tensor<1x8xf32>, tensor<8x16xf32>) -> tensor<1x16xf32>
  %7 = dlc.add %6, %r : (tensor<1x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %8 = dlc.matmul %e, %ew : (tensor<4x0xf32>, tensor<0x16xf32>) -> tensor<4x16xf32>
  %9 = dlc.add %8, %b : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %10 = dlc.matmul %h, %hw {acc_type = f16} : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
  %11 = dlc.add %10, %hb : (tensor<4x16xf16>, tensor<1x16xf16>) -> tensor<4x16xf16>
  return %0, %1, %3, %5, %7, %9, %11 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xi32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf16>
}

// -----

// Part of a chain folds: the bias add's result is also returned, so the
// relu stays; erf-GELU, relu6 and a GELU with a wrong constant or an
// intermediate used elsewhere are not cuBLASLt epilogues.
// CHECK-LABEL: func.func @partial
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<1x16xf32>)
// CHECK: %[[M0:.*]] = dlc.matmul %[[X]], %[[W]] bias(%[[B]]) :
// CHECK-NEXT: %[[R0:.*]] = dlc.max %[[M0]]
// CHECK: %[[M1:.*]] = dlc.matmul %[[X]], %[[W]] bias(%[[B]]) :
// CHECK-NEXT: dlc.mul %[[M1]]
// CHECK: dlc.erf
// CHECK: %[[M2:.*]] = dlc.matmul %[[X]], %[[W]] bias(%[[B]]) :
// CHECK-NEXT: dlc.clamp %[[M2]] {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64}
// CHECK: %[[M3:.*]] = dlc.matmul %[[X]], %[[W]] :
// CHECK-NEXT: dlc.mul %[[M3]], %[[M3]]
// CHECK: dlc.tanh
// CHECK: %[[M4:.*]] = dlc.matmul %[[X]], %[[W]] :
// CHECK-NEXT: dlc.mul %[[M4]], %[[M4]]
// CHECK: dlc.tanh
// CHECK: return
func.func @partial(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %b: tensor<1x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %zero = dlc.constant dense<0.0> : tensor<1x1xf32>
  %half = dlc.constant dense<0.5> : tensor<1x1xf32>
  %one = dlc.constant dense<1.0> : tensor<1x1xf32>
  %rsqrt2 = dlc.constant dense<0.707106769> : tensor<1x1xf32>
  %c0 = dlc.constant dense<0.044715> : tensor<1x1xf32>
  %bad = dlc.constant dense<0.05> : tensor<1x1xf32>
  %c1 = dlc.constant dense<0.797884583> : tensor<1x1xf32>
  // Bias, then a relu the result of the add escapes.
  %0 = dlc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = dlc.add %0, %b : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %2 = dlc.max %1, %zero : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  // erf-GELU.
  %3 = dlc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %4 = dlc.add %3, %b : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %5 = dlc.mul %4, %rsqrt2 : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %6 = dlc.erf %5 : tensor<4x16xf32>
  %7 = dlc.add %6, %one : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %8 = dlc.mul %4, %half : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %9 = dlc.mul %8, %7 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  // relu6.
  %10 = dlc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %11 = dlc.add %10, %b : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %12 = dlc.clamp %11 {min = 0.0 : f64, max = 6.0 : f64} : tensor<4x16xf32>
  // tanh-GELU with 0.05 instead of 0.044715.
  %13 = dlc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %14 = dlc.mul %13, %13 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %15 = dlc.mul %14, %13 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %16 = dlc.mul %15, %bad : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %17 = dlc.add %13, %16 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %18 = dlc.mul %17, %c1 : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %19 = dlc.tanh %18 : tensor<4x16xf32>
  %20 = dlc.mul %13, %half : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %21 = dlc.add %19, %one : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %22 = dlc.mul %20, %21 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  // tanh-GELU whose tanh is also returned.
  %23 = dlc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %24 = dlc.mul %23, %23 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %25 = dlc.mul %24, %23 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %26 = dlc.mul %25, %c0 : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %27 = dlc.add %23, %26 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %28 = dlc.mul %27, %c1 : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %29 = dlc.tanh %28 : tensor<4x16xf32>
  %30 = dlc.mul %23, %half : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %31 = dlc.add %29, %one : (tensor<4x16xf32>, tensor<1x1xf32>) -> tensor<4x16xf32>
  %32 = dlc.mul %30, %31 : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %1, %2, %9, %12, %22, %32, %29 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// A splat addend stays a literal in an elementwise kernel: as the GEMM's C
// it would be a full-size constant in the package.
// CHECK-LABEL: func.func @splat_addend
// CHECK: %[[P:.*]] = dlc.matmul %arg0, %arg1 :
// CHECK: dlc.add %[[P]], %{{.*}}
func.func @splat_addend(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %c = dlc.constant dense<2.0> : tensor<4x16xf32>
  %p = dlc.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %r = dlc.add %p, %c : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// A channels-last convolution's product [N*H*W, OC] viewed as NHWC: the
// epilogue is matched on the view (bias [1, 1, 1, OC], a residual of the
// view's shape, relu) and folded into the product, with the bias as a
// vector and the residual viewed in the product's shape; the view moves
// after the product. dlc.from_conv stays.
// CHECK-LABEL: func.func @through_view
// CHECK-SAME: (%[[A:.*]]: tensor<32x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[R:.*]]: tensor<2x4x4x16xf32>)
// CHECK-DAG: %[[B:.*]] = dlc.constant dense<1.000000e-01> : tensor<16xf32>
// CHECK-DAG: %[[RV:.*]] = dlc.reshape %[[R]] : tensor<2x4x4x16xf32> -> tensor<32x16xf32>
// CHECK: %[[P:.*]] = dlc.matmul %[[A]], %[[W]] bias(%[[B]]) addend(%[[RV]]) epilogue(relu) {dlc.from_conv, transpose_b}
// CHECK: %[[Y:.*]] = dlc.reshape %[[P]] : tensor<32x16xf32> -> tensor<2x4x4x16xf32>
// CHECK: return %[[Y]]
func.func @through_view(%a: tensor<32x8xf32>, %w: tensor<16x8xf32>, %r: tensor<2x4x4x16xf32>) -> tensor<2x4x4x16xf32> {
  %bias = dlc.constant dense<0.1> : tensor<1x1x1x16xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1x1xf32>
  %p = dlc.matmul %a, %w {dlc.from_conv, transpose_b} : (tensor<32x8xf32>, tensor<16x8xf32>) -> tensor<32x16xf32>
  %v = dlc.reshape %p : tensor<32x16xf32> -> tensor<2x4x4x16xf32>
  %0 = dlc.add %v, %bias : (tensor<2x4x4x16xf32>, tensor<1x1x1x16xf32>) -> tensor<2x4x4x16xf32>
  %1 = dlc.add %r, %0 : (tensor<2x4x4x16xf32>, tensor<2x4x4x16xf32>) -> tensor<2x4x4x16xf32>
  %2 = dlc.max %1, %zero : (tensor<2x4x4x16xf32>, tensor<1x1x1x1xf32>) -> tensor<2x4x4x16xf32>
  return %2 : tensor<2x4x4x16xf32>
}

// -----

// A view that changes the rows' width is not looked through.
// CHECK-LABEL: func.func @other_view
// CHECK: dlc.matmul %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK: dlc.reshape
// CHECK: dlc.add
func.func @other_view(%a: tensor<4x8xf32>, %w: tensor<8x16xf32>) -> tensor<8x8xf32> {
  %bias = dlc.constant dense<0.1> : tensor<1x8xf32>
  %p = dlc.matmul %a, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %v = dlc.reshape %p : tensor<4x16xf32> -> tensor<8x8xf32>
  %0 = dlc.add %v, %bias : (tensor<8x8xf32>, tensor<1x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// A library convolution takes a bias ([1, 1, 1, OC], made a vector), a
// residual and a relu: cuDNN's fused convolution.
// CHECK-LABEL: func.func @conv_epilogue
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x8x4xf32>, %[[W:.*]]: tensor<6x3x3x4xf32>, %[[R:.*]]: tensor<1x8x8x6xf32>)
// CHECK: %[[B:.*]] = dlc.constant dense<1.000000e-01> : tensor<6xf32>
// CHECK: %[[Y:.*]] = dlc.conv %[[X]], %[[W]] bias(%[[B]]) addend(%[[R]]) epilogue(relu)
// CHECK-NEXT: return %[[Y]]
func.func @conv_epilogue(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x4xf32>, %r: tensor<1x8x8x6xf32>) -> tensor<1x8x8x6xf32> {
  %bias = dlc.constant dense<0.1> : tensor<1x1x1x6xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1x1xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<6x3x3x4xf32>) -> tensor<1x8x8x6xf32>
  %0 = dlc.add %c, %bias : (tensor<1x8x8x6xf32>, tensor<1x1x1x6xf32>) -> tensor<1x8x8x6xf32>
  %1 = dlc.add %0, %r : (tensor<1x8x8x6xf32>, tensor<1x8x8x6xf32>) -> tensor<1x8x8x6xf32>
  %2 = dlc.max %1, %zero : (tensor<1x8x8x6xf32>, tensor<1x1x1x1xf32>) -> tensor<1x8x8x6xf32>
  return %2 : tensor<1x8x8x6xf32>
}

// -----

// cuDNN's fused activation is relu or none: a tanh-GELU after a library
// convolution stays an elementwise kernel (the bias folds).
// CHECK-LABEL: func.func @conv_no_gelu
// CHECK: dlc.conv %{{.*}}, %{{.*}} bias(%{{.*}}) {
// CHECK: dlc.tanh
func.func @conv_no_gelu(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x4xf32>) -> tensor<1x8x8x6xf32> {
  %bias = dlc.constant dense<0.1> : tensor<1x1x1x6xf32>
  %c = dlc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64} : (tensor<1x8x8x4xf32>, tensor<6x3x3x4xf32>) -> tensor<1x8x8x6xf32>
  %0 = dlc.add %c, %bias : (tensor<1x8x8x6xf32>, tensor<1x1x1x6xf32>) -> tensor<1x8x8x6xf32>
  %1 = dlc.tanh %0 : tensor<1x8x8x6xf32>
  return %1 : tensor<1x8x8x6xf32>
}

// -----

// nn.MultiheadAttention's export: the projection's bias is added, then the
// rows are viewed as [S, B, E] (a reshape and a transpose of a size-1
// dimension) before the residual add. The views move before the bias add,
// so the residual becomes the product's addend.
// CHECK-LABEL: func.func @views_after_bias
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>, %[[R:.*]]: tensor<1x4x8xf32>)
// CHECK-DAG: %[[B:.*]] = dlc.constant dense<1.000000e-01> : tensor<8xf32>
// CHECK-DAG: %[[RV:.*]] = dlc.reshape %[[R]] : tensor<1x4x8xf32> -> tensor<4x8xf32>
// CHECK: %[[P:.*]] = dlc.matmul %[[A]], %[[W]] bias(%[[B]]) addend(%[[RV]]) epilogue(relu)
// CHECK: %[[Y:.*]] = dlc.reshape %[[P]] : tensor<4x8xf32> -> tensor<1x4x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @views_after_bias(%a: tensor<4x8xf32>, %w: tensor<8x8xf32>, %r: tensor<1x4x8xf32>) -> tensor<1x4x8xf32> {
  %bias = dlc.constant dense<0.1> : tensor<1x8xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1xf32>
  %p = dlc.matmul %a, %w : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %0 = dlc.add %p, %bias : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %1 = dlc.reshape %0 : tensor<4x8xf32> -> tensor<4x1x8xf32>
  %2 = dlc.transpose %1 {perm = array<i64: 1, 0, 2>} : (tensor<4x1x8xf32>) -> tensor<1x4x8xf32>
  %3 = dlc.add %2, %r : (tensor<1x4x8xf32>, tensor<1x4x8xf32>) -> tensor<1x4x8xf32>
  %4 = dlc.max %3, %zero : (tensor<1x4x8xf32>, tensor<1x1x1xf32>) -> tensor<1x4x8xf32>
  return %4 : tensor<1x4x8xf32>
}
