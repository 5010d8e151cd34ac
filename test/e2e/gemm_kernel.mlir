// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: dlc compile %s --emit=fused | FileCheck %s --check-prefix=FUSED
// RUN: dlc compile %s --emit=cuda | FileCheck %s --check-prefix=CUDA
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=1 --profile | FileCheck %s
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=2 | FileCheck %s --check-prefix=CHECK2
// RUN: dlc run %t.dlcpkg --device=sim --check --seed=3 | FileCheck %s --check-prefix=CHECK2
// Without generated GEMMs (and with TF32, whose f32 products belong on the
// library's tensor cores) each product is a library call and its reader a
// pointwise kernel; the results are the same.
// RUN: dlc compile %s --no-generated-gemm --stats-json %t.off.json -o %t.off.dlcpkg
// RUN: FileCheck %s --check-prefix=OFF < %t.off.json
// RUN: dlc run %t.off.dlcpkg --device=sim --check --seed=1 | FileCheck %s --check-prefix=CHECK2
// RUN: dlc compile %s --stats-json %t.on.json --no-cubin -o %t.on.dlcpkg
// RUN: FileCheck %s --check-prefix=ON < %t.on.json
// The assumed speed is a fraction in (0, 1]:
// RUN: not dlc compile %s --generated-gemm-speed=0 --no-cubin -o %t.bad.dlcpkg 2>&1 | FileCheck %s --check-prefix=SPEED
// RUN: not dlc compile %s --generated-gemm-speed=nan --no-cubin -o %t.bad.dlcpkg 2>&1 | FileCheck %s --check-prefix=SPEED
// RUN: not dlc compile %s --generated-gemm-speed=1.5 --no-cubin -o %t.bad.dlcpkg 2>&1 | FileCheck %s --check-prefix=SPEED
// SPEED: error: --generated-gemm-speed takes a fraction in (0, 1]
// RUN: dlc compile %s --tf32 --emit=fused | FileCheck %s --check-prefix=TF32
// RUN: dlc compile %s --precision=tf32 --emit=fused | FileCheck %s --check-prefix=TF32
//
// Generated GEMMs (dlc-fuse-gemm): an f32 product whose only reader is a
// pointwise kernel computing what cuBLASLt's epilogues cannot (erf-GELU,
// SiLU, relu6, a cast) moves into that kernel, which computes its results
// from each element of the product in registers; the product is never
// written. The shapes below cover partial tiles in m, n and k, both
// transposes, broadcast batches, the product's own bias and relu epilogue
// applied first, a kernel with two results and one with a second input.

// COMPILE: cubins: sm_80 (at most {{[0-9]+}} registers, no spills) sm_90 (at most {{[0-9]+}} registers, no spills)

// FUSED-LABEL: func.func @main
// erf-GELU after bias: 70x100x40 (two partial tiles).
// FUSED: dlc.kernel(%arg0, %arg1, %{{.*}}) {{.*}}-> tensor<70x100xf32> {
// FUSED: dlc.matmul %{{.*}}, %{{.*}} bias(%{{.*}}) :
// FUSED: dlc.erf
// FUSED: dlc.yield
// SiLU, A and B transposed.
// FUSED: dlc.kernel(%arg2, %arg3) {{.*}}-> tensor<33x65xf32> {
// FUSED: dlc.matmul {{.*}}transpose_a, transpose_b
// FUSED: dlc.sigmoid
// relu6 over broadcast batches [2, 1] x [1, 3].
// FUSED: dlc.kernel(%arg4, %arg5) {{.*}}-> tensor<2x3x17x9xf32> {
// FUSED: dlc.matmul
// FUSED: dlc.clamp
// The library's relu epilogue stays on the product; the kernel's cast
// follows it; two results (a sigmoid and the cast).
// FUSED: dlc.kernel(%arg6, %arg7, %{{.*}}) {{.*}}-> (tensor<8x128xf16>, tensor<8x128xf32>) {
// FUSED: dlc.matmul {{.*}}epilogue(relu)
// FUSED: dlc.yield
// The product times a second input of its shape (gating).
// FUSED: dlc.kernel(%arg0, %arg8, %arg9) {{.*}}-> tensor<70x24xf32> {
// FUSED: dlc.matmul
// FUSED: dlc.yield
// A product with two readers stays a library call.
// FUSED: %[[P:[0-9]+]] = dlc.matmul %arg0, %arg10 {
// FUSED: dlc.kernel({{.*}}%[[P]]
// FUSED: dlc.kernel({{.*}}%[[P]]

