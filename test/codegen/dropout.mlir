// RUN: dlc run %s --device=sim --check --seed=3 | FileCheck %s --check-prefix=SIM
// RUN: dlc compile %s --arch=sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=NVRTC
// dlc.dropout in fused kernels, against the reference interpreter (which
// computes the same Philox words: a mask differing at one element misses
// the tolerance by orders of magnitude): the vectorized pointwise template,
// bf16, a dropout of a transposed value (the mask follows the dropout's own
// row-major index, not its input's), a dropout before a row softmax (the
// row template), and a backward-style reuse of one mask by two dropouts
// with the same offset and key, each fused into a different kernel.

// NVRTC: cubins: sm_90 (at most {{[0-9]+}} registers, no spills)

// SIM: check output_0: relative error {{.*}} ok
// SIM: check output_1: relative error {{.*}} ok
// SIM: check output_2: relative error {{.*}} ok
// SIM: check output_3: relative error {{.*}} ok
// SIM: check output_4: relative error {{.*}} ok
// SIM-NOT: FAILED

func.func @main(%x: tensor<64x128xf32>, %h: tensor<32x48xbf16>, %t: tensor<24x40xf32>, %o: tensor<1x1xi64>) -> (tensor<64x128xf32>, tensor<32x48xbf16>, tensor<40x24xf32>, tensor<64x128xf32>, tensor<64x1xf32>) {
  %c2 = dlc.constant dense<2.0> : tensor<1x1xf32>
  %a = dlc.mul %x, %c2 : (tensor<64x128xf32>, tensor<1x1xf32>) -> tensor<64x128xf32>
  %0 = dlc.dropout %a, %o {ratio = 0.3 : f64, seed = 11 : i64, stream = 0 : i64} : (tensor<64x128xf32>, tensor<1x1xi64>) -> tensor<64x128xf32>
  %1 = dlc.dropout %h, %o {ratio = 0.5 : f64, seed = 11 : i64, stream = 1 : i64} : (tensor<32x48xbf16>, tensor<1x1xi64>) -> tensor<32x48xbf16>
  %tt = dlc.transpose %t {perm = array<i64: 1, 0>} : (tensor<24x40xf32>) -> tensor<40x24xf32>
  %2 = dlc.dropout %tt, %o {ratio = 0.1 : f64, seed = 11 : i64, stream = 2 : i64} : (tensor<40x24xf32>, tensor<1x1xi64>) -> tensor<40x24xf32>
  // dropout -> softmax over rows.
  %e = dlc.exp %0 : tensor<64x128xf32>
  %s = dlc.reduce sum %e {axes = array<i64: 1>} : (tensor<64x128xf32>) -> tensor<64x1xf32>
  %3 = dlc.div %e, %s : (tensor<64x128xf32>, tensor<64x1xf32>) -> tensor<64x128xf32>
  // The same mask on another value (a gradient), reduced.
  %g = dlc.dropout %x, %o {ratio = 0.3 : f64, seed = 11 : i64, stream = 0 : i64} : (tensor<64x128xf32>, tensor<1x1xi64>) -> tensor<64x128xf32>
  %4 = dlc.reduce sum %g {axes = array<i64: 1>} : (tensor<64x128xf32>) -> tensor<64x1xf32>
  return %0, %1, %2, %3, %4 : tensor<64x128xf32>, tensor<32x48xbf16>, tensor<40x24xf32>, tensor<64x128xf32>, tensor<64x1xf32>
}
