// RUN: dlc-opt %s -split-input-file --dlc-attention-layout | FileCheck %s
// dlc-attention-layout: attention reads q, k and v where the projections
// wrote them ([B, S, N, D], heads at offsets) and writes [B, S, H, Dv], so
// the head split and merge transposes around it disappear.

// A packed QKV product split into heads by slices: q, k and v become one
// view of the product at head offsets 0, 4 and 8; the merged mask batch
// splits into [B, H]; no transpose is left.
// CHECK-LABEL: func.func @packed
// CHECK-NOT: dlc.transpose
// CHECK-NOT: dlc.slice
// CHECK-DAG: %[[M:.*]] = dlc.reshape %arg1 : tensor<8x1x16xf32> -> tensor<2x4x1x16xf32>
// CHECK-DAG: %[[P:.*]] = dlc.reshape %arg0 : tensor<32x192xf32> -> tensor<2x16x12x16xf32>
// CHECK: %[[O:.*]] = dlc.attention %[[P]], %[[P]], %[[P]], %[[M]] {head_offsets = array<i64: 0, 4, 8>, scale = 2.500000e-01 : f64} : ({{.*}}) -> tensor<2x16x4x16xf32>
// CHECK-NOT: dlc.transpose
// CHECK: %[[R:.*]] = dlc.reshape %[[O]] : tensor<2x16x4x16xf32> -> tensor<32x64xf32>
// CHECK: return %[[R]]
func.func @packed(%qkv: tensor<32x192xf32>, %m: tensor<8x1x16xf32>) -> tensor<32x64xf32> {
  %qs = dlc.slice %qkv {start = array<i64: 0, 0>} : (tensor<32x192xf32>) -> tensor<32x64xf32>
  %ks = dlc.slice %qkv {start = array<i64: 0, 64>} : (tensor<32x192xf32>) -> tensor<32x64xf32>
  %vs = dlc.slice %qkv {start = array<i64: 0, 128>} : (tensor<32x192xf32>) -> tensor<32x64xf32>
  %qr = dlc.reshape %qs : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
  %kr = dlc.reshape %ks : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
  %vr = dlc.reshape %vs : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
  %qt = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %kt = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %vt = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %q = dlc.reshape %qt : tensor<2x4x16x16xf32> -> tensor<8x16x16xf32>
  %k = dlc.reshape %kt : tensor<2x4x16x16xf32> -> tensor<8x16x16xf32>
  %v = dlc.reshape %vt : tensor<2x4x16x16xf32> -> tensor<8x16x16xf32>
  %o = dlc.attention %q, %k, %v, %m {scale = 2.500000e-01 : f64} : (tensor<8x16x16xf32>, tensor<8x16x16xf32>, tensor<8x16x16xf32>, tensor<8x1x16xf32>) -> tensor<8x16x16xf32>
  %or = dlc.reshape %o : tensor<8x16x16xf32> -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %or {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %out = dlc.reshape %ot : tensor<2x16x4x16xf32> -> tensor<32x64xf32>
  return %out : tensor<32x64xf32>
}

// -----

// Separate projections: each operand is its projection viewed as
// [B, S, H, D]; causal is kept.
// CHECK-LABEL: func.func @separate
// CHECK-NOT: dlc.transpose
// CHECK: dlc.attention %{{.*}}, %{{.*}}, %{{.*}} {causal, head_offsets = array<i64: 0, 0, 0>, scale = 2.500000e-01 : f64} : (tensor<2x16x4x16xf16>, tensor<2x16x4x16xf16>, tensor<2x16x4x16xf16>) -> tensor<2x16x4x16xf16>
// CHECK-NOT: dlc.transpose
func.func @separate(%x: tensor<2x16x64xf16>, %y: tensor<2x16x64xf16>, %z: tensor<2x16x64xf16>) -> tensor<2x16x4x16xf16> {
  %qr = dlc.reshape %x : tensor<2x16x64xf16> -> tensor<2x16x4x16xf16>
  %kr = dlc.reshape %y : tensor<2x16x64xf16> -> tensor<2x16x4x16xf16>
  %vr = dlc.reshape %z : tensor<2x16x64xf16> -> tensor<2x16x4x16xf16>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf16>) -> tensor<2x4x16x16xf16>
  %k = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf16>) -> tensor<2x4x16x16xf16>
  %v = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf16>) -> tensor<2x4x16x16xf16>
  %o = dlc.attention %q, %k, %v {causal, scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>) -> tensor<2x4x16x16xf16>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf16>) -> tensor<2x16x4x16xf16>
  return %ot : tensor<2x16x4x16xf16>
}

