// RUN: dlc-opt --split-input-file --dlc-horizontal-fuse %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-horizontal-fuse="max-bytes=128" %s | FileCheck %s --check-prefix=LIMIT

// Q, K and V projections as a fully-connected layer writes them (weights
// [N, K] with transpose_b, a bias add each) become one product with the
// weights stacked along N, one add of the concatenated biases (whichever
// side of the add the bias was on; a splat bias is expanded) and a slice per
// result. N may differ between the members.
// CHECK-LABEL: func.func @qkv_bias
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>)
// CHECK-NEXT: %[[W:.*]] = dlc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00], [7.000000e+00, 8.000000e+00, 9.000000e+00], [1.000000e+01, 1.100000e+01, 1.200000e+01], [1.300000e+01, 1.400000e+01, 1.500000e+01]]> : tensor<5x3xf32>
// CHECK-NEXT: %[[P:.*]] = dlc.matmul %[[X]], %[[W]] {transpose_b} : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: %[[B:.*]] = dlc.constant dense<{{\[}}[5.000000e-01, 1.500000e+00, 2.500000e+00, 3.500000e+00, 4.500000e+00]]> : tensor<1x5xf32>
// CHECK-NEXT: %[[S:.*]] = dlc.add %[[P]], %[[B]] : (tensor<4x5xf32>, tensor<1x5xf32>) -> tensor<4x5xf32>
// CHECK-NEXT: %[[Q:.*]] = dlc.slice %[[S]] {start = array<i64: 0, 0>} : (tensor<4x5xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[K:.*]] = dlc.slice %[[S]] {start = array<i64: 0, 2>} : (tensor<4x5xf32>) -> tensor<4x2xf32>
// CHECK-NEXT: %[[V:.*]] = dlc.slice %[[S]] {start = array<i64: 0, 4>} : (tensor<4x5xf32>) -> tensor<4x1xf32>
// CHECK-NEXT: return %[[Q]], %[[K]], %[[V]]
func.func @qkv_bias(%x: tensor<4x3xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x1xf32>) {
  %wq = dlc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %wk = dlc.constant dense<[[7.0, 8.0, 9.0], [10.0, 11.0, 12.0]]> : tensor<2x3xf32>
  %wv = dlc.constant dense<[[13.0, 14.0, 15.0]]> : tensor<1x3xf32>
  %bq = dlc.constant dense<[[0.5, 1.5]]> : tensor<1x2xf32>
  %bk = dlc.constant dense<[[2.5, 3.5]]> : tensor<1x2xf32>
  %bv = dlc.constant dense<4.5> : tensor<1x1xf32>
  %q0 = dlc.matmul %x, %wq {transpose_b} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  %q = dlc.add %q0, %bq : (tensor<4x2xf32>, tensor<1x2xf32>) -> tensor<4x2xf32>
  %k0 = dlc.matmul %x, %wk {transpose_b} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<4x2xf32>
  %k = dlc.add %bk, %k0 : (tensor<1x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %v0 = dlc.matmul %x, %wv {transpose_b} : (tensor<4x3xf32>, tensor<1x3xf32>) -> tensor<4x1xf32>
  %v = dlc.add %v0, %bv : (tensor<4x1xf32>, tensor<1x1xf32>) -> tensor<4x1xf32>
  return %q, %k, %v : tensor<4x2xf32>, tensor<4x2xf32>, tensor<4x1xf32>
}

// -----

// Without bias adds the slices read the product itself. Weights [K, N]
// (no transpose_b) are concatenated along their last dimension: row k of the
// merged weights is row k of each. More than 16 elements make a
// dense_resource blob (alignment 8, then [1 2 7 8 9 10], [3 4 11 12 13 14],
// [5 6 15 16 17 18] as little-endian f32).
// CHECK-LABEL: func.func @no_bias
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[W:.*]] = dlc.constant dense_resource<merged_weights> : tensor<3x6xf32>
// CHECK-NEXT: %[[P:.*]] = dlc.matmul %[[X]], %[[W]] : (tensor<2x3xf32>, tensor<3x6xf32>) -> tensor<2x6xf32>
// CHECK-NEXT: %[[A:.*]] = dlc.slice %[[P]] {start = array<i64: 0, 0>} : (tensor<2x6xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: %[[B:.*]] = dlc.slice %[[P]] {start = array<i64: 0, 2>} : (tensor<2x6xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: %[[EA:.*]] = dlc.exp %[[A]]
// CHECK-NEXT: %[[EB:.*]] = dlc.tanh %[[B]]
// CHECK-NEXT: return %[[EA]], %[[EB]]
// CHECK: merged_weights: "0x080000000000803F00000040
// CHECK-SAME: 0000E0400000004100001041000020410000404000008040000030410000404100005041000060410000A0400000C0400000704100008041000088410000904
func.func @no_bias(%x: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x4xf32>) {
  %w1 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %w2 = dlc.constant dense<[[7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0], [15.0, 16.0, 17.0, 18.0]]> : tensor<3x4xf32>
  %a = dlc.matmul %x, %w1 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %b = dlc.matmul %x, %w2 : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %ea = dlc.exp %a : tensor<2x2xf32>
  %eb = dlc.tanh %b : tensor<2x4xf32>
  return %ea, %eb : tensor<2x2xf32>, tensor<2x4xf32>
}

