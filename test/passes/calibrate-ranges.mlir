// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-calibrate-ranges))' %s | FileCheck %s --check-prefix=RANGE
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-calibrate-ranges,dlc-assign-precision{precision=fp16}))' %s 2>/dev/null | FileCheck %s --check-prefix=F16
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-calibrate-ranges,dlc-assign-precision{precision=fp16}))' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-calibrate-ranges,dlc-assign-precision{precision=bf16}))' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=NONE --allow-empty
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-calibrate-ranges,dlc-assign-precision{precision=bf16}))' %s | FileCheck %s --check-prefix=BF16
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=fp16}))' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=UNCALIBRATED-REMARK
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=fp16}))' %s 2>/dev/null | FileCheck %s --check-prefix=UNCALIBRATED
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-calibrate-ranges))' %s 2>&1 >/dev/null | FileCheck %s --check-prefix=WARN

// A sum of squares of a product whose values reach ~1000 (seeded inputs in
// [-1, 1), weights of 50): the product fits fp16, its square (~1e6) does
// not. The square stays f32 under fp16, with a remark; bf16 has f32's
// range, so everything low stays low.
// RANGE-LABEL: func.func @sum_of_squares
// RANGE-SAME: attributes {dlc.calibrated}
// RANGE: dlc.matmul {{.*}} {dlc.amax = [[P:[0-9.e+]+]] : f64}
// RANGE: dlc.mul {{.*}} {dlc.amax = [[S:[0-9.e+]+]] : f64}
// RANGE: dlc.reduce
// RANGE-SAME: dlc.amax
// NONE-NOT: remark
// REMARK: remark: stays f32 under fp16: its values reach {{.*}} on the calibration inputs, more than half of fp16's largest value (65504)
// F16-LABEL: func.func @sum_of_squares
// F16: %[[P:.*]] = dlc.matmul {{.*}} -> tensor<4x64xf16>
// F16: %[[PF:.*]] = dlc.cast %[[P]] : tensor<4x64xf16> -> tensor<4x64xf32>
// F16: dlc.mul %[[PF]], %[[PF]] {{.*}} -> tensor<4x64xf32>
// BF16-LABEL: func.func @sum_of_squares
// BF16: dlc.matmul {{.*}} -> tensor<4x64xbf16>
// BF16: dlc.mul {{.*}} -> tensor<4x64xbf16>
func.func @sum_of_squares(%x: tensor<4x64xf32>) -> tensor<4x1xf32> {
  %w = dlc.constant dense<50.0> : tensor<64x64xf32>
  %p = dlc.matmul %x, %w : (tensor<4x64xf32>, tensor<64x64xf32>) -> tensor<4x64xf32>
  %s = dlc.mul %p, %p : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
  %r = dlc.reduce sum %s {axes = array<i64: 1>} : (tensor<4x64xf32>) -> tensor<4x1xf32>
  return %r : tensor<4x1xf32>
}

// -----

// A constant beyond fp16's range (an additive mask of -1e9) keeps the op
// that takes it in f32, with or without a calibrated range.
// REMARK: remark: stays f32 under fp16: its values reach 1.000000e+09
// UNCALIBRATED-REMARK-NOT: its values reach
// UNCALIBRATED-REMARK: remark: stays f32 under fp16: operand #1 is a constant of 1.000000e+09, beyond fp16's largest value (65504)
// UNCALIBRATED-LABEL: func.func @mask
// UNCALIBRATED: dlc.add {{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// F16-LABEL: func.func @mask
// F16: %[[P:.*]] = dlc.matmul {{.*}} -> tensor<4x4xf16>
// F16: %[[PF:.*]] = dlc.cast %[[P]]
// F16: dlc.add %[[PF]], %{{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
func.func @mask(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = dlc.constant dense<[[0.0, -1.0e9, -1.0e9, -1.0e9], [0.0, 0.0, -1.0e9, -1.0e9], [0.0, 0.0, 0.0, -1.0e9], [0.0, 0.0, 0.0, 0.0]]> : tensor<4x4xf32>
  %p = dlc.matmul %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %a = dlc.add %p, %m : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a : tensor<4x4xf32>
}

// -----

// An op pinned to f32 (dlc.precision, as --precision-tolerance marks it)
// computes and stores in f32 under any precision.
// BF16-LABEL: func.func @pinned
// BF16: dlc.matmul {{.*}} -> tensor<4x4xbf16>
// BF16: dlc.matmul {{.*}}dlc.precision = "f32"{{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
func.func @pinned(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %p = dlc.matmul %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %q = dlc.matmul %p, %x {dlc.precision = "f32"} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %q : tensor<4x4xf32>
}

// -----

// A model the reference interpreter cannot evaluate, or whose arguments
// have no seeded values, compiles without ranges, with a warning.
// WARN: warning: values not calibrated, so no range check: {{.*}}divides by zero
// WARN-NOT: dlc.calibrated
func.func @not_evaluable(%x: tensor<4xi32>) -> tensor<4xi32> {
  %z = dlc.constant dense<0> : tensor<4xi32>
  %q = dlc.div %x, %z : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %q : tensor<4xi32>
}

// -----

// WARN: warning: values not calibrated, so no range check: an argument has no seeded values
func.func @not_seeded(%x: tensor<?xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = dlc.exp %y : tensor<4xf32>
  return %e : tensor<4xf32>
}