// CUDA: // k0: matmul+div+erf+add+mul (generated GEMM 70x100x40, batch 1, 64x64 tiles;
// The slices double-buffered, rows of 68 floats read as float4; the next
// slice's loads before the current one's products, its stores after them.
// CUDA: alignas(16) __shared__ float gemm_as[2][16][68];
// CUDA: alignas(16) __shared__ float gemm_bs[2][16][68];
// CUDA: __syncthreads();
// CUDA: for (int gemm_k0 = 0, gemm_s = 0; gemm_k0 < 40; gemm_k0 += 16, gemm_s ^= 1) {
// CUDA: if (gemm_more) {
// CUDA: gemm_ra[gr] = {{.*}}in0[gemm_a + (long long)(gemm_m0 + go) * 40 + (gemm_kn + gk)]
// CUDA: const float4 ga = *reinterpret_cast<const float4 *>(&gemm_as[gemm_s][gq][4 * gemm_ty]);
// CUDA: if (gemm_more) {
// CUDA: gemm_as[gemm_s ^ 1][gk][go] = gemm_ra[gr];
// CUDA: __syncthreads();
// CUDA: // k1: matmul+sigmoid+mul (generated GEMM 33x65x20, batch 1, 64x64 tiles;
// CUDA: // k2: matmul+clamp (generated GEMM 17x9x5, batch 6, 64x64 tiles;
// CUDA: // k3: matmul+cast+sigmoid (generated GEMM 8x128x64, batch 1, 64x64 tiles;
// CUDA: // k4: matmul+erf+mul (generated GEMM 70x24x40, batch 1, 64x64 tiles;
// CUDA-NOT: generated GEMM

// CHECK: kernel {{.*}} k0: matmul+div+erf+add+mul
// CHECK: kernel {{.*}} k4: matmul+erf+mul
// CHECK: gemm {{.*}} gemm 70x12x40
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

// OFF: "gemms": 6,
// OFF: "gemm_kernels": 0{{$}}
// ON: "gemms": 1,
// ON: "gemm_kernels": 5{{$}}
// TF32-NOT: generated GEMM
// TF32-COUNT-6: = dlc.matmul %arg
// TF32-NOT: generated GEMM

