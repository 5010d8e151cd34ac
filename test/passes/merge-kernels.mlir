// RUN: dlc-opt --split-input-file --dlc-merge-kernels %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-merge-kernels="max-elements=64" %s | FileCheck %s --check-prefix=SMALL

// Three independent head splits of one product (Q, K, V): one kernel with
// three results, the shared input read once.
// CHECK-LABEL: func.func @qkv
// CHECK: %[[Q:[^,]*]], %[[K:[^,]*]], %[[V:[^ ]*]] = dlc.kernel(%arg0) {dlc.fusion_notes = [{operand = 0 : i64, reason = "r"}]} : (tensor<8x96xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>)
// CHECK: dlc.slice
// CHECK: dlc.slice
// CHECK: dlc.slice
// CHECK: dlc.yield
// CHECK-NOT: dlc.kernel
// CHECK: return %[[Q]], %[[K]], %[[V]]
// SMALL-LABEL: func.func @qkv
// SMALL-COUNT-3: dlc.kernel
func.func @qkv(%p: tensor<8x96xf32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>) {
  %q = dlc.kernel(%p) {dlc.fusion_notes = [{operand = 0 : i64, reason = "r"}]} : (tensor<8x96xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x96xf32>):
    %s = dlc.slice %a {start = array<i64: 0, 0>} : (tensor<8x96xf32>) -> tensor<8x32xf32>
    dlc.yield %s : tensor<8x32xf32>
  }
  %k = dlc.kernel(%p) {dlc.fusion_notes = [{operand = 0 : i64, reason = "r"}]} : (tensor<8x96xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x96xf32>):
    %s = dlc.slice %a {start = array<i64: 0, 32>} : (tensor<8x96xf32>) -> tensor<8x32xf32>
    dlc.yield %s : tensor<8x32xf32>
  }
  %v = dlc.kernel(%p) {dlc.fusion_notes = [{operand = 0 : i64, reason = "r"}]} : (tensor<8x96xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x96xf32>):
    %s = dlc.slice %a {start = array<i64: 0, 64>} : (tensor<8x96xf32>) -> tensor<8x32xf32>
    dlc.yield %s : tensor<8x32xf32>
  }
  return %q, %k, %v : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// A kernel that reads the other's result depends on it, and %a's result is
// read before %c: only %b and %c merge, over the union of their inputs,
// with their notes renumbered.
// CHECK-LABEL: func.func @dependent
// CHECK: %[[A:[^ ]*]] = dlc.kernel(%arg0) {dlc.fusion_notes = [{reason = "a", result = 0 : i64}]}
// CHECK: %[[B:[^,]*]], %[[C:[^ ]*]] = dlc.kernel(%[[A]], %arg1) {dlc.fusion_notes = [{operand = 1 : i64, reason = "c"}, {reason = "c2", result = 1 : i64}]}
// CHECK: dlc.neg
// CHECK: dlc.tanh
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @dependent(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = dlc.kernel(%x) {dlc.fusion_notes = [{reason = "a", result = 0 : i64}]} : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%i: tensor<4x4xf32>):
    %e = dlc.exp %i : tensor<4x4xf32>
    dlc.yield %e : tensor<4x4xf32>
  }
  %b = dlc.kernel(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%i: tensor<4x4xf32>):
    %e = dlc.neg %i : tensor<4x4xf32>
    dlc.yield %e : tensor<4x4xf32>
  }
  %c = dlc.kernel(%y) {dlc.fusion_notes = [{operand = 0 : i64, reason = "c"}, {reason = "c2", result = 0 : i64}]} : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%i: tensor<4x4xf32>):
    %e = dlc.tanh %i : tensor<4x4xf32>
    dlc.yield %e : tensor<4x4xf32>
  }
  return %a, %b, %c : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// Different iteration spaces, or a row kernel: not merged.
// CHECK-LABEL: func.func @shapes
// CHECK-COUNT-3: dlc.kernel
func.func @shapes(%x: tensor<4x4xf32>, %y: tensor<4x8xf32>) -> (tensor<4x4xf32>, tensor<4x8xf32>, tensor<4x4xf32>) {
  %a = dlc.kernel(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%i: tensor<4x4xf32>):
    %e = dlc.exp %i : tensor<4x4xf32>
    dlc.yield %e : tensor<4x4xf32>
  }
  %b = dlc.kernel(%y) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%i: tensor<4x8xf32>):
    %e = dlc.exp %i : tensor<4x8xf32>
    dlc.yield %e : tensor<4x8xf32>
  }
  %c = dlc.kernel(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32> {
  ^bb0(%i: tensor<4x4xf32>):
    %m = dlc.reduce max %i {axes = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4x1xf32>
    %s = dlc.sub %i, %m : (tensor<4x4xf32>, tensor<4x1xf32>) -> tensor<4x4xf32>
    dlc.yield %s : tensor<4x4xf32>
  }
  return %a, %b, %c : tensor<4x4xf32>, tensor<4x8xf32>, tensor<4x4xf32>
}
