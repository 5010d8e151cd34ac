// RUN: dlc-opt --split-input-file --dlc-fuse-gemm %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-fuse-gemm --dlc-fuse-gemm %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-fuse-gemm="max-flops=1000" %s | FileCheck %s --check-prefix=SMALL
// RUN: dlc-opt --split-input-file --dlc-fuse-gemm="relative-speed=1" %s | FileCheck %s --check-prefix=ALL

// erf after a product with a bias: the product moves into the kernel, its
// operands (and bias) become the kernel's inputs ahead of the kernel's own,
// and the note about the product goes while the one about the other input
// is renumbered.
// CHECK-LABEL: func.func @erf_gate
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32>, %[[W:.*]]: tensor<64x128xf32>, %[[B:.*]]: tensor<1x128xf32>, %[[G:.*]]: tensor<8x128xf32>)
// CHECK-NOT: dlc.matmul
// CHECK: %[[K:.*]] = dlc.kernel(%[[X]], %[[W]], %[[B]], %[[G]]) {dlc.fusion_notes = [{operand = 3 : i64, reason = "g"}]} : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<1x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32> {
// CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<8x64xf32>, %[[A1:.*]]: tensor<64x128xf32>, %[[A2:.*]]: tensor<1x128xf32>, %[[A3:.*]]: tensor<8x128xf32>):
// CHECK-NEXT: %[[P:.*]] = dlc.matmul %[[A0]], %[[A1]] bias(%[[A2]]) epilogue(relu) : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<1x128xf32>) -> tensor<8x128xf32>
// CHECK-NEXT: %[[E:.*]] = dlc.erf %[[P]]
// CHECK-NEXT: %[[M:.*]] = dlc.mul %[[E]], %[[A3]]
// CHECK-NEXT: dlc.yield %[[M]]
// CHECK: return %[[K]]
// SMALL-LABEL: func.func @erf_gate
// SMALL: dlc.matmul
// SMALL: dlc.kernel
func.func @erf_gate(%x: tensor<8x64xf32>, %w: tensor<64x128xf32>, %b: tensor<1x128xf32>, %g: tensor<8x128xf32>) -> tensor<8x128xf32> {
  %p = dlc.matmul %x, %w bias(%b) epilogue(relu) : (tensor<8x64xf32>, tensor<64x128xf32>, tensor<1x128xf32>) -> tensor<8x128xf32>
  %k = dlc.kernel(%p, %g) {dlc.fusion_notes = [{operand = 0 : i64, reason = "p"}, {operand = 1 : i64, reason = "g"}]} : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32> {
  ^bb0(%a: tensor<8x128xf32>, %c: tensor<8x128xf32>):
    %e = dlc.erf %a : tensor<8x128xf32>
    %m = dlc.mul %e, %c : (tensor<8x128xf32>, tensor<8x128xf32>) -> tensor<8x128xf32>
    dlc.yield %m : tensor<8x128xf32>
  }
  return %k : tensor<8x128xf32>
}

// -----

// A kernel input shared with the product (the gate is the product's lhs)
// becomes one kernel input; two results.
// CHECK-LABEL: func.func @shared_input
// CHECK: %[[K0:.*]], %[[K1:.*]] = dlc.kernel(%arg0, %arg1) : (tensor<16x16xf32>, tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf16>)
// CHECK: dlc.matmul
// CHECK: dlc.mul
// CHECK: dlc.cast
// CHECK-NOT: dlc.matmul
// CHECK: return %[[K0]], %[[K1]]
func.func @shared_input(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf16>) {
  %p = dlc.matmul %x, %w : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  %k:2 = dlc.kernel(%p, %x) : (tensor<16x16xf32>, tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf16>) {
  ^bb0(%a: tensor<16x16xf32>, %c: tensor<16x16xf32>):
    %m = dlc.mul %a, %c : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %h = dlc.cast %a : tensor<16x16xf32> -> tensor<16x16xf16>
    dlc.yield %m, %h : tensor<16x16xf32>, tensor<16x16xf16>
  }
  return %k#0, %k#1 : tensor<16x16xf32>, tensor<16x16xf16>
}

// -----

