// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=bf16}))' %s | FileCheck %s
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=fp16}))' %s | FileCheck %s --check-prefix=F16
// RUN: dlc-opt --split-input-file --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=f32}))' %s | FileCheck %s --check-prefix=F32
// RUN: not dlc-opt --pass-pipeline='builtin.module(func.func(dlc-assign-precision{precision=int4}))' %s 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: unknown precision 'int4'; expected f32, tf32, bf16, fp16 or fp8

// A product stores in the low type; its weight is converted once, here; the
// f32 bias added after it takes the product's type (a constant does not
// promote); exp needs f32; the result is f32 as declared.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>) -> tensor<4x16xf32>
// CHECK-NOT: xf32>
// CHECK-DAG: %[[W:.*]] = dlc.constant dense<{{.*}}> : tensor<8x16xbf16>
// CHECK-DAG: %[[B:.*]] = dlc.constant dense<{{.*}}> : tensor<1x16xbf16>
// CHECK-DAG: %[[XL:.*]] = dlc.cast %[[X]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// CHECK: %[[P:.*]] = dlc.matmul %[[XL]], %[[W]] : (tensor<4x8xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
// CHECK: %[[A:.*]] = dlc.add %[[P]], %[[B]] : (tensor<4x16xbf16>, tensor<1x16xbf16>) -> tensor<4x16xbf16>
// CHECK: %[[AF:.*]] = dlc.cast %[[A]] : tensor<4x16xbf16> -> tensor<4x16xf32>
// CHECK: %[[E:.*]] = dlc.exp %[[AF]] : tensor<4x16xf32>
// CHECK: return %[[E]] : tensor<4x16xf32>
// F16-LABEL: func.func @mlp
// F16: dlc.matmul {{.*}} : (tensor<4x8xf16>, tensor<8x16xf16>) -> tensor<4x16xf16>
// F16: dlc.exp {{.*}} : tensor<4x16xf32>
// F32-LABEL: func.func @mlp
// F32-NOT: dlc.cast
// F32: dlc.matmul {{.*}} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
func.func @mlp(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = dlc.constant dense<0.5> : tensor<8x16xf32>
  %b = dlc.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 1.00390625]]> : tensor<1x16xf32>
  %p = dlc.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %a = dlc.add %p, %b : (tensor<4x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  %e = dlc.exp %a : tensor<4x16xf32>
  return %e : tensor<4x16xf32>
}

// -----

// One cast of an input serves every product that reads it; a low value
// that a product returns is cast back to the declared f32 result; an op
// that mixes a low value and an f32 one (not a constant) computes in f32.
// CHECK-LABEL: func.func @shared
// CHECK: %[[XL:.*]] = dlc.cast %{{.*}} : tensor<4x4xf32> -> tensor<4x4xbf16>
// CHECK-NOT: dlc.cast %{{.*}} : tensor<4x4xf32> -> tensor<4x4xbf16>
// CHECK: %[[P:.*]] = dlc.matmul %[[XL]], %[[XL]] : {{.*}} -> tensor<4x4xbf16>
// CHECK: %[[PF:.*]] = dlc.cast %[[P]] : tensor<4x4xbf16> -> tensor<4x4xf32>
// CHECK: %[[Q:.*]] = dlc.matmul %[[XL]], %[[P]] : {{.*}} -> tensor<4x4xbf16>
// CHECK: %[[QF:.*]] = dlc.cast %[[Q]] : tensor<4x4xbf16> -> tensor<4x4xf32>
// CHECK: %[[S:.*]] = dlc.add %[[QF]], %{{.*}} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK: return %[[S]], %[[PF]]
func.func @shared(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %p = dlc.matmul %x, %x : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %q = dlc.matmul %x, %p : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = dlc.add %q, %y : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s, %p : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Reductions sum in f32; data movement keeps its input's type; an op
// without a class (argmax) is f32.
// CHECK-LABEL: func.func @movement
// CHECK: %[[P:.*]] = dlc.matmul {{.*}} -> tensor<2x4x4xbf16>
// CHECK: %[[T:.*]] = dlc.transpose %[[P]] {{.*}} -> tensor<2x4x4xbf16>
// CHECK: %[[TF:.*]] = dlc.cast %[[T]] : tensor<2x4x4xbf16> -> tensor<2x4x4xf32>
// CHECK: dlc.reduce sum %[[TF]] {{.*}} -> tensor<2x4x1xf32>
// CHECK: dlc.argmax %[[TF]] {{.*}} -> tensor<2x4x1xi64>
func.func @movement(%x: tensor<2x4x4xf32>) -> (tensor<2x4x1xf32>, tensor<2x4x1xi64>) {
  %p = dlc.matmul %x, %x : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %t = dlc.transpose %p {perm = array<i64: 0, 2, 1>} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = dlc.reduce sum %t {axes = array<i64: 2>} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %m = dlc.argmax %t {axis = 2 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x1xi64>
  return %s, %m : tensor<2x4x1xf32>, tensor<2x4x1xi64>
}
