// RUN: dlc-opt %s --dlc-autodiff='loss=mse' --dlc-schedule-memory --dlc-rematerialize='activation-fraction=0.5' | FileCheck %s
// RUN: dlc-opt %s --dlc-autodiff='loss=mse' --dlc-schedule-memory --dlc-rematerialize='activation-fraction=0.8' | FileCheck %s --check-prefix=MOVED
// RUN: not dlc-opt %s --dlc-autodiff='loss=mse' --dlc-schedule-memory --dlc-rematerialize='activation-fraction=0.4' -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOO-LOW
// RUN: dlc-opt %s --dlc-autodiff='loss=mse' --dlc-schedule-memory --dlc-rematerialize='activation-fraction=0.5 solver-seconds=0' | FileCheck %s --check-prefix=VALUES

// A residual stack of three blocks (y + tanh(y w) v) trained on a squared
// error: the forward pass is cut at each block's output. Keeping
// everything peaks at 31 KiB (each block's 4 KiB tanh and its derivative's
// factor 1 - t^2, computed early by the schedule). At half of that the
// least work is to recompute the tanh of the first two blocks from their
// kept inputs (%arg0, y1) right before their backward, 2 x (a 16x16x64
// product and a tanh) = 81920 operations; the last block's backward comes
// first and keeps its values. The derivative's factor moves to the backward
// pass and reads the recomputed tanh.

// CHECK-LABEL: func.func @residual
// CHECK-SAME: dlc.activation_bytes = 15360 : i64, dlc.recompute_flops = 8.192000e+04 : f64, dlc.recompute_plan = "2 of 8 segments (optimal)"
// CHECK: %[[T1:.*]] = dlc.tanh
// CHECK: %[[Y1:.*]] = dlc.add %arg0
// CHECK: dlc.tanh
// CHECK: %[[T3:.*]] = dlc.tanh
// CHECK: dlc.reduce sum
// CHECK: dlc.mul %[[T3]], %[[T3]]
// CHECK: %[[H2R:.*]] = dlc.matmul %[[Y1]], %arg3 {dlc.recompute}
// CHECK: %[[T2R:.*]] = dlc.tanh %[[H2R]] {dlc.recompute}
// CHECK: dlc.mul %[[T2R]], %[[T2R]]
// CHECK: %[[H1R:.*]] = dlc.matmul %arg0, %arg1 {dlc.recompute}
// CHECK: %[[T1R:.*]] = dlc.tanh %[[H1R]] {dlc.recompute}
// CHECK: dlc.matmul %[[T1R]], %{{.*}} {transpose_a}
// CHECK: dlc.mul %[[T1R]], %[[T1R]]
// CHECK-NOT: %[[T1]], %[[T1]]

// At 80% moving the derivatives' factors to the backward pass is enough:
// nothing is recomputed.
// MOVED-LABEL: func.func @residual
// MOVED-SAME: dlc.activation_bytes = 23552 : i64, dlc.recompute_flops = 0.000000e+00 : f64, dlc.recompute_plan = "single values (segments: optimal)"
// MOVED-NOT: dlc.recompute}

// Without the solver (no time given, as where GLPK is missing) single
// values are chosen greedily: they fit at half too, with more work (the
// tanh's derivative factors 1 - t^2 recomputed with each tanh).
// VALUES-LABEL: func.func @residual
// VALUES-SAME: dlc.activation_bytes = 15360 : i64, dlc.recompute_flops = 8.601600e+04 : f64, dlc.recompute_plan = "single values (segments: no solver time)"
// VALUES: dlc.matmul %{{.*}}, %arg3 {dlc.recompute}
// VALUES: dlc.tanh %{{.*}} {dlc.recompute}
// VALUES: dlc.matmul %arg0, %arg1 {dlc.recompute}
// VALUES: dlc.tanh %{{.*}} {dlc.recompute}

// At 40% no plan of segments or values fits.
// TOO-LOW: error: no plan fits the activation budget: it leaves 12697 bytes for intermediate values, and recomputing every value that frees memory still needs 13312 at one point; the smallest fraction that fits is 4.19

func.func @residual(%x: tensor<16x16xf32>, %w1: tensor<16x64xf32> {dlc.param = "w1"}, %v1: tensor<64x16xf32> {dlc.param = "v1"}, %w2: tensor<16x64xf32> {dlc.param = "w2"}, %v2: tensor<64x16xf32> {dlc.param = "v2"}, %w3: tensor<16x64xf32> {dlc.param = "w3"}, %v3: tensor<64x16xf32> {dlc.param = "v3"}) -> tensor<16x16xf32> {
  %h1 = dlc.matmul %x, %w1 : (tensor<16x16xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %t1 = dlc.tanh %h1 : tensor<16x64xf32>
  %g1 = dlc.matmul %t1, %v1 : (tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
  %y1 = dlc.add %x, %g1 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %h2 = dlc.matmul %y1, %w2 : (tensor<16x16xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %t2 = dlc.tanh %h2 : tensor<16x64xf32>
  %g2 = dlc.matmul %t2, %v2 : (tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
  %y2 = dlc.add %y1, %g2 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %h3 = dlc.matmul %y2, %w3 : (tensor<16x16xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %t3 = dlc.tanh %h3 : tensor<16x64xf32>
  %g3 = dlc.matmul %t3, %v3 : (tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
  %y3 = dlc.add %y2, %g3 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y3 : tensor<16x16xf32>
}