func.func @main(%x: tensor<70x40xf32>, %w: tensor<40x100xf32>,
                %xt: tensor<20x33xf32>, %wt: tensor<65x20xf32>,
                %bx: tensor<2x1x17x5xf32>, %bw: tensor<1x3x5x9xf32>,
                %h: tensor<8x64xf32>, %hw: tensor<64x128xf32>,
                %gw: tensor<40x24xf32>, %gate: tensor<70x24xf32>,
                %sw: tensor<40x12xf32>)
    -> (tensor<70x100xf32>, tensor<33x65xf32>, tensor<2x3x17x9xf32>,
        tensor<8x128xf16>, tensor<8x128xf32>, tensor<70x24xf32>,
        tensor<70x12xf32>, tensor<70x12xf32>) {
  // erf-GELU as PyTorch exports nn.GELU(): x * 0.5 * (1 + erf(x / sqrt 2)).
  %b = dlc.constant dense<0.25> : tensor<1x100xf32>
  %r2 = dlc.constant dense<1.41421354> : tensor<1x1xf32>
  %half = dlc.constant dense<0.5> : tensor<1x1xf32>
  %one = dlc.constant dense<1.0> : tensor<1x1xf32>
  %p0 = dlc.matmul %x, %w : (tensor<70x40xf32>, tensor<40x100xf32>) -> tensor<70x100xf32>
  %v0 = dlc.add %p0, %b : (tensor<70x100xf32>, tensor<1x100xf32>) -> tensor<70x100xf32>
  %d0 = dlc.div %v0, %r2 : (tensor<70x100xf32>, tensor<1x1xf32>) -> tensor<70x100xf32>
  %e0 = dlc.erf %d0 : tensor<70x100xf32>
  %f0 = dlc.add %e0, %one : (tensor<70x100xf32>, tensor<1x1xf32>) -> tensor<70x100xf32>
  %g0 = dlc.mul %v0, %f0 : (tensor<70x100xf32>, tensor<70x100xf32>) -> tensor<70x100xf32>
  %o0 = dlc.mul %g0, %half : (tensor<70x100xf32>, tensor<1x1xf32>) -> tensor<70x100xf32>

  // SiLU of a product of transposed operands: (xt^T)(wt^T), 33x65x20.
  %p1 = dlc.matmul %xt, %wt {transpose_a, transpose_b} : (tensor<20x33xf32>, tensor<65x20xf32>) -> tensor<33x65xf32>
  %s1 = dlc.sigmoid %p1 : tensor<33x65xf32>
  %o1 = dlc.mul %p1, %s1 : (tensor<33x65xf32>, tensor<33x65xf32>) -> tensor<33x65xf32>

  // relu6 (a clamp with an upper bound) of a batched product.
  %p2 = dlc.matmul %bx, %bw : (tensor<2x1x17x5xf32>, tensor<1x3x5x9xf32>) -> tensor<2x3x17x9xf32>
  %o2 = dlc.clamp %p2 {min = 0.0 : f64, max = 6.0 : f64} : tensor<2x3x17x9xf32>

  // bias + relu (the library's epilogue), then a cast and a sigmoid.
  %hb = dlc.constant dense<-0.125> : tensor<1x128xf32>
  %zero = dlc.constant dense<0.0> : tensor<1x1xf32>
  %p3 = dlc.matmul %h, %hw : (tensor<8x64xf32>, tensor<64x128xf32>) -> tensor<8x128xf32>
  %a3 = dlc.add %p3, %hb : (tensor<8x128xf32>, tensor<1x128xf32>) -> tensor<8x128xf32>
  %r3 = dlc.max %a3, %zero : (tensor<8x128xf32>, tensor<1x1xf32>) -> tensor<8x128xf32>
  %o3 = dlc.cast %r3 : tensor<8x128xf32> -> tensor<8x128xf16>
  %o4 = dlc.sigmoid %r3 : tensor<8x128xf32>

  // A gate: erf of the product times an input of the product's shape.
  %p5 = dlc.matmul %x, %gw : (tensor<70x40xf32>, tensor<40x24xf32>) -> tensor<70x24xf32>
  %e5 = dlc.erf %p5 : tensor<70x24xf32>
  %o5 = dlc.mul %e5, %gate : (tensor<70x24xf32>, tensor<70x24xf32>) -> tensor<70x24xf32>

  // Two readers of one product (both results are outputs): the product is
  // written once for both.
  %p6 = dlc.matmul %x, %sw : (tensor<70x40xf32>, tensor<40x12xf32>) -> tensor<70x12xf32>
  %o6 = dlc.erf %p6 : tensor<70x12xf32>
  %t6 = dlc.reduce sum %p6 {axes = array<i64: 1>} : (tensor<70x12xf32>) -> tensor<70x1xf32>
  %o7 = dlc.sub %p6, %t6 : (tensor<70x12xf32>, tensor<70x1xf32>) -> tensor<70x12xf32>

  return %o0, %o1, %o2, %o3, %o4, %o5, %o6, %o7 : tensor<70x100xf32>, tensor<33x65xf32>, tensor<2x3x17x9xf32>, tensor<8x128xf16>, tensor<8x128xf32>, tensor<70x24xf32>, tensor<70x12xf32>, tensor<70x12xf32>
}
