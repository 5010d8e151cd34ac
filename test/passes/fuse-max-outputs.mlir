// RUN: dlc-opt --split-input-file --dlc-fuse="max-outputs-per-kernel=3 fusion-notes" %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-fuse %s | FileCheck %s --check-prefix=DEFAULT
// RUN: dlc-opt --split-input-file --dlc-merge-kernels="max-outputs-per-kernel=3" %s | FileCheck %s --check-prefix=MERGE

// Every value of a chain is returned: each one the kernel absorbs is one
// more result to write, a vector each thread holds in registers until its
// store. A kernel stops growing its results at max-outputs-per-kernel and
// the chain continues in the next kernel.
// CHECK-LABEL: func.func @chain
// CHECK: %[[A0:.*]], %[[A1:.*]], %[[A2:.*]] = dlc.kernel(%arg0) {dlc.fusion_notes = [{reason = "its value is also returned by the function; the kernel would write 4 results (max-outputs-per-kernel 3)", result = 2 : i64}]}
// CHECK-COUNT-3: dlc.exp
// CHECK: dlc.yield
// CHECK: %[[B0:.*]], %[[B1:.*]], %[[B2:.*]] = dlc.kernel(%[[A2]]) {dlc.fusion_notes = [{operand = 0 : i64, reason = "its value is also returned by the function; the kernel would write 4 results (max-outputs-per-kernel 3)"}]}
// CHECK-COUNT-3: dlc.exp
// CHECK: dlc.yield
// CHECK-NOT: dlc.kernel
// CHECK: return %[[A0]], %[[A1]], %[[A2]], %[[B0]], %[[B1]], %[[B2]]
// The default (32) keeps the six results in one kernel.
// DEFAULT-LABEL: func.func @chain
// DEFAULT: dlc.kernel
// DEFAULT-SAME: -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>)
// DEFAULT-NOT: dlc.kernel
// DEFAULT: return
func.func @chain(%x: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  %0 = dlc.exp %x : tensor<64x32xf32>
  %1 = dlc.exp %0 : tensor<64x32xf32>
  %2 = dlc.exp %1 : tensor<64x32xf32>
  %3 = dlc.exp %2 : tensor<64x32xf32>
  %4 = dlc.exp %3 : tensor<64x32xf32>
  %5 = dlc.exp %4 : tensor<64x32xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
}

// -----

// A join that writes no more results than before is not limited: the sum
// of many inputs is one kernel with one result.
// CHECK-LABEL: func.func @fan_in
// CHECK: dlc.kernel(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK-COUNT-4: dlc.add
// CHECK: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @fan_in(%a: tensor<64x32xf32>, %b: tensor<64x32xf32>, %c: tensor<64x32xf32>, %d: tensor<64x32xf32>, %e: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %0 = dlc.add %a, %b : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %1 = dlc.add %0, %c : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %2 = dlc.add %1, %d : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  %3 = dlc.add %2, %e : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
  return %3 : tensor<64x32xf32>
}

// -----

// Independent kernels of one shape merge into one launch only while the
// merged kernel has at most max-outputs-per-kernel results: four kernels
// of one result each become a kernel of three results and the fourth.
// MERGE-LABEL: func.func @independent
// MERGE: %[[M0:.*]], %[[M1:.*]], %[[M2:.*]] = dlc.kernel(%arg0, %arg1, %arg2)
// MERGE: dlc.yield
// MERGE: %[[D:.*]] = dlc.kernel(%arg3)
// MERGE: dlc.yield
// MERGE-NOT: dlc.kernel
// MERGE: return %[[M0]], %[[M1]], %[[M2]], %[[D]]
func.func @independent(%a: tensor<64x32xf32>, %b: tensor<64x32xf32>, %c: tensor<64x32xf32>, %d: tensor<64x32xf32>) -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>) {
  %0 = dlc.kernel(%a) : (tensor<64x32xf32>) -> tensor<64x32xf32> {
  ^bb0(%x: tensor<64x32xf32>):
    %e = dlc.exp %x : tensor<64x32xf32>
    dlc.yield %e : tensor<64x32xf32>
  }
  %1 = dlc.kernel(%b) : (tensor<64x32xf32>) -> tensor<64x32xf32> {
  ^bb0(%x: tensor<64x32xf32>):
    %e = dlc.exp %x : tensor<64x32xf32>
    dlc.yield %e : tensor<64x32xf32>
  }
  %2 = dlc.kernel(%c) : (tensor<64x32xf32>) -> tensor<64x32xf32> {
  ^bb0(%x: tensor<64x32xf32>):
    %e = dlc.exp %x : tensor<64x32xf32>
    dlc.yield %e : tensor<64x32xf32>
  }
  %3 = dlc.kernel(%d) : (tensor<64x32xf32>) -> tensor<64x32xf32> {
  ^bb0(%x: tensor<64x32xf32>):
    %e = dlc.exp %x : tensor<64x32xf32>
    dlc.yield %e : tensor<64x32xf32>
  }
  return %0, %1, %2, %3 : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>
}
