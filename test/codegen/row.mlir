// RUN: dlc compile %s --emit=cuda | FileCheck %s
// RUN: dlc run %s --device=sim --check --seed=7 | FileCheck %s --check-prefix=SIM
// RUN: dlc compile %s --arch=sm_80,sm_90 -o %t.dlcpkg 2>&1 | FileCheck %s --check-prefix=NVRTC
// The row template: one warp per row up to 1024 elements, one block per row
// beyond; each reduction runs once per row with warp shuffles (and shared
// memory across warps); values that do not depend on the position in the row
// are computed once per row, outside the loops. An input read by several
// passes over the row is loaded into registers once (up to 32 elements per
// thread), so every pass after the load runs on registers.

// Softmax over rows of 1000: the row is read once into 32 registers per
// lane; three passes over them (guarded: 1000 is not a multiple of 32), two
// shuffle trees.
// CHECK-LABEL: // k0: reduce+sub+exp+reciprocal+mul (row, 64 rows of 1000;
// CHECK: extern "C" __global__ void k0(const float* __restrict__ in0, float* __restrict__ out0) {
// CHECK-NEXT: const int lane = threadIdx.x & 31;
// CHECK-NEXT: for (int row = (int)blockIdx.x * 4 + (int)(threadIdx.x >> 5); row < 64; row += (int)gridDim.x * 4) {
// CHECK-NEXT: const int o0 = row;
// CHECK-NEXT: float [[RC:rc[0-9]+]][32];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int [[IT:it[0-9]+]] = 0; [[IT]] < 32; ++[[IT]]) {
// CHECK-NEXT: const int [[J:j[0-9]+]] = lane + [[IT]] * 32;
// CHECK-NEXT: if ([[J]] < 1000) {
// CHECK: const float [[L:v[0-9]+]] = in0[
// CHECK-NEXT: [[RC]][[[IT]]] = [[L]];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: float [[MAX:acc[0-9]+]] = __uint_as_float(0xff800000u);
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int [[IT:it[0-9]+]] = 0; [[IT]] < 32; ++[[IT]]) {
// CHECK-NEXT: const int [[J:j[0-9]+]] = lane + [[IT]] * 32;
// CHECK-NEXT: if ([[J]] < 1000) {
// CHECK-NEXT: [[MAX]] = fmaxf([[MAX]], [[RC]][[[IT]]]);
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int s = 16; s > 0; s >>= 1) {
// CHECK-NEXT: const float other = __shfl_xor_sync(0xffffffffu, [[MAX]], s);
// CHECK-NEXT: [[MAX]] = fmaxf([[MAX]], other);
// CHECK-NEXT: }
// CHECK-NEXT: float [[SUM:acc[0-9]+]] = 0.0f;
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int [[IT:it[0-9]+]] = 0; [[IT]] < 32; ++[[IT]]) {
// CHECK-NEXT: const int [[J:j[0-9]+]] = lane + [[IT]] * 32;
// CHECK-NEXT: if ([[J]] < 1000) {
// CHECK-NEXT: const float [[D:v[0-9]+]] = [[RC]][[[IT]]] - [[MAX]];
// CHECK-NEXT: const float [[E:v[0-9]+]] = expf([[D]]);
// CHECK-NEXT: [[SUM]] = [[SUM]] + [[E]];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: const float other = __shfl_xor_sync(0xffffffffu, [[SUM]], s);
// CHECK-NEXT: [[SUM]] = [[SUM]] + other;
// CHECK-NEXT: }
// CHECK-NEXT: const float [[INV:v[0-9]+]] = 1.0f / [[SUM]];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int [[IT:it[0-9]+]] = 0; [[IT]] < 32; ++[[IT]]) {
// CHECK-NEXT: const int [[J:j[0-9]+]] = lane + [[IT]] * 32;
// CHECK-NEXT: if ([[J]] < 1000) {
// CHECK-NEXT: const float [[D:v[0-9]+]] = [[RC]][[[IT]]] - [[MAX]];
// CHECK: const float [[Y:v[0-9]+]] = {{v[0-9]+}} * [[INV]];
// CHECK-NEXT: out0[row * 1000 + [[J]]] = [[Y]];
// CHECK-NOT: in0[

// Layer normalization of f16 rows of 4096: a block of 256 threads per row,
// 16 registers per thread (no guard: 4096 is a multiple of 256); the warps'
// partial sums meet in shared memory. The row of x is read once; gamma and
// beta (broadcast rows) are read where they are used.
// CHECK-LABEL: // k1: reduce+mul+sub+add+rsqrt (row, 8 rows of 4096;
// CHECK: extern "C" __global__ void k1(const unsigned short* __restrict__ in0, const unsigned short* __restrict__ in1, const unsigned short* __restrict__ in2, unsigned short* __restrict__ out0) {
// CHECK: const int tid = threadIdx.x;
// CHECK-NEXT: const int warp = threadIdx.x >> 5;
// CHECK-NEXT: __shared__ float [[RED:red[0-9]+]][8];
// CHECK: const int row = blockIdx.x;
// CHECK: float [[RC:rc[0-9]+]][16];
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int [[IT:it[0-9]+]] = 0; [[IT]] < 16; ++[[IT]]) {
// CHECK-NEXT: const int [[J:j[0-9]+]] = tid + [[IT]] * 256;
// CHECK: dlc_h2f(in0[
// CHECK: if (lane == 0)
// CHECK-NEXT: [[RED]][warp] = [[ACC:acc[0-9]+]];
// CHECK-NEXT: __syncthreads();
// CHECK-NEXT: [[ACC]] = [[RED]][0];
// CHECK-NEXT: for (int w = 1; w < 8; ++w)
// CHECK-NEXT: [[ACC]] = [[ACC]] + [[RED]][w];
// CHECK-NEXT: [[ACC]] = dlc_round_f16([[ACC]]);
// The mean is computed once per row, before the variance loop.
// CHECK: const float [[MEAN:v[0-9]+]] = dlc_round_f16([[ACC]] * 0.00024414062f);
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int
// CHECK-NEXT: dlc_round_f16([[RC]][{{it[0-9]+}}] - [[MEAN]]);
// CHECK: const float [[RS:v[0-9]+]] = dlc_round_f16(rsqrtf(
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int [[IT:it[0-9]+]] = 0; [[IT]] < 16; ++[[IT]]) {
// CHECK-NEXT: const int [[J:j[0-9]+]] = tid + [[IT]] * 256;
// CHECK: dlc_round_f16([[RC]][[[IT]]] - [[MEAN]]);
// CHECK: dlc_round_f16({{v[0-9]+}} * [[RS]]);
// CHECK: dlc_h2f(in1[
// CHECK: dlc_h2f(in2[
// CHECK: out0[row * 4096 + [[J]]] = dlc_f2h(
// CHECK-NOT: in0[

// argmax and max of rows of 10, written by lane 0: argmax carries (value,
// index) pairs through the shuffles; ties go to the smaller index.
// CHECK-LABEL: // k2: argmax+reduce (row, 16 rows of 10;
// CHECK: float [[BV:bv[0-9]+]] = 0; int [[BI:bi[0-9]+]] = -1;
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int [[IT:it[0-9]+]] = 0; [[IT]] < 1; ++[[IT]]) {
// CHECK-NEXT: const int [[J:j[0-9]+]] = lane + [[IT]] * 32;
// CHECK-NEXT: if ([[J]] < 10) {
// CHECK: if ([[BI]] < 0 || [[RC:rc[0-9]+]][[[IT]]] > [[BV]]) { [[BV]] = [[RC]][[[IT]]]; [[BI]] = {{c[0-9_]+}}; }
// CHECK: const float [[OV:ov[0-9]+]] = __shfl_xor_sync(0xffffffffu, [[BV]], s);
// CHECK-NEXT: const int [[OI:oi[0-9]+]] = __shfl_xor_sync(0xffffffffu, [[BI]], s);
// CHECK-NEXT: if ([[OI]] >= 0 && ([[BI]] < 0 || [[OV]] > [[BV]] || ([[OV]] == [[BV]] && [[OI]] < [[BI]]))) { [[BV]] = [[OV]]; [[BI]] = [[OI]]; }
// CHECK: if (lane == 0) {
// CHECK-NEXT: out0[row] = [[BI]];
// CHECK-NEXT: out1[row] = {{acc[0-9]+}};

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
