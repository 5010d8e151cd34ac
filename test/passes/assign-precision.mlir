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

// -----

// A model written in bf16 (found by dlc-fuzz): the sum (f32 by policy)
// makes its result f32, so the mul after it computes in f32 and the max
// reduction, written for bf16 and now reading f32, stays f32 too (an op
// that denies low precision computes in f32 when it was written for a low
// type, not only when it reads one). The results keep their declared
// bf16.
// CHECK-LABEL: func.func @written_in_bf16
// CHECK: %[[S:.*]] = dlc.reduce sum %{{.*}} : (tensor<16xf32>) -> tensor<1xf32>
// CHECK: %[[M:.*]] = dlc.mul %[[S]], %{{.*}} : (tensor<1xf32>, tensor<1xf32>) -> tensor<1xf32>
// CHECK: %[[R:.*]] = dlc.reduce max %[[M]] {{.*}} : (tensor<1xf32>) -> tensor<1xf32>
// CHECK: %[[E:.*]] = dlc.exp %[[R]] : tensor<1xf32>
// CHECK: dlc.cast %[[E]] : tensor<1xf32> -> tensor<1xbf16>
func.func @written_in_bf16(%x: tensor<16xbf16>) -> tensor<1xbf16> {
  %h = dlc.constant dense<0.5> : tensor<1xbf16>
  %s = dlc.reduce sum %x {axes = array<i64: 0>} : (tensor<16xbf16>) -> tensor<1xbf16>
  %m = dlc.mul %s, %h : (tensor<1xbf16>, tensor<1xbf16>) -> tensor<1xbf16>
  %r = dlc.reduce max %m {axes = array<i64: 0>} : (tensor<1xbf16>) -> tensor<1xbf16>
  %e = dlc.exp %r : tensor<1xbf16>
  return %e : tensor<1xbf16>
}

// -----

// Under fp16, a bf16 product (it stays bf16: only f32 and fp16 products
// become fp16 ones) whose operand's producer became f32 reads it converted
// back to bf16, the type it was written for.
// F16-LABEL: func.func @keeps_its_type
// F16: %[[E:.*]] = dlc.exp %{{.*}} : tensor<4x8xf32>
// F16: %[[B:.*]] = dlc.cast %[[E]] : tensor<4x8xf32> -> tensor<4x8xbf16>
// F16: dlc.reduce sum %[[E]] {{.*}} : (tensor<4x8xf32>) -> tensor<4x1xf32>
// F16: dlc.matmul %[[B]], %{{.*}} : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
func.func @keeps_its_type(%x: tensor<4x8xbf16>, %w: tensor<8x2xbf16>) -> (tensor<4x2xbf16>, tensor<4x1xbf16>) {
  %e = dlc.exp %x : tensor<4x8xbf16>
  %s = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x8xbf16>) -> tensor<4x1xbf16>
  %p = dlc.matmul %e, %w : (tensor<4x8xbf16>, tensor<8x2xbf16>) -> tensor<4x2xbf16>
  return %p, %s : tensor<4x2xbf16>, tensor<4x1xbf16>
}
