// RUN: dlc-opt %s --split-input-file --dlc-test-codegen="print-source=true reference=false" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-codegen -o /dev/null
// Data movement inside a kernel is index arithmetic: nothing is stored in
// between, and each input element is loaded where it is needed.
// The kernels of index-maps.mlir as `dlc compile index-maps.mlir --emit=fused`
// forms them; the second RUN line builds their package and runs the reference
// interpreter on them.

// transpose: result[i0, i1] = x[i1, i0]; the f16 input is converted on load.
// CHECK-LABEL: // k0: transpose+cast+add
// CHECK: const int i0 = (tid) / 4;
// CHECK-NEXT: const int i1 = (tid) % 4;
// CHECK-NEXT: const int [[T:t[0-9]+]] = i1 * 6 + i0;
// CHECK-NEXT: const float [[X:v[0-9]+]] = in0[[[T]]];
// CHECK-NEXT: const float [[Y:v[0-9]+]] = dlc_h2f(in1[tid]);
// CHECK-NEXT: const float {{v[0-9]+}} = [[X]] + [[Y]];

// pad: the padding value unless the index lies inside the input.
// CHECK-LABEL: // k1: pad+sigmoid
// CHECK: float [[P:p[0-9]+]] = 1.5f;
// CHECK: if (i1 >= 2 && i1 < 5) {
// CHECK-NEXT: const float [[X:v[0-9]+]] = in0[{{t[0-9]+}}];
// CHECK-NEXT: [[P]] = [[X]];
// CHECK-NEXT: }
// CHECK-NEXT: const float {{v[0-9]+}} = dlc_sigmoid([[P]]);

// concat along dimension 1, then tile: the row index wraps around.
// CHECK-LABEL: // k2: concat+tile
// CHECK: const int [[R:t[0-9]+]] = i0 % 4;
// CHECK: float [[C:cat[0-9]+]] = (float)0;
// CHECK: if (i1 < 6) {
// CHECK-NEXT: const float [[A:v[0-9]+]] = in0[{{t[0-9]+}}];
// CHECK-NEXT: [[C]] = [[A]];
// CHECK-NEXT: }
// CHECK: const int [[S:t[0-9]+]] = i1 - 6;
// CHECK-NEXT: const int [[L:t[0-9]+]] = [[R]] * 3 + [[S]];
// CHECK-NEXT: if (i1 >= 6) {
// CHECK-NEXT: const float [[B:v[0-9]+]] = in1[[[L]]];
// CHECK-NEXT: [[C]] = [[B]];
// CHECK-NEXT: }
// CHECK-NEXT: out0[tid] = [[C]];

// A reshape that keeps the element order reads at the thread's own position.
// CHECK-LABEL: // k3: reshape+cast
// CHECK: if (tid < 24) {
// CHECK-NEXT: const float [[X:v[0-9]+]] = in0[tid];
// CHECK-NEXT: const float [[R:v[0-9]+]] = dlc_round_bf16([[X]]);
// CHECK-NEXT: out0[tid] = dlc_f2bf([[R]]);

// slice, then a reshape that splits a dimension.
// CHECK-LABEL: // k4: slice+reshape+neg
// CHECK: const int i0 = (tid) / 6;
// CHECK-NEXT: const int i1 = ((tid) / 3) % 2;
// CHECK-NEXT: const int i2 = (tid) % 3;
// CHECK-NEXT: const int [[J:t[0-9]+]] = i1 * 3 + i2;
// CHECK-NEXT: const int [[K:t[0-9]+]] = [[J]] + 2;
// CHECK-NEXT: const int [[L:t[0-9]+]] = i0 * 9 + [[K]];
// CHECK-NEXT: const float [[X:v[0-9]+]] = in0[[[L]]];
// CHECK-NEXT: const float [[N:v[0-9]+]] = -[[X]];

func.func @main(%x: tensor<4x6xf32>, %y: tensor<4x3xf32>, %h: tensor<6x4xf16>, %z: tensor<4x9xf32>) -> (tensor<6x4xf32>, tensor<4x11xf32>, tensor<8x9xf32>, tensor<2x12xbf16>, tensor<4x2x3xf32>) attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  %transposed = dlc.kernel(%x, %h) {dlc.offsets = array<i64: -1>} : (tensor<4x6xf32>, tensor<6x4xf16>) -> tensor<6x4xf32> {
  ^bb0(%a0: tensor<4x6xf32>, %a1: tensor<6x4xf16>):
    %0 = dlc.transpose %a0 {perm = array<i64: 1, 0>} : (tensor<4x6xf32>) -> tensor<6x4xf32>
    %1 = dlc.cast %a1 : tensor<6x4xf16> -> tensor<6x4xf32>
    %2 = dlc.add %0, %1 : (tensor<6x4xf32>, tensor<6x4xf32>) -> tensor<6x4xf32>
    dlc.yield %2 : tensor<6x4xf32>
  }
  %padded = dlc.kernel(%y) {dlc.offsets = array<i64: -1>} : (tensor<4x3xf32>) -> tensor<4x11xf32> {
  ^bb0(%a0: tensor<4x3xf32>):
    %0 = dlc.pad %a0 {high = array<i64: 0, 6>, low = array<i64: 0, 2>, value = 1.500000e+00 : f64} : (tensor<4x3xf32>) -> tensor<4x11xf32>
    %1 = dlc.sigmoid %0 : tensor<4x11xf32>
    dlc.yield %1 : tensor<4x11xf32>
  }
  %tiled = dlc.kernel(%x, %y) {dlc.offsets = array<i64: -1>} : (tensor<4x6xf32>, tensor<4x3xf32>) -> tensor<8x9xf32> {
  ^bb0(%a0: tensor<4x6xf32>, %a1: tensor<4x3xf32>):
    %0 = dlc.concat %a0, %a1 {axis = 1 : i64} : (tensor<4x6xf32>, tensor<4x3xf32>) -> tensor<4x9xf32>
    %1 = dlc.tile %0 {multiples = array<i64: 2, 1>} : (tensor<4x9xf32>) -> tensor<8x9xf32>
    dlc.yield %1 : tensor<8x9xf32>
  }
  %reshaped = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<4x6xf32>) -> tensor<2x12xbf16> {
  ^bb0(%a0: tensor<4x6xf32>):
    %0 = dlc.reshape %a0 : tensor<4x6xf32> -> tensor<2x12xf32>
    %1 = dlc.cast %0 : tensor<2x12xf32> -> tensor<2x12xbf16>
    dlc.yield %1 : tensor<2x12xbf16>
  }
  %sliced = dlc.kernel(%z) {dlc.offsets = array<i64: -1>} : (tensor<4x9xf32>) -> tensor<4x2x3xf32> {
  ^bb0(%a0: tensor<4x9xf32>):
    %0 = dlc.slice %a0 {start = array<i64: 0, 2>} : (tensor<4x9xf32>) -> tensor<4x6xf32>
    %1 = dlc.reshape %0 : tensor<4x6xf32> -> tensor<4x2x3xf32>
    %2 = dlc.neg %1 : tensor<4x2x3xf32>
    dlc.yield %2 : tensor<4x2x3xf32>
  }
  return %transposed, %padded, %tiled, %reshaped, %sliced : tensor<6x4xf32>, tensor<4x11xf32>, tensor<8x9xf32>, tensor<2x12xbf16>, tensor<4x2x3xf32>
}
