// RUN: dlc-opt --split-input-file --dlc-plan-memory %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-plan-memory=in-place=false %s | FileCheck %s --check-prefix=NOINPLACE
// RUN: dlc-opt --split-input-file --dlc-plan-memory=alignment=64 %s | FileCheck %s --check-prefix=ALIGN64

// A chain of pointwise kernels: each result overwrites the operand that dies
// there, so one buffer serves the whole chain. Without in-place writes, two
// buffers alternate. The last result goes straight to the output.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: attributes {dlc.arena_bytes = 1024 : i64, dlc.arena_lower_bound = 1024 : i64, dlc.intermediate_bytes = 3072 : i64}
// CHECK: %[[A:.*]] = dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 0>}
// CHECK: %[[B:.*]] = dlc.kernel(%[[A]]) {dlc.offsets = array<i64: 0>}
// CHECK: %[[C:.*]] = dlc.kernel(%[[B]]) {dlc.offsets = array<i64: 0>}
// CHECK: %[[D:.*]] = dlc.kernel(%[[C]]) {dlc.offsets = array<i64: -1>}
// NOINPLACE-LABEL: func.func @chain
// NOINPLACE-SAME: attributes {dlc.arena_bytes = 2048 : i64, dlc.arena_lower_bound = 2048 : i64, dlc.intermediate_bytes = 3072 : i64}
// NOINPLACE: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 0>}
// NOINPLACE: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 1024>}
// NOINPLACE: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 0>}
// NOINPLACE: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: -1>}
func.func @chain(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = dlc.kernel(%x) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %e = dlc.exp %a : tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  %1 = dlc.kernel(%0) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %e = dlc.neg %a : tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  %2 = dlc.kernel(%1) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %e = dlc.abs %a : tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  %3 = dlc.kernel(%2) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %e = dlc.tanh %a : tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  return %3 : tensor<16x16xf32>
}

// -----

// A reshape is a view: %0 stays live until the matrix product reads it
// through %v, so neither %1 nor %2 may take its bytes. %2 reads %1
// transposed, so it cannot overwrite it.
// CHECK-LABEL: func.func @view_liveness
// CHECK-SAME: attributes {dlc.arena_bytes = 3072 : i64, dlc.arena_lower_bound = 3072 : i64, dlc.intermediate_bytes = 3072 : i64}
// CHECK: %[[A:.*]] = dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 0>}
// CHECK: %[[V:.*]] = dlc.reshape %[[A]]
// CHECK: %[[B:.*]] = dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 1024>}
// CHECK: %[[C:.*]] = dlc.kernel(%[[B]]) {dlc.offsets = array<i64: 2048>}
// CHECK: %[[W:.*]] = dlc.reshape %[[C]]
// CHECK: dlc.matmul %[[V]], %[[W]] {dlc.offsets = array<i64: -1>}
func.func @view_liveness(%x: tensor<16x16xf32>) -> tensor<8x8xf32> {
  %0 = dlc.kernel(%x) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %e = dlc.exp %a : tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  %v = dlc.reshape %0 : tensor<16x16xf32> -> tensor<8x32xf32>
  %1 = dlc.kernel(%x) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %e = dlc.neg %a : tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  %2 = dlc.kernel(%1) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %t = dlc.transpose %a {perm = array<i64: 1, 0>} : (tensor<16x16xf32>) -> tensor<16x16xf32>
    dlc.yield %t : tensor<16x16xf32>
  }
  %w = dlc.reshape %2 : tensor<16x16xf32> -> tensor<32x8xf32>
  %m = dlc.matmul %v, %w : (tensor<8x32xf32>, tensor<32x8xf32>) -> tensor<8x8xf32>
  return %m : tensor<8x8xf32>
}

// -----

