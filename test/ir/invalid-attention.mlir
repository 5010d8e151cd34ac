// RUN: dlc-opt %s -split-input-file -verify-diagnostics
// One case per verifier message of dlc.attention.

func.func @attention_rank(%q: tensor<4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects q, k and v of one rank, at least 2, but got 2, 3 and 3}}
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @attention_rank_one(%q: tensor<8xf32>, %k: tensor<8xf32>, %v: tensor<8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects q, k and v of one rank, at least 2, but got 1, 1 and 1}}
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @attention_integer(%q: tensor<4x8xi32>, %k: tensor<6x8xi32>, %v: tensor<6x8xi32>) {
  // expected-error @+1 {{'dlc.attention' op expects f32, f16 or bf16 operands, but got 'i32'}}
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<4x8xi32>, tensor<6x8xi32>, tensor<6x8xi32>) -> tensor<4x8xi32>
  return
}

// -----

func.func @attention_element_types(%q: tensor<4x8xf32>, %k: tensor<6x8xf16>, %v: tensor<6x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects q, k, v and the result of one element type, but got 'f32', 'f16', 'f32' and 'f32'}}
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<4x8xf32>, tensor<6x8xf16>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @attention_head_size(%q: tensor<4x8xf32>, %k: tensor<6x4xf32>, %v: tensor<6x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects q and k of one head size (last dimension), but got 8 and 4}}
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<4x8xf32>, tensor<6x4xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @attention_value_rows(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<5x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects v with one row per key (6), but got 5}}
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<5x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x4x8xf32>, %k: tensor<3x6x8xf32>, %v: tensor<2x6x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op batch dimensions [2], [3] and [2] of q, k and v are not broadcast-compatible}}
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<2x4x8xf32>, tensor<3x6x8xf32>, tensor<2x6x8xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @attention_result(%q: tensor<2x4x8xf32>, %k: tensor<1x6x8xf32>, %v: tensor<2x6x5xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects result shape [2, 4, 5], but got [2, 4, 8]}}
  %0 = dlc.attention %q, %k, %v {scale = 1.0 : f64} : (tensor<2x4x8xf32>, tensor<1x6x8xf32>, tensor<2x6x5xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @attention_mask_type(%q: tensor<4x8xf16>, %k: tensor<6x8xf16>, %v: tensor<6x8xf16>, %m: tensor<4x6xbf16>) {
  // expected-error @+1 {{'dlc.attention' op expects a mask of element type 'f16' or f32, but got 'bf16'}}
  %0 = dlc.attention %q, %k, %v, %m {scale = 1.0 : f64} : (tensor<4x8xf16>, tensor<6x8xf16>, tensor<6x8xf16>, tensor<4x6xbf16>) -> tensor<4x8xf16>
  return
}

// -----

func.func @attention_mask_shape(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>, %m: tensor<2x4x3xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects a mask that broadcasts to the scores [2, 4, 6], but got shape [2, 4, 3]}}
  %0 = dlc.attention %q, %k, %v, %m {scale = 1.0 : f64} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<2x4x3xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @attention_mask_rank(%q: tensor<2x4x8xf32>, %k: tensor<2x6x8xf32>, %v: tensor<2x6x8xf32>, %m: tensor<4x6xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects a mask that broadcasts to the scores [2, 4, 6], but got shape [4, 6]}}
  %0 = dlc.attention %q, %k, %v, %m {scale = 1.0 : f64} : (tensor<2x4x8xf32>, tensor<2x6x8xf32>, tensor<2x6x8xf32>, tensor<4x6xf32>) -> tensor<2x4x8xf32>
  return
}

// -----

func.func @attention_scale(%q: tensor<4x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects a finite scale, but got 0x7FF0000000000000 : f64}}
  %0 = dlc.attention %q, %k, %v {scale = 0x7FF0000000000000 : f64} : (tensor<4x8xf32>, tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @heads_rank(%q: tensor<2x5x6xf32>) {
  // expected-error @+1 {{'dlc.attention' op with head_offsets expects q, k, v and the result of rank 4 ([B, S, heads, D]), but got 3 and 3}}
  %0 = dlc.attention %q, %q, %q {head_offsets = array<i64: 0, 0, 0>, scale = 1.0 : f64} : (tensor<2x5x6xf32>, tensor<2x5x6xf32>, tensor<2x5x6xf32>) -> tensor<2x5x6xf32>
  return
}

// -----

func.func @heads_offsets_count(%q: tensor<2x5x6x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects head_offsets of 3 entries (q, k, v), but got 2}}
  %0 = dlc.attention %q, %q, %q {head_offsets = array<i64: 0, 2>, scale = 1.0 : f64} : (tensor<2x5x6x8xf32>, tensor<2x5x6x8xf32>, tensor<2x5x6x8xf32>) -> tensor<2x5x2x8xf32>
  return
}

// -----

func.func @heads_offset_range(%qkv: tensor<2x5x6x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op head offset 5 of v with 2 heads used exceeds its 6 heads}}
  %0 = dlc.attention %qkv, %qkv, %qkv {head_offsets = array<i64: 0, 2, 5>, scale = 1.0 : f64} : (tensor<2x5x6x8xf32>, tensor<2x5x6x8xf32>, tensor<2x5x6x8xf32>) -> tensor<2x5x2x8xf32>
  return
}

// -----

func.func @heads_negative_offset(%qkv: tensor<2x5x6x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op head offset -1 of q with 2 heads used exceeds its 6 heads}}
  %0 = dlc.attention %qkv, %qkv, %qkv {head_offsets = array<i64: -1, 2, 4>, scale = 1.0 : f64} : (tensor<2x5x6x8xf32>, tensor<2x5x6x8xf32>, tensor<2x5x6x8xf32>) -> tensor<2x5x2x8xf32>
  return
}