// -----

// Members of different transpose_b: the first member's layout wins and the
// other's weights are transposed at compile time ([1, 3] with transpose_b is
// the column [[7], [8], [9]]).
// CHECK-LABEL: func.func @mixed_transpose_b
// CHECK-NEXT: %[[W:.*]] = dlc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 7.000000e+00], [3.000000e+00, 4.000000e+00, 8.000000e+00], [5.000000e+00, 6.000000e+00, 9.000000e+00]]> : tensor<3x3xf32>
// CHECK-NEXT: %[[P:.*]] = dlc.matmul %{{.*}}, %[[W]] : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: dlc.slice %[[P]] {start = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: dlc.slice %[[P]] {start = array<i64: 0, 2>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK-NOT: dlc.matmul
func.func @mixed_transpose_b(%x: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x1xf32>) {
  %w1 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %w2 = dlc.constant dense<[[7.0, 8.0, 9.0]]> : tensor<1x3xf32>
  %a = dlc.matmul %x, %w1 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %b = dlc.matmul %x, %w2 {transpose_b} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x1xf32>
  return %a, %b : tensor<2x2xf32>, tensor<2x1xf32>
}

// -----

// The other way round: with transpose_b first, the [K, N] weights of the
// second member become rows.
// CHECK-LABEL: func.func @mixed_transpose_b_first
// CHECK-NEXT: %[[W:.*]] = dlc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [7.000000e+00, 9.000000e+00, 1.100000e+01], [8.000000e+00, 1.000000e+01, 1.200000e+01]]> : tensor<3x3xf32>
// CHECK-NEXT: %[[P:.*]] = dlc.matmul %{{.*}}, %[[W]] {transpose_b} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: dlc.slice %[[P]] {start = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK-NEXT: dlc.slice %[[P]] {start = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
func.func @mixed_transpose_b_first(%x: tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>) {
  %w1 = dlc.constant dense<[[1.0, 2.0, 3.0]]> : tensor<1x3xf32>
  %w2 = dlc.constant dense<[[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]> : tensor<3x2xf32>
  %a = dlc.matmul %x, %w1 {transpose_b} : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x1xf32>
  %b = dlc.matmul %x, %w2 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %a, %b : tensor<2x1xf32>, tensor<2x2xf32>
}

// -----

// Batched products with batched weights: each batch's weights are
// concatenated; biases [1, 1, N] too.
// CHECK-LABEL: func.func @batched
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x2xf32>)
// CHECK-NEXT: %[[W:.*]] = dlc.constant dense<{{\[}}{{\[}}[1.000000e+00, 2.000000e+00, 9.000000e+00], [3.000000e+00, 4.000000e+00, 1.000000e+01]], {{\[}}[5.000000e+00, 6.000000e+00, 1.100000e+01], [7.000000e+00, 8.000000e+00, 1.200000e+01]]]> : tensor<2x2x3xf32>
// CHECK-NEXT: %[[P:.*]] = dlc.matmul %[[X]], %[[W]] : (tensor<2x4x2xf32>, tensor<2x2x3xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: %[[B:.*]] = dlc.constant dense<{{\[}}{{\[}}[1.000000e-01, 2.000000e-01, 3.000000e-01]]]> : tensor<1x1x3xf32>
// CHECK-NEXT: %[[S:.*]] = dlc.add %[[P]], %[[B]] : (tensor<2x4x3xf32>, tensor<1x1x3xf32>) -> tensor<2x4x3xf32>
// CHECK-NEXT: dlc.slice %[[S]] {start = array<i64: 0, 0, 0>} : (tensor<2x4x3xf32>) -> tensor<2x4x2xf32>
// CHECK-NEXT: dlc.slice %[[S]] {start = array<i64: 0, 0, 2>} : (tensor<2x4x3xf32>) -> tensor<2x4x1xf32>
func.func @batched(%x: tensor<2x4x2xf32>) -> (tensor<2x4x2xf32>, tensor<2x4x1xf32>) {
  %w1 = dlc.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]> : tensor<2x2x2xf32>
  %w2 = dlc.constant dense<[[[9.0], [10.0]], [[11.0], [12.0]]]> : tensor<2x2x1xf32>
  %b1 = dlc.constant dense<[[[0.1, 0.2]]]> : tensor<1x1x2xf32>
  %b2 = dlc.constant dense<[[[0.3]]]> : tensor<1x1x1xf32>
  %a0 = dlc.matmul %x, %w1 : (tensor<2x4x2xf32>, tensor<2x2x2xf32>) -> tensor<2x4x2xf32>
  %a = dlc.add %a0, %b1 : (tensor<2x4x2xf32>, tensor<1x1x2xf32>) -> tensor<2x4x2xf32>
  %c0 = dlc.matmul %x, %w2 : (tensor<2x4x2xf32>, tensor<2x2x1xf32>) -> tensor<2x4x1xf32>
  %c = dlc.add %c0, %b2 : (tensor<2x4x1xf32>, tensor<1x1x1xf32>) -> tensor<2x4x1xf32>
  return %a, %c : tensor<2x4x2xf32>, tensor<2x4x1xf32>
}

