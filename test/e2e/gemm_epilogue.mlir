// RUN: dlc compile %s --no-cubin -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: dlc compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=5 --profile | FileCheck %s
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=6 | FileCheck %s --check-prefix=CHECK2
// Every epilogue GEMM also has its epilogue kernel (for a GPU whose cuBLASLt
// has no algorithm for the epilogue); NVRTC compiles them, and with
// DLC_GEMM_EPILOGUE_FALLBACK=1 the sim runs plain products and those
// kernels, which the reference checks.
// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.cubins.dlcpkg
// RUN: dlc compile %s --emit=cuda | FileCheck %s --check-prefix=EPI
// RUN: env DLC_GEMM_EPILOGUE_FALLBACK=1 dlc run %t.dlcpkg --device=sim --check --seed=7 | FileCheck %s --check-prefix=CHECK2
// The product split into two GEMM calls (6x10x4 batch 3, below) has one
// epilogue kernel: 8 kernels for the 9 calls.
// EPI-COUNT-8: extern "C" __global__ void __launch_bounds__(256) gemm_epi{{[0-9]}}(
// EPI-NOT: __global__
// GEMM epilogues (dlc-fuse-epilogue): bias, activation and residual adds run
// inside the GEMM (cuBLASLt on a GPU, the sim GEMM's f32 epilogue here), so
// every product below is one GEMM step and no elementwise kernel is left.
// The device rounds each product once, after its epilogue; the reference
// rounds every f16/bf16 op, which the tolerance absorbs.

// COMPILE: 48 ops -> 0 fused kernels, 9 GEMM calls

// FUSED-LABEL: func.func @main
// FUSED: dlc.matmul %arg0, %arg1 bias(%{{.*}}) {
// FUSED: dlc.matmul %arg0, %arg4 bias(%{{.*}}) epilogue(relu) {
// FUSED: dlc.matmul %arg0, %arg5 bias(%arg2) epilogue(gelu_tanh) {
// FUSED: dlc.matmul %arg0, %arg6 addend(%arg3) {
// FUSED: dlc.matmul %arg7, %arg8 bias(%{{.*}}) addend(%arg9) epilogue(relu) {{{.*}}transpose_b}
// FUSED: dlc.matmul %arg10, %arg11 bias(%arg12) addend(%arg13) epilogue(gelu_tanh) {
// FUSED: dlc.matmul %arg14, %arg15 bias(%arg16) epilogue(relu) {
// FUSED: dlc.matmul %arg17, %arg18 bias(%{{.*}}) addend(%arg19) epilogue(gelu_tanh) {
// FUSED-NOT: dlc.kernel

// CHECK: gemm 4x24x16 bias{{$}}
// CHECK: gemm 4x24x16 bias+relu{{$}}
// CHECK: gemm 4x24x16 bias+gelu_tanh{{$}}
// CHECK: gemm 4x24x16 addend{{$}}
// CHECK: gemm 5x12x8 batch 3 bias+addend+relu{{$}}
// CHECK: gemm 6x10x4 batch 3 bias+addend+gelu_tanh{{$}}
// CHECK: gemm 6x10x4 batch 3 bias+addend+gelu_tanh{{$}}
// CHECK: gemm 16x32x24 bias+relu f16{{$}}
// CHECK: gemm 3x20x9 bias+addend+gelu_tanh bf16{{$}}
// CHECK: check output_0: relative error {{.*}} ok
// CHECK: check output_1: relative error {{.*}} ok
// CHECK: check output_2: relative error {{.*}} ok
// CHECK: check output_3: relative error {{.*}} ok
// CHECK: check output_4: relative error {{.*}} ok
// CHECK: check output_5: relative error {{.*}} ok
// CHECK: check output_6: relative error {{.*}} ok
// CHECK: check output_7: relative error {{.*}} ok
// CHECK-NOT: FAILED
// CHECK2-COUNT-8: relative error {{.*}} ok
// CHECK2-NOT: FAILED