// Kept as library calls: a product with a second reader, a kernel that
// reduces the product (a row kernel), a kernel that broadcasts it to a
// larger shape, and a 16-bit product (the library's tensor cores).
// CHECK-LABEL: func.func @kept
// CHECK: dlc.matmul %arg0, %arg1 :
// CHECK-NEXT: dlc.kernel(%{{.*}}) :
// CHECK: dlc.matmul %arg0, %arg1 :
// CHECK-NEXT: dlc.kernel(%{{.*}}) :
// CHECK: dlc.matmul %arg0, %arg1 :
// CHECK-NEXT: dlc.kernel(%{{.*}}, %arg4) :
// CHECK: dlc.matmul %arg2, %arg3 :
// CHECK-NEXT: dlc.kernel(%{{.*}}) :
func.func @kept(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>, %h: tensor<8x64xf16>, %hw: tensor<64x32xf16>, %y: tensor<2x8x32xf32>)
    -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x1xf32>, tensor<2x8x32xf32>, tensor<8x32xf16>) {
  %p0 = dlc.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %k0 = dlc.kernel(%p0) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %e = dlc.erf %a : tensor<8x32xf32>
    dlc.yield %e : tensor<8x32xf32>
  }
  %p1 = dlc.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %k1 = dlc.kernel(%p1) : (tensor<8x32xf32>) -> tensor<8x1xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %e = dlc.exp %a : tensor<8x32xf32>
    %s = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<8x32xf32>) -> tensor<8x1xf32>
    dlc.yield %s : tensor<8x1xf32>
  }
  %p2 = dlc.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %k2 = dlc.kernel(%p2, %y) : (tensor<8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>, %c: tensor<2x8x32xf32>):
    %r = dlc.reshape %a : tensor<8x32xf32> -> tensor<1x8x32xf32>
    %e = dlc.add %r, %c : (tensor<1x8x32xf32>, tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
    dlc.yield %e : tensor<2x8x32xf32>
  }
  %p3 = dlc.matmul %h, %hw : (tensor<8x64xf16>, tensor<64x32xf16>) -> tensor<8x32xf16>
  %k3 = dlc.kernel(%p3) : (tensor<8x32xf16>) -> tensor<8x32xf16> {
  ^bb0(%a: tensor<8x32xf16>):
    %e = dlc.erf %a : tensor<8x32xf16>
    dlc.yield %e : tensor<8x32xf16>
  }
  return %p0, %k0, %k1, %k2, %k3 : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x1xf32>, tensor<2x8x32xf32>, tensor<8x32xf16>
}

// -----

// A batched product with transposes; under max-flops=1000 (the product is
// 2 * 3 * 5 * 7 * 4 = 840 flops) it is still generated.
// CHECK-LABEL: func.func @batched
// CHECK: dlc.kernel(%arg0, %arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.matmul %{{.*}}, %{{.*}} {transpose_a, transpose_b} : (tensor<3x4x5xf32>, tensor<3x7x4xf32>) -> tensor<3x5x7xf32>
// SMALL-LABEL: func.func @batched
// SMALL: dlc.kernel(%arg0, %arg1)
func.func @batched(%x: tensor<3x4x5xf32>, %w: tensor<3x7x4xf32>) -> tensor<3x5x7xf32> {
  %p = dlc.matmul %x, %w {transpose_a, transpose_b} : (tensor<3x4x5xf32>, tensor<3x7x4xf32>) -> tensor<3x5x7xf32>
  %k = dlc.kernel(%p) : (tensor<3x5x7xf32>) -> tensor<3x5x7xf32> {
  ^bb0(%a: tensor<3x5x7xf32>):
    %e = dlc.tanh %a : tensor<3x5x7xf32>
    dlc.yield %e : tensor<3x5x7xf32>
  }
  return %k : tensor<3x5x7xf32>
}

// -----

// Products one launch of the generated GEMM cannot hold stay library calls:
// 2^24 tiles of 256 threads, and a contraction deeper than its main loop
// counts in int (both under max-flops), even where every product that can
// be generated is (relative-speed=1).
// ALL-LABEL: func.func @too_large
// ALL: dlc.matmul %arg0, %arg1 :
// ALL: dlc.kernel
// ALL: dlc.matmul %arg2, %arg3 :
// ALL: dlc.kernel
// CHECK-LABEL: func.func @too_large
// CHECK: dlc.matmul %arg0, %arg1 :
// CHECK: dlc.kernel
// CHECK: dlc.matmul %arg2, %arg3 :
// CHECK: dlc.kernel
func.func @too_large(%x: tensor<1x1xf32>, %w: tensor<1x1073741824xf32>, %y: tensor<1x2147483640xf32>, %v: tensor<2147483640x1xf32>) -> (tensor<1x1073741824xf32>, tensor<1x1xf32>) {
  %p = dlc.matmul %x, %w : (tensor<1x1xf32>, tensor<1x1073741824xf32>) -> tensor<1x1073741824xf32>
  %k = dlc.kernel(%p) : (tensor<1x1073741824xf32>) -> tensor<1x1073741824xf32> {
  ^bb0(%a: tensor<1x1073741824xf32>):
    %e = dlc.erf %a : tensor<1x1073741824xf32>
    dlc.yield %e : tensor<1x1073741824xf32>
  }
  %q = dlc.matmul %y, %v : (tensor<1x2147483640xf32>, tensor<2147483640x1xf32>) -> tensor<1x1xf32>
  %l = dlc.kernel(%q) : (tensor<1x1xf32>) -> tensor<1x1xf32> {
  ^bb0(%a: tensor<1x1xf32>):
    %e = dlc.erf %a : tensor<1x1xf32>
    dlc.yield %e : tensor<1x1xf32>
  }
  return %k, %l : tensor<1x1073741824xf32>, tensor<1x1xf32>
}
