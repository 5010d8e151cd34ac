// RUN: dlc-opt %s --verify-diagnostics --dlc-apply-optimizer='optimizer=sgd'
// RUN: not dlc-opt %s --dlc-apply-optimizer='optimizer=lamb' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not dlc-opt %s --dlc-apply-optimizer='optimizer=sgd nesterov=true' 2>&1 | FileCheck %s --check-prefix=NESTEROV
// RUN: not dlc-opt %s --dlc-apply-optimizer='optimizer=adamw beta1=1.0' 2>&1 | FileCheck %s --check-prefix=BETAS
// RUN: not dlc-opt %s --dlc-apply-optimizer='optimizer=sgd accumulate=0' 2>&1 | FileCheck %s --check-prefix=ACCUMULATE
// ACCUMULATE: error: dlc-apply-optimizer: accumulate takes 1 to 65536 micro-batches
// UNKNOWN: error: dlc-apply-optimizer: unknown optimizer 'lamb'; expected sgd or adamw
// NESTEROV: error: dlc-apply-optimizer: Nesterov momentum needs sgd with a momentum > 0
// BETAS: error: dlc-apply-optimizer: betas must lie in [0, 1)

// expected-error @+1 {{has no gradients to apply (dlc-autodiff makes them)}}
func.func @no_gradients(%w: tensor<3xf32> {dlc.param = "w"}) -> tensor<3xf32> {
  return %w : tensor<3xf32>
}

