// RUN: dlc-opt --split-input-file --dlc-form-attention %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-form-attention=max-head-dim=4 %s | FileCheck %s --check-prefix=SMALL

// The ONNX importer's form: K as transpose_b, the scale as a division after
// the first product, softmax ending in a division.
// CHECK-LABEL: func.func @transpose_b_div
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8xf32>, %[[K:.*]]: tensor<2x6x8xf32>, %[[V:.*]]: tensor<2x6x5xf32>)
// CHECK-NEXT: %[[A:.*]] = dlc.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f64} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x5xf32>) -> tensor<2x4x5xf32>
// CHECK-NEXT: return %[[A]]
// The head size 8 exceeds max-head-dim=4: nothing changes.
// SMALL-LABEL: func.func @transpose_b_div
// SMALL-NOT: dlc.attention
// SMALL: dlc.exp
func.func @transpose_b_div(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x5xf32>) -> tensor<2x4x5xf32> {
  %c = dlc.constant dense<8.0> : tensor<1x1x1xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>) -> tensor<2x4x6xf32>
  %t = dlc.div %s, %c : (tensor<2x4x6xf32>, tensor<1x1x1xf32>) -> tensor<2x4x6xf32>
  %m = dlc.reduce max %t {axes = array<i64: 2>} : (tensor<2x4x6xf32>) -> tensor<2x4x1xf32>
  %d = dlc.sub %t, %m : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %e = dlc.exp %d : tensor<2x4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 2>} : (tensor<2x4x6xf32>) -> tensor<2x4x1xf32>
  %p = dlc.div %e, %z : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<2x4x6xf32>, tensor<2x6x5xf32>) -> tensor<2x4x5xf32>
  return %o : tensor<2x4x5xf32>
}

// -----

// The TOSA lowering's form: K^T as an explicit transpose (under a reshape
// of the batch dimensions), the scale as a multiplication, softmax ending in
// reciprocal and multiplication. The two transposes of K compose into one
// that only moves the heads.
// CHECK-LABEL: func.func @tosa_form
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3x8xf32>, %[[K:.*]]: tensor<2x4x3x8xf32>, %[[V:.*]]: tensor<6x4x8xf32>)
// CHECK: %[[QT:.*]] = dlc.transpose %[[X]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: %[[Q:.*]] = dlc.reshape %[[QT]] : tensor<2x3x4x8xf32> -> tensor<6x4x8xf32>
// CHECK-NOT: dlc.matmul
// CHECK: %[[KT:.*]] = dlc.transpose %[[K]] {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x3x8xf32>) -> tensor<2x3x4x8xf32>
// CHECK-NEXT: %[[K3:.*]] = dlc.reshape %[[KT]] : tensor<2x3x4x8xf32> -> tensor<6x4x8xf32>
// CHECK-NEXT: %[[A:.*]] = dlc.attention %[[Q]], %[[K3]], %[[V]] {scale = 0.353553{{[0-9]*}} : f64}
// CHECK-NOT: dlc.exp
// CHECK: return %[[A]]
func.func @tosa_form(%x: tensor<2x4x3x8xf32>, %k: tensor<2x4x3x8xf32>, %v: tensor<6x4x8xf32>) -> tensor<6x4x8xf32> {
  %qt = dlc.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x3x8xf32>) -> tensor<2x3x4x8xf32>
  %q = dlc.reshape %qt : tensor<2x3x4x8xf32> -> tensor<6x4x8xf32>
  %kt4 = dlc.transpose %k {perm = array<i64: 0, 2, 3, 1>} : (tensor<2x4x3x8xf32>) -> tensor<2x3x8x4xf32>
  %kt = dlc.reshape %kt4 : tensor<2x3x8x4xf32> -> tensor<6x8x4xf32>
  %c = dlc.constant dense<0.353553385> : tensor<1x1x1xf32>
  %s = dlc.matmul %q, %kt : (tensor<6x4x8xf32>, tensor<6x8x4xf32>) -> tensor<6x4x4xf32>
  %t = dlc.mul %s, %c : (tensor<6x4x4xf32>, tensor<1x1x1xf32>) -> tensor<6x4x4xf32>
  %m = dlc.reduce max %t {axes = array<i64: 2>} : (tensor<6x4x4xf32>) -> tensor<6x4x1xf32>
  %d = dlc.sub %t, %m : (tensor<6x4x4xf32>, tensor<6x4x1xf32>) -> tensor<6x4x4xf32>
  %e = dlc.exp %d : tensor<6x4x4xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 2>} : (tensor<6x4x4xf32>) -> tensor<6x4x1xf32>
  %r = dlc.reciprocal %z : tensor<6x4x1xf32>
  %p = dlc.mul %e, %r : (tensor<6x4x4xf32>, tensor<6x4x1xf32>) -> tensor<6x4x4xf32>
  %o = dlc.matmul %p, %v : (tensor<6x4x4xf32>, tensor<6x4x8xf32>) -> tensor<6x4x8xf32>
  return %o : tensor<6x4x8xf32>
}

