// RUN: dlc compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: dlc run %s --device=sim --check --seed=1 | FileCheck %s
// Attention as nanoGPT writes it and PyTorch exports it: the scale
// computed from the head size (1 / sqrt(8) as a pow and a reciprocal of
// constants), the causal mask as masked_fill(~tril(ones), -inf), which is
// Where(Not(tril), -inf, scores) with tril a boolean constant. The
// canonicalization folds the scale to one constant and the mask's select,
// not and reshape of constants to one (the reference interpreter computes
// them), and turns select(not(c), a, b) into select(c, b, a): attention is
// formed causal, with no mask kernel and no score matrix.
// FUSED-NOT: dlc.kernel
// FUSED: dlc.attention {{.*}}causal
// FUSED-NOT: dlc.kernel
// CHECK: check output_0: relative error {{.*}} ok
func.func @main(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %ones = dlc.constant dense<true> : tensor<4x4xi1>
  %tril = dlc.constant dense<[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]> : tensor<4x4xi1>
  %f = dlc.constant dense<false> : tensor<1x1xi1>
  %t = dlc.select %tril, %ones, %f : (tensor<4x4xi1>, tensor<4x4xi1>, tensor<1x1xi1>) -> tensor<4x4xi1>
  %n = dlc.not %t : tensor<4x4xi1>
  %m = dlc.reshape %n : tensor<4x4xi1> -> tensor<1x1x4x4xi1>
  %d = dlc.constant dense<8.0> : tensor<1x1x1x1xf32>
  %h = dlc.constant dense<0.5> : tensor<1x1x1x1xf32>
  %sq = dlc.pow %d, %h : (tensor<1x1x1x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x1x1xf32>
  %sc = dlc.reciprocal %sq : tensor<1x1x1x1xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x4xf32>
  %ss = dlc.mul %s, %sc : (tensor<1x2x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x4x4xf32>
  %inf = dlc.constant dense<0xFF800000> : tensor<1x1x1x1xf32>
  %masked = dlc.select %m, %inf, %ss : (tensor<1x1x4x4xi1>, tensor<1x1x1x1xf32>, tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %mx = dlc.reduce max %masked {axes = array<i64: 3>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x1xf32>
  %sub = dlc.sub %masked, %mx : (tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>) -> tensor<1x2x4x4xf32>
  %e = dlc.exp %sub : tensor<1x2x4x4xf32>
  %sum = dlc.reduce sum %e {axes = array<i64: 3>} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x1xf32>
  %p = dlc.div %e, %sum : (tensor<1x2x4x4xf32>, tensor<1x2x4x1xf32>) -> tensor<1x2x4x4xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}
