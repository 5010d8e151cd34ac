// RUN: dlc-opt --split-input-file --dlc-fuse %s | FileCheck %s
// RUN: dlc-opt --split-input-file --dlc-fuse=max-ops-per-kernel=2 %s | FileCheck %s --check-prefix=MAX2

// An elementwise chain with a broadcast operand and a splat constant is one
// kernel; the constant is copied into it.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<1x8xf32>)
// CHECK-NOT: dlc.constant
// CHECK: %[[K:.*]] = dlc.kernel(%[[X]], %[[B]]) : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[AX:.*]]: tensor<4x8xf32>, %[[AB:.*]]: tensor<1x8xf32>):
// CHECK-NEXT: %[[C:.*]] = dlc.constant dense<2.000000e+00> : tensor<1x1xf32>
// CHECK-NEXT: %[[ADD:.*]] = dlc.add %[[AX]], %[[AB]]
// CHECK-NEXT: %[[MUL:.*]] = dlc.mul %[[ADD]], %[[C]]
// CHECK-NEXT: %[[T:.*]] = dlc.tanh %[[MUL]]
// CHECK-NEXT: dlc.yield %[[T]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
// MAX2-LABEL: func.func @chain
// MAX2: dlc.kernel
// MAX2: dlc.add
// MAX2-NEXT: dlc.yield
// MAX2: dlc.kernel
// MAX2: dlc.mul
// MAX2-NEXT: dlc.tanh
// MAX2-NEXT: dlc.yield
// MAX2-NOT: dlc.kernel
// MAX2: return
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %c = dlc.constant dense<2.0> : tensor<1x1xf32>
  %0 = dlc.add %x, %b : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %1 = dlc.mul %0, %c : (tensor<4x8xf32>, tensor<1x1xf32>) -> tensor<4x8xf32>
  %2 = dlc.tanh %1 : tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// Softmax over the last axis: one kernel holding both reductions.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[K:.*]] = dlc.kernel(%[[X]]) : (tensor<4x8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[M:.*]] = dlc.reduce max %[[A]] {axes = array<i64: 1>}
// CHECK-NEXT: %[[S:.*]] = dlc.sub %[[A]], %[[M]]
// CHECK-NEXT: %[[E:.*]] = dlc.exp %[[S]]
// CHECK-NEXT: %[[T:.*]] = dlc.reduce sum %[[E]] {axes = array<i64: 1>}
// CHECK-NEXT: %[[D:.*]] = dlc.div %[[E]], %[[T]]
// CHECK-NEXT: dlc.yield %[[D]] : tensor<4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
// MAX2-LABEL: func.func @softmax
// MAX2-COUNT-3: dlc.kernel
// MAX2-NOT: dlc.kernel
// MAX2: return
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = dlc.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = dlc.exp %s : tensor<4x8xf32>
  %t = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = dlc.div %e, %t : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// Layer normalization over the last axis of a rank-3 tensor: one kernel.
