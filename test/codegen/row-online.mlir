// RUN: dlc run %s --device=sim --check --seed=3 | FileCheck %s --check-prefix=SIM
// Rows too long for the register cache (online softmax), end to end through
// fusion (the sim run). row-online-kernels.mlir checks the CUDA source of the
// kernels fusion forms here.

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%x: tensor<6x20000xf32>, %y: tensor<3x40000xf32>) -> (tensor<6x20000xf32>, tensor<3x40000xf32>) {
  %m = dlc.reduce max %x {axes = array<i64: 1>} : (tensor<6x20000xf32>) -> tensor<6x1xf32>
  %s = dlc.sub %x, %m : (tensor<6x20000xf32>, tensor<6x1xf32>) -> tensor<6x20000xf32>
  %e = dlc.exp %s : tensor<6x20000xf32>
  %t = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<6x20000xf32>) -> tensor<6x1xf32>
  %d = dlc.div %e, %t : (tensor<6x20000xf32>, tensor<6x1xf32>) -> tensor<6x20000xf32>
  %m2 = dlc.reduce max %y {axes = array<i64: 1>} : (tensor<3x40000xf32>) -> tensor<3x1xf32>
  %s2 = dlc.sub %y, %m2 : (tensor<3x40000xf32>, tensor<3x1xf32>) -> tensor<3x40000xf32>
  %e2 = dlc.exp %s2 : tensor<3x40000xf32>
  %t2 = dlc.reduce sum %e2 {axes = array<i64: 1>} : (tensor<3x40000xf32>) -> tensor<3x1xf32>
  %l = dlc.log %t2 : tensor<3x1xf32>
  %d2 = dlc.sub %s2, %l : (tensor<3x40000xf32>, tensor<3x1xf32>) -> tensor<3x40000xf32>
  return %d, %d2 : tensor<6x20000xf32>, tensor<3x40000xf32>
}