// Returned values, directly, twice, or through a view, are written straight
// into the outputs and take no arena space.
// CHECK-LABEL: func.func @returned
// CHECK-SAME: attributes {dlc.arena_bytes = 0 : i64, dlc.arena_lower_bound = 0 : i64, dlc.intermediate_bytes = 0 : i64}
// CHECK: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: -1>}
// CHECK: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: -1>}
// CHECK: dlc.matmul %{{.*}}, %{{.*}} {dlc.offsets = array<i64: -1>}
func.func @returned(%x: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>, tensor<256xf32>, tensor<16x16xf32>) {
  %0 = dlc.kernel(%x) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %e = dlc.exp %a : tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  %1 = dlc.kernel(%0) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %e = dlc.neg %a : tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  %r = dlc.reshape %1 : tensor<16x16xf32> -> tensor<256xf32>
  %m = dlc.matmul %x, %x : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0, %0, %r, %m : tensor<16x16xf32>, tensor<16x16xf32>, tensor<256xf32>, tensor<16x16xf32>
}

// -----

// %0 is still needed by %2 when the Row kernel %1 runs (and a Row kernel
// never writes in place); %2 overwrites %0, which dies there.
// CHECK-LABEL: func.func @in_place_choices
// CHECK-SAME: attributes {dlc.arena_bytes = 2048 : i64, dlc.arena_lower_bound = 2048 : i64, dlc.intermediate_bytes = 3072 : i64}
// CHECK: %[[A:.*]] = dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 0>}
// CHECK: %[[B:.*]] = dlc.kernel(%[[A]]) {dlc.offsets = array<i64: 1024>}
// CHECK: %[[C:.*]] = dlc.kernel(%[[A]], %[[B]]) {dlc.offsets = array<i64: 0>}
// CHECK: dlc.kernel(%[[C]]) {dlc.offsets = array<i64: -1>}
// NOINPLACE-LABEL: func.func @in_place_choices
// NOINPLACE-SAME: attributes {dlc.arena_bytes = 3072 : i64, dlc.arena_lower_bound = 3072 : i64, dlc.intermediate_bytes = 3072 : i64}
func.func @in_place_choices(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = dlc.kernel(%x) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %e = dlc.exp %a : tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  %1 = dlc.kernel(%0) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %s = dlc.reduce sum %a {axes = array<i64: 1>} : (tensor<16x16xf32>) -> tensor<16x1xf32>
    %d = dlc.div %a, %s : (tensor<16x16xf32>, tensor<16x1xf32>) -> tensor<16x16xf32>
    dlc.yield %d : tensor<16x16xf32>
  }
  %2 = dlc.kernel(%0, %1) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>):
    %e = dlc.add %a, %b : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  %3 = dlc.kernel(%2) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %t = dlc.transpose %a {perm = array<i64: 1, 0>} : (tensor<16x16xf32>) -> tensor<16x16xf32>
    dlc.yield %t : tensor<16x16xf32>
  }
  return %3 : tensor<16x16xf32>
}

// -----

// No in-place write for a matrix product, for a kernel with several
// results, or over an operand of another size. Buffers are placed largest
// first (%h and %r each take one aligned unit), each at the lowest free
// offset.
// CHECK-LABEL: func.func @no_in_place
// CHECK-SAME: attributes {dlc.arena_bytes = 3072 : i64, dlc.arena_lower_bound = 3072 : i64, dlc.intermediate_bytes = 5696 : i64}
// CHECK: %[[A:.*]] = dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 0>}
// CHECK: %[[M:.*]] = dlc.matmul %[[A]], %[[A]] {dlc.offsets = array<i64: 1024>}
// CHECK: %[[P:.*]], %[[Q:.*]] = dlc.kernel(%[[M]]) {dlc.offsets = array<i64: 0, 2048>}
// CHECK: %[[H:.*]] = dlc.kernel(%[[P]], %[[Q]]) {dlc.offsets = array<i64: 1024>}
// CHECK: %[[F:.*]] = dlc.kernel(%[[H]]) {dlc.offsets = array<i64: 0>}
// CHECK: %[[R:.*]] = dlc.kernel(%[[F]]) {dlc.offsets = array<i64: 1024>}
// CHECK: dlc.kernel(%[[R]], %[[F]]) {dlc.offsets = array<i64: -1>}
func.func @no_in_place(%x: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = dlc.kernel(%x) : (tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %e = dlc.exp %a : tensor<16x16xf32>
    dlc.yield %e : tensor<16x16xf32>
  }
  %m = dlc.matmul %0, %0 : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %p, %q = dlc.kernel(%m) : (tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  ^bb0(%a: tensor<16x16xf32>):
    %n = dlc.neg %a : tensor<16x16xf32>
    %b = dlc.abs %a : tensor<16x16xf32>
    dlc.yield %n, %b : tensor<16x16xf32>, tensor<16x16xf32>
  }
  %h = dlc.kernel(%p, %q) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf16> {
  ^bb0(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>):
    %s = dlc.add %a, %b : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %c = dlc.cast %s : tensor<16x16xf32> -> tensor<16x16xf16>
    dlc.yield %c : tensor<16x16xf16>
  }
  %f = dlc.kernel(%h) : (tensor<16x16xf16>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x16xf16>):
    %c = dlc.cast %a : tensor<16x16xf16> -> tensor<16x16xf32>
    dlc.yield %c : tensor<16x16xf32>
  }
  %r = dlc.kernel(%f) : (tensor<16x16xf32>) -> tensor<16x1xf32> {
  ^bb0(%a: tensor<16x16xf32>):
    %s = dlc.reduce sum %a {axes = array<i64: 1>} : (tensor<16x16xf32>) -> tensor<16x1xf32>
    dlc.yield %s : tensor<16x1xf32>
  }
  %y = dlc.kernel(%r, %f) : (tensor<16x1xf32>, tensor<16x16xf32>) -> tensor<16x16xf32> {
  ^bb0(%a: tensor<16x1xf32>, %b: tensor<16x16xf32>):
    %s = dlc.sub %b, %a : (tensor<16x16xf32>, tensor<16x1xf32>) -> tensor<16x16xf32>
    dlc.yield %s : tensor<16x16xf32>
  }
  return %y : tensor<16x16xf32>
}