// -----

// Weights shared by every batch (batch dimension 1) broadcast as before.
// CHECK-LABEL: func.func @batch_broadcast
// CHECK-NEXT: %[[W:.*]] = dlc.constant dense<{{\[}}{{\[}}[1.000000e+00, 2.000000e+00, 5.000000e+00], [3.000000e+00, 4.000000e+00, 6.000000e+00]]]> : tensor<1x2x3xf32>
// CHECK-NEXT: dlc.matmul %{{.*}}, %[[W]] : (tensor<2x4x2xf32>, tensor<1x2x3xf32>) -> tensor<2x4x3xf32>
func.func @batch_broadcast(%x: tensor<2x4x2xf32>) -> (tensor<2x4x2xf32>, tensor<2x4x1xf32>) {
  %w1 = dlc.constant dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>
  %w2 = dlc.constant dense<[[[5.0], [6.0]]]> : tensor<1x2x1xf32>
  %a = dlc.matmul %x, %w1 : (tensor<2x4x2xf32>, tensor<1x2x2xf32>) -> tensor<2x4x2xf32>
  %c = dlc.matmul %x, %w2 : (tensor<2x4x2xf32>, tensor<1x2x1xf32>) -> tensor<2x4x1xf32>
  return %a, %c : tensor<2x4x2xf32>, tensor<2x4x1xf32>
}

// -----

