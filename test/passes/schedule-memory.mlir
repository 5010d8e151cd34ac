// RUN: dlc-opt %s --split-input-file --dlc-schedule-memory | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-schedule-memory="list-scheduling=false" | FileCheck %s --check-prefix=MOVES

// An SGD step's shape: two weight gradients, then the updates (returned)
// at the end. Each update moves up to its gradient, so a gradient's buffer
// is freed as soon as it is complete; the learning-rate constant comes
// along. The scalar from arguments only (the step count) goes first.
// CHECK-LABEL: func.func @step
// CHECK: %[[T:.*]] = dlc.add %arg4
// CHECK: %[[G1:.*]] = dlc.matmul %arg2, %arg3 {transpose_a}
// CHECK: %[[LR:.*]] = dlc.constant dense<1.000000e-01>
// CHECK: %[[S1:.*]] = dlc.mul %[[G1]], %[[LR]]
// CHECK: %[[W1:.*]] = dlc.sub %arg0, %[[S1]]
// CHECK: %[[G2:.*]] = dlc.matmul %arg3, %arg2 {transpose_a}
// CHECK: dlc.mul %[[G2]]
// CHECK: %[[W2:.*]] = dlc.sub %arg1
// CHECK: return %[[W1]], %[[W2]], %[[T]]
func.func @step(%w1: tensor<16x16xf32>, %w2: tensor<16x16xf32>, %x: tensor<64x16xf32>, %d: tensor<64x16xf32>, %t: tensor<f32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<f32>) {
  %g1 = dlc.matmul %x, %d {transpose_a} : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
  %g2 = dlc.matmul %d, %x {transpose_a} : (tensor<64x16xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
  %one = dlc.constant dense<1.0> : tensor<f32>
  %t1 = dlc.add %t, %one : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %lr = dlc.constant dense<0.1> : tensor<1x1xf32>
  %s1 = dlc.mul %g1, %lr : (tensor<16x16xf32>, tensor<1x1xf32>) -> tensor<16x16xf32>
  %n1 = dlc.sub %w1, %s1 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %s2 = dlc.mul %g2, %lr : (tensor<16x16xf32>, tensor<1x1xf32>) -> tensor<16x16xf32>
  %n2 = dlc.sub %w2, %s2 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %n1, %n2, %t1 : tensor<16x16xf32>, tensor<16x16xf32>, tensor<f32>
}

// -----

// List scheduling: two independent branches, each a large value reduced to
// a small one. In the written order both large values are live together
// (32 KiB); the ready op that frees the most goes first, so each reduction
// follows its exponential and one large value is live at a time (16 KiB).
// The order of equals is kept (the x branch first).
// CHECK-LABEL: func.func @branches
// CHECK-NEXT: %[[A:.*]] = dlc.exp %arg0
// CHECK-NEXT: %[[SA:.*]] = dlc.reduce sum %[[A]]
// CHECK-NEXT: %[[B:.*]] = dlc.exp %arg1
// CHECK-NEXT: %[[SB:.*]] = dlc.reduce sum %[[B]]
// CHECK-NEXT: dlc.add %[[SA]], %[[SB]]
// MOVES-LABEL: func.func @branches
// MOVES-NEXT: dlc.exp %arg0
// MOVES-NEXT: dlc.exp %arg1
// MOVES-NEXT: dlc.reduce
// MOVES-NEXT: dlc.reduce
func.func @branches(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> tensor<64x1xf32> {
  %a = dlc.exp %x : tensor<64x64xf32>
  %b = dlc.exp %y : tensor<64x64xf32>
  %sa = dlc.reduce sum %a {axes = array<i64: 1>} : (tensor<64x64xf32>) -> tensor<64x1xf32>
  %sb = dlc.reduce sum %b {axes = array<i64: 1>} : (tensor<64x64xf32>) -> tensor<64x1xf32>
  %r = dlc.add %sa, %sb : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
  return %r : tensor<64x1xf32>
}

// -----

// An order the list would not improve stays as written: one chain.
// CHECK-LABEL: func.func @chain
// CHECK-NEXT: dlc.exp
// CHECK-NEXT: dlc.tanh
// CHECK-NEXT: dlc.reduce
func.func @chain(%x: tensor<64x64xf32>) -> tensor<64x1xf32> {
  %a = dlc.exp %x : tensor<64x64xf32>
  %b = dlc.tanh %a : tensor<64x64xf32>
  %s = dlc.reduce sum %b {axes = array<i64: 1>} : (tensor<64x64xf32>) -> tensor<64x1xf32>
  return %s : tensor<64x1xf32>
}
