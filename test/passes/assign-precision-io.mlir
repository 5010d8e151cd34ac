// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=bf16 io-precision=low}))' %s | FileCheck %s
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=fp16 io-precision=low}))' %s | FileCheck %s --check-prefix=FP16
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=fp8 io-precision=low}))' %s | FileCheck %s --check-prefix=FP8
// RUN: not dlc-opt --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=f32 io-precision=low}))' %s 2>&1 | FileCheck %s --check-prefix=F32
// RUN: not dlc-opt --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=bf16 io-precision=half}))' %s 2>&1 | FileCheck %s --check-prefix=BAD

// io-precision=low: the f32 arguments and results take the low type; the
// product reads the argument as it is, the exp (f32 by policy) reads it
// widened by the entry's cast, and the results are narrowed before the
// return. The i32 argument keeps its type.
// CHECK-LABEL: func.func @io(%arg0: tensor<4x8xbf16>, %arg1: tensor<4xi32>) -> (tensor<4x16xbf16>, tensor<4x8xbf16>)
// CHECK: %[[X:.*]] = dlc.cast %arg0 : tensor<4x8xbf16> -> tensor<4x8xf32>
// CHECK: dlc.matmul %arg0, %{{.*}} : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
// CHECK: %[[E:.*]] = dlc.exp %[[X]] : tensor<4x8xf32>
// CHECK: %[[N:.*]] = dlc.cast %[[E]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK: return %{{.*}}, %[[N]] : tensor<4x16xbf16>, tensor<4x8xbf16>
// FP16-LABEL: func.func @io(%arg0: tensor<4x8xf16>, %arg1: tensor<4xi32>) -> (tensor<4x16xf16>, tensor<4x8xf16>)
// F32: error: io-precision=low needs a low precision (bf16, fp16 or fp8), not 'f32'
// BAD: error: unknown io-precision 'half'; expected declared or low
func.func @io(%x: tensor<4x8xf32>, %i: tensor<4xi32>) -> (tensor<4x16xf32>, tensor<4x8xf32>) {
  %w = dlc.constant dense<0.5> : tensor<8x16xf32>
  %p = dlc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %e = dlc.exp %x : tensor<4x8xf32>
  return %p, %e : tensor<4x16xf32>, tensor<4x8xf32>
}

// -----

// Under fp8 the inputs are bf16, and a calibrated argument's range goes to
// its widening cast: the product still quantizes it to E4M3 (the
// quantizing cast reads the widened argument; fusion makes the two casts
// one kernel).
// FP8-LABEL: func.func @fp8(%arg0: tensor<4x32xbf16> {dlc.amax = 2.000000e+00 : f64}) -> tensor<4x16xbf16>
// FP8: %[[Q:.*]] = dlc.cast %{{.*}} {scale = 2.240000e+02 : f64} : tensor<4x32xf32> -> tensor<4x32xf8E4M3FN>
// FP8: dlc.matmul %[[Q]], %{{.*}} : (tensor<4x32xf8E4M3FN>, tensor<16x32xf8E4M3FN>) -> tensor<4x16xbf16>
// FP8: return %{{.*}} : tensor<4x16xbf16>
func.func @fp8(%x: tensor<4x32xf32> {dlc.amax = 2.0 : f64}) -> tensor<4x16xf32> {
  %w = dlc.constant dense<0.5> : tensor<32x16xf32>
  %p = dlc.matmul %x, %w : (tensor<4x32xf32>, tensor<32x16xf32>) -> tensor<4x16xf32>
  return %p : tensor<4x16xf32>
}