// Only some products have a bias add: the products merge, the adds stay on
// the slices.
// CHECK-LABEL: func.func @partial_bias
// CHECK: %[[P:.*]] = dlc.matmul {{.*}} -> tensor<2x4xf32>
// CHECK-NEXT: %[[A:.*]] = dlc.slice %[[P]] {start = array<i64: 0, 0>}
// CHECK-NEXT: %[[B:.*]] = dlc.slice %[[P]] {start = array<i64: 0, 2>}
// CHECK-NEXT: dlc.add %[[A]], %{{.*}} : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
// CHECK-NEXT: dlc.exp %[[B]]
func.func @partial_bias(%x: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %w1 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %w2 = dlc.constant dense<[[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]> : tensor<3x2xf32>
  %b1 = dlc.constant dense<[[0.5, 1.5]]> : tensor<1x2xf32>
  %a0 = dlc.matmul %x, %w1 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %a = dlc.add %a0, %b1 : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %c0 = dlc.matmul %x, %w2 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %c = dlc.exp %c0 : tensor<2x2xf32>
  return %a, %c : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A product read by more than its bias add, and a bias that is not a
// broadcast along N (a full [M, N] tensor; a non-constant one): the adds
// stay where they are.
// CHECK-LABEL: func.func @bias_not_mergeable
// CHECK: %[[P:.*]] = dlc.matmul {{.*}} -> tensor<2x6xf32>
// CHECK-NEXT: %[[A:.*]] = dlc.slice %[[P]] {start = array<i64: 0, 0>}
// CHECK-NEXT: %[[B:.*]] = dlc.slice %[[P]] {start = array<i64: 0, 2>}
// CHECK-NEXT: %[[C:.*]] = dlc.slice %[[P]] {start = array<i64: 0, 4>}
// CHECK-NEXT: dlc.add %[[A]], %{{.*}} : (tensor<2x2xf32>, tensor<1x2xf32>)
// CHECK-NEXT: dlc.add %[[B]], %{{.*}} : (tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK-NEXT: dlc.add %[[C]], %{{.*}} : (tensor<2x2xf32>, tensor<1x2xf32>)
// CHECK-NEXT: return %{{.*}}, %{{.*}}, %{{.*}}, %[[A]]
func.func @bias_not_mergeable(%x: tensor<2x3xf32>, %b3: tensor<1x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %w1 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %w2 = dlc.constant dense<[[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]> : tensor<3x2xf32>
  %w3 = dlc.constant dense<[[7.5, 8.5], [9.5, 10.5], [11.5, 12.5]]> : tensor<3x2xf32>
  %b1 = dlc.constant dense<[[0.5, 1.5]]> : tensor<1x2xf32>
  %b2 = dlc.constant dense<[[0.5, 1.5], [2.5, 3.5]]> : tensor<2x2xf32>
  %a0 = dlc.matmul %x, %w1 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %a = dlc.add %a0, %b1 : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  %c0 = dlc.matmul %x, %w2 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %c = dlc.add %c0, %b2 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %d0 = dlc.matmul %x, %w3 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %d = dlc.add %d0, %b3 : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<2x2xf32>
  return %a, %c, %d, %a0 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// dense_resource weights (as the ONNX importer stores them) and a splat are
// read like dense ones; the merged constant is a blob again: rows
// [1 2 | 0.5], [3 4 | 0.5].
// CHECK-LABEL: func.func @resource_and_splat
// CHECK-NEXT: %[[W:.*]] = dlc.constant dense_resource<merged_weights> : tensor<2x3xf32>
// CHECK-NEXT: dlc.matmul %{{.*}}, %[[W]] : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NOT: w_resource
// CHECK: merged_weights: "0x080000000000803F000000400000003F0000404000008040000000
func.func @resource_and_splat(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<4x1xf32>) {
  %w1 = dlc.constant dense_resource<w_resource> : tensor<2x2xf32>
  %w2 = dlc.constant dense<0.5> : tensor<2x1xf32>
  %a = dlc.matmul %x, %w1 : (tensor<4x2xf32>, tensor<2x2xf32>) -> tensor<4x2xf32>
  %b = dlc.matmul %x, %w2 : (tensor<4x2xf32>, tensor<2x1xf32>) -> tensor<4x1xf32>
  return %a, %b : tensor<4x2xf32>, tensor<4x1xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w_resource: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// 16-bit elements and an acc_type carried over.
// CHECK-LABEL: func.func @f16
// CHECK-NEXT: %[[W:.*]] = dlc.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf16>
// CHECK-NEXT: dlc.matmul %{{.*}}, %[[W]] {acc_type = f32} : (tensor<3x2xf16>, tensor<2x3xf16>) -> tensor<3x3xf16>
func.func @f16(%x: tensor<3x2xf16>) -> (tensor<3x1xf16>, tensor<3x2xf16>) {
  %w1 = dlc.constant dense<[[1.0], [4.0]]> : tensor<2x1xf16>
  %w2 = dlc.constant dense<[[2.0, 3.0], [5.0, 6.0]]> : tensor<2x2xf16>
  %a = dlc.matmul %x, %w1 {acc_type = f32} : (tensor<3x2xf16>, tensor<2x1xf16>) -> tensor<3x1xf16>
  %b = dlc.matmul %x, %w2 {acc_type = f32} : (tensor<3x2xf16>, tensor<2x2xf16>) -> tensor<3x2xf16>
  return %a, %b : tensor<3x1xf16>, tensor<3x2xf16>
}

// -----

// Two inputs with two products each: two groups, each merged product where
// its first member was.
// CHECK-LABEL: func.func @two_groups
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>, %[[Y:.*]]: tensor<2x2xf32>)
// CHECK: dlc.matmul %[[X]], %{{.*}} -> tensor<2x2xf32>
// CHECK: dlc.matmul %[[Y]], %{{.*}} -> tensor<2x2xf32>
// CHECK-NOT: dlc.matmul
// CHECK: return
func.func @two_groups(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %w1 = dlc.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %w2 = dlc.constant dense<[[3.0], [4.0]]> : tensor<2x1xf32>
  %w3 = dlc.constant dense<[[5.0], [6.0]]> : tensor<2x1xf32>
  %w4 = dlc.constant dense<[[7.0], [8.0]]> : tensor<2x1xf32>
  %a = dlc.matmul %x, %w1 : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %b = dlc.matmul %y, %w2 : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %c = dlc.matmul %x, %w3 : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %d = dlc.matmul %y, %w4 : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  return %a, %b, %c, %d : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

// max-bytes bounds the merged weights of one group: with 128 bytes, the
// first two 64-byte weights merge and the third stays alone.
// CHECK-LABEL: func.func @max_bytes
// CHECK: dlc.matmul {{.*}} -> tensor<4x12xf32>
// CHECK-NOT: dlc.matmul
// LIMIT-LABEL: func.func @max_bytes
// LIMIT: %[[P:.*]] = dlc.matmul {{.*}} -> tensor<4x8xf32>
// LIMIT-NEXT: dlc.slice %[[P]] {start = array<i64: 0, 0>}
// LIMIT-NEXT: dlc.slice %[[P]] {start = array<i64: 0, 4>}
// LIMIT-NEXT: dlc.matmul {{.*}} -> tensor<4x4xf32>
// LIMIT-NEXT: return
func.func @max_bytes(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %w1 = dlc.constant dense<1.0> : tensor<4x4xf32>
  %w2 = dlc.constant dense<2.0> : tensor<4x4xf32>
  %w3 = dlc.constant dense<3.0> : tensor<4x4xf32>
  %a = dlc.matmul %x, %w1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %b = dlc.matmul %x, %w2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %c = dlc.matmul %x, %w3 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %a, %b, %c : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Negative cases: nothing merges.
// Different lhs values.
// CHECK-LABEL: func.func @different_lhs
// CHECK-COUNT-2: dlc.matmul
// CHECK-NOT: dlc.slice
func.func @different_lhs(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %w1 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %w2 = dlc.constant dense<[[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]> : tensor<3x2xf32>
  %a = dlc.matmul %x, %w1 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %b = dlc.matmul %y, %w2 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %a, %b : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// A rhs that is not a constant.
// CHECK-LABEL: func.func @non_constant_rhs
// CHECK-COUNT-2: dlc.matmul
// CHECK-NOT: dlc.slice
func.func @non_constant_rhs(%x: tensor<2x3xf32>, %w2: tensor<3x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %w1 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %a = dlc.matmul %x, %w1 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %b = dlc.matmul %x, %w2 : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  return %a, %b : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// The same lhs read transposed by one product and not by the other.
// CHECK-LABEL: func.func @different_transpose_a
// CHECK-COUNT-2: dlc.matmul
// CHECK-NOT: dlc.slice
func.func @different_transpose_a(%x: tensor<3x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w1 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %w2 = dlc.constant dense<[[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]]> : tensor<3x2xf32>
  %a = dlc.matmul %x, %w1 : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  %b = dlc.matmul %x, %w2 {transpose_a} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %a, %b : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// Different accumulation types.
// CHECK-LABEL: func.func @different_acc_type
// CHECK-COUNT-2: dlc.matmul
// CHECK-NOT: dlc.slice
func.func @different_acc_type(%x: tensor<2x2xf16>) -> (tensor<2x1xf16>, tensor<2x1xf16>) {
  %w1 = dlc.constant dense<[[1.0], [2.0]]> : tensor<2x1xf16>
  %w2 = dlc.constant dense<[[3.0], [4.0]]> : tensor<2x1xf16>
  %a = dlc.matmul %x, %w1 {acc_type = f32} : (tensor<2x2xf16>, tensor<2x1xf16>) -> tensor<2x1xf16>
  %b = dlc.matmul %x, %w2 : (tensor<2x2xf16>, tensor<2x1xf16>) -> tensor<2x1xf16>
  return %a, %b : tensor<2x1xf16>, tensor<2x1xf16>
}

// -----

// Different element types (the operands of a product share theirs, so the
// lhs values differ too).
// CHECK-LABEL: func.func @different_element_types
// CHECK-COUNT-2: dlc.matmul
// CHECK-NOT: dlc.slice
func.func @different_element_types(%x: tensor<2x2xf32>) -> (tensor<2x1xf32>, tensor<2x1xf16>) {
  %h = dlc.cast %x : tensor<2x2xf32> -> tensor<2x2xf16>
  %w1 = dlc.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %w2 = dlc.constant dense<[[3.0], [4.0]]> : tensor<2x1xf16>
  %a = dlc.matmul %x, %w1 : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
  %b = dlc.matmul %h, %w2 : (tensor<2x2xf16>, tensor<2x1xf16>) -> tensor<2x1xf16>
  return %a, %b : tensor<2x1xf32>, tensor<2x1xf16>
}

// -----

// Weights of different batch shapes cannot be stacked.
// CHECK-LABEL: func.func @different_weight_batch
// CHECK-COUNT-2: dlc.matmul
// CHECK-NOT: dlc.slice
func.func @different_weight_batch(%x: tensor<2x4x2xf32>) -> (tensor<2x4x2xf32>, tensor<2x4x1xf32>) {
  %w1 = dlc.constant dense<[[[1.0, 2.0], [3.0, 4.0]]]> : tensor<1x2x2xf32>
  %w2 = dlc.constant dense<[[[9.0], [10.0]], [[11.0], [12.0]]]> : tensor<2x2x1xf32>
  %a = dlc.matmul %x, %w1 : (tensor<2x4x2xf32>, tensor<1x2x2xf32>) -> tensor<2x4x2xf32>
  %c = dlc.matmul %x, %w2 : (tensor<2x4x2xf32>, tensor<2x2x1xf32>) -> tensor<2x4x1xf32>
  return %a, %c : tensor<2x4x2xf32>, tensor<2x4x1xf32>
}

// -----

// A product of a product: the second reads the first's result, not the
// shared input.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-2: dlc.matmul
// CHECK-NOT: dlc.slice
func.func @chain(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w1 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %w2 = dlc.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %a = dlc.matmul %x, %w1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %b = dlc.matmul %a, %w2 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %b : tensor<2x2xf32>
}

// -----

// Already one product whose result is sliced into Q, K and V (GPT-2's
// c_attn, PyTorch's packed in_proj): left as it is.
// CHECK-LABEL: func.func @already_packed
// CHECK-NEXT: dlc.constant
// CHECK-NEXT: %[[P:.*]] = dlc.matmul
// CHECK-NEXT: dlc.slice %[[P]] {start = array<i64: 0, 0>}
// CHECK-NEXT: dlc.slice %[[P]] {start = array<i64: 0, 1>}
// CHECK-NEXT: dlc.slice %[[P]] {start = array<i64: 0, 2>}
// CHECK-NEXT: return
func.func @already_packed(%x: tensor<2x2xf32>) -> (tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>) {
  %w = dlc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %p = dlc.matmul %x, %w : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %q = dlc.slice %p {start = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %k = dlc.slice %p {start = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %v = dlc.slice %p {start = array<i64: 0, 2>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %q, %k, %v : tensor<2x1xf32>, tensor<2x1xf32>, tensor<2x1xf32>
}

// -----

// A product that already has an epilogue (here a bias, as dlc-fuse-epilogue
// forms it) is not a plain product: it stays.
// CHECK-LABEL: func.func @epilogue
// CHECK-COUNT-2: dlc.matmul
// CHECK-NOT: dlc.slice
func.func @epilogue(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %w1 = dlc.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %w2 = dlc.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %b = dlc.constant dense<[0.5, 1.5]> : tensor<2xf32>
  %a = dlc.matmul %x, %w1 bias(%b) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %c = dlc.matmul %x, %w2 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %a, %c : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// The merged product would exceed the largest tensor dlc supports (2^40
// bytes; each product is exactly that, with empty weights): no merge.
// CHECK-LABEL: func.func @too_large
// CHECK-COUNT-2: dlc.matmul
// CHECK-NOT: dlc.slice
func.func @too_large(%x: tensor<1x0xf32>) -> (tensor<1x274877906944xf32>, tensor<1x274877906944xf32>) {
  %w1 = dlc.constant dense<> : tensor<0x274877906944xf32>
  %w2 = dlc.constant dense<> : tensor<0x274877906944xf32>
  %a = dlc.matmul %x, %w1 : (tensor<1x0xf32>, tensor<0x274877906944xf32>) -> tensor<1x274877906944xf32>
  %b = dlc.matmul %x, %w2 : (tensor<1x0xf32>, tensor<0x274877906944xf32>) -> tensor<1x274877906944xf32>
  return %a, %b : tensor<1x274877906944xf32>, tensor<1x274877906944xf32>
}