// -----

// K^T given as a value of its own: a transpose brings it into [Sk, D].
// The scale sits on Q (a division, as the encoder layer's export has it).
// CHECK-LABEL: func.func @kt_value_scale_on_q
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[KT:.*]]: tensor<8x6xf32>, %[[V:.*]]: tensor<6x8xf32>)
// CHECK: %[[K:.*]] = dlc.transpose %[[KT]] {perm = array<i64: 1, 0>} : (tensor<8x6xf32>) -> tensor<6x8xf32>
// CHECK-NEXT: %[[A:.*]] = dlc.attention %[[Q]], %[[K]], %[[V]] {scale = 5.000000e-01 : f64}
// CHECK-NEXT: return %[[A]]
func.func @kt_value_scale_on_q(%q: tensor<4x8xf32>, %kt: tensor<8x6xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %c = dlc.constant dense<2.0> : tensor<1x1xf32>
  %qs = dlc.div %q, %c : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  %s = dlc.matmul %qs, %kt : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %s {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %s, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// Q given transposed (transpose_a), V given transposed (transpose_b of the
// second product), and scale factors on Q and K both (d^-1/4 each).
// CHECK-LABEL: func.func @transposed_q_v_split_scale
// CHECK-SAME: (%[[QT:.*]]: tensor<8x4xf32>, %[[K:.*]]: tensor<6x8xf32>, %[[VT:.*]]: tensor<3x6xf32>)
// CHECK-DAG: %[[Q:.*]] = dlc.transpose %[[QT]] {perm = array<i64: 1, 0>}
// CHECK-DAG: %[[V:.*]] = dlc.transpose %[[VT]] {perm = array<i64: 1, 0>}
// CHECK: dlc.attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f64} : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
func.func @transposed_q_v_split_scale(%qt: tensor<8x4xf32>, %k: tensor<6x8xf32>, %vt: tensor<3x6xf32>) -> tensor<4x3xf32> {
  %c = dlc.constant dense<0.5> : tensor<1x1xf32>
  %qs = dlc.mul %c, %qt : (tensor<1x1xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %ks = dlc.mul %k, %c : (tensor<6x8xf32>, tensor<1x1xf32>) -> tensor<6x8xf32>
  %s = dlc.matmul %qs, %ks {transpose_a, transpose_b} : (tensor<8x4xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %s {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %s, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %vt {transpose_b} : (tensor<4x6xf32>, tensor<3x6xf32>) -> tensor<4x3xf32>
  return %o : tensor<4x3xf32>
}

// -----

// An additive mask from the inputs (a padding mask, broadcast over the
// queries) stays an operand; a finite splat added as well is dropped.
// CHECK-LABEL: func.func @additive_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8xf32>, %[[K:.*]]: tensor<2x6x8xf32>, %[[V:.*]]: tensor<2x6x8xf32>, %[[M:.*]]: tensor<2x1x6xf32>)
// CHECK-NEXT: %[[A:.*]] = dlc.attention %[[Q]], %[[K]], %[[V]], %[[M]] {scale = 1.000000e+00 : f64} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x1x6xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: return %[[A]]
func.func @additive_mask(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>, %mask: tensor<2x1x6xf32>) -> tensor<2x4x8xf32> {
  %c = dlc.constant dense<3.0> : tensor<1x1x1xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>) -> tensor<2x4x6xf32>
  %a = dlc.add %mask, %s : (tensor<2x1x6xf32>, tensor<2x4x6xf32>) -> tensor<2x4x6xf32>
  %t = dlc.add %a, %c : (tensor<2x4x6xf32>, tensor<1x1x1xf32>) -> tensor<2x4x6xf32>
  %m = dlc.reduce max %t {axes = array<i64: 2>} : (tensor<2x4x6xf32>) -> tensor<2x4x1xf32>
  %d = dlc.sub %t, %m : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %e = dlc.exp %d : tensor<2x4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 2>} : (tensor<2x4x6xf32>) -> tensor<2x4x1xf32>
  %p = dlc.div %e, %z : (tensor<2x4x6xf32>, tensor<2x4x1xf32>) -> tensor<2x4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<2x4x6xf32>, tensor<2x6x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A mask added before the scale is scaled with the scores.
// CHECK-LABEL: func.func @mask_before_scale
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<6x8xf32>, %[[V:.*]]: tensor<6x8xf32>, %[[M:.*]]: tensor<4x6xf32>)
// CHECK: %[[C:.*]] = dlc.constant dense<2.500000e-01> : tensor<1x1xf32>
// CHECK-NEXT: %[[MS:.*]] = dlc.mul %[[M]], %[[C]]
// CHECK-NEXT: dlc.attention %[[Q]], %[[K]], %[[V]], %[[MS]] {scale = 2.500000e-01 : f64}
func.func @mask_before_scale(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %mask: tensor<4x6xf32>) -> tensor<4x8xf32> {
  %c = dlc.constant dense<0.25> : tensor<1x1xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %a = dlc.add %s, %mask : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %t = dlc.mul %a, %c : (tensor<4x6xf32>, tensor<1x1xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %t {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %t, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// A constant upper-triangular -inf mask is `causal`; with Sq < Sk the
// diagonal is offset by Sk - Sq (query i sees keys j <= i + 2).
// CHECK-LABEL: func.func @causal_constant
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4xf32>, %[[K:.*]]: tensor<4x4xf32>, %[[V:.*]]: tensor<4x4xf32>)
// CHECK-NOT: dlc.constant
// CHECK: %[[A:.*]] = dlc.attention %[[Q]], %[[K]], %[[V]] {causal, scale = 5.000000e-01 : f64} : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: return %[[A]]
func.func @causal_constant(%q: tensor<2x4xf32>, %k: tensor<4x4xf32>, %v: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %c = dlc.constant dense<0.5> : tensor<1x1xf32>
  %mask = dlc.constant dense<[[0.0, 0.0, 0.0, 0xFF800000], [0.0, 0.0, 0.0, 0.0]]> : tensor<2x4xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %t = dlc.mul %s, %c : (tensor<2x4xf32>, tensor<1x1xf32>) -> tensor<2x4xf32>
  %a = dlc.add %t, %mask : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %m = dlc.reduce max %a {axes = array<i64: 1>} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %d = dlc.sub %a, %m : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %e = dlc.exp %d : tensor<2x4xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<2x4xf32>) -> tensor<2x1xf32>
  %p = dlc.div %e, %z : (tensor<2x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %o = dlc.matmul %p, %v : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  return %o : tensor<2x4xf32>
}

// -----

// GPT's masked_fill: select(causal pattern, -inf, scores) with the boolean
// mask broadcast over batch and heads becomes `causal`; an additive causal
// mask of the lowest f32 (torch.finfo(torch.float32).min) does too.
// CHECK-LABEL: func.func @causal_select
// CHECK: dlc.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.250000e-01 : f64} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
// CHECK-NOT: dlc.select
// CHECK: return
func.func @causal_select(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %c = dlc.constant dense<0.125> : tensor<1x1x1x1xf32>
  %ninf = dlc.constant dense<0xFF800000> : tensor<1x1x1x1xf32>
  %hide = dlc.constant dense<[[[[false, true, true], [false, false, true], [false, false, false]]]]> : tensor<1x1x3x3xi1>
  %kt = dlc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x4x3xf32>
  %s = dlc.matmul %q, %kt : (tensor<1x2x3x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x3x3xf32>
  %t = dlc.mul %s, %c : (tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>) -> tensor<1x2x3x3xf32>
  %f = dlc.select %hide, %ninf, %t : (tensor<1x1x3x3xi1>, tensor<1x1x1x1xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %m = dlc.reduce max %f {axes = array<i64: 3>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x1xf32>
  %d = dlc.sub %f, %m : (tensor<1x2x3x3xf32>, tensor<1x2x3x1xf32>) -> tensor<1x2x3x3xf32>
  %e = dlc.exp %d : tensor<1x2x3x3xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 3>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x1xf32>
  %p = dlc.div %e, %z : (tensor<1x2x3x3xf32>, tensor<1x2x3x1xf32>) -> tensor<1x2x3x3xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}
// CHECK-LABEL: func.func @causal_lowest_float
// CHECK: dlc.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, scale = 1.000000e+00 : f64}
// CHECK-NOT: dlc.constant
// CHECK: return
func.func @causal_lowest_float(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %mask = dlc.constant dense<[[0.0, 0xFF7FFFFF, 0xFF7FFFFF], [0.0, 0.0, 0xFF7FFFFF], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
  %a = dlc.add %mask, %s : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %m = dlc.reduce max %a {axes = array<i64: 1>} : (tensor<3x3xf32>) -> tensor<3x1xf32>
  %d = dlc.sub %a, %m : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %e = dlc.exp %d : tensor<3x3xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<3x3xf32>) -> tensor<3x1xf32>
  %p = dlc.div %e, %z : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %o = dlc.matmul %p, %v : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// A finite mask above -2^126 is not a hidden score: scores can come near
// -1e9 (or BERT's -10000), where exp(s + M - max) is not 0 and `causal` would
// change the result. The mask stays an operand, added as written.
// CHECK-LABEL: func.func @large_negative_stays_mask
// CHECK: %[[M:.*]] = dlc.constant dense<{{\[}}[0.000000e+00, -1.000000e+09, -1.000000e+09]
// CHECK: dlc.attention %arg0, %arg1, %arg2, %[[M]] {scale = 1.000000e+00 : f64}
func.func @large_negative_stays_mask(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %mask = dlc.constant dense<[[0.0, -1.0e9, -1.0e9], [0.0, 0.0, -1.0e9], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
  %a = dlc.add %mask, %s : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %m = dlc.reduce max %a {axes = array<i64: 1>} : (tensor<3x3xf32>) -> tensor<3x1xf32>
  %d = dlc.sub %a, %m : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %e = dlc.exp %d : tensor<3x3xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<3x3xf32>) -> tensor<3x1xf32>
  %p = dlc.div %e, %z : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %o = dlc.matmul %p, %v : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// masked_fill with a finite fill above -2^126 replaces the score by a value
// scores can come near: no exact additive mask exists, so the decomposed
// softmax stays.
// CHECK-LABEL: func.func @select_finite_fill
// CHECK-NOT: dlc.attention
// CHECK: dlc.select
func.func @select_finite_fill(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32> {
  %fill = dlc.constant dense<-1.0e9> : tensor<1x1x1x1xf32>
  %hide = dlc.constant dense<[[[[false, true, true], [false, false, true], [false, false, false]]]]> : tensor<1x1x3x3xi1>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<1x2x3x4xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x3xf32>
  %f = dlc.select %hide, %fill, %s : (tensor<1x1x3x3xi1>, tensor<1x1x1x1xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %m = dlc.reduce max %f {axes = array<i64: 3>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x1xf32>
  %d = dlc.sub %f, %m : (tensor<1x2x3x3xf32>, tensor<1x2x3x1xf32>) -> tensor<1x2x3x3xf32>
  %e = dlc.exp %d : tensor<1x2x3x3xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 3>} : (tensor<1x2x3x3xf32>) -> tensor<1x2x3x1xf32>
  %p = dlc.div %e, %z : (tensor<1x2x3x3xf32>, tensor<1x2x3x1xf32>) -> tensor<1x2x3x3xf32>
  %o = dlc.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}

// -----

// Constant masks that are not `causal` stay masks: the diagonal one row off,
// and a causal pattern with Sq > Sk (its first query sees no key, where the
// decomposed softmax and dlc.attention disagree).
// CHECK-LABEL: func.func @constant_not_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<3x4xf32>, %[[K:.*]]: tensor<3x4xf32>, %[[V:.*]]: tensor<3x4xf32>)
// CHECK: %[[M:.*]] = dlc.constant
// CHECK: dlc.attention %[[Q]], %[[K]], %[[V]], %[[M]] {scale = 1.000000e+00 : f64}
func.func @constant_not_causal(%q: tensor<3x4xf32>, %k: tensor<3x4xf32>, %v: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %mask = dlc.constant dense<[[0.0, 0.0, -1.0e9], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]> : tensor<3x3xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
  %a = dlc.add %s, %mask : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %m = dlc.reduce max %a {axes = array<i64: 1>} : (tensor<3x3xf32>) -> tensor<3x1xf32>
  %d = dlc.sub %a, %m : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %e = dlc.exp %d : tensor<3x3xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<3x3xf32>) -> tensor<3x1xf32>
  %p = dlc.div %e, %z : (tensor<3x3xf32>, tensor<3x1xf32>) -> tensor<3x3xf32>
  %o = dlc.matmul %p, %v : (tensor<3x3xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}
// CHECK-LABEL: func.func @causal_pattern_more_queries
// CHECK: %[[M:.*]] = dlc.constant
// CHECK: dlc.attention %{{.*}}, %{{.*}}, %{{.*}}, %[[M]] {scale = 1.000000e+00 : f64}
func.func @causal_pattern_more_queries(%q: tensor<3x4xf32>, %k: tensor<2x4xf32>, %v: tensor<2x4xf32>) -> tensor<3x4xf32> {
  %mask = dlc.constant dense<[[0xFF800000, 0xFF800000], [0.0, 0xFF800000], [0.0, 0.0]]> : tensor<3x2xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<3x4xf32>, tensor<2x4xf32>) -> tensor<3x2xf32>
  %a = dlc.add %s, %mask : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %m = dlc.reduce max %a {axes = array<i64: 1>} : (tensor<3x2xf32>) -> tensor<3x1xf32>
  %d = dlc.sub %a, %m : (tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
  %e = dlc.exp %d : tensor<3x2xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<3x2xf32>) -> tensor<3x1xf32>
  %p = dlc.div %e, %z : (tensor<3x2xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
  %o = dlc.matmul %p, %v : (tensor<3x2xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %o : tensor<3x4xf32>
}

// -----

// A select mask whose condition is an input becomes an additive mask:
// -inf where the condition holds, 0 elsewhere.
// CHECK-LABEL: func.func @select_input_mask
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<6x8xf32>, %[[V:.*]]: tensor<6x8xf32>, %[[C:.*]]: tensor<1x6xi1>)
// CHECK-DAG: %[[NINF:.*]] = dlc.constant dense<0xFF800000> : tensor<1x1xf32>
// CHECK-DAG: %[[ZERO:.*]] = dlc.constant dense<0.000000e+00> : tensor<1x1xf32>
// CHECK: %[[M:.*]] = dlc.select %[[C]], %[[ZERO]], %[[NINF]] : (tensor<1x6xi1>, tensor<1x1xf32>, tensor<1x1xf32>) -> tensor<1x6xf32>
// CHECK-NEXT: dlc.attention %[[Q]], %[[K]], %[[V]], %[[M]]
func.func @select_input_mask(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %keep: tensor<1x6xi1>) -> tensor<4x8xf32> {
  %ninf = dlc.constant dense<0xFF800000> : tensor<1x1xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %f = dlc.select %keep, %s, %ninf : (tensor<1x6xi1>, tensor<4x6xf32>, tensor<1x1xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %f {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %f, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// f16 attention whose softmax runs in f32 between casts, and a softmax
// without the max subtraction.
// CHECK-LABEL: func.func @f16_with_casts
// CHECK-SAME: (%[[Q:.*]]: tensor<4x16xf16>, %[[K:.*]]: tensor<6x16xf16>, %[[V:.*]]: tensor<6x16xf16>)
// CHECK-NEXT: %[[A:.*]] = dlc.attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f64} : (tensor<4x16xf16>, tensor<6x16xf16>, tensor<6x16xf16>) -> tensor<4x16xf16>
// CHECK-NEXT: return %[[A]]
func.func @f16_with_casts(%q: tensor<4x16xf16>, %k: tensor<6x16xf16>, %v: tensor<6x16xf16>) -> tensor<4x16xf16> {
  %c = dlc.constant dense<0.25> : tensor<1x1xf16>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x16xf16>, tensor<6x16xf16>) -> tensor<4x6xf16>
  %t = dlc.mul %s, %c : (tensor<4x6xf16>, tensor<1x1xf16>) -> tensor<4x6xf16>
  %w = dlc.cast %t : tensor<4x6xf16> -> tensor<4x6xf32>
  %m = dlc.reduce max %w {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %w, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %n = dlc.cast %p : tensor<4x6xf32> -> tensor<4x6xf16>
  %o = dlc.matmul %n, %v : (tensor<4x6xf16>, tensor<6x16xf16>) -> tensor<4x16xf16>
  return %o : tensor<4x16xf16>
}
// CHECK-LABEL: func.func @no_max_subtraction
// CHECK-NEXT: dlc.attention
// CHECK-NEXT: return
func.func @no_max_subtraction(%q: tensor<4x8xbf16>, %k: tensor<6x8xbf16>, %v: tensor<6x8xbf16>) -> tensor<4x8xbf16> {
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xbf16>, tensor<6x8xbf16>) -> tensor<4x6xbf16>
  %e = dlc.exp %s : tensor<4x6xbf16>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xbf16>) -> tensor<4x1xbf16>
  %r = dlc.reciprocal %z : tensor<4x1xbf16>
  %p = dlc.mul %r, %e : (tensor<4x1xbf16>, tensor<4x6xbf16>) -> tensor<4x6xbf16>
  %o = dlc.matmul %p, %v : (tensor<4x6xbf16>, tensor<6x8xbf16>) -> tensor<4x8xbf16>
  return %o : tensor<4x8xbf16>
}

// -----

// Not attention, or not only: every function keeps its products.

// The scores are also returned.
// CHECK-LABEL: func.func @scores_used_twice
// CHECK-NOT: dlc.attention
// CHECK: return
func.func @scores_used_twice(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> (tensor<4x8xf32>, tensor<4x6xf32>) {
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %s {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %s, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o, %s : tensor<4x8xf32>, tensor<4x6xf32>
}

// The scores before the mask are also returned.
// CHECK-LABEL: func.func @unmasked_scores_used_twice
// CHECK-NOT: dlc.attention
// CHECK: return
func.func @unmasked_scores_used_twice(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %mask: tensor<4x6xf32>) -> (tensor<4x8xf32>, tensor<4x6xf32>) {
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %a = dlc.add %mask, %s : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %a {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %a, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o, %s : tensor<4x8xf32>, tensor<4x6xf32>
}

// The probabilities are also returned.
// CHECK-LABEL: func.func @probabilities_used_twice
// CHECK-NOT: dlc.attention
// CHECK: return
func.func @probabilities_used_twice(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> (tensor<4x8xf32>, tensor<4x6xf32>) {
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %s {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %s, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o, %p : tensor<4x8xf32>, tensor<4x6xf32>
}

// The exponentials feed something else too.
// CHECK-LABEL: func.func @exp_used_twice
// CHECK-NOT: dlc.attention
// CHECK: return
func.func @exp_used_twice(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> (tensor<4x8xf32>, tensor<4x6xf32>) {
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %s {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %s, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o, %e : tensor<4x8xf32>, tensor<4x6xf32>
}

// The softmax runs over the queries (axis 0), not the keys.
// CHECK-LABEL: func.func @softmax_wrong_axis
// CHECK-NOT: dlc.attention
// CHECK: return
func.func @softmax_wrong_axis(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %s {axes = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  %d = dlc.sub %s, %m : (tensor<4x6xf32>, tensor<1x6xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 0>} : (tensor<4x6xf32>) -> tensor<1x6xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<1x6xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// The scale is not a splat: a per-key weighting is not a softmax scale.
// CHECK-LABEL: func.func @non_splat_scale
// CHECK-NOT: dlc.attention
// CHECK: return
func.func @non_splat_scale(%q: tensor<4x8xf32>, %k: tensor<2x8xf32>, %v: tensor<2x8xf32>) -> tensor<4x8xf32> {
  %c = dlc.constant dense<[[0.5, 0.25]]> : tensor<1x2xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x2xf32>
  %t = dlc.mul %s, %c : (tensor<4x2xf32>, tensor<1x2xf32>) -> tensor<4x2xf32>
  %m = dlc.reduce max %t {axes = array<i64: 1>} : (tensor<4x2xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %t, %m : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
  %e = dlc.exp %d : tensor<4x2xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x2xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x2xf32>, tensor<4x1xf32>) -> tensor<4x2xf32>
  %o = dlc.matmul %p, %v : (tensor<4x2xf32>, tensor<2x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// The maximum subtracted is another tensor's.
// CHECK-LABEL: func.func @max_of_other_value
// CHECK-NOT: dlc.attention
// CHECK: return
func.func @max_of_other_value(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %w: tensor<4x6xf32>) -> tensor<4x8xf32> {
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %w {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %s, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// The probabilities are read transposed by the second product.
// CHECK-LABEL: func.func @probabilities_transposed
// CHECK-NOT: dlc.attention
// CHECK: return
func.func @probabilities_transposed(%q: tensor<4x8xf32>, %k: tensor<4x8xf32>, %v: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x4xf32>
  %m = dlc.reduce max %s {axes = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %s, %m : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %e = dlc.exp %d : tensor<4x4xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
  %o = dlc.matmul %p, %v {transpose_a} : (tensor<4x4xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// A select whose fill is not a masking value (0, not -inf).
// CHECK-LABEL: func.func @select_fill_zero
// CHECK-NOT: dlc.attention
// CHECK: return
func.func @select_fill_zero(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>, %c: tensor<4x6xi1>) -> tensor<4x8xf32> {
  %zero = dlc.constant dense<0.0> : tensor<1x1xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %f = dlc.select %c, %zero, %s : (tensor<4x6xi1>, tensor<1x1xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %m = dlc.reduce max %f {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %f, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// Something other than a scale or a mask between the products (tanh
// soft-capping).
// CHECK-LABEL: func.func @tanh_between
// CHECK-NOT: dlc.attention
// CHECK: return
func.func @tanh_between(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) -> tensor<4x8xf32> {
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  %t = dlc.tanh %s : tensor<4x6xf32>
  %m = dlc.reduce max %t {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %d = dlc.sub %t, %m : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %e = dlc.exp %d : tensor<4x6xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4x1xf32>
  %p = dlc.div %e, %z : (tensor<4x6xf32>, tensor<4x1xf32>) -> tensor<4x6xf32>
  %o = dlc.matmul %p, %v : (tensor<4x6xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return %o : tensor<4x8xf32>
}

// -----

// A causal mask built from position ranges (GPT-2's form as exported):
// cmp(ge, rows, cols) selecting 0 or the lowest f32, added to the scaled
// scores. It
// is evaluated at compile time, recognised as causal and dropped.
// CHECK-LABEL: func.func @computed_causal_mask
// CHECK: dlc.attention %arg0, %arg1, %arg2 {causal, scale = 1.250000e-01 : f64} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NOT: dlc.cmp
// CHECK-NOT: dlc.select
func.func @computed_causal_mask(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %rows = dlc.constant dense<[[[0], [1], [2], [3]]]> : tensor<1x4x1xi32>
  %cols = dlc.constant dense<[[[0, 1, 2, 3]]]> : tensor<1x1x4xi32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1xf32>
  %big = dlc.constant dense<0xFF7FFFFF> : tensor<1x1x1xf32>
  %c = dlc.cmp ge, %rows, %cols : (tensor<1x4x1xi32>, tensor<1x1x4xi32>) -> tensor<1x4x4xi1>
  %mask = dlc.select %c, %zero, %big : (tensor<1x4x4xi1>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x4x4xf32>
  %eighth = dlc.constant dense<0.125> : tensor<1x1x1xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  %t = dlc.mul %s, %eighth : (tensor<2x4x4xf32>, tensor<1x1x1xf32>) -> tensor<2x4x4xf32>
  %u = dlc.add %t, %mask : (tensor<2x4x4xf32>, tensor<1x4x4xf32>) -> tensor<2x4x4xf32>
  %m = dlc.reduce max %u {axes = array<i64: 2>} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %d = dlc.sub %u, %m : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
  %e = dlc.exp %d : tensor<2x4x4xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 2>} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %p = dlc.div %e, %z : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
  %o = dlc.matmul %p, %v : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// The same with the comparison reversed (gt instead of ge): the diagonal is
// hidden too, which is not causal; the mask stays an operand.
// CHECK-LABEL: func.func @computed_mask_not_causal
// CHECK: dlc.attention %arg0, %arg1, %arg2, %{{.*}} {scale = 1.250000e-01 : f64}
func.func @computed_mask_not_causal(%q: tensor<2x4x8xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %rows = dlc.constant dense<[[[0], [1], [2], [3]]]> : tensor<1x4x1xi32>
  %cols = dlc.constant dense<[[[0, 1, 2, 3]]]> : tensor<1x1x4xi32>
  %zero = dlc.constant dense<0.0> : tensor<1x1x1xf32>
  %big = dlc.constant dense<-1.0e9> : tensor<1x1x1xf32>
  %c = dlc.cmp gt, %rows, %cols : (tensor<1x4x1xi32>, tensor<1x1x4xi32>) -> tensor<1x4x4xi1>
  %mask = dlc.select %c, %zero, %big : (tensor<1x4x4xi1>, tensor<1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<1x4x4xf32>
  %eighth = dlc.constant dense<0.125> : tensor<1x1x1xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x4xf32>
  %t = dlc.mul %s, %eighth : (tensor<2x4x4xf32>, tensor<1x1x1xf32>) -> tensor<2x4x4xf32>
  %u = dlc.add %t, %mask : (tensor<2x4x4xf32>, tensor<1x4x4xf32>) -> tensor<2x4x4xf32>
  %m = dlc.reduce max %u {axes = array<i64: 2>} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %d = dlc.sub %u, %m : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
  %e = dlc.exp %d : tensor<2x4x4xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 2>} : (tensor<2x4x4xf32>) -> tensor<2x4x1xf32>
  %p = dlc.div %e, %z : (tensor<2x4x4xf32>, tensor<2x4x1xf32>) -> tensor<2x4x4xf32>
  %o = dlc.matmul %p, %v : (tensor<2x4x4xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  return %o : tensor<2x4x8xf32>
}

// -----

// A shifted-window model's scores (torchvision's Swin): a relative
// position bias per head, then the batch of windows viewed as [B / W, W,
// H, S, S] to add the mask of each window, and viewed back. Both terms
// are viewed in the scores' shape and summed into the mask; the window
// mask varies along W but not B / W, so its view holds the copies the
// scores see, tiled from it.
// CHECK-LABEL: func.func @window_views
// CHECK-SAME: (%[[Q:.*]]: tensor<4x2x8x16xf32>, %[[K:.*]]: tensor<4x2x8x16xf32>, %[[V:.*]]: tensor<4x2x8x16xf32>, %[[B:.*]]: tensor<1x2x8x8xf32>, %[[W:.*]]: tensor<1x2x1x8x8xf32>)
// CHECK-DAG: %[[WT:.*]] = dlc.tile %[[W]] {multiples = array<i64: 2, 1, 1, 1, 1>} : (tensor<1x2x1x8x8xf32>) -> tensor<2x2x1x8x8xf32>
// CHECK-DAG: %[[WV:.*]] = dlc.reshape %[[WT]] : tensor<2x2x1x8x8xf32> -> tensor<4x1x8x8xf32>
// CHECK-DAG: dlc.reshape %[[B]] : tensor<1x2x8x8xf32> -> tensor<1x1x2x8x8xf32>
// CHECK: %[[M:.*]] = dlc.add
// CHECK: dlc.attention %[[Q]], %[[K]], %[[V]], %[[M]] {scale = 2.500000e-01 : f64}
// CHECK-NOT: dlc.exp
func.func @window_views(%q: tensor<4x2x8x16xf32>, %k: tensor<4x2x8x16xf32>, %v: tensor<4x2x8x16xf32>, %bias: tensor<1x2x8x8xf32>, %win: tensor<1x2x1x8x8xf32>) -> tensor<4x2x8x16xf32> {
  %c = dlc.constant dense<0.25> : tensor<1x1x1x1xf32>
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<4x2x8x16xf32>, tensor<4x2x8x16xf32>) -> tensor<4x2x8x8xf32>
  %t = dlc.mul %s, %c : (tensor<4x2x8x8xf32>, tensor<1x1x1x1xf32>) -> tensor<4x2x8x8xf32>
  %a = dlc.add %t, %bias : (tensor<4x2x8x8xf32>, tensor<1x2x8x8xf32>) -> tensor<4x2x8x8xf32>
  %r = dlc.reshape %a : tensor<4x2x8x8xf32> -> tensor<2x2x2x8x8xf32>
  %w = dlc.add %r, %win : (tensor<2x2x2x8x8xf32>, tensor<1x2x1x8x8xf32>) -> tensor<2x2x2x8x8xf32>
  %x = dlc.reshape %w : tensor<2x2x2x8x8xf32> -> tensor<4x2x8x8xf32>
  %m = dlc.reduce max %x {axes = array<i64: 3>} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x1xf32>
  %d = dlc.sub %x, %m : (tensor<4x2x8x8xf32>, tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
  %e = dlc.exp %d : tensor<4x2x8x8xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 3>} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x1xf32>
  %p = dlc.div %e, %z : (tensor<4x2x8x8xf32>, tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<4x2x8x8xf32>, tensor<4x2x8x16xf32>) -> tensor<4x2x8x16xf32>
  return %o : tensor<4x2x8x16xf32>
}

// -----

// Scores viewed with another batch shape than the second product's
// ([8, 8, 8] as [4, 2, 8, 8]) are refused: the attention's batch is the
// products'.
// CHECK-LABEL: func.func @scores_of_another_batch
// CHECK-NOT: dlc.attention
// CHECK: dlc.exp
func.func @scores_of_another_batch(%q: tensor<8x8x16xf32>, %k: tensor<8x8x16xf32>, %v: tensor<4x2x8x16xf32>) -> tensor<4x2x8x16xf32> {
  %s = dlc.matmul %q, %k {transpose_b} : (tensor<8x8x16xf32>, tensor<8x8x16xf32>) -> tensor<8x8x8xf32>
  %x = dlc.reshape %s : tensor<8x8x8xf32> -> tensor<4x2x8x8xf32>
  %m = dlc.reduce max %x {axes = array<i64: 3>} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x1xf32>
  %d = dlc.sub %x, %m : (tensor<4x2x8x8xf32>, tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
  %e = dlc.exp %d : tensor<4x2x8x8xf32>
  %z = dlc.reduce sum %e {axes = array<i64: 3>} : (tensor<4x2x8x8xf32>) -> tensor<4x2x8x1xf32>
  %p = dlc.div %e, %z : (tensor<4x2x8x8xf32>, tensor<4x2x8x1xf32>) -> tensor<4x2x8x8xf32>
  %o = dlc.matmul %p, %v : (tensor<4x2x8x8xf32>, tensor<4x2x8x16xf32>) -> tensor<4x2x8x16xf32>
  return %o : tensor<4x2x8x16xf32>
}
