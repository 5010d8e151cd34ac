// RUN: dlc-opt %s --split-input-file --dlc-apply-optimizer='optimizer=sgd lr=0.5' | FileCheck %s --check-prefix=SGD
// RUN: dlc-opt %s --split-input-file --dlc-apply-optimizer='optimizer=sgd lr=0.5 momentum=0.9 nesterov=true weight-decay=0.25' | FileCheck %s --check-prefix=NESTEROV
// RUN: dlc-opt %s --split-input-file --dlc-apply-optimizer='optimizer=adamw lr=0.01 weight-decay=0.1' | FileCheck %s --check-prefix=ADAMW
// RUN: dlc-opt %s --split-input-file --dlc-apply-optimizer='optimizer=sgd lr=0.5 grad-clip=1.0' | FileCheck %s --check-prefix=CLIP
// RUN: dlc-opt %s --split-input-file --dlc-apply-optimizer='optimizer=sgd lr=0.5 momentum=0.9 accumulate=4' | FileCheck %s --check-prefix=ACCUMULATE
// RUN: dlc-opt %s --split-input-file --dlc-apply-optimizer='optimizer=sgd lr=0.5' | FileCheck %s --check-prefix=LOSSSCALE
// RUN: dlc-opt %s --split-input-file --dlc-apply-optimizer='optimizer=sgd lr=0.5 accumulate=2 dropout-seed=6' | FileCheck %s --check-prefix=DROPOUT

// What dlc-autodiff hands on: the loss, then a gradient per parameter.
// The optimizer's buffers become state arguments after the parameters
// (starting at zero), and every new value a result marked dlc.updates.

// SGD-LABEL: func.func @step
// SGD-SAME: (%[[W:.*]]: tensor<2x2xf32> {dlc.param = "w"}, %[[X:.*]]: tensor<3xf32>)
// SGD-SAME: -> (tensor<f32>, tensor<2x2xf32> {dlc.updates = 0 : i64})
// SGD: %[[LR:.*]] = dlc.constant dense<5.000000e-01> : tensor<1x1xf32>
// SGD: %[[S:.*]] = dlc.mul %[[G:.*]], %[[LR]]
// SGD: %[[N:.*]] = dlc.sub %[[W]], %[[S]]
// SGD: return %{{.*}}, %[[N]]

// NESTEROV-LABEL: func.func @step
// NESTEROV-SAME: (%[[W:.*]]: tensor<2x2xf32> {dlc.param = "w"}, %[[B:.*]]: tensor<2x2xf32> {dlc.initial = dense<0.000000e+00> : tensor<2x2xf32>, dlc.state = "w.momentum_buffer"}, %{{.*}}: tensor<3xf32>)
// NESTEROV-SAME: -> (tensor<f32>, tensor<2x2xf32> {dlc.updates = 0 : i64}, tensor<2x2xf32> {dlc.updates = 1 : i64})
// NESTEROV: %[[WD:.*]] = dlc.mul %[[W]], %{{.*}}
// NESTEROV: %[[G:.*]] = dlc.add %{{.*}}, %[[WD]]
// NESTEROV: %[[MB:.*]] = dlc.mul %[[B]], %[[M:.*]] :
// NESTEROV: %[[NB:.*]] = dlc.add %[[MB]], %[[G]]
// NESTEROV: %[[LOOK:.*]] = dlc.mul %[[NB]], %[[M]]
// NESTEROV: dlc.add %[[G]], %[[LOOK]]
// NESTEROV: return %{{.*}}, %{{.*}}, %[[NB]]

// ADAMW-LABEL: func.func @step
// ADAMW-SAME: %{{.*}}: tensor<f32> {dlc.initial = dense<0.000000e+00> : tensor<f32>, dlc.state = "adamw.step"}
// ADAMW-SAME: dlc.state = "w.exp_avg"
// ADAMW-SAME: dlc.state = "w.exp_avg_sq"
// ADAMW-SAME: -> (tensor<f32>, tensor<2x2xf32> {dlc.updates = 0 : i64}, tensor<f32> {dlc.updates = 1 : i64}, tensor<2x2xf32> {dlc.updates = 2 : i64}, tensor<2x2xf32> {dlc.updates = 3 : i64})
// ADAMW: dlc.constant dense<9.990000e-01> : tensor<f32>
// ADAMW: dlc.pow
// ADAMW: dlc.sqrt
// ADAMW: return

