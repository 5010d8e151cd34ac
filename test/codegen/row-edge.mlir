// RUN: dlc run %s --device=sim --check --seed=23 | FileCheck %s --check-prefix=SIM
// Row template corner cases found by dlc-fuzz, end to end through fusion (the
// sim run). row-edge-kernels.mlir checks the CUDA source of each kernel as
// written.

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%i: tensor<5x3x17xi32>, %x: tensor<340x1xf32>) -> (tensor<5x3x1xi32>, tensor<340x1xf32>) {
  %k0 = dlc.kernel (%i) : (tensor<5x3x17xi32>) -> tensor<5x3x1xi32> {
  ^bb0(%a0: tensor<5x3x17xi32>):
    %0 = dlc.reduce max %a0 {axes = array<i64: 2>} : (tensor<5x3x17xi32>) -> tensor<5x3x1xi32>
    dlc.yield %0 : tensor<5x3x1xi32>
  }
  %k1 = dlc.kernel (%x) : (tensor<340x1xf32>) -> tensor<340x1xf32> {
  ^bb0(%a0: tensor<340x1xf32>):
    %1 = dlc.clamp %a0 {max = 4.062500e-01 : f64, min = -1.156250e+00 : f64} : tensor<340x1xf32>
    %2 = dlc.reduce min %1 {axes = array<i64: 1>} : (tensor<340x1xf32>) -> tensor<340x1xf32>
    %3 = dlc.cmp eq, %1, %2 : (tensor<340x1xf32>, tensor<340x1xf32>) -> tensor<340x1xi1>
    %4 = dlc.select %3, %1, %2 : (tensor<340x1xi1>, tensor<340x1xf32>, tensor<340x1xf32>) -> tensor<340x1xf32>
    %5 = dlc.mul %4, %4 : (tensor<340x1xf32>, tensor<340x1xf32>) -> tensor<340x1xf32>
    dlc.yield %5 : tensor<340x1xf32>
  }
  return %k0, %k1 : tensor<5x3x1xi32>, tensor<340x1xf32>
}
