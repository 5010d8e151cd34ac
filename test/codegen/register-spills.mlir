// RUN: dlc compile %s --arch=sm_90 --no-cache --max-outputs-per-kernel=64 -o %t.dlcpkg 2>&1 | FileCheck %s
// RUN: dlc compile %s --arch=sm_90 --no-cache -o %t.default.dlcpkg 2>&1 | FileCheck %s --check-prefix=DEFAULT

// 64 independent exponentials of one shape. dlc-merge-kernels makes them one
// launch up to max-outputs-per-kernel results. With 64 results the kernel
// needs more than ptxas's 255 registers (every result's 4 elements and every
// input's vector are loaded before the first store), so it spills: ptxas's
// report reaches the package and a warning at the fused ops. The default
// limit (16) gives four kernels that do not spill.
// CHECK: register-spills.mlir:[[@LINE+5]]:{{[0-9]+}}: warning: fused kernel 'k0' spills registers on sm_90 (255 registers, {{[0-9]+}} bytes of spill stores and {{[0-9]+}} of spill loads per thread), which slows it down; a smaller --max-ops-per-kernel or --max-outputs-per-kernel splits it
// CHECK: 64 ops -> 1 fused kernels, 0 GEMM calls; {{.*}}; cubins: sm_90 (at most 255 registers, 1 kernel spills)
// DEFAULT-NOT: warning
// DEFAULT: 64 ops -> 4 fused kernels, 0 GEMM calls; {{.*}}; cubins: sm_90 (at most {{[0-9]+}} registers, no spills)
func.func @main(%a0: tensor<64x64xf32>, %a1: tensor<64x64xf32>, %a2: tensor<64x64xf32>, %a3: tensor<64x64xf32>, %a4: tensor<64x64xf32>, %a5: tensor<64x64xf32>, %a6: tensor<64x64xf32>, %a7: tensor<64x64xf32>, %a8: tensor<64x64xf32>, %a9: tensor<64x64xf32>, %a10: tensor<64x64xf32>, %a11: tensor<64x64xf32>, %a12: tensor<64x64xf32>, %a13: tensor<64x64xf32>, %a14: tensor<64x64xf32>, %a15: tensor<64x64xf32>, %a16: tensor<64x64xf32>, %a17: tensor<64x64xf32>, %a18: tensor<64x64xf32>, %a19: tensor<64x64xf32>, %a20: tensor<64x64xf32>, %a21: tensor<64x64xf32>, %a22: tensor<64x64xf32>, %a23: tensor<64x64xf32>, %a24: tensor<64x64xf32>, %a25: tensor<64x64xf32>, %a26: tensor<64x64xf32>, %a27: tensor<64x64xf32>, %a28: tensor<64x64xf32>, %a29: tensor<64x64xf32>, %a30: tensor<64x64xf32>, %a31: tensor<64x64xf32>, %a32: tensor<64x64xf32>, %a33: tensor<64x64xf32>, %a34: tensor<64x64xf32>, %a35: tensor<64x64xf32>, %a36: tensor<64x64xf32>, %a37: tensor<64x64xf32>, %a38: tensor<64x64xf32>, %a39: tensor<64x64xf32>, %a40: tensor<64x64xf32>, %a41: tensor<64x64xf32>, %a42: tensor<64x64xf32>, %a43: tensor<64x64xf32>, %a44: tensor<64x64xf32>, %a45: tensor<64x64xf32>, %a46: tensor<64x64xf32>, %a47: tensor<64x64xf32>, %a48: tensor<64x64xf32>, %a49: tensor<64x64xf32>, %a50: tensor<64x64xf32>, %a51: tensor<64x64xf32>, %a52: tensor<64x64xf32>, %a53: tensor<64x64xf32>, %a54: tensor<64x64xf32>, %a55: tensor<64x64xf32>, %a56: tensor<64x64xf32>, %a57: tensor<64x64xf32>, %a58: tensor<64x64xf32>, %a59: tensor<64x64xf32>, %a60: tensor<64x64xf32>, %a61: tensor<64x64xf32>, %a62: tensor<64x64xf32>, %a63: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %e0 = dlc.exp %a0 : tensor<64x64xf32>
  %e1 = dlc.exp %a1 : tensor<64x64xf32>
  %e2 = dlc.exp %a2 : tensor<64x64xf32>
  %e3 = dlc.exp %a3 : tensor<64x64xf32>
  %e4 = dlc.exp %a4 : tensor<64x64xf32>
  %e5 = dlc.exp %a5 : tensor<64x64xf32>
  %e6 = dlc.exp %a6 : tensor<64x64xf32>
  %e7 = dlc.exp %a7 : tensor<64x64xf32>
  %e8 = dlc.exp %a8 : tensor<64x64xf32>
  %e9 = dlc.exp %a9 : tensor<64x64xf32>
  %e10 = dlc.exp %a10 : tensor<64x64xf32>
  %e11 = dlc.exp %a11 : tensor<64x64xf32>
  %e12 = dlc.exp %a12 : tensor<64x64xf32>
  %e13 = dlc.exp %a13 : tensor<64x64xf32>
  %e14 = dlc.exp %a14 : tensor<64x64xf32>
  %e15 = dlc.exp %a15 : tensor<64x64xf32>
  %e16 = dlc.exp %a16 : tensor<64x64xf32>
  %e17 = dlc.exp %a17 : tensor<64x64xf32>
  %e18 = dlc.exp %a18 : tensor<64x64xf32>
  %e19 = dlc.exp %a19 : tensor<64x64xf32>
  %e20 = dlc.exp %a20 : tensor<64x64xf32>
  %e21 = dlc.exp %a21 : tensor<64x64xf32>
  %e22 = dlc.exp %a22 : tensor<64x64xf32>
  %e23 = dlc.exp %a23 : tensor<64x64xf32>
  %e24 = dlc.exp %a24 : tensor<64x64xf32>
  %e25 = dlc.exp %a25 : tensor<64x64xf32>
  %e26 = dlc.exp %a26 : tensor<64x64xf32>
  %e27 = dlc.exp %a27 : tensor<64x64xf32>
  %e28 = dlc.exp %a28 : tensor<64x64xf32>
  %e29 = dlc.exp %a29 : tensor<64x64xf32>
  %e30 = dlc.exp %a30 : tensor<64x64xf32>
  %e31 = dlc.exp %a31 : tensor<64x64xf32>
  %e32 = dlc.exp %a32 : tensor<64x64xf32>
  %e33 = dlc.exp %a33 : tensor<64x64xf32>
  %e34 = dlc.exp %a34 : tensor<64x64xf32>
  %e35 = dlc.exp %a35 : tensor<64x64xf32>
  %e36 = dlc.exp %a36 : tensor<64x64xf32>
  %e37 = dlc.exp %a37 : tensor<64x64xf32>
  %e38 = dlc.exp %a38 : tensor<64x64xf32>
  %e39 = dlc.exp %a39 : tensor<64x64xf32>
  %e40 = dlc.exp %a40 : tensor<64x64xf32>
  %e41 = dlc.exp %a41 : tensor<64x64xf32>
  %e42 = dlc.exp %a42 : tensor<64x64xf32>
  %e43 = dlc.exp %a43 : tensor<64x64xf32>
  %e44 = dlc.exp %a44 : tensor<64x64xf32>
  %e45 = dlc.exp %a45 : tensor<64x64xf32>
  %e46 = dlc.exp %a46 : tensor<64x64xf32>
  %e47 = dlc.exp %a47 : tensor<64x64xf32>
  %e48 = dlc.exp %a48 : tensor<64x64xf32>
  %e49 = dlc.exp %a49 : tensor<64x64xf32>
  %e50 = dlc.exp %a50 : tensor<64x64xf32>
  %e51 = dlc.exp %a51 : tensor<64x64xf32>
  %e52 = dlc.exp %a52 : tensor<64x64xf32>
  %e53 = dlc.exp %a53 : tensor<64x64xf32>
  %e54 = dlc.exp %a54 : tensor<64x64xf32>
  %e55 = dlc.exp %a55 : tensor<64x64xf32>
  %e56 = dlc.exp %a56 : tensor<64x64xf32>
  %e57 = dlc.exp %a57 : tensor<64x64xf32>
  %e58 = dlc.exp %a58 : tensor<64x64xf32>
  %e59 = dlc.exp %a59 : tensor<64x64xf32>
  %e60 = dlc.exp %a60 : tensor<64x64xf32>
  %e61 = dlc.exp %a61 : tensor<64x64xf32>
  %e62 = dlc.exp %a62 : tensor<64x64xf32>
  %e63 = dlc.exp %a63 : tensor<64x64xf32>
  return %e0, %e1, %e2, %e3, %e4, %e5, %e6, %e7, %e8, %e9, %e10, %e11, %e12, %e13, %e14, %e15, %e16, %e17, %e18, %e19, %e20, %e21, %e22, %e23, %e24, %e25, %e26, %e27, %e28, %e29, %e30, %e31, %e32, %e33, %e34, %e35, %e36, %e37, %e38, %e39, %e40, %e41, %e42, %e43, %e44, %e45, %e46, %e47, %e48, %e49, %e50, %e51, %e52, %e53, %e54, %e55, %e56, %e57, %e58, %e59, %e60, %e61, %e62, %e63 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