// -----

func.func @heads_head_size(%q: tensor<2x5x2x8xf32>, %k: tensor<2x7x2x4xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects q and k of one head size (last dimension), but got 8 and 4}}
  %0 = dlc.attention %q, %k, %k {head_offsets = array<i64: 0, 0, 0>, scale = 1.0 : f64} : (tensor<2x5x2x8xf32>, tensor<2x7x2x4xf32>, tensor<2x7x2x4xf32>) -> tensor<2x5x2x4xf32>
  return
}

// -----

func.func @heads_value_rows(%q: tensor<2x5x2x8xf32>, %k: tensor<2x7x2x8xf32>, %v: tensor<2x6x2x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects v with one row per key (7), but got 6}}
  %0 = dlc.attention %q, %k, %v {head_offsets = array<i64: 0, 0, 0>, scale = 1.0 : f64} : (tensor<2x5x2x8xf32>, tensor<2x7x2x8xf32>, tensor<2x6x2x8xf32>) -> tensor<2x5x2x8xf32>
  return
}

// -----

func.func @heads_batch(%q: tensor<2x5x2x8xf32>, %k: tensor<3x7x2x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op batch dimensions 2, 3 and 3 of q, k and v are not broadcast-compatible}}
  %0 = dlc.attention %q, %k, %k {head_offsets = array<i64: 0, 0, 0>, scale = 1.0 : f64} : (tensor<2x5x2x8xf32>, tensor<3x7x2x8xf32>, tensor<3x7x2x8xf32>) -> tensor<2x5x2x8xf32>
  return
}

// -----

func.func @heads_result(%q: tensor<2x5x2x8xf32>, %k: tensor<1x7x2x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects result shape [2, 5, 2, 8], but got [2, 5, 2, 4]}}
  %0 = dlc.attention %q, %k, %k {head_offsets = array<i64: 0, 0, 0>, scale = 1.0 : f64} : (tensor<2x5x2x8xf32>, tensor<1x7x2x8xf32>, tensor<1x7x2x8xf32>) -> tensor<2x5x2x4xf32>
  return
}

// -----

func.func @heads_mask(%q: tensor<2x5x2x8xf32>, %k: tensor<2x7x2x8xf32>, %m: tensor<2x5x1x7xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects a mask that broadcasts to the scores [2, 2, 5, 7], but got shape [2, 5, 1, 7]}}
  %0 = dlc.attention %q, %k, %k, %m {head_offsets = array<i64: 0, 0, 0>, scale = 1.0 : f64} : (tensor<2x5x2x8xf32>, tensor<2x7x2x8xf32>, tensor<2x7x2x8xf32>, tensor<2x5x1x7xf32>) -> tensor<2x5x2x8xf32>
  return
}

// -----

func.func @kv_groups_without_heads(%q: tensor<2x5x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects kv_groups only with head_offsets}}
  %0 = dlc.attention %q, %q, %q {kv_groups = 2 : i64, scale = 1.0 : f64} : (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @kv_groups_divide_heads(%q: tensor<2x5x6x8xf32>, %kv: tensor<2x5x2x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects kv_groups to divide the 6 result heads, but got 4}}
  %0 = dlc.attention %q, %kv, %kv {head_offsets = array<i64: 0, 0, 1>, kv_groups = 4 : i64, scale = 1.0 : f64} : (tensor<2x5x6x8xf32>, tensor<2x5x2x8xf32>, tensor<2x5x2x8xf32>) -> tensor<2x5x6x8xf32>
  return
}

// -----

func.func @kv_groups_positive(%q: tensor<2x5x6x8xf32>, %kv: tensor<2x5x2x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects kv_groups to divide the 6 result heads, but got 0}}
  %0 = dlc.attention %q, %kv, %kv {head_offsets = array<i64: 0, 0, 1>, kv_groups = 0 : i64, scale = 1.0 : f64} : (tensor<2x5x6x8xf32>, tensor<2x5x2x8xf32>, tensor<2x5x2x8xf32>) -> tensor<2x5x6x8xf32>
  return
}

// -----

func.func @kv_groups_heads_used(%q: tensor<2x5x6x8xf32>, %kv: tensor<2x5x3x8xf32>) {
  // 6 query heads in groups of 3 use 2 heads of k and of v: v's offset 2
  // runs past k/v's 3 heads.
  // expected-error @+1 {{'dlc.attention' op head offset 2 of v with 2 heads used exceeds its 3 heads}}
  %0 = dlc.attention %q, %kv, %kv {head_offsets = array<i64: 0, 0, 2>, kv_groups = 3 : i64, scale = 1.0 : f64} : (tensor<2x5x6x8xf32>, tensor<2x5x3x8xf32>, tensor<2x5x3x8xf32>) -> tensor<2x5x6x8xf32>
  return
}

// -----

func.func @seq_first_without_heads(%q: tensor<2x5x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects seq_first only with head_offsets}}
  %0 = dlc.attention %q, %q, %q {scale = 1.0 : f64, seq_first} : (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x8xf32>) -> tensor<2x5x8xf32>
  return
}

// -----

func.func @seq_first_result(%q: tensor<5x2x2x8xf32>, %k: tensor<7x2x2x8xf32>) {
  // expected-error @+1 {{'dlc.attention' op expects result shape [5, 2, 2, 8], but got [2, 5, 2, 8]}}
  %0 = dlc.attention %q, %k, %k {head_offsets = array<i64: 0, 0, 0>, scale = 1.0 : f64, seq_first} : (tensor<5x2x2x8xf32>, tensor<7x2x2x8xf32>, tensor<7x2x2x8xf32>) -> tensor<2x5x2x8xf32>
  return
}
