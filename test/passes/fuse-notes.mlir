// RUN: dlc-opt --split-input-file --dlc-fuse="max-ops-per-kernel=2 fusion-notes" %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-fuse=fusion-notes %s | FileCheck %s --check-prefix=NOLIMIT
// RUN: dlc-opt --split-input-file --dlc-fuse %s | FileCheck %s --check-prefix=OFF

// With fusion-notes, dlc-fuse records on each kernel why a neighbour was
// not fused (what `dlc compile --emit=fused` prints): `operand` names a
// producer that did not join, `result` a value whose consumer did not take
// its producer. Softmax under max-ops-per-kernel=2 splits into three.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[K0:.*]] = dlc.kernel(%arg0) {dlc.fusion_notes = [{reason = "max-ops-per-kernel (2) reached", result = 0 : i64}]}
// CHECK: %[[K1:.*]] = dlc.kernel(%arg0, %[[K0]]) {dlc.fusion_notes = [{reason = "max-ops-per-kernel (2) reached", result = 0 : i64}, {operand = 1 : i64, reason = "max-ops-per-kernel (2) reached"}]}
// CHECK: dlc.kernel(%[[K1]]) {dlc.fusion_notes = [{operand = 0 : i64, reason = "max-ops-per-kernel (2) reached"}]}
// NOLIMIT-LABEL: func.func @softmax
// NOLIMIT: dlc.kernel(%arg0) :
// NOLIMIT-NOT: dlc.kernel
// OFF-NOT: dlc.fusion_notes
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = dlc.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = dlc.exp %s : tensor<4x8xf32>
  %t = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = dlc.div %e, %t : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// A value read by two kernels of other shapes than its own: neither can
// write it out as an extra output, so it is a kernel of its own. With
// matching shapes one of them computes it.
// NOLIMIT-LABEL: func.func @two_consumers
// NOLIMIT: %[[E:.*]] = dlc.kernel(%arg0) {dlc.fusion_notes = [{reason = "its value is used by 2 kernels, none of which can also write it out", result = 0 : i64}]}
// NOLIMIT: dlc.kernel(%[[E]]) {dlc.fusion_notes = [{operand = 0 : i64, reason = "its value is used by 2 kernels, none of which can also write it out"}]}
// NOLIMIT: dlc.kernel(%[[E]]) {dlc.fusion_notes = [{operand = 0 : i64, reason = "its value is used by 2 kernels, none of which can also write it out"}]}
func.func @two_consumers(%x: tensor<4x8xf32>) -> (tensor<8x4xf32>, tensor<1x8xf32>) {
  %e = dlc.exp %x : tensor<4x8xf32>
  %t = dlc.transpose %e {perm = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<8x4xf32>
  %n = dlc.neg %t : tensor<8x4xf32>
  %c = dlc.reduce max %e {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  return %n, %c : tensor<8x4xf32>, tensor<1x8xf32>
}

// -----

// NOLIMIT-LABEL: func.func @extra_output
// NOLIMIT: %[[E:[^,]*]], %{{.*}} = dlc.kernel(%arg0) :
// NOLIMIT: dlc.kernel(%[[E]]) {dlc.fusion_notes = [{operand = 0 : i64, reason = "its value is used by 2 kernels; another of them computes it and writes it out"}]}
func.func @extra_output(%x: tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<1x8xf32>) {
  %e = dlc.exp %x : tensor<4x8xf32>
  %r = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %c = dlc.reduce max %e {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  return %r, %c : tensor<4x1xf32>, tensor<1x8xf32>
}
