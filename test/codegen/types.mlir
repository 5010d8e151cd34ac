// RUN: dlc run %s --device=sim --check --seed=13 | FileCheck %s --check-prefix=SIM
// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=NVRTC
// Storage and compute types end to end, through fusion (which may merge these
// kernels): the sim run and the NVRTC compile. types-kernels.mlir checks the
// CUDA source of each kernel as written.

// NVRTC: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM: check output_2: relative error {{.*}} ok
// SIM: check output_3: relative error {{.*}} ok
// SIM: check output_4: relative error {{.*}} ok
// SIM: check output_5: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%bf: tensor<6x5xbf16>, %h: tensor<6x5xf16>, %x: tensor<6x5xf32>, %i: tensor<6x5xi32>, %p: tensor<6x5xi1>, %q: tensor<6x5xi1>) -> (tensor<6x5xbf16>, tensor<6x5xi32>, tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf16>, tensor<6x5xi64>) {
  %k0 = dlc.kernel (%bf, %h) : (tensor<6x5xbf16>, tensor<6x5xf16>) -> tensor<6x5xbf16> {
  ^bb0(%a0: tensor<6x5xbf16>, %a1: tensor<6x5xf16>):
    %0 = dlc.cast %a1 : tensor<6x5xf16> -> tensor<6x5xbf16>
    %1 = dlc.mul %a0, %0 : (tensor<6x5xbf16>, tensor<6x5xbf16>) -> tensor<6x5xbf16>
    dlc.yield %1 : tensor<6x5xbf16>
  }
  %k1:2 = dlc.kernel (%x, %i) : (tensor<6x5xf32>, tensor<6x5xi32>) -> (tensor<6x5xi32>, tensor<6x5xi1>) {
  ^bb0(%a0: tensor<6x5xf32>, %a1: tensor<6x5xi32>):
    %ten = dlc.constant dense<10.0> : tensor<6x5xf32>
    %0 = dlc.mul %a0, %ten : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
    %1 = dlc.cast %0 : tensor<6x5xf32> -> tensor<6x5xi32>
    %one = dlc.constant dense<1> : tensor<6x5xi32>
    %2 = dlc.add %a1, %one : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi32>
    %3 = dlc.div %1, %2 : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi32>
    %4 = dlc.cmp gt, %1, %a1 : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi1>
    %5 = dlc.select %4, %3, %a1 : (tensor<6x5xi1>, tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi32>
    dlc.yield %5, %4 : tensor<6x5xi32>, tensor<6x5xi1>
  }
  %k2 = dlc.kernel (%p, %q) : (tensor<6x5xi1>, tensor<6x5xi1>) -> tensor<6x5xf32> {
  ^bb0(%a0: tensor<6x5xi1>, %a1: tensor<6x5xi1>):
    %0 = dlc.not %a0 : tensor<6x5xi1>
    %1 = dlc.and %0, %a1 : (tensor<6x5xi1>, tensor<6x5xi1>) -> tensor<6x5xi1>
    %2 = dlc.or %1, %a0 : (tensor<6x5xi1>, tensor<6x5xi1>) -> tensor<6x5xi1>
    %3 = dlc.cast %2 : tensor<6x5xi1> -> tensor<6x5xf32>
    dlc.yield %3 : tensor<6x5xf32>
  }
  %k3:2 = dlc.kernel (%h, %i) : (tensor<6x5xf16>, tensor<6x5xi32>) -> (tensor<6x5xf16>, tensor<6x5xi64>) {
  ^bb0(%a0: tensor<6x5xf16>, %a1: tensor<6x5xi32>):
    %0 = dlc.clamp %a0 {min = -0.5 : f64, max = 0.25 : f64} : tensor<6x5xf16>
    %1 = dlc.cast %a1 : tensor<6x5xi32> -> tensor<6x5xi64>
    %big = dlc.constant dense<3000000000> : tensor<6x5xi64>
    %2 = dlc.mul %1, %big : (tensor<6x5xi64>, tensor<6x5xi64>) -> tensor<6x5xi64>
    dlc.yield %0, %2 : tensor<6x5xf16>, tensor<6x5xi64>
  }
  return %k0, %k1#0, %k1#1, %k2, %k3#0, %k3#1 : tensor<6x5xbf16>, tensor<6x5xi32>, tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf16>, tensor<6x5xi64>
}
