// RUN: dlc-opt %s --split-input-file --dlc-rematerialize='activation-fraction=0.7' | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-rematerialize | FileCheck %s --check-prefix=MEASURE
// RUN: dlc-opt %s --split-input-file --dlc-rematerialize='budget=1000' -verify-diagnostics -o /dev/null

// A chain whose first value is read again at its end. Without a budget
// the pass measures: %a, %b and %c (16 KiB each) are live together at the
// tanh, 48 KiB. At 70% (33.6 KiB) %a, kept across that point, is
// recomputed from the argument right before its next reader, and the peak
// falls to 32 KiB. With a budget of 1000 bytes nothing fits: the
// arguments and result alone take 48 KiB, and the smallest budget that
// fits is theirs plus the 32 KiB the best plan needs.

// CHECK-LABEL: func.func @chain
// CHECK-SAME: dlc.activation_bytes = 32768 : i64, dlc.recompute_flops = 3.276800e+04 : f64
// CHECK: %[[A:.*]] = dlc.exp %arg0
// CHECK: %[[B:.*]] = dlc.matmul %[[A]], %arg1
// CHECK: %[[C:.*]] = dlc.tanh %[[B]]
// CHECK: %[[D:.*]] = dlc.matmul %[[C]], %arg1
// CHECK: %[[A2:.*]] = dlc.exp %arg0 {dlc.recompute}
// CHECK: dlc.mul %[[D]], %[[A2]]

// MEASURE-LABEL: func.func @chain
// MEASURE-SAME: dlc.activation_bytes = 49152 : i64, dlc.recompute_flops = 0.000000e+00 : f64
// MEASURE-NOT: dlc.recompute}

// expected-error @+1 {{no plan fits the memory budget of 1000 bytes: the inputs, outputs, parameters, state and constants take 49152, which leaves 0 for intermediate values, and recomputing every value that frees memory still needs 32768 at one point; the smallest budget that fits is 81920 bytes}}
func.func @chain(%x: tensor<64x64xf32>, %w: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = dlc.exp %x : tensor<64x64xf32>
  %b = dlc.matmul %a, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %c = dlc.tanh %b : tensor<64x64xf32>
  %d = dlc.matmul %c, %w : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %e = dlc.mul %d, %a : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %e : tensor<64x64xf32>
}


// RUN: not dlc-opt %s --dlc-rematerialize='activation-fraction=2' 2>&1 | FileCheck %s --check-prefix=FRACTION
// FRACTION: dlc-rematerialize: the activation fraction must lie in [0, 1]