// -----

// Offsets follow the alignment option: two 60-byte buffers live at once
// take two aligned blocks, which is also the lower bound (each buffer
// counted at its aligned size: no two share an aligned unit), while the
// intermediate bytes are the buffers' own.
// ALIGN64-LABEL: func.func @alignment
// ALIGN64-SAME: attributes {dlc.arena_bytes = 128 : i64, dlc.arena_lower_bound = 128 : i64, dlc.intermediate_bytes = 120 : i64}
// CHECK-LABEL: func.func @alignment
// CHECK-SAME: attributes {dlc.arena_bytes = 512 : i64, dlc.arena_lower_bound = 512 : i64, dlc.intermediate_bytes = 120 : i64}
// ALIGN64: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 0>}
// ALIGN64: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 64>}
// ALIGN64: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: -1>}
func.func @alignment(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = dlc.kernel(%x) : (tensor<3x5xf32>) -> tensor<3x5xf32> {
  ^bb0(%a: tensor<3x5xf32>):
    %e = dlc.exp %a : tensor<3x5xf32>
    dlc.yield %e : tensor<3x5xf32>
  }
  %1 = dlc.kernel(%x) : (tensor<3x5xf32>) -> tensor<3x5xf32> {
  ^bb0(%a: tensor<3x5xf32>):
    %e = dlc.neg %a : tensor<3x5xf32>
    dlc.yield %e : tensor<3x5xf32>
  }
  %2 = dlc.kernel(%0, %1) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32> {
  ^bb0(%a: tensor<3x5xf32>, %b: tensor<3x5xf32>):
    %t = dlc.transpose %a {perm = array<i64: 0, 1>} : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %e = dlc.add %t, %b : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    dlc.yield %e : tensor<3x5xf32>
  }
  return %2 : tensor<3x5xf32>
}

// -----