// CHECK-LABEL: func.func @layernorm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[G:.*]]: tensor<1x1x8xf32>, %[[B:.*]]: tensor<1x1x8xf32>)
// CHECK-NEXT: %[[K:.*]] = dlc.kernel(%[[X]], %[[G]], %[[B]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.constant dense<1.250000e-01>
// CHECK-NEXT: dlc.constant dense<9.99999974E-6>
// CHECK-NEXT: dlc.reduce sum
// CHECK-NEXT: dlc.mul
// CHECK-NEXT: dlc.sub
// CHECK-NEXT: dlc.mul
// CHECK-NEXT: dlc.reduce sum
// CHECK-NEXT: dlc.mul
// CHECK-NEXT: dlc.add
// CHECK-NEXT: dlc.rsqrt
// CHECK-NEXT: dlc.mul
// CHECK-NEXT: dlc.mul
// CHECK-NEXT: %[[Y:.*]] = dlc.add
// CHECK-NEXT: dlc.yield %[[Y]] : tensor<2x4x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
func.func @layernorm(%x: tensor<2x4x8xf32>, %g: tensor<1x1x8xf32>, %b: tensor<1x1x8xf32>) -> tensor<2x4x8xf32> {
  %inv = dlc.constant dense<0.125> : tensor<1x1x1xf32>
  %eps = dlc.constant dense<1.0e-5> : tensor<1x1x1xf32>
  %s1 = dlc.reduce sum %x {axes = array<i64: 2>} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %mean = dlc.mul %s1, %inv : (tensor<2x4x1xf32>, tensor<1x1x1xf32>) -> tensor<2x4x1xf32>
  %c = dlc.sub %x, %mean : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %sq = dlc.mul %c, %c : (tensor<2x4x8xf32>, tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %s2 = dlc.reduce sum %sq {axes = array<i64: 2>} : (tensor<2x4x8xf32>) -> tensor<2x4x1xf32>
  %var = dlc.mul %s2, %inv : (tensor<2x4x1xf32>, tensor<1x1x1xf32>) -> tensor<2x4x1xf32>
  %ve = dlc.add %var, %eps : (tensor<2x4x1xf32>, tensor<1x1x1xf32>) -> tensor<2x4x1xf32>
  %r = dlc.rsqrt %ve : tensor<2x4x1xf32>
  %n = dlc.mul %c, %r : (tensor<2x4x8xf32>, tensor<2x4x1xf32>) -> tensor<2x4x8xf32>
  %ng = dlc.mul %n, %g : (tensor<2x4x8xf32>, tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
  %y = dlc.add %ng, %b : (tensor<2x4x8xf32>, tensor<1x1x8xf32>) -> tensor<2x4x8xf32>
  return %y : tensor<2x4x8xf32>
}

// -----

// An MLP: the matrix products stay outside; bias + clamp form one kernel and
// bias + softmax another.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<4x16xf32>, %[[W1:.*]]: tensor<16x32xf32>, %[[B1:.*]]: tensor<1x32xf32>, %[[W2:.*]]: tensor<32x8xf32>, %[[B2:.*]]: tensor<1x8xf32>)
// CHECK-NEXT: %[[H:.*]] = dlc.matmul %[[X]], %[[W1]]
// CHECK-NEXT: %[[K1:.*]] = dlc.kernel(%[[H]], %[[B1]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.add
// CHECK-NEXT: dlc.clamp
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[O:.*]] = dlc.matmul %[[K1]], %[[W2]]
// CHECK-NEXT: %[[K2:.*]] = dlc.kernel(%[[O]], %[[B2]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.add
// CHECK-NEXT: dlc.reduce max
// CHECK-NEXT: dlc.sub
// CHECK-NEXT: dlc.exp
// CHECK-NEXT: dlc.reduce sum
// CHECK-NEXT: dlc.div
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K2]]
func.func @mlp(%x: tensor<4x16xf32>, %w1: tensor<16x32xf32>, %b1: tensor<1x32xf32>, %w2: tensor<32x8xf32>, %b2: tensor<1x8xf32>) -> tensor<4x8xf32> {
  %h = dlc.matmul %x, %w1 : (tensor<4x16xf32>, tensor<16x32xf32>) -> tensor<4x32xf32>
  %hb = dlc.add %h, %b1 : (tensor<4x32xf32>, tensor<1x32xf32>) -> tensor<4x32xf32>
  %r = dlc.clamp %hb {min = 0.0 : f64, max = 3.0e38 : f64} : tensor<4x32xf32>
  %o = dlc.matmul %r, %w2 : (tensor<4x32xf32>, tensor<32x8xf32>) -> tensor<4x8xf32>
  %ob = dlc.add %o, %b2 : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %m = dlc.reduce max %ob {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = dlc.sub %ob, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = dlc.exp %s : tensor<4x8xf32>
  %t = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = dlc.div %e, %t : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// A value used by two kernels whose iteration space differs from its own
// shape is materialized by a kernel of its own, read by both.
// CHECK-LABEL: func.func @fan_out
// CHECK-SAME: (%[[X:.*]]: tensor<4x1xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[E:.*]] = dlc.kernel(%[[X]]) : (tensor<4x1xf32>) -> tensor<4x1xf32> {
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.exp
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[A:.*]] = dlc.kernel(%[[Y]], %[[E]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.add
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[M:.*]] = dlc.kernel(%[[Y]], %[[E]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.mul
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[A]], %[[M]]
func.func @fan_out(%x: tensor<4x1xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = dlc.exp %x : tensor<4x1xf32>
  %a = dlc.add %y, %e : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %m = dlc.mul %y, %e : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %a, %m : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// A value that is also returned stays in the kernel as an extra output.
// CHECK-LABEL: func.func @multi_output
// CHECK-NEXT: %[[K0:[a-z0-9_]+]], %[[K1:[a-z0-9_]+]] = dlc.kernel(%{{.*}}) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<4x8xf32>):
// CHECK-NEXT: %[[E:.*]] = dlc.exp %[[A]]
// CHECK-NEXT: %[[N:.*]] = dlc.neg %[[E]]
// CHECK-NEXT: dlc.yield %[[E]], %[[N]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]], %[[K0]]
func.func @multi_output(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = dlc.exp %x : tensor<4x8xf32>
  %n = dlc.neg %e : tensor<4x8xf32>
  return %n, %e : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Multi-output fusion into the later consumer: the kernel computing %e must
// run before the one reading it, so the schedule is reordered.
// CHECK-LABEL: func.func @multi_output_reorder
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[K0:[a-z0-9_]+]], %[[K1:[a-z0-9_]+]] = dlc.kernel(%[[X]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.exp
// CHECK-NEXT: dlc.mul
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[A:.*]] = dlc.kernel(%[[K0]], %[[Y]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.sub
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[A]], %[[K1]]
func.func @multi_output_reorder(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e = dlc.exp %x : tensor<4x8xf32>
  %a = dlc.sub %e, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = dlc.mul %e, %e : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %a, %m : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Softmax whose row maximum is also returned: a Row kernel may output the
// reduced shape as well.
// CHECK-LABEL: func.func @softmax_with_max
// CHECK-NEXT: %[[K0:[a-z0-9_]+]], %[[K1:[a-z0-9_]+]] = dlc.kernel(%{{.*}}) : (tensor<4x8xf32>) -> (tensor<4x1xf32>, tensor<4x8xf32>)
// CHECK: dlc.reduce max
// CHECK: dlc.reduce sum
// CHECK: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K1]], %[[K0]]
func.func @softmax_with_max(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>) {
  %m = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %s = dlc.sub %x, %m : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  %e = dlc.exp %s : tensor<4x8xf32>
  %t = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %d = dlc.div %e, %t : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return %d, %m : tensor<4x8xf32>, tensor<4x1xf32>
}

// -----

// A reshape feeding a matrix product stays outside as a view of the kernel
// result.
// CHECK-LABEL: func.func @reshape_view
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[W:.*]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[K:.*]] = dlc.kernel(%[[X]]) : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.exp
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.*]] = dlc.reshape %[[K]] : tensor<2x4x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[M:.*]] = dlc.matmul %[[R]], %[[W]]
// CHECK-NEXT: return %[[M]]
func.func @reshape_view(%x: tensor<2x4x8xf32>, %w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = dlc.exp %x : tensor<2x4x8xf32>
  %r = dlc.reshape %e : tensor<2x4x8xf32> -> tensor<8x8xf32>
  %m = dlc.matmul %r, %w : (tensor<8x8xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %m : tensor<8x16xf32>
}

// -----

// A reshape between two elementwise ops is index arithmetic inside the
// kernel.
// CHECK-LABEL: func.func @reshape_fused
// CHECK-NEXT: %[[K:.*]] = dlc.kernel(%{{.*}}) : (tensor<2x4x8xf32>) -> tensor<8x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.exp
// CHECK-NEXT: dlc.reshape
// CHECK-NEXT: dlc.neg
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
func.func @reshape_fused(%x: tensor<2x4x8xf32>) -> tensor<8x8xf32> {
  %e = dlc.exp %x : tensor<2x4x8xf32>
  %r = dlc.reshape %e : tensor<2x4x8xf32> -> tensor<8x8xf32>
  %n = dlc.neg %r : tensor<8x8xf32>
  return %n : tensor<8x8xf32>
}

// -----

// A reduction over a leading axis with an epilogue of its own shape is one
// pointwise kernel (one serial loop per output element).
// CHECK-LABEL: func.func @column_sum
// CHECK-NEXT: %[[K:.*]] = dlc.kernel(%{{.*}}) : (tensor<4x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.exp
// CHECK-NEXT: dlc.reduce sum %{{.*}} {axes = array<i64: 0>}
// CHECK-NEXT: dlc.neg
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
func.func @column_sum(%x: tensor<4x8xf32>) -> tensor<1x8xf32> {
  %e = dlc.exp %x : tensor<4x8xf32>
  %t = dlc.reduce sum %e {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %n = dlc.neg %t : tensor<1x8xf32>
  return %n : tensor<1x8xf32>
}

// -----

// Softmax over a leading axis: no row plan exists, and a reduction is never
// recomputed per element of a larger pointwise consumer, so each reduction
// is a kernel of its own and the elementwise parts form two more.
// CHECK-LABEL: func.func @softmax_axis0
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[M:.*]] = dlc.kernel(%[[X]]) : (tensor<4x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.reduce max
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[E:.*]] = dlc.kernel(%[[X]], %[[M]]) : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.sub
// CHECK-NEXT: dlc.exp
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[T:.*]] = dlc.kernel(%[[E]]) : (tensor<4x8xf32>) -> tensor<1x8xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.reduce sum
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[D:.*]] = dlc.kernel(%[[E]], %[[T]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.div
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[D]]
func.func @softmax_axis0(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %m = dlc.reduce max %x {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %s = dlc.sub %x, %m : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %e = dlc.exp %s : tensor<4x8xf32>
  %t = dlc.reduce sum %e {axes = array<i64: 0>} : (tensor<4x8xf32>) -> tensor<1x8xf32>
  %d = dlc.div %e, %t : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %d : tensor<4x8xf32>
}

// -----

// A row sum (a Row kernel on its own) is not fused into a consumer that
// transposes the broadcast result: that would read other rows' sums.
// CHECK-LABEL: func.func @no_row_through_transpose
// CHECK-NEXT: %[[S:.*]] = dlc.kernel(%{{.*}}) : (tensor<8x8xf32>) -> tensor<8x1xf32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.reduce sum
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[K:.*]] = dlc.kernel(%{{.*}}, %[[S]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.sub
// CHECK-NEXT: dlc.transpose
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
func.func @no_row_through_transpose(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %s = dlc.reduce sum %x {axes = array<i64: 1>} : (tensor<8x8xf32>) -> tensor<8x1xf32>
  %d = dlc.sub %x, %s : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x8xf32>
  %t = dlc.transpose %d {perm = array<i64: 1, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  return %t : tensor<8x8xf32>
}

// -----

// %e feeds a matrix product whose result the consumer of %e also reads:
// fusing %e into that consumer would need the kernel both before and after
// the product, so %e is materialized by a kernel of its own.
// CHECK-LABEL: func.func @cycle
// CHECK-SAME: (%[[X:.*]]: tensor<8x8xf32>)
// CHECK-NEXT: %[[E:.*]] = dlc.kernel(%[[X]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.exp
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[M:.*]] = dlc.matmul %[[E]], %[[E]]
// CHECK-NEXT: %[[A:.*]] = dlc.kernel(%[[E]], %[[M]])
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.add
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[A]]
func.func @cycle(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = dlc.exp %x : tensor<8x8xf32>
  %m = dlc.matmul %e, %e : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %a = dlc.add %e, %m : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  return %a : tensor<8x8xf32>
}

// -----

// The same through another kernel instead of a matrix product: %e would be
// an extra output of the kernel of %a, which needs %b, which needs %e.
// CHECK-LABEL: func.func @cycle_through_kernel
// CHECK-COUNT-3: dlc.kernel
// CHECK-NOT: dlc.kernel
// CHECK: return
func.func @cycle_through_kernel(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = dlc.exp %x : tensor<8x8xf32>
  %t = dlc.transpose %e {perm = array<i64: 1, 0>} : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %b = dlc.reduce sum %t {axes = array<i64: 0>} : (tensor<8x8xf32>) -> tensor<1x8xf32>
  %a = dlc.add %e, %b : (tensor<8x8xf32>, tensor<1x8xf32>) -> tensor<8x8xf32>
  return %a : tensor<8x8xf32>
}

// -----

// Non-splat constants stay at the top level as kernel operands; argmax over
// the last axis forms a Row kernel with its producers.
// CHECK-LABEL: func.func @argmax_const
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[C:.*]] = dlc.constant dense<[
// CHECK-NEXT: %[[K:.*]] = dlc.kernel(%[[X]], %[[C]]) : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x1xi32>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.mul
// CHECK-NEXT: dlc.argmax
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
func.func @argmax_const(%x: tensor<4x8xf32>) -> tensor<4x1xi32> {
  %c = dlc.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]]> : tensor<1x8xf32>
  %m = dlc.mul %x, %c : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  %i = dlc.argmax %m {axis = 1 : i64} : (tensor<4x8xf32>) -> tensor<4x1xi32>
  return %i : tensor<4x1xi32>
}

// -----

// Unused operations vanish instead of forming kernels without results.
// CHECK-LABEL: func.func @dead
// CHECK-NEXT: %[[K:.*]] = dlc.kernel
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.neg
// CHECK-NEXT: dlc.yield
// CHECK-NEXT: }
// CHECK-NEXT: return %[[K]]
func.func @dead(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = dlc.exp %x : tensor<4xf32>
  %t = dlc.tanh %e : tensor<4xf32>
  %n = dlc.neg %x : tensor<4xf32>
  return %n : tensor<4xf32>
}

// -----

// A transpose that only moves dimensions of size 1 (a sequence-first layer
// made batch-first, batch 1) is a reshape, a free view: the exp's kernel
// reads through it, and alone it would be no kernel at all. One that
// reorders dimensions of other sizes stays a kernel's work.
// CHECK-LABEL: func.func @unit_dim_transpose
// CHECK: dlc.kernel(%arg0)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.reshape %{{.*}} : tensor<128x1x64xf32> -> tensor<1x128x64xf32>
// CHECK-NEXT: dlc.exp
// CHECK: dlc.kernel(%arg1)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: dlc.transpose
func.func @unit_dim_transpose(%x: tensor<128x1x64xf32>, %y: tensor<1x4x8xf32>) -> (tensor<1x128x64xf32>, tensor<1x8x4xf32>) {
  %t = dlc.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<128x1x64xf32>) -> tensor<1x128x64xf32>
  %e = dlc.exp %t : tensor<1x128x64xf32>
  %u = dlc.transpose %y {perm = array<i64: 0, 2, 1>} : (tensor<1x4x8xf32>) -> tensor<1x8x4xf32>
  return %e, %u : tensor<1x128x64xf32>, tensor<1x8x4xf32>
}