// CLIP-LABEL: func.func @step
// CLIP: %[[SQ:.*]] = dlc.mul %[[G:.*]], %[[G]]
// CLIP: dlc.reduce sum %[[SQ]] {axes = array<i64: 0, 1>{{.*}}}
// CLIP: %[[NORM:.*]] = dlc.sqrt
// CLIP: dlc.min
// CLIP: return
// Four micro-batches: a count and a gradient sum per parameter, the
// optimizer applied to sum / 4, and parameters, buffers, sums and count
// chosen by whether this micro-batch is the fourth.
// ACCUMULATE-LABEL: func.func @step
// ACCUMULATE-SAME: (%[[W:.*]]: tensor<2x2xf32> {dlc.param = "w"}, %[[C:.*]]: tensor<f32> {{{.*}}dlc.state = "accumulate.count"}, %[[S:.*]]: tensor<2x2xf32> {{{.*}}dlc.state = "w.grad_sum"}, %[[B:.*]]: tensor<2x2xf32> {{{.*}}dlc.state = "w.momentum_buffer"}, %{{.*}}: tensor<3xf32>)
// ACCUMULATE-SAME: attributes {dlc.micro_batches = 4 : i64}
// ACCUMULATE: %[[C1:.*]] = dlc.add %[[C]], %{{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// ACCUMULATE: %[[FOUR:.*]] = dlc.constant dense<4.000000e+00> : tensor<f32>
// ACCUMULATE: %[[LAST:.*]] = dlc.cmp ge, %[[C1]], %[[FOUR]]
// ACCUMULATE: %[[NC:.*]] = dlc.select %[[LAST]], %{{.*}}, %[[C1]]
// ACCUMULATE: %[[S1:.*]] = dlc.add %[[S]], %[[G:.*]] :
// ACCUMULATE: %[[NS:.*]] = dlc.select %{{.*}}, %{{.*}}, %[[S1]]
// ACCUMULATE: %[[QUARTER:.*]] = dlc.constant dense<2.500000e-01>
// ACCUMULATE: %[[MEAN:.*]] = dlc.mul %[[S1]], %[[QUARTER]]
// ACCUMULATE: %[[BM:.*]] = dlc.mul %[[B]], %{{.*}}
// ACCUMULATE: %[[NB:.*]] = dlc.add %[[BM]], %[[MEAN]]
// ACCUMULATE: %[[UW:.*]] = dlc.sub %[[W]], %{{.*}}
// ACCUMULATE: %[[NW:.*]] = dlc.select %{{.*}}, %[[UW]], %[[W]]
// ACCUMULATE: %[[NB2:.*]] = dlc.select %{{.*}}, %[[NB]], %[[B]]
// ACCUMULATE: return %{{.*}}, %[[NW]], %[[NC]], %[[NS]], %[[NB2]]
func.func @step(%w: tensor<2x2xf32> {dlc.param = "w"}, %x: tensor<3xf32>) -> (tensor<f32>, tensor<2x2xf32> {dlc.gradient_of = 0 : i64}) {
  %e = dlc.exp %w : tensor<2x2xf32>
  %s = dlc.reduce sum %x {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<1xf32>
  %l = dlc.reshape %s : tensor<1xf32> -> tensor<f32>
  return %l, %e : tensor<f32>, tensor<2x2xf32>
}

// -----

// Dynamic loss scaling: the gradient unscaled by 1 / scale, a step whose
// gradients are not all finite (not |g| < inf) keeps parameters and state,
// the scale halves on one and doubles after 2000 good steps in a row
// (the growth tracker), and a last result says whether the step skipped.
// LOSSSCALE-LABEL: func.func @scaled
// LOSSSCALE-SAME: %[[S:[a-z0-9]+]]: tensor<f32> {dlc.initial = dense<6.553600e+04> : tensor<f32>, dlc.state = "grad_scaler.scale"}, %[[T:.*]]: tensor<f32> {dlc.initial = dense<0.000000e+00> : tensor<f32>, dlc.state = "grad_scaler.growth_tracker"}
// LOSSSCALE-SAME: tensor<f32> {dlc.step_skipped})
// LOSSSCALE: %[[INV:.*]] = dlc.reciprocal %[[S]] {dlc.precision = "f32"}
// LOSSSCALE: dlc.abs
// LOSSSCALE: dlc.cmp lt
// LOSSSCALE: dlc.reduce max
// LOSSSCALE: %[[FOUND:.*]] = dlc.reshape %{{.*}} : tensor<1xi1> -> tensor<i1>
// LOSSSCALE: %[[OK:.*]] = dlc.not %[[FOUND]]
// LOSSSCALE: dlc.constant dense<2.000000e+03>
// LOSSSCALE: dlc.constant dense<5.000000e-01>
// LOSSSCALE: dlc.select %[[FOUND]]
// LOSSSCALE: return
func.func @scaled(%w: tensor<2x2xf32> {dlc.param = "w"}, %s: tensor<f32> {dlc.state = "grad_scaler.scale", dlc.initial = dense<65536.0> : tensor<f32>}, %x: tensor<3xf32>) -> (tensor<f32>, tensor<2x2xf32> {dlc.gradient_of = 0 : i64}) {
  %e = dlc.exp %w : tensor<2x2xf32>
  %r = dlc.reduce sum %x {axes = array<i64: 0>} : (tensor<3xf32>) -> tensor<1xf32>
  %l = dlc.reshape %r : tensor<1xf32> -> tensor<f32>
  return %l, %e : tensor<f32>, tensor<2x2xf32>
}

// -----

// Dropout: the forward's and the backward's constant offsets become one
// i64 state, advanced by one every run (also the runs that only accumulate:
// no select), so each run draws new masks; dropout-seed is xor'd into
// the seeds. The ops on integers are not pinned to f32.
// DROPOUT-LABEL: func.func @dropout_step
// DROPOUT-SAME: %[[OFF:[a-z0-9]+]]: tensor<i64> {dlc.initial = dense<0> : tensor<i64>, dlc.state = "rng.offset"}
// DROPOUT: %[[O1:.*]] = dlc.reshape %[[OFF]] : tensor<i64> -> tensor<1x1xi64>
// DROPOUT: dlc.dropout %{{.*}}, %[[O1]] {ratio = 5.000000e-01 : f64, seed = 3 : i64, stream = 0 : i64}
// DROPOUT: %[[O2:.*]] = dlc.reshape %[[OFF]] : tensor<i64> -> tensor<1x1xi64>
// DROPOUT: dlc.dropout %{{.*}}, %[[O2]] {ratio = 5.000000e-01 : f64, seed = 3 : i64, stream = 0 : i64}
// DROPOUT: %[[ONE:.*]] = dlc.constant dense<1> : tensor<i64>
// DROPOUT: %[[NEXT:.*]] = dlc.add %[[OFF]], %[[ONE]] : (tensor<i64>, tensor<i64>) -> tensor<i64>
// DROPOUT-NOT: dlc.precision
// DROPOUT: return {{.*}}, %[[NEXT]] :
func.func @dropout_step(%w: tensor<1x4xf32> {dlc.param = "w"}, %x: tensor<2x4xf32>) -> (tensor<f32>, tensor<1x4xf32> {dlc.gradient_of = 0 : i64}) {
  %o = dlc.constant dense<0> : tensor<1x1xi64>
  %y = dlc.mul %x, %w : (tensor<2x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  %d = dlc.dropout %y, %o {ratio = 0.5 : f64, seed = 5 : i64, stream = 0 : i64} : (tensor<2x4xf32>, tensor<1x1xi64>) -> tensor<2x4xf32>
  %s = dlc.reduce sum %d {axes = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<1x1xf32>
  %l = dlc.reshape %s : tensor<1x1xf32> -> tensor<f32>
  %one = dlc.constant dense<1.0> : tensor<2x4xf32>
  %g = dlc.dropout %one, %o {ratio = 0.5 : f64, seed = 5 : i64, stream = 0 : i64} : (tensor<2x4xf32>, tensor<1x1xi64>) -> tensor<2x4xf32>
  %gx = dlc.mul %g, %x : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %gw = dlc.reduce sum %gx {axes = array<i64: 0>} : (tensor<2x4xf32>) -> tensor<1x4xf32>
  return %l, %gw : tensor<f32>, tensor<1x4xf32>
}