func.func @main(%x: tensor<4x16xf32>, %w: tensor<16x24xf32>, %b: tensor<1x24xf32>, %r: tensor<4x24xf32>,
                %w1: tensor<16x24xf32>, %w2: tensor<16x24xf32>, %w3: tensor<16x24xf32>,
                %bx: tensor<3x5x8xf32>, %bw: tensor<3x12x8xf32>, %br: tensor<3x5x12xf32>,
                %bx2: tensor<2x1x6x4xf32>, %bw2: tensor<1x3x4x10xf32>, %bb2: tensor<1x1x1x10xf32>, %br2: tensor<2x3x6x10xf32>,
                %h: tensor<16x24xf16>, %hw: tensor<24x32xf16>, %hb: tensor<1x32xf16>,
                %g: tensor<3x9xbf16>, %gw: tensor<9x20xbf16>, %gr: tensor<3x20xbf16>)
    -> (tensor<4x24xf32>, tensor<4x24xf32>, tensor<4x24xf32>, tensor<4x24xf32>,
        tensor<3x5x12xf32>, tensor<2x3x6x10xf32>, tensor<16x32xf16>, tensor<3x20xbf16>) {
  %cb = dlc.constant dense<[[0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8, 0.9, -1.0, 1.1, -1.2, 0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7, -0.8, 0.9, -1.0, 1.1, -1.2]]> : tensor<1x24xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1xf32>
  %half = dlc.constant dense<0.5> : tensor<1x1xf32>
  %one = dlc.constant dense<1.0> : tensor<1x1xf32>
  %c0 = dlc.constant dense<0.044715> : tensor<1x1xf32>
  %c1 = dlc.constant dense<0.797884583> : tensor<1x1xf32>

  // Bias only (a constant).
  %p0 = dlc.matmul %x, %w : (tensor<4x16xf32>, tensor<16x24xf32>) -> tensor<4x24xf32>
  %o0 = dlc.add %p0, %cb : (tensor<4x24xf32>, tensor<1x24xf32>) -> tensor<4x24xf32>

  // Bias + relu.
  %p1 = dlc.matmul %x, %w1 : (tensor<4x16xf32>, tensor<16x24xf32>) -> tensor<4x24xf32>
  %a1 = dlc.add %cb, %p1 : (tensor<1x24xf32>, tensor<4x24xf32>) -> tensor<4x24xf32>
  %o1 = dlc.max %a1, %zero : (tensor<4x24xf32>, tensor<1x1xf32>) -> tensor<4x24xf32>

  // Bias (an input) + tanh-GELU as the ONNX importer writes it.
  %p2 = dlc.matmul %x, %w2 : (tensor<4x16xf32>, tensor<16x24xf32>) -> tensor<4x24xf32>
  %v2 = dlc.add %p2, %b : (tensor<4x24xf32>, tensor<1x24xf32>) -> tensor<4x24xf32>
  %sq2 = dlc.mul %v2, %v2 : (tensor<4x24xf32>, tensor<4x24xf32>) -> tensor<4x24xf32>
  %cu2 = dlc.mul %sq2, %v2 : (tensor<4x24xf32>, tensor<4x24xf32>) -> tensor<4x24xf32>
  %s2 = dlc.mul %cu2, %c0 : (tensor<4x24xf32>, tensor<1x1xf32>) -> tensor<4x24xf32>
  %i2 = dlc.add %v2, %s2 : (tensor<4x24xf32>, tensor<4x24xf32>) -> tensor<4x24xf32>
  %u2 = dlc.mul %i2, %c1 : (tensor<4x24xf32>, tensor<1x1xf32>) -> tensor<4x24xf32>
  %t2 = dlc.tanh %u2 : tensor<4x24xf32>
  %h2 = dlc.mul %v2, %half : (tensor<4x24xf32>, tensor<1x1xf32>) -> tensor<4x24xf32>
  %e2 = dlc.add %t2, %one : (tensor<4x24xf32>, tensor<1x1xf32>) -> tensor<4x24xf32>
  %o2 = dlc.mul %h2, %e2 : (tensor<4x24xf32>, tensor<4x24xf32>) -> tensor<4x24xf32>

  // Residual add only.
  %p3 = dlc.matmul %x, %w3 : (tensor<4x16xf32>, tensor<16x24xf32>) -> tensor<4x24xf32>
  %o3 = dlc.add %r, %p3 : (tensor<4x24xf32>, tensor<4x24xf32>) -> tensor<4x24xf32>

  // Batched (batch 3, strided), transposed B, residual then bias then relu.
  %bbias = dlc.constant dense<[[[0.25, -0.5, 0.75, -1.0, 0.25, -0.5, 0.75, -1.0, 0.25, -0.5, 0.75, -1.0]]]> : tensor<1x1x12xf32>
  %zero3 = dlc.constant dense<0.0> : tensor<1x1x1xf32>
  %p4 = dlc.matmul %bx, %bw {transpose_b} : (tensor<3x5x8xf32>, tensor<3x12x8xf32>) -> tensor<3x5x12xf32>
  %a4 = dlc.add %p4, %br : (tensor<3x5x12xf32>, tensor<3x5x12xf32>) -> tensor<3x5x12xf32>
  %b4 = dlc.add %a4, %bbias : (tensor<3x5x12xf32>, tensor<1x1x12xf32>) -> tensor<3x5x12xf32>
  %o4 = dlc.max %b4, %zero3 : (tensor<3x5x12xf32>, tensor<1x1x1xf32>) -> tensor<3x5x12xf32>

  // Batch dimensions [2, 1] x [1, 3]: one GEMM per outer index, each with
  // its slice of the addend; GELU with x^3 as pow(x, 3).
  %half4 = dlc.constant dense<0.5> : tensor<1x1x1x1xf32>
  %one4 = dlc.constant dense<1.0> : tensor<1x1x1x1xf32>
  %three4 = dlc.constant dense<3.0> : tensor<1x1x1x1xf32>
  %c04 = dlc.constant dense<0.044715> : tensor<1x1x1x1xf32>
  %c14 = dlc.constant dense<0.797884583> : tensor<1x1x1x1xf32>
  %p5 = dlc.matmul %bx2, %bw2 : (tensor<2x1x6x4xf32>, tensor<1x3x4x10xf32>) -> tensor<2x3x6x10xf32>
  %v5a = dlc.add %p5, %bb2 : (tensor<2x3x6x10xf32>, tensor<1x1x1x10xf32>) -> tensor<2x3x6x10xf32>
  %v5 = dlc.add %v5a, %br2 : (tensor<2x3x6x10xf32>, tensor<2x3x6x10xf32>) -> tensor<2x3x6x10xf32>
  %cu5 = dlc.pow %v5, %three4 : (tensor<2x3x6x10xf32>, tensor<1x1x1x1xf32>) -> tensor<2x3x6x10xf32>
  %s5 = dlc.mul %c04, %cu5 : (tensor<1x1x1x1xf32>, tensor<2x3x6x10xf32>) -> tensor<2x3x6x10xf32>
  %i5 = dlc.add %s5, %v5 : (tensor<2x3x6x10xf32>, tensor<2x3x6x10xf32>) -> tensor<2x3x6x10xf32>
  %u5 = dlc.mul %c14, %i5 : (tensor<1x1x1x1xf32>, tensor<2x3x6x10xf32>) -> tensor<2x3x6x10xf32>
  %t5 = dlc.tanh %u5 : tensor<2x3x6x10xf32>
  %e5 = dlc.add %one4, %t5 : (tensor<1x1x1x1xf32>, tensor<2x3x6x10xf32>) -> tensor<2x3x6x10xf32>
  %q5 = dlc.mul %half4, %e5 : (tensor<1x1x1x1xf32>, tensor<2x3x6x10xf32>) -> tensor<2x3x6x10xf32>
  %o5 = dlc.mul %v5, %q5 : (tensor<2x3x6x10xf32>, tensor<2x3x6x10xf32>) -> tensor<2x3x6x10xf32>

  // f16: bias + relu in TOSA's clamp form.
  %p6 = dlc.matmul %h, %hw : (tensor<16x24xf16>, tensor<24x32xf16>) -> tensor<16x32xf16>
  %a6 = dlc.add %p6, %hb : (tensor<16x32xf16>, tensor<1x32xf16>) -> tensor<16x32xf16>
  %o6 = dlc.clamp %a6 {min = 0.0 : f64, max = 65504.0 : f64} : tensor<16x32xf16>

  // bf16: a constant bias, a residual and tanh-GELU.
  %gb = dlc.constant dense<0.125> : tensor<1x20xbf16>
  %hh = dlc.constant dense<0.5> : tensor<1x1xbf16>
  %oneh = dlc.constant dense<1.0> : tensor<1x1xbf16>
  %c0h = dlc.constant dense<0.044715> : tensor<1x1xbf16>
  %c1h = dlc.constant dense<0.797884583> : tensor<1x1xbf16>
  %p7 = dlc.matmul %g, %gw : (tensor<3x9xbf16>, tensor<9x20xbf16>) -> tensor<3x20xbf16>
  %a7 = dlc.add %p7, %gb : (tensor<3x20xbf16>, tensor<1x20xbf16>) -> tensor<3x20xbf16>
  %v7 = dlc.add %a7, %gr : (tensor<3x20xbf16>, tensor<3x20xbf16>) -> tensor<3x20xbf16>
  %sq7 = dlc.mul %v7, %v7 : (tensor<3x20xbf16>, tensor<3x20xbf16>) -> tensor<3x20xbf16>
  %cu7 = dlc.mul %sq7, %v7 : (tensor<3x20xbf16>, tensor<3x20xbf16>) -> tensor<3x20xbf16>
  %s7 = dlc.mul %cu7, %c0h : (tensor<3x20xbf16>, tensor<1x1xbf16>) -> tensor<3x20xbf16>
  %i7 = dlc.add %v7, %s7 : (tensor<3x20xbf16>, tensor<3x20xbf16>) -> tensor<3x20xbf16>
  %u7 = dlc.mul %i7, %c1h : (tensor<3x20xbf16>, tensor<1x1xbf16>) -> tensor<3x20xbf16>
  %t7 = dlc.tanh %u7 : tensor<3x20xbf16>
  %h7 = dlc.mul %v7, %hh : (tensor<3x20xbf16>, tensor<1x1xbf16>) -> tensor<3x20xbf16>
  %e7 = dlc.add %t7, %oneh : (tensor<3x20xbf16>, tensor<1x1xbf16>) -> tensor<3x20xbf16>
  %o7 = dlc.mul %h7, %e7 : (tensor<3x20xbf16>, tensor<3x20xbf16>) -> tensor<3x20xbf16>

  return %o0, %o1, %o2, %o3, %o4, %o5, %o6, %o7 : tensor<4x24xf32>, tensor<4x24xf32>, tensor<4x24xf32>, tensor<4x24xf32>, tensor<3x5x12xf32>, tensor<2x3x6x10xf32>, tensor<16x32xf16>, tensor<3x20xbf16>
}
