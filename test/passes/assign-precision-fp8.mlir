// RUN: dlc-opt --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=fp8}))' %s | FileCheck %s

// A product of a calibrated activation and a constant weight matrix takes
// E4M3 operands: the activation quantized by a cast with scale 448 / amax
// (here 448 / 2), the weights quantized now with 448 / their largest
// magnitude (0.5) and transposed to [N, K] (cuBLASLt's FP8 layout); the
// product's scales undo both and its result is bf16. What follows is bf16
// as under --precision=bf16.
// CHECK-LABEL: func.func @linear
// CHECK-DAG: %[[W:.*]] = dlc.constant dense<{{.*}}> : tensor<16x32xf8E4M3FN>
// CHECK-DAG: %[[Q:.*]] = dlc.cast %{{.*}} {scale = 2.240000e+02 : f64} : tensor<4x32xf32> -> tensor<4x32xf8E4M3FN>
// CHECK: %[[P:.*]] = dlc.matmul %[[Q]], %[[W]] {lhs_scale = 0.004464{{[0-9]*}} : f64, rhs_scale = 0.0011160{{[0-9]*}} : f64, transpose_b} : (tensor<4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>) -> tensor<4x16xbf16>
// CHECK: dlc.cast %[[P]] : tensor<4x16xbf16> -> tensor<4x16xf32>
func.func @linear(%x: tensor<4x32xf32> {dlc.amax = 2.0 : f64}) -> tensor<4x16xf32> {
  %w = dlc.constant dense<0.5> : tensor<32x16xf32>
  %p = dlc.matmul %x, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %p : tensor<4x16xf32>
}

// -----

// The weights quantize exactly where they are E4M3 values after scaling:
// [[1, -2], ...] with amax 4 scale by 112: 112 and -224 are E4M3 values
// (0x6E, 0xF6), 448 is the largest (0x7E). Already [N, K]: not transposed.
// CHECK-LABEL: func.func @exact
// CHECK: dlc.constant dense<"0x6EF67E{{.*}}"> : tensor<16x16xf8E4M3FN>
func.func @exact(%x: tensor<2x16xf32> {dlc.amax = 1.0 : f64}) -> tensor<2x16xf32> {
  %w = dlc.constant dense<[[1.0, -2.0, 4.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]> : tensor<16x16xf32>
  %p = dlc.matmul %x, %w {transpose_b} : (tensor<2x16xf32>, tensor<16x16xf32>) -> tensor<2x16xf32>
  return %p : tensor<2x16xf32>
}

// -----

// Products that stay bf16, each with a remark saying why.
// CHECK-LABEL: func.func @stays_bf16
// CHECK-NOT: f8E4M3FN
// CHECK: return
func.func @stays_bf16(%x: tensor<4x32xf32> {dlc.amax = 1.0 : f64}, %y: tensor<32x16xf32>, %u: tensor<4x32xf32>) -> (tensor<4x16xf32>, tensor<4x10xf32>, tensor<4x16xf32>, tensor<4x16xf32>) {
  %w = dlc.constant dense<0.5> : tensor<32x16xf32>
  %w10 = dlc.constant dense<0.5> : tensor<32x10xf32>
  %w2 = dlc.constant dense<0.5> : tensor<16x32xf32>
  // expected-remark @+1 {{stays bf16 under fp8: its second operand is not a constant (FP8 is for weights)}}
  %a = dlc.matmul %x, %y : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  // expected-remark @+1 {{stays bf16 under fp8: its sizes K=32 and N=10 are not both multiples of 16 (cuBLASLt's FP8 alignment)}}
  %b = dlc.matmul %x, %w10 : (tensor<4x32xf32>, tensor<32x10xf32>) -> tensor<4x10xf32>
  // expected-remark @+1 {{stays bf16 under fp8: its activation has no calibrated range}}
  %c = dlc.matmul %u, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  // The bf16 product %e feeds %f directly: quantizing it would take a
  // kernel of its own.
  // expected-remark @+1 {{stays bf16 under fp8: its second operand is not a constant}}
  %e = dlc.matmul %x, %y : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  // expected-remark @+1 {{stays bf16 under fp8: its activation is a matrix product's result (a cuBLAS call stores bf16; quantizing it would be a kernel of its own)}}
  %f = dlc.matmul %e, %w2 : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  // expected-remark @+1 {{stays bf16 under fp8: its activation is a matrix product's result}}
  %g = dlc.matmul %f, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %a, %b, %c, %g : tensor<4x16xf32>, tensor<4x10xf32>, tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// Two products of one weight matrix share its FP8 copy; each activation
// has its own quantizing cast and scale.
// CHECK-LABEL: func.func @shared
// CHECK: %[[W:.*]] = dlc.constant dense<{{.*}}> : tensor<16x32xf8E4M3FN>
// CHECK-NOT: dlc.constant
// CHECK: dlc.matmul %{{.*}}, %[[W]] {lhs_scale = 0.00446
// CHECK-NOT: dlc.constant
// CHECK: dlc.matmul %{{.*}}, %[[W]] {lhs_scale = 0.00223
func.func @shared(%x: tensor<4x32xf32> {dlc.amax = 2.0 : f64}, %y: tensor<4x32xf32> {dlc.amax = 1.0 : f64}) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %w = dlc.constant dense<0.5> : tensor<32x16xf32>
  %p = dlc.matmul %x, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  %q = dlc.matmul %y, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %p, %q : tensor<4x16xf32>, tensor<4x16xf32>
}