// -----

// A key without a head split is transposed into the layout, and the use of
// the result in the old layout gets it transposed back: two transposes
// added, three removed.
// CHECK-LABEL: func.func @plain_key
// CHECK: %[[K4:.*]] = dlc.reshape %arg1 : tensor<8x16x16xf32> -> tensor<2x4x16x16xf32>
// CHECK: %[[K:.*]] = dlc.transpose %[[K4]] {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
// CHECK: %[[O:.*]] = dlc.attention %{{.*}}, %[[K]], %{{.*}} {head_offsets = array<i64: 0, 0, 0>
// CHECK: %[[B:.*]] = dlc.transpose %[[O]] {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK: %[[B3:.*]] = dlc.reshape %[[B]] : tensor<2x4x16x16xf32> -> tensor<8x16x16xf32>
// CHECK: return %[[O]], %[[B3]]
func.func @plain_key(%x: tensor<2x16x64xf32>, %k: tensor<8x16x16xf32>, %z: tensor<2x16x64xf32>) -> (tensor<2x16x4x16xf32>, tensor<8x16x16xf32>) {
  %qr = dlc.reshape %x : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %vr = dlc.reshape %z : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %qt = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %vt = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %q = dlc.reshape %qt : tensor<2x4x16x16xf32> -> tensor<8x16x16xf32>
  %v = dlc.reshape %vt : tensor<2x4x16x16xf32> -> tensor<8x16x16xf32>
  %o = dlc.attention %q, %k, %v {scale = 2.500000e-01 : f64} : (tensor<8x16x16xf32>, tensor<8x16x16xf32>, tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %or = dlc.reshape %o : tensor<8x16x16xf32> -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %or {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  return %ot, %o : tensor<2x16x4x16xf32>, tensor<8x16x16xf32>
}

// -----

// A slice that does not start at a whole head stays; the attention reads
// its result as [B, S, H, D].
// CHECK-LABEL: func.func @unaligned_slice
// CHECK: %[[S:.*]] = dlc.slice %arg0 {start = array<i64: 0, 3>}
// CHECK: %[[R:.*]] = dlc.reshape %[[S]] : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
// CHECK: dlc.attention %[[R]], %[[R]], %[[R]] {head_offsets = array<i64: 0, 0, 0>
// CHECK-NOT: dlc.transpose
func.func @unaligned_slice(%qkv: tensor<32x200xf32>) -> tensor<2x16x4x16xf32> {
  %qs = dlc.slice %qkv {start = array<i64: 0, 3>} : (tensor<32x200xf32>) -> tensor<32x64xf32>
  %qr = dlc.reshape %qs : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %o = dlc.attention %q, %q, %q {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  return %ot : tensor<2x16x4x16xf32>
}

// -----

// Refused: only the merge would go, three transposes would be added.
// CHECK-LABEL: func.func @no_split
// CHECK: dlc.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f64}
// CHECK: dlc.transpose
func.func @no_split(%q: tensor<8x16x16xf32>, %k: tensor<8x16x16xf32>, %v: tensor<8x16x16xf32>) -> tensor<2x16x4x16xf32> {
  %o = dlc.attention %q, %k, %v {scale = 2.500000e-01 : f64} : (tensor<8x16x16xf32>, tensor<8x16x16xf32>, tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %or = dlc.reshape %o : tensor<8x16x16xf32> -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %or {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  return %ot : tensor<2x16x4x16xf32>
}

// -----

// Refused: keys and values shared by every head (a broadcast batch) have
// no heads layout.
// CHECK-LABEL: func.func @broadcast_keys
// CHECK: dlc.transpose
// CHECK: dlc.attention %{{.*}}, %arg1, %arg2 {scale = 2.500000e-01 : f64}
// CHECK: dlc.transpose
func.func @broadcast_keys(%x: tensor<2x16x64xf32>, %k: tensor<1x16x16xf32>, %v: tensor<1x16x16xf32>) -> tensor<2x16x4x16xf32> {
  %qr = dlc.reshape %x : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %qt = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %q = dlc.reshape %qt : tensor<2x4x16x16xf32> -> tensor<8x16x16xf32>
  %o = dlc.attention %q, %k, %v {scale = 2.500000e-01 : f64} : (tensor<8x16x16xf32>, tensor<1x16x16xf32>, tensor<1x16x16xf32>) -> tensor<8x16x16xf32>
  %or = dlc.reshape %o : tensor<8x16x16xf32> -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %or {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  return %ot : tensor<2x16x4x16xf32>
}

// -----

// Rank-4 masks keep their shape: [B, H, Sq, Sk] and [1, 1, 1, Sk].
// CHECK-LABEL: func.func @mask_heads
// CHECK-NOT: dlc.transpose
// CHECK: dlc.attention %[[X:.*]], %[[X]], %[[X]], %arg1 {head_offsets = array<i64: 0, 0, 0>
// CHECK: dlc.attention %[[X]], %[[X]], %[[X]], %arg2 {head_offsets = array<i64: 0, 0, 0>
// CHECK-NOT: dlc.transpose
func.func @mask_heads(%x: tensor<2x16x64xf32>, %m: tensor<2x4x16x16xf32>, %n: tensor<1x1x1x16xf32>) -> (tensor<2x16x4x16xf32>, tensor<2x16x4x16xf32>) {
  %qr = dlc.reshape %x : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %o = dlc.attention %q, %q, %q, %m {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %p = dlc.attention %q, %q, %q, %n {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<1x1x1x16xf32>) -> tensor<2x4x16x16xf32>
  %pt = dlc.transpose %p {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  return %ot, %pt : tensor<2x16x4x16xf32>, tensor<2x16x4x16xf32>
}

// -----

// nn.MultiheadAttention as exported to ONNX: sequence first, the packed
// projection [S, B, 3E] sliced and reshaped to [S, B * H, D], heads to the
// front by transpose [1, 0, 2]; the result goes back the same way.
// CHECK-LABEL: func.func @mha_export
// CHECK-NOT: dlc.transpose
// CHECK: %[[P:.*]] = dlc.reshape %{{.*}} : tensor<64x2x768xf32> -> tensor<64x2x12x64xf32>
// CHECK: %[[O:.*]] = dlc.attention %[[P]], %[[P]], %[[P]] {head_offsets = array<i64: 0, 4, 8>, scale = 1.250000e-01 : f64, seq_first} : ({{.*}}) -> tensor<64x2x4x64xf32>
// CHECK: dlc.reshape %[[O]] : tensor<64x2x4x64xf32> -> tensor<64x8x64xf32>
// CHECK-NOT: dlc.transpose
func.func @mha_export(%x: tensor<64x2x256xf32>, %w: tensor<1x256x768xf32>) -> tensor<128x256xf32> {
  %p = dlc.matmul %x, %w : (tensor<64x2x256xf32>, tensor<1x256x768xf32>) -> tensor<64x2x768xf32>
  %qs = dlc.slice %p {start = array<i64: 0, 0, 0>} : (tensor<64x2x768xf32>) -> tensor<64x2x256xf32>
  %ks = dlc.slice %p {start = array<i64: 0, 0, 256>} : (tensor<64x2x768xf32>) -> tensor<64x2x256xf32>
  %vs = dlc.slice %p {start = array<i64: 0, 0, 512>} : (tensor<64x2x768xf32>) -> tensor<64x2x256xf32>
  %qr = dlc.reshape %qs : tensor<64x2x256xf32> -> tensor<64x8x64xf32>
  %kr = dlc.reshape %ks : tensor<64x2x256xf32> -> tensor<64x8x64xf32>
  %vr = dlc.reshape %vs : tensor<64x2x256xf32> -> tensor<64x8x64xf32>
  %q = dlc.transpose %qr {perm = array<i64: 1, 0, 2>} : (tensor<64x8x64xf32>) -> tensor<8x64x64xf32>
  %k = dlc.transpose %kr {perm = array<i64: 1, 0, 2>} : (tensor<64x8x64xf32>) -> tensor<8x64x64xf32>
  %v = dlc.transpose %vr {perm = array<i64: 1, 0, 2>} : (tensor<64x8x64xf32>) -> tensor<8x64x64xf32>
  %o = dlc.attention %q, %k, %v {scale = 1.250000e-01 : f64} : (tensor<8x64x64xf32>, tensor<8x64x64xf32>, tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %ot = dlc.transpose %o {perm = array<i64: 1, 0, 2>} : (tensor<8x64x64xf32>) -> tensor<64x8x64xf32>
  %or = dlc.reshape %ot : tensor<64x8x64xf32> -> tensor<128x256xf32>
  return %or : tensor<128x256xf32>
}

// -----

// Sequence-first rank-4 splits and merge.
// CHECK-LABEL: func.func @seq_first_4d
// CHECK-NEXT: %[[O:.*]] = dlc.attention %arg0, %arg1, %arg1 {causal, head_offsets = array<i64: 0, 0, 0>, scale = 2.500000e-01 : f64, seq_first}
// CHECK-NEXT: return %[[O]]
func.func @seq_first_4d(%x: tensor<16x2x4x8xbf16>, %y: tensor<16x2x4x8xbf16>) -> tensor<16x2x4x8xbf16> {
  %q = dlc.transpose %x {perm = array<i64: 1, 2, 0, 3>} : (tensor<16x2x4x8xbf16>) -> tensor<2x4x16x8xbf16>
  %k = dlc.transpose %y {perm = array<i64: 1, 2, 0, 3>} : (tensor<16x2x4x8xbf16>) -> tensor<2x4x16x8xbf16>
  %o = dlc.attention %q, %k, %k {causal, scale = 2.500000e-01 : f64} : (tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16>) -> tensor<2x4x16x8xbf16>
  %ot = dlc.transpose %o {perm = array<i64: 2, 0, 1, 3>} : (tensor<2x4x16x8xbf16>) -> tensor<16x2x4x8xbf16>
  return %ot : tensor<16x2x4x8xbf16>
}

// -----

// The first split decides the layout; an operand split the other way is
// transposed into it.
// CHECK-LABEL: func.func @mixed_layouts
// CHECK: %[[T:.*]] = dlc.transpose %arg1 {perm = array<i64: 1, 2, 0, 3>}
// CHECK: %[[K:.*]] = dlc.transpose %[[T]] {perm = array<i64: 0, 2, 1, 3>}
// CHECK: dlc.attention %arg0, %[[K]], %arg0 {head_offsets = array<i64: 0, 0, 0>, scale = 2.500000e-01 : f64}
// CHECK-NOT: seq_first
func.func @mixed_layouts(%x: tensor<2x16x4x8xf32>, %y: tensor<16x2x4x8xf32>) -> tensor<2x16x4x8xf32> {
  %q = dlc.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
  %k = dlc.transpose %y {perm = array<i64: 1, 2, 0, 3>} : (tensor<16x2x4x8xf32>) -> tensor<2x4x16x8xf32>
  %o = dlc.attention %q, %k, %q {scale = 2.500000e-01 : f64} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x8xf32>) -> tensor<2x16x4x8xf32>
  return %ot : tensor<2x16x4x8xf32>
}

// -----

// Values of another head size (8) than queries and keys (16) in one packed
// product: the values get a view of their own, at head offset 128 / 8.
// CHECK-LABEL: func.func @value_head_size
// CHECK-DAG: %[[QK:.*]] = dlc.reshape %arg0 : tensor<32x160xf32> -> tensor<2x16x10x16xf32>
// CHECK-DAG: %[[V:.*]] = dlc.reshape %arg0 : tensor<32x160xf32> -> tensor<2x16x20x8xf32>
// CHECK: dlc.attention %[[QK]], %[[QK]], %[[V]] {head_offsets = array<i64: 0, 4, 16>
func.func @value_head_size(%p: tensor<32x160xf32>) -> tensor<32x32xf32> {
  %qs = dlc.slice %p {start = array<i64: 0, 0>} : (tensor<32x160xf32>) -> tensor<32x64xf32>
  %ks = dlc.slice %p {start = array<i64: 0, 64>} : (tensor<32x160xf32>) -> tensor<32x64xf32>
  %vs = dlc.slice %p {start = array<i64: 0, 128>} : (tensor<32x160xf32>) -> tensor<32x32xf32>
  %qr = dlc.reshape %qs : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
  %kr = dlc.reshape %ks : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
  %vr = dlc.reshape %vs : tensor<32x32xf32> -> tensor<2x16x4x8xf32>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %k = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %v = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x8xf32>) -> tensor<2x4x16x8xf32>
  %o = dlc.attention %q, %k, %v {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x8xf32>) -> tensor<2x16x4x8xf32>
  %r = dlc.reshape %ot : tensor<2x16x4x8xf32> -> tensor<32x32xf32>
  return %r : tensor<32x32xf32>
}

// -----

// Grouped-query attention: k and v of 2 heads repeated for 4 query heads
// (reshape, tile by 2 in a new dimension after the heads, reshape) are read
// unrepeated with kv_groups = 2; the tiles and transposes go.
// CHECK-LABEL: func.func @gqa
// CHECK-NOT: dlc.tile
// CHECK-NOT: dlc.transpose
// CHECK: dlc.attention %{{.*}}, %{{.*}}, %{{.*}} {head_offsets = array<i64: 0, 0, 0>, kv_groups = 2 : i64, scale = 2.500000e-01 : f64} : (tensor<2x16x4x16xf32>, tensor<2x16x2x16xf32>, tensor<2x16x2x16xf32>) -> tensor<2x16x4x16xf32>
// CHECK-NOT: dlc.tile
// CHECK-NOT: dlc.transpose
func.func @gqa(%q0: tensor<2x16x64xf32>, %k0: tensor<2x16x32xf32>, %v0: tensor<2x16x32xf32>) -> tensor<2x16x64xf32> {
  %qr = dlc.reshape %q0 : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %kr = dlc.reshape %k0 : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %vr = dlc.reshape %v0 : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %kt = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %vt = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %ku = dlc.reshape %kt : tensor<2x2x16x16xf32> -> tensor<2x2x1x16x16xf32>
  %vu = dlc.reshape %vt : tensor<2x2x16x16xf32> -> tensor<2x2x1x16x16xf32>
  %ke = dlc.tile %ku {multiples = array<i64: 1, 1, 2, 1, 1>} : (tensor<2x2x1x16x16xf32>) -> tensor<2x2x2x16x16xf32>
  %ve = dlc.tile %vu {multiples = array<i64: 1, 1, 2, 1, 1>} : (tensor<2x2x1x16x16xf32>) -> tensor<2x2x2x16x16xf32>
  %k = dlc.reshape %ke : tensor<2x2x2x16x16xf32> -> tensor<2x4x16x16xf32>
  %v = dlc.reshape %ve : tensor<2x2x2x16x16xf32> -> tensor<2x4x16x16xf32>
  %o = dlc.attention %q, %k, %v {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %r = dlc.reshape %ot : tensor<2x16x4x16xf32> -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// -----

// Heads repeated by a tile of the heads dimension itself ([k0, k1, k0, k1],
// not [k0, k0, k1, k1]) are not groups: query head h would need key head
// h % 2. The repeated keys and values are transposed into the layout
// instead (the tiles stay).
// CHECK-LABEL: func.func @tiled_heads_are_not_groups
// CHECK-COUNT-2: dlc.tile
// CHECK: dlc.attention
// CHECK-NOT: kv_groups
func.func @tiled_heads_are_not_groups(%q0: tensor<2x16x64xf32>, %k0: tensor<2x16x32xf32>, %v0: tensor<2x16x32xf32>) -> tensor<2x16x64xf32> {
  %qr = dlc.reshape %q0 : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %kr = dlc.reshape %k0 : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %vr = dlc.reshape %v0 : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %kt = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %vt = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %k = dlc.tile %kt {multiples = array<i64: 1, 2, 1, 1>} : (tensor<2x2x16x16xf32>) -> tensor<2x4x16x16xf32>
  %v = dlc.tile %vt {multiples = array<i64: 1, 2, 1, 1>} : (tensor<2x2x16x16xf32>) -> tensor<2x4x16x16xf32>
  %o = dlc.attention %q, %k, %v {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %r = dlc.reshape %ot : tensor<2x16x4x16xf32> -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// -----

// Only keys repeated (values of all 4 heads): no groups; the repeated keys
// are transposed into the layout.
// CHECK-LABEL: func.func @only_keys_repeated
// CHECK: dlc.tile
// CHECK: dlc.attention
// CHECK-NOT: kv_groups
func.func @only_keys_repeated(%q0: tensor<2x16x64xf32>, %k0: tensor<2x16x32xf32>, %v0: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %qr = dlc.reshape %q0 : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %kr = dlc.reshape %k0 : tensor<2x16x32xf32> -> tensor<2x16x2x16xf32>
  %vr = dlc.reshape %v0 : tensor<2x16x64xf32> -> tensor<2x16x4x16xf32>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %kt = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x2x16xf32>) -> tensor<2x2x16x16xf32>
  %v = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %ku = dlc.reshape %kt : tensor<2x2x16x16xf32> -> tensor<2x2x1x16x16xf32>
  %ke = dlc.tile %ku {multiples = array<i64: 1, 1, 2, 1, 1>} : (tensor<2x2x1x16x16xf32>) -> tensor<2x2x2x16x16xf32>
  %k = dlc.reshape %ke : tensor<2x2x2x16x16xf32> -> tensor<2x4x16x16xf32>
  %o = dlc.attention %q, %k, %v {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %r = dlc.reshape %ot : tensor<2x16x4x16xf32> -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// -----

// A rotary position embedding between the head split and attention (Llama:
// q * cos + rotate_half(q) * sin, rotate_half a concat of the negated upper
// and the lower half of the last dimension), on q and on the keys before
// their repeat: the split moves out from under it (the ops rebuilt in the
// projections' layout, cos and sin permuted at compile time), so attention
// reads q, the unrepeated keys and values in that layout with kv_groups,
// and no transpose is left.
// CHECK-LABEL: func.func @rotary_gqa
// CHECK-NOT: dlc.transpose
// CHECK-NOT: dlc.tile
// CHECK: %[[Q:.*]] = dlc.reshape %arg0 : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
// CHECK: dlc.slice %[[Q]] {start = array<i64: 0, 0, 0, 8>} : (tensor<2x8x4x16xf32>) -> tensor<2x8x4x8xf32>
// CHECK: dlc.concat %{{.*}}, %{{.*}} {axis = 3 : i64} : (tensor<2x8x4x8xf32>, tensor<2x8x4x8xf32>) -> tensor<2x8x4x16xf32>
// CHECK: %[[COS:.*]] = dlc.constant dense<5.000000e-01> : tensor<1x8x1x16xf32>
// CHECK: dlc.mul %[[Q]], %[[COS]] : (tensor<2x8x4x16xf32>, tensor<1x8x1x16xf32>)
// CHECK: %[[V:.*]] = dlc.reshape %arg2 : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
// CHECK: %[[O:.*]] = dlc.attention %{{.*}}, %{{.*}}, %[[V]] {causal, head_offsets = array<i64: 0, 0, 0>, kv_groups = 2 : i64, scale = 2.500000e-01 : f64} : (tensor<2x8x4x16xf32>, tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>) -> tensor<2x8x4x16xf32>
// CHECK: dlc.reshape %[[O]] : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
func.func @rotary_gqa(%x: tensor<2x8x64xf32>, %kx: tensor<2x8x32xf32>, %vx: tensor<2x8x32xf32>) -> tensor<2x8x64xf32> {
  %cos = dlc.constant dense<0.5> : tensor<1x1x8x16xf32>
  %sin = dlc.constant dense<0.25> : tensor<1x1x8x16xf32>
  %qr = dlc.reshape %x : tensor<2x8x64xf32> -> tensor<2x8x4x16xf32>
  %q = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x4x16xf32>) -> tensor<2x4x8x16xf32>
  %q1 = dlc.slice %q {start = array<i64: 0, 0, 0, 0>} : (tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
  %q2 = dlc.slice %q {start = array<i64: 0, 0, 0, 8>} : (tensor<2x4x8x16xf32>) -> tensor<2x4x8x8xf32>
  %q2n = dlc.neg %q2 : tensor<2x4x8x8xf32>
  %qh = dlc.concat %q2n, %q1 {axis = 3 : i64} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<2x4x8x16xf32>
  %qc = dlc.mul %q, %cos : (tensor<2x4x8x16xf32>, tensor<1x1x8x16xf32>) -> tensor<2x4x8x16xf32>
  %qs = dlc.mul %qh, %sin : (tensor<2x4x8x16xf32>, tensor<1x1x8x16xf32>) -> tensor<2x4x8x16xf32>
  %qe = dlc.add %qc, %qs : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %kr = dlc.reshape %kx : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %kt = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x2x16xf32>) -> tensor<2x2x8x16xf32>
  %k1 = dlc.slice %kt {start = array<i64: 0, 0, 0, 0>} : (tensor<2x2x8x16xf32>) -> tensor<2x2x8x8xf32>
  %k2 = dlc.slice %kt {start = array<i64: 0, 0, 0, 8>} : (tensor<2x2x8x16xf32>) -> tensor<2x2x8x8xf32>
  %k2n = dlc.neg %k2 : tensor<2x2x8x8xf32>
  %kh = dlc.concat %k2n, %k1 {axis = 3 : i64} : (tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>) -> tensor<2x2x8x16xf32>
  %kc = dlc.mul %kt, %cos : (tensor<2x2x8x16xf32>, tensor<1x1x8x16xf32>) -> tensor<2x2x8x16xf32>
  %ks = dlc.mul %kh, %sin : (tensor<2x2x8x16xf32>, tensor<1x1x8x16xf32>) -> tensor<2x2x8x16xf32>
  %ke = dlc.add %kc, %ks : (tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>) -> tensor<2x2x8x16xf32>
  %ku = dlc.reshape %ke : tensor<2x2x8x16xf32> -> tensor<2x2x1x8x16xf32>
  %kp = dlc.tile %ku {multiples = array<i64: 1, 1, 2, 1, 1>} : (tensor<2x2x1x8x16xf32>) -> tensor<2x2x2x8x16xf32>
  %k = dlc.reshape %kp : tensor<2x2x2x8x16xf32> -> tensor<2x4x8x16xf32>
  %vr = dlc.reshape %vx : tensor<2x8x32xf32> -> tensor<2x8x2x16xf32>
  %vt = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x8x2x16xf32>) -> tensor<2x2x8x16xf32>
  %vu = dlc.reshape %vt : tensor<2x2x8x16xf32> -> tensor<2x2x1x8x16xf32>
  %vp = dlc.tile %vu {multiples = array<i64: 1, 1, 2, 1, 1>} : (tensor<2x2x1x8x16xf32>) -> tensor<2x2x2x8x16xf32>
  %v = dlc.reshape %vp : tensor<2x2x2x8x16xf32> -> tensor<2x4x8x16xf32>
  %o = dlc.attention %qe, %k, %v {causal, scale = 2.500000e-01 : f64} : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x8x16xf32>) -> tensor<2x8x4x16xf32>
  %r = dlc.reshape %ot : tensor<2x8x4x16xf32> -> tensor<2x8x64xf32>
  return %r : tensor<2x8x64xf32>
}

// -----

// timm's and torchvision's packed split (Swin, ViT in timm):
// qkv.reshape(B, S, 3, H, D).permute(2, 0, 3, 1, 4), q, k, v = qkv[0],
// qkv[1], qkv[2]; the merge is x.transpose(1, 2).reshape(B, S, C). The
// product is read at head offsets 0, H and 2H, and no transpose is left.
// CHECK-LABEL: func.func @packed_permute
// CHECK-NOT: dlc.transpose
// CHECK-NOT: dlc.slice
// CHECK: %[[P:.*]] = dlc.reshape %arg0 : tensor<2x16x192xf32> -> tensor<2x16x12x16xf32>
// CHECK: %[[O:.*]] = dlc.attention %[[P]], %[[P]], %[[P]], %{{.*}} {head_offsets = array<i64: 0, 4, 8>, scale = 2.500000e-01 : f64} : ({{.*}}) -> tensor<2x16x4x16xf32>
// CHECK-NOT: dlc.transpose
// CHECK: return
func.func @packed_permute(%qkv: tensor<2x16x192xf32>, %bias: tensor<1x4x16x16xf32>) -> tensor<2x16x64xf32> {
  %r = dlc.reshape %qkv : tensor<2x16x192xf32> -> tensor<2x16x3x4x16xf32>
  %t = dlc.transpose %r {perm = array<i64: 2, 0, 3, 1, 4>} : (tensor<2x16x3x4x16xf32>) -> tensor<3x2x4x16x16xf32>
  %qs = dlc.slice %t {start = array<i64: 0, 0, 0, 0, 0>} : (tensor<3x2x4x16x16xf32>) -> tensor<1x2x4x16x16xf32>
  %ks = dlc.slice %t {start = array<i64: 1, 0, 0, 0, 0>} : (tensor<3x2x4x16x16xf32>) -> tensor<1x2x4x16x16xf32>
  %vs = dlc.slice %t {start = array<i64: 2, 0, 0, 0, 0>} : (tensor<3x2x4x16x16xf32>) -> tensor<1x2x4x16x16xf32>
  %q = dlc.reshape %qs : tensor<1x2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  %k = dlc.reshape %ks : tensor<1x2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  %v = dlc.reshape %vs : tensor<1x2x4x16x16xf32> -> tensor<2x4x16x16xf32>
  %o = dlc.attention %q, %k, %v, %bias {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>, tensor<1x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %out = dlc.reshape %ot : tensor<2x16x4x16xf32> -> tensor<2x16x64xf32>
  return %out : tensor<2x16x64xf32>
}

// -----

// A slice of the packed heads that is not one whole index of the first
// dimension (here two of the three) is not a split: nothing changes.
// CHECK-LABEL: func.func @packed_permute_two
// CHECK: dlc.transpose %{{.*}} {perm = array<i64: 2, 0, 3, 1, 4>}
// CHECK: dlc.attention %{{.*}}, %{{.*}}, %{{.*}} {scale
func.func @packed_permute_two(%qkv: tensor<2x16x192xf32>) -> tensor<4x4x16x16xf32> {
  %r = dlc.reshape %qkv : tensor<2x16x192xf32> -> tensor<2x16x3x4x16xf32>
  %t = dlc.transpose %r {perm = array<i64: 2, 0, 3, 1, 4>} : (tensor<2x16x3x4x16xf32>) -> tensor<3x2x4x16x16xf32>
  %s = dlc.slice %t {start = array<i64: 0, 0, 0, 0, 0>} : (tensor<3x2x4x16x16xf32>) -> tensor<2x2x4x16x16xf32>
  %q = dlc.reshape %s : tensor<2x2x4x16x16xf32> -> tensor<4x4x16x16xf32>
  %o = dlc.attention %q, %q, %q {scale = 2.500000e-01 : f64} : (tensor<4x4x16x16xf32>, tensor<4x4x16x16xf32>, tensor<4x4x16x16xf32>) -> tensor<4x4x16x16xf32>
  return %o : tensor<4x4x16x16xf32>
}

// -----

// Cross-attention whose keys and values come from a product that
// dlc-horizontal-fuse merged with another layer's (the memory of an
// nn.TransformerDecoder is projected once for every layer): the layer's
// slice [128, 256) of it, then its keys [0, 64) and values [64, 128). The
// slices of slices compose: heads 8 and 12 of the merged product.
// CHECK-LABEL: func.func @slice_of_slice
// CHECK-NOT: dlc.slice
// CHECK-DAG: %[[Q:.*]] = dlc.reshape %arg0 : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
// CHECK-DAG: %[[P:.*]] = dlc.reshape %arg1 : tensor<40x256xf32> -> tensor<2x20x16x16xf32>
// CHECK: dlc.attention %[[Q]], %[[P]], %[[P]] {head_offsets = array<i64: 0, 8, 12>, scale = 2.500000e-01 : f64}
// CHECK-NOT: dlc.transpose
func.func @slice_of_slice(%q2: tensor<32x64xf32>, %kv2: tensor<40x256xf32>) -> tensor<32x64xf32> {
  %kv = dlc.slice %kv2 {start = array<i64: 0, 128>} : (tensor<40x256xf32>) -> tensor<40x128xf32>
  %ks = dlc.slice %kv {start = array<i64: 0, 0>} : (tensor<40x128xf32>) -> tensor<40x64xf32>
  %vs = dlc.slice %kv {start = array<i64: 0, 64>} : (tensor<40x128xf32>) -> tensor<40x64xf32>
  %qr = dlc.reshape %q2 : tensor<32x64xf32> -> tensor<2x16x4x16xf32>
  %kr = dlc.reshape %ks : tensor<40x64xf32> -> tensor<2x20x4x16xf32>
  %vr = dlc.reshape %vs : tensor<40x64xf32> -> tensor<2x20x4x16xf32>
  %qt = dlc.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
  %kt = dlc.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x20x4x16xf32>) -> tensor<2x4x20x16xf32>
  %vt = dlc.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x20x4x16xf32>) -> tensor<2x4x20x16xf32>
  %o = dlc.attention %qt, %kt, %vt {scale = 2.500000e-01 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x20x16xf32>, tensor<2x4x20x16xf32>) -> tensor<2x4x16x16xf32>
  %ot = dlc.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
  %out = dlc.reshape %ot : tensor<2x16x4x16xf32> -> tensor<32x64xf32>
  return %out : tensor<32x64xf32>
}