// Six buffers whose most bytes live at once are 19 units of 256 bytes (at
// the product %5: %1, %3, %4 and %5), which no first- or best-fit order of
// sizes, lives or starts reaches (the best of them takes 21 units). The
// exact search places the buffers in order of offset, each on the
// highest of those below it: %0 and %5 at 0 (their lives do not overlap),
// %2 on %0, %1 on %2, %3 on %1 and %4 on %3 (the lower bound).
// CHECK-LABEL: func.func @exact_search
// CHECK-SAME: dlc.arena_bytes = 4864 : i64, dlc.arena_lower_bound = 4864 : i64
// CHECK: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 0>}
// CHECK: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 1792>}
// CHECK: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 1024>}
// CHECK: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 2048>}
// CHECK: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 3584>}
// CHECK: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: 0>}
// CHECK: dlc.kernel(%{{.*}}) {dlc.offsets = array<i64: -1>}
func.func @exact_search(%x4: tensor<4x64xf32>, %x1: tensor<1x64xf32>, %x3: tensor<3x64xf32>, %x6: tensor<2x192xf32>, %x5: tensor<5x64xf32>, %y6: tensor<6x64xf32>) -> tensor<6x64xf32> {
  %0 = dlc.kernel(%x4) : (tensor<4x64xf32>) -> tensor<4x64xf32> {
  ^bb0(%a: tensor<4x64xf32>):
    %e = dlc.exp %a : tensor<4x64xf32>
    dlc.yield %e : tensor<4x64xf32>
  }
  %1 = dlc.kernel(%x1) : (tensor<1x64xf32>) -> tensor<1x64xf32> {
  ^bb0(%a: tensor<1x64xf32>):
    %e = dlc.exp %a : tensor<1x64xf32>
    dlc.yield %e : tensor<1x64xf32>
  }
  %2 = dlc.kernel(%x3) : (tensor<3x64xf32>) -> tensor<3x64xf32> {
  ^bb0(%a: tensor<3x64xf32>):
    %e = dlc.exp %a : tensor<3x64xf32>
    dlc.yield %e : tensor<3x64xf32>
  }
  %3 = dlc.kernel(%x6) : (tensor<2x192xf32>) -> tensor<2x192xf32> {
  ^bb0(%a: tensor<2x192xf32>):
    %e = dlc.exp %a : tensor<2x192xf32>
    dlc.yield %e : tensor<2x192xf32>
  }
  %4 = dlc.kernel(%x5, %0, %2) : (tensor<5x64xf32>, tensor<4x64xf32>, tensor<3x64xf32>) -> tensor<5x64xf32> {
  ^bb0(%a: tensor<5x64xf32>, %b: tensor<4x64xf32>, %c: tensor<3x64xf32>):
    %e = dlc.exp %a : tensor<5x64xf32>
    dlc.yield %e : tensor<5x64xf32>
  }
  %5 = dlc.kernel(%y6, %1, %3, %4) : (tensor<6x64xf32>, tensor<1x64xf32>, tensor<2x192xf32>, tensor<5x64xf32>) -> tensor<6x64xf32> {
  ^bb0(%a: tensor<6x64xf32>, %b: tensor<1x64xf32>, %c: tensor<2x192xf32>, %d: tensor<5x64xf32>):
    %e = dlc.exp %a : tensor<6x64xf32>
    dlc.yield %e : tensor<6x64xf32>
  }
  %6 = dlc.kernel(%5) : (tensor<6x64xf32>) -> tensor<6x64xf32> {
  ^bb0(%a: tensor<6x64xf32>):
    %e = dlc.neg %a : tensor<6x64xf32>
    dlc.yield %e : tensor<6x64xf32>
  }
  return %6 : tensor<6x64xf32>
}

// -----

// A slice view keeps its buffer alive while it is read; a returned view is
// copied into its output, so the viewed product stays in the arena (it is
// not the output itself, which is smaller).
// CHECK-LABEL: func.func @views
// CHECK-SAME: dlc.arena_bytes = 3072
// CHECK: dlc.matmul {{.*}}dlc.offsets = array<i64: 0>
// CHECK: dlc.slice {{.*}}dlc.view
// CHECK: dlc.matmul {{.*}}dlc.offsets = array<i64: 2048>
func.func @views(%x: tensor<32x16xf32>, %w: tensor<16x16xf32>) -> (tensor<8x16xf32>, tensor<16x16xf32>) {
  %p = dlc.matmul %x, %w : (tensor<32x16xf32>, tensor<16x16xf32>) -> tensor<32x16xf32>
  %a = dlc.slice %p {dlc.view, start = array<i64: 8, 0>} : (tensor<32x16xf32>) -> tensor<8x16xf32>
  %b = dlc.slice %p {dlc.view, start = array<i64: 16, 0>} : (tensor<32x16xf32>) -> tensor<16x16xf32>
  %y = dlc.matmul %b, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %z = dlc.matmul %y, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %a, %z : tensor<8x16xf32>, tensor<16x16xf32>
}
