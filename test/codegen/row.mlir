// RUN: dlc run %s --device=sim --check --seed=7 | FileCheck %s --check-prefix=SIM
// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=NVRTC
// The row template end to end, through fusion: the sim run and the NVRTC
// compile. row-kernels.mlir checks the CUDA source of each kernel as written.

// NVRTC: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM: check output_2: relative error {{.*}} ok
// SIM: check output_3: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%x: tensor<64x1000xf32>, %h: tensor<8x4096xf16>, %g: tensor<1x4096xf16>, %b: tensor<1x4096xf16>, %y: tensor<16x10xf32>) -> (tensor<64x1000xf32>, tensor<8x4096xf16>, tensor<16x1xi32>, tensor<16x1xf32>) {
  %sm = dlc.kernel (%x) : (tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  ^bb0(%a0: tensor<64x1000xf32>):
    %m = dlc.reduce max %a0 {axes = array<i64: 1>} : (tensor<64x1000xf32>) -> tensor<64x1xf32>
    %0 = dlc.sub %a0, %m : (tensor<64x1000xf32>, tensor<64x1xf32>) -> tensor<64x1000xf32>
    %1 = dlc.exp %0 : tensor<64x1000xf32>
    %s = dlc.reduce sum %1 {axes = array<i64: 1>} : (tensor<64x1000xf32>) -> tensor<64x1xf32>
    %r = dlc.reciprocal %s : tensor<64x1xf32>
    %2 = dlc.mul %1, %r : (tensor<64x1000xf32>, tensor<64x1xf32>) -> tensor<64x1000xf32>
    dlc.yield %2 : tensor<64x1000xf32>
  }
  %ln = dlc.kernel (%h, %g, %b) : (tensor<8x4096xf16>, tensor<1x4096xf16>, tensor<1x4096xf16>) -> tensor<8x4096xf16> {
  ^bb0(%a0: tensor<8x4096xf16>, %a1: tensor<1x4096xf16>, %a2: tensor<1x4096xf16>):
    %s = dlc.reduce sum %a0 {axes = array<i64: 1>} : (tensor<8x4096xf16>) -> tensor<8x1xf16>
    %n = dlc.constant dense<2.44140625e-04> : tensor<8x1xf16>
    %mean = dlc.mul %s, %n : (tensor<8x1xf16>, tensor<8x1xf16>) -> tensor<8x1xf16>
    %d = dlc.sub %a0, %mean : (tensor<8x4096xf16>, tensor<8x1xf16>) -> tensor<8x4096xf16>
    %d2 = dlc.mul %d, %d : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
    %v = dlc.reduce sum %d2 {axes = array<i64: 1>} : (tensor<8x4096xf16>) -> tensor<8x1xf16>
    %vm = dlc.mul %v, %n : (tensor<8x1xf16>, tensor<8x1xf16>) -> tensor<8x1xf16>
    %e = dlc.constant dense<1.0e-5> : tensor<8x1xf16>
    %ve = dlc.add %vm, %e : (tensor<8x1xf16>, tensor<8x1xf16>) -> tensor<8x1xf16>
    %r = dlc.rsqrt %ve : tensor<8x1xf16>
    %o = dlc.mul %d, %r : (tensor<8x4096xf16>, tensor<8x1xf16>) -> tensor<8x4096xf16>
    %o2 = dlc.mul %o, %a1 : (tensor<8x4096xf16>, tensor<1x4096xf16>) -> tensor<8x4096xf16>
    %o3 = dlc.add %o2, %a2 : (tensor<8x4096xf16>, tensor<1x4096xf16>) -> tensor<8x4096xf16>
    dlc.yield %o3 : tensor<8x4096xf16>
  }
  %am:2 = dlc.kernel (%y) : (tensor<16x10xf32>) -> (tensor<16x1xi32>, tensor<16x1xf32>) {
  ^bb0(%a0: tensor<16x10xf32>):
    %i = dlc.argmax %a0 {axis = 1 : i64} : (tensor<16x10xf32>) -> tensor<16x1xi32>
    %m = dlc.reduce max %a0 {axes = array<i64: 1>} : (tensor<16x10xf32>) -> tensor<16x1xf32>
    dlc.yield %i, %m : tensor<16x1xi32>, tensor<16x1xf32>
  }
  return %sm, %ln, %am#0, %am#1 : tensor<64x1000xf32>, tensor<8x4096xf16>, tensor<16x1xi32>, tensor<16x1xf32>
}
