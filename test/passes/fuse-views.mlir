// RUN: dlc-opt --split-input-file --dlc-fuse %s | FileCheck %s
// A kernel that would only copy a contiguous block of a buffer (a channel
// range of an NCHW tensor at batch 1: ShuffleNet's channel split before a
// 1x1 convolution) is a view instead: the slice stays at the top level,
// marked dlc.view, and its readers read the block in place.

// CHECK-LABEL: func.func @channel_split
// CHECK: %[[P:.*]] = dlc.matmul
// CHECK: %[[V:.*]] = dlc.slice %[[P]] {dlc.view, start = array<i64: 0, 24, 0>}
// CHECK: dlc.matmul %{{.*}}, %[[V]]
// CHECK-NOT: dlc.kernel
func.func @channel_split(%x: tensor<1x48x16xf32>, %w: tensor<1x48x48xf32>, %w2: tensor<1x24x24xf32>) -> tensor<1x24x16xf32> {
  %p = dlc.matmul %w, %x : (tensor<1x48x48xf32>, tensor<1x48x16xf32>) -> tensor<1x48x16xf32>
  %s = dlc.slice %p {start = array<i64: 0, 24, 0>} : (tensor<1x48x16xf32>) -> tensor<1x24x16xf32>
  %y = dlc.matmul %w2, %s : (tensor<1x24x24xf32>, tensor<1x24x16xf32>) -> tensor<1x24x16xf32>
  return %y : tensor<1x24x16xf32>
}

// -----

// Columns of a matrix are not one block: the copy stays a kernel.
// CHECK-LABEL: func.func @columns
// CHECK: dlc.kernel
// CHECK-NOT: dlc.view
func.func @columns(%x: tensor<16x48xf32>, %w: tensor<48x48xf32>, %w2: tensor<24x24xf32>) -> tensor<16x24xf32> {
  %p = dlc.matmul %x, %w : (tensor<16x48xf32>, tensor<48x48xf32>) -> tensor<16x48xf32>
  %s = dlc.slice %p {start = array<i64: 0, 24>} : (tensor<16x48xf32>) -> tensor<16x24xf32>
  %y = dlc.matmul %s, %w2 : (tensor<16x24xf32>, tensor<24x24xf32>) -> tensor<16x24xf32>
  return %y : tensor<16x24xf32>
}

// -----

// A block at an offset of 4 rows of 16 f32 (256 bytes) is aligned like
// any buffer; at 3 rows (192 bytes) it is not, and stays a copy.
// CHECK-LABEL: func.func @alignment
// CHECK: dlc.slice %{{.*}} {dlc.view, start = array<i64: 4, 0>}
// CHECK: dlc.kernel
// CHECK-NOT: dlc.view
func.func @alignment(%x: tensor<32x16xf32>, %w: tensor<16x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %p = dlc.matmul %x, %w : (tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
  %a = dlc.slice %p {start = array<i64: 4, 0>} : (tensor<32x16xf32>) -> tensor<8x16xf32>
  %b = dlc.slice %p {start = array<i64: 3, 0>} : (tensor<32x16xf32>) -> tensor<8x16xf32>
  %ya = dlc.matmul %a, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %yb = dlc.matmul %b, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %ya, %yb : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A returned block is written into its output: a kernel copies it.
// CHECK-LABEL: func.func @returned
// CHECK: dlc.kernel
// CHECK-NOT: dlc.view
func.func @returned(%x: tensor<32x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %p = dlc.matmul %x, %w : (tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
  %a = dlc.slice %p {start = array<i64: 8, 0>} : (tensor<32x16xf32>) -> tensor<8x16xf32>
  return %a : tensor<8x16xf32>
}

// -----

// A slice of a value computed only for it joins the computation (it reads
// only the block): no view, and no full-size intermediate.
// CHECK-LABEL: func.func @computed
// CHECK: dlc.kernel
// CHECK: dlc.exp
// CHECK: dlc.slice
// CHECK-NOT: dlc.view
func.func @computed(%x: tensor<32x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %e = dlc.exp %x : tensor<32x16xf32>
  %a = dlc.slice %e {start = array<i64: 8, 0>} : (tensor<32x16xf32>) -> tensor<8x16xf32>
  %y = dlc.matmul %a, %w : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// A view in the input is not trusted: dlc-fuse decides again.
// CHECK-LABEL: func.func @given_view
// CHECK: dlc.kernel
// CHECK-NOT: dlc.view
func.func @given_view(%x: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %a = dlc.slice %x {dlc.view, start = array<i64: 8, 0>} : (tensor<32x16xf32>) -> tensor<8x16xf32>
  return %a : tensor<8x16xf32>
}
