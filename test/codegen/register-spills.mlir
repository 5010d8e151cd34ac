// RUN: dlc compile %s --arch=sm_90 --no-cache --max-outputs-per-kernel=128 -o %t.dlcpkg 2>&1 | FileCheck %s
// RUN: dlc compile %s --arch=sm_90 --no-cache -o %t.default.dlcpkg 2>&1 | FileCheck %s --check-prefix=DEFAULT

// 128 independent exponentials of one shape. dlc-merge-kernels makes them
// one launch up to max-outputs-per-kernel results. With all 128 in one
// kernel ptxas (NVRTC 13.0) runs out of its 255 registers and spills: its
// report reaches the package and a warning points at the fused ops. The
// default limit (32 results) gives four kernels that do not spill.
// CHECK: register-spills.mlir:[[@LINE+5]]:{{[0-9]+}}: warning: fused kernel 'k0' spills registers on sm_90 (255 registers, {{[0-9]+}} bytes of spill stores and {{[0-9]+}} of spill loads per thread), which slows it down; a smaller --max-ops-per-kernel or --max-outputs-per-kernel splits it
// CHECK: 128 ops -> 1 fused kernels, 0 GEMM calls; {{.*}}; cubins: sm_90 (at most 255 registers, 1 kernel spills)
// DEFAULT-NOT: warning
// DEFAULT: 128 ops -> 4 fused kernels, 0 GEMM calls; {{.*}}; cubins: sm_90 (at most {{[0-9]+}} registers, no spills)
func.func @main(%a0: tensor<64x64xf32>, %a1: tensor<64x64xf32>, %a2: tensor<64x64xf32>, %a3: tensor<64x64xf32>, %a4: tensor<64x64xf32>, %a5: tensor<64x64xf32>, %a6: tensor<64x64xf32>, %a7: tensor<64x64xf32>, %a8: tensor<64x64xf32>, %a9: tensor<64x64xf32>, %a10: tensor<64x64xf32>, %a11: tensor<64x64xf32>, %a12: tensor<64x64xf32>, %a13: tensor<64x64xf32>, %a14: tensor<64x64xf32>, %a15: tensor<64x64xf32>, %a16: tensor<64x64xf32>, %a17: tensor<64x64xf32>, %a18: tensor<64x64xf32>, %a19: tensor<64x64xf32>, %a20: tensor<64x64xf32>, %a21: tensor<64x64xf32>, %a22: tensor<64x64xf32>, %a23: tensor<64x64xf32>, %a24: tensor<64x64xf32>, %a25: tensor<64x64xf32>, %a26: tensor<64x64xf32>, %a27: tensor<64x64xf32>, %a28: tensor<64x64xf32>, %a29: tensor<64x64xf32>, %a30: tensor<64x64xf32>, %a31: tensor<64x64xf32>, %a32: tensor<64x64xf32>, %a33: tensor<64x64xf32>, %a34: tensor<64x64xf32>, %a35: tensor<64x64xf32>, %a36: tensor<64x64xf32>, %a37: tensor<64x64xf32>, %a38: tensor<64x64xf32>, %a39: tensor<64x64xf32>, %a40: tensor<64x64xf32>, %a41: tensor<64x64xf32>, %a42: tensor<64x64xf32>, %a43: tensor<64x64xf32>, %a44: tensor<64x64xf32>, %a45: tensor<64x64xf32>, %a46: tensor<64x64xf32>, %a47: tensor<64x64xf32>, %a48: tensor<64x64xf32>, %a49: tensor<64x64xf32>, %a50: tensor<64x64xf32>, %a51: tensor<64x64xf32>, %a52: tensor<64x64xf32>, %a53: tensor<64x64xf32>, %a54: tensor<64x64xf32>, %a55: tensor<64x64xf32>, %a56: tensor<64x64xf32>, %a57: tensor<64x64xf32>, %a58: tensor<64x64xf32>, %a59: tensor<64x64xf32>, %a60: tensor<64x64xf32>, %a61: tensor<64x64xf32>, %a62: tensor<64x64xf32>, %a63: tensor<64x64xf32>, %a64: tensor<64x64xf32>, %a65: tensor<64x64xf32>, %a66: tensor<64x64xf32>, %a67: tensor<64x64xf32>, %a68: tensor<64x64xf32>, %a69: tensor<64x64xf32>, %a70: tensor<64x64xf32>, %a71: tensor<64x64xf32>, %a72: tensor<64x64xf32>, %a73: tensor<64x64xf32>, %a74: tensor<64x64xf32>, %a75: tensor<64x64xf32>, %a76: tensor<64x64xf32>, %a77: tensor<64x64xf32>, %a78: tensor<64x64xf32>, %a79: tensor<64x64xf32>, %a80: tensor<64x64xf32>, %a81: tensor<64x64xf32>, %a82: tensor<64x64xf32>, %a83: tensor<64x64xf32>, %a84: tensor<64x64xf32>, %a85: tensor<64x64xf32>, %a86: tensor<64x64xf32>, %a87: tensor<64x64xf32>, %a88: tensor<64x64xf32>, %a89: tensor<64x64xf32>, %a90: tensor<64x64xf32>, %a91: tensor<64x64xf32>, %a92: tensor<64x64xf32>, %a93: tensor<64x64xf32>, %a94: tensor<64x64xf32>, %a95: tensor<64x64xf32>, %a96: tensor<64x64xf32>, %a97: tensor<64x64xf32>, %a98: tensor<64x64xf32>, %a99: tensor<64x64xf32>, %a100: tensor<64x64xf32>, %a101: tensor<64x64xf32>, %a102: tensor<64x64xf32>, %a103: tensor<64x64xf32>, %a104: tensor<64x64xf32>, %a105: tensor<64x64xf32>, %a106: tensor<64x64xf32>, %a107: tensor<64x64xf32>, %a108: tensor<64x64xf32>, %a109: tensor<64x64xf32>, %a110: tensor<64x64xf32>, %a111: tensor<64x64xf32>, %a112: tensor<64x64xf32>, %a113: tensor<64x64xf32>, %a114: tensor<64x64xf32>, %a115: tensor<64x64xf32>, %a116: tensor<64x64xf32>, %a117: tensor<64x64xf32>, %a118: tensor<64x64xf32>, %a119: tensor<64x64xf32>, %a120: tensor<64x64xf32>, %a121: tensor<64x64xf32>, %a122: tensor<64x64xf32>, %a123: tensor<64x64xf32>, %a124: tensor<64x64xf32>, %a125: tensor<64x64xf32>, %a126: tensor<64x64xf32>, %a127: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
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
  %e64 = dlc.exp %a64 : tensor<64x64xf32>
  %e65 = dlc.exp %a65 : tensor<64x64xf32>
  %e66 = dlc.exp %a66 : tensor<64x64xf32>
  %e67 = dlc.exp %a67 : tensor<64x64xf32>
  %e68 = dlc.exp %a68 : tensor<64x64xf32>
  %e69 = dlc.exp %a69 : tensor<64x64xf32>
  %e70 = dlc.exp %a70 : tensor<64x64xf32>
  %e71 = dlc.exp %a71 : tensor<64x64xf32>
  %e72 = dlc.exp %a72 : tensor<64x64xf32>
  %e73 = dlc.exp %a73 : tensor<64x64xf32>
  %e74 = dlc.exp %a74 : tensor<64x64xf32>
  %e75 = dlc.exp %a75 : tensor<64x64xf32>
  %e76 = dlc.exp %a76 : tensor<64x64xf32>
  %e77 = dlc.exp %a77 : tensor<64x64xf32>
  %e78 = dlc.exp %a78 : tensor<64x64xf32>
  %e79 = dlc.exp %a79 : tensor<64x64xf32>
  %e80 = dlc.exp %a80 : tensor<64x64xf32>
  %e81 = dlc.exp %a81 : tensor<64x64xf32>
  %e82 = dlc.exp %a82 : tensor<64x64xf32>
  %e83 = dlc.exp %a83 : tensor<64x64xf32>
  %e84 = dlc.exp %a84 : tensor<64x64xf32>
  %e85 = dlc.exp %a85 : tensor<64x64xf32>
  %e86 = dlc.exp %a86 : tensor<64x64xf32>
  %e87 = dlc.exp %a87 : tensor<64x64xf32>
  %e88 = dlc.exp %a88 : tensor<64x64xf32>
  %e89 = dlc.exp %a89 : tensor<64x64xf32>
  %e90 = dlc.exp %a90 : tensor<64x64xf32>
  %e91 = dlc.exp %a91 : tensor<64x64xf32>
  %e92 = dlc.exp %a92 : tensor<64x64xf32>
  %e93 = dlc.exp %a93 : tensor<64x64xf32>
  %e94 = dlc.exp %a94 : tensor<64x64xf32>
  %e95 = dlc.exp %a95 : tensor<64x64xf32>
  %e96 = dlc.exp %a96 : tensor<64x64xf32>
  %e97 = dlc.exp %a97 : tensor<64x64xf32>
  %e98 = dlc.exp %a98 : tensor<64x64xf32>
  %e99 = dlc.exp %a99 : tensor<64x64xf32>
  %e100 = dlc.exp %a100 : tensor<64x64xf32>
  %e101 = dlc.exp %a101 : tensor<64x64xf32>
  %e102 = dlc.exp %a102 : tensor<64x64xf32>
  %e103 = dlc.exp %a103 : tensor<64x64xf32>
  %e104 = dlc.exp %a104 : tensor<64x64xf32>
  %e105 = dlc.exp %a105 : tensor<64x64xf32>
  %e106 = dlc.exp %a106 : tensor<64x64xf32>
  %e107 = dlc.exp %a107 : tensor<64x64xf32>
  %e108 = dlc.exp %a108 : tensor<64x64xf32>
  %e109 = dlc.exp %a109 : tensor<64x64xf32>
  %e110 = dlc.exp %a110 : tensor<64x64xf32>
  %e111 = dlc.exp %a111 : tensor<64x64xf32>
  %e112 = dlc.exp %a112 : tensor<64x64xf32>
  %e113 = dlc.exp %a113 : tensor<64x64xf32>
  %e114 = dlc.exp %a114 : tensor<64x64xf32>
  %e115 = dlc.exp %a115 : tensor<64x64xf32>
  %e116 = dlc.exp %a116 : tensor<64x64xf32>
  %e117 = dlc.exp %a117 : tensor<64x64xf32>
  %e118 = dlc.exp %a118 : tensor<64x64xf32>
  %e119 = dlc.exp %a119 : tensor<64x64xf32>
  %e120 = dlc.exp %a120 : tensor<64x64xf32>
  %e121 = dlc.exp %a121 : tensor<64x64xf32>
  %e122 = dlc.exp %a122 : tensor<64x64xf32>
  %e123 = dlc.exp %a123 : tensor<64x64xf32>
  %e124 = dlc.exp %a124 : tensor<64x64xf32>
  %e125 = dlc.exp %a125 : tensor<64x64xf32>
  %e126 = dlc.exp %a126 : tensor<64x64xf32>
  %e127 = dlc.exp %a127 : tensor<64x64xf32>
  return %e0, %e1, %e2, %e3, %e4, %e5, %e6, %e7, %e8, %e9, %e10, %e11, %e12, %e13, %e14, %e15, %e16, %e17, %e18, %e19, %e20, %e21, %e22, %e23, %e24, %e25, %e26, %e27, %e28, %e29, %e30, %e31, %e32, %e33, %e34, %e35, %e36, %e37, %e38, %e39, %e40, %e41, %e42, %e43, %e44, %e45, %e46, %e47, %e48, %e49, %e50, %e51, %e52, %e53, %e54, %e55, %e56, %e57, %e58, %e59, %e60, %e61, %e62, %e63, %e64, %e65, %e66, %e67, %e68, %e69, %e70, %e71, %e72, %e73, %e74, %e75, %e76, %e77, %e78, %e79, %e80, %e81, %e82, %e83, %e84, %e85, %e86, %e87, %e88, %e89, %e90, %e91, %e92, %e93, %e94, %e95, %e96, %e97, %e98, %e99, %e100, %e101, %e102, %e103, %e104, %e105, %e106, %e107, %e108, %e109, %e110, %e111, %e112, %e113, %e114, %e115, %e116, %e117, %e118, %e119, %e120, %e121, %e122, %e123, %e124, %e125, %e126, %e127 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
