// RUN: dlc-opt %s --split-input-file --dlc-test-gradient | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-gradient --dlc-fuse --dlc-plan-memory --dlc-test-codegen 2>&1 | FileCheck %s --check-prefix=RUNS --allow-empty

// The rules of ir/Gradients.cpp, one case each; the second RUN line checks
// that the gradient graphs fuse, plan and run on the reference interpreter.
// RUNS-NOT: error

// d/dx sum(exp(x)) = exp(x).
// CHECK-LABEL: func.func @exp
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[Y:.*]] = dlc.exp %arg0
// CHECK: %[[ONE:.*]] = dlc.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK: %[[G:.*]] = dlc.mul %[[ONE]], %[[Y]]
// CHECK: return %[[Y]], %[[G]]
func.func @exp(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = dlc.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A broadcast operand's gradient is summed over the stretched dimension;
// x * x reaches x twice and the two gradients add up.
// CHECK-LABEL: func.func @broadcast_mul
// CHECK-SAME: -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<1x3xf32>)
// CHECK: %[[P:.*]] = dlc.mul %arg0, %arg0
// CHECK: %[[S:.*]] = dlc.mul %[[P]], %arg1
// CHECK: %[[GB:.*]] = dlc.mul %{{.*}}, %[[P]]
// CHECK: %[[DB:.*]] = dlc.reduce sum %[[GB]] {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// CHECK: %[[X1:.*]] = dlc.mul %{{.*}}, %arg0
// CHECK: %[[X2:.*]] = dlc.mul %{{.*}}, %arg0
// CHECK: %[[DX:.*]] = dlc.add %[[X1]], %[[X2]]
// CHECK: return %[[S]], %[[DX]], %[[DB]]
func.func @broadcast_mul(%x: tensor<2x3xf32>, %b: tensor<1x3xf32>) -> tensor<2x3xf32> {
  %p = dlc.mul %x, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = dlc.mul %p, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}

// -----

// A product: dA = G B^T and dB = A^T G, read with transposes, not copies.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: -> (tensor<2x4xf32>, tensor<2x3xf32>, tensor<3x4xf32>)
// CHECK: %[[C:.*]] = dlc.matmul %arg0, %arg1 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
// CHECK: %[[DA:.*]] = dlc.matmul %[[G:.*]], %arg1 {transpose_b} : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<2x3xf32>
// CHECK: %[[DB:.*]] = dlc.matmul %arg0, %[[G]] {transpose_a} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
// CHECK: return %[[C]], %[[DA]], %[[DB]]
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %c = dlc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %c : tensor<2x4xf32>
}

// -----

// Softmax-like chain: a sum over an axis repeats its gradient along it
// (dlc.tile); a quotient gives g / y and -g * (x / y) / y.
// CHECK-LABEL: func.func @normalize
// CHECK: %[[Z:.*]] = dlc.reduce sum %[[E:.*]] {axes = array<i64: 1>}
// CHECK: %[[Q:.*]] = dlc.div %[[E]], %[[Z]]
// CHECK: dlc.div %{{.*}}, %[[Z]] : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK: %[[GQ:.*]] = dlc.mul %{{.*}}, %[[Q]]
// CHECK: %[[N:.*]] = dlc.div %[[GQ]], %[[Z]]
// CHECK: dlc.neg %[[N]]
// CHECK: dlc.tile %{{.*}} {multiples = array<i64: 1, 3>} : (tensor<2x1xf32>) -> tensor<2x3xf32>
func.func @normalize(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %e = dlc.exp %x : tensor<2x3xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %q = dlc.div %e, %z : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
  return %q : tensor<2x3xf32>
}

// -----

// Data movement and casts pass the gradient back in the operand's layout;
// an argument the result does not depend on gets zeros.
// CHECK-LABEL: func.func @movement
// CHECK-SAME: -> (tensor<6xf32>, tensor<2x3xf16>, tensor<5xf32>)
// CHECK: dlc.reshape %{{.*}} : tensor<6xf32> -> tensor<3x2xf32>
// CHECK: %[[T:.*]] = dlc.transpose %{{.*}} {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
// CHECK: %[[C:.*]] = dlc.cast %[[T]] : tensor<2x3xf32> -> tensor<2x3xf16>
// CHECK: %[[Z:.*]] = dlc.constant dense<0.000000e+00> : tensor<5xf32>
// CHECK: return %{{.*}}, %[[C]], %[[Z]]
func.func @movement(%x: tensor<2x3xf16>, %unused: tensor<5xf32>) -> tensor<6xf32> {
  %c = dlc.cast %x : tensor<2x3xf16> -> tensor<2x3xf32>
  %t = dlc.transpose %c {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %n = dlc.neg %t : tensor<3x2xf32>
  %r = dlc.tanh %n : tensor<3x2xf32>
  %s = dlc.sub %r, %t : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %l = dlc.log %s : tensor<3x2xf32>
  %w = dlc.add %l, %l : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %y = dlc.reshape %w : tensor<3x2xf32> -> tensor<6xf32>
  return %y : tensor<6xf32>
}

// -----

// Selections and data movement route the gradient back to the elements
// read: a strided slice interleaves zeros (a new axis padded, merged), a
// tile sums its copies, max picks the larger operand, a max reduction its
// maximum. (Their values: test/reference/GradientTest.cpp.)
// CHECK-LABEL: func.func @routing
// CHECK-SAME: -> (tensor<1x1xf32>, tensor<5x4xf32>, tensor<1x4xf32>)
// CHECK-DAG: dlc.pad %{{.*}} {high = array<i64: 0, 1, 0>, low = array<i64: 0, 0, 0>, value = 0.000000e+00 : f64} : (tensor<2x1x4xf32>) -> tensor<2x2x4xf32>
// CHECK-DAG: dlc.reduce sum %{{.*}} {axes = array<i64: 0, 2>} : (tensor<3x2x1x4xf32>) -> tensor<1x2x1x4xf32>
// CHECK-DAG: dlc.cmp gt, %arg0, %arg1 : (tensor<5x4xf32>, tensor<1x4xf32>) -> tensor<5x4xi1>
// CHECK-DAG: dlc.cmp eq, %{{.*}}, %{{.*}} : (tensor<6x4xf32>, tensor<1x4xf32>) -> tensor<6x4xi1>
func.func @routing(%x: tensor<5x4xf32>, %b: tensor<1x4xf32>) -> tensor<1x1xf32> {
  %m = dlc.max %x, %b : (tensor<5x4xf32>, tensor<1x4xf32>) -> tensor<5x4xf32>
  %s = dlc.slice %m {start = array<i64: 1, 0>, strides = array<i64: 2, 1>} : (tensor<5x4xf32>) -> tensor<2x4xf32>
  %t = dlc.tile %s {multiples = array<i64: 3, 1>} : (tensor<2x4xf32>) -> tensor<6x4xf32>
  %e = dlc.exp %t : tensor<6x4xf32>
  %r = dlc.reduce max %e {axes = array<i64: 0>} : (tensor<6x4xf32>) -> tensor<1x4xf32>
  %y = dlc.reduce sum %r {axes = array<i64: 0, 1>} : (tensor<1x4xf32>) -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}
