// RUN: dlc-opt %s --split-input-file --dlc-test-codegen="print-source=true reference=false" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-codegen -o /dev/null
// The row template: one warp per row up to 1024 elements, one block per row
// beyond; each reduction runs once per row with warp shuffles (and shared
// memory across warps); values that do not depend on the position in the row
// are computed once per row, outside the loops. An input read by several
// passes over the row is loaded into registers once (up to 32 elements per
// thread), so every pass after the load runs on registers.
// The kernels of row.mlir as `dlc compile row.mlir --emit=fused` forms them;
// the second RUN line builds their package and runs the reference interpreter
// on them.

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

func.func @main(%x: tensor<64x1000xf32>, %h: tensor<8x4096xf16>, %g: tensor<1x4096xf16>, %b: tensor<1x4096xf16>, %y: tensor<16x10xf32>) -> (tensor<64x1000xf32>, tensor<8x4096xf16>, tensor<16x1xi32>, tensor<16x1xf32>) attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  %softmax = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  ^bb0(%a0: tensor<64x1000xf32>):
    %0 = dlc.reduce max %a0 {axes = array<i64: 1>} : (tensor<64x1000xf32>) -> tensor<64x1xf32>
    %1 = dlc.sub %a0, %0 : (tensor<64x1000xf32>, tensor<64x1xf32>) -> tensor<64x1000xf32>
    %2 = dlc.exp %1 : tensor<64x1000xf32>
    %3 = dlc.reduce sum %2 {axes = array<i64: 1>} : (tensor<64x1000xf32>) -> tensor<64x1xf32>
    %4 = dlc.reciprocal %3 : tensor<64x1xf32>
    %5 = dlc.mul %2, %4 : (tensor<64x1000xf32>, tensor<64x1xf32>) -> tensor<64x1000xf32>
    dlc.yield %5 : tensor<64x1000xf32>
  }
  %layernorm = dlc.kernel(%h, %g, %b) {dlc.offsets = array<i64: -1>} : (tensor<8x4096xf16>, tensor<1x4096xf16>, tensor<1x4096xf16>) -> tensor<8x4096xf16> {
  ^bb0(%a0: tensor<8x4096xf16>, %a1: tensor<1x4096xf16>, %a2: tensor<1x4096xf16>):
    %0 = dlc.constant dense<1.001360e-05> : tensor<8x1xf16>
    %1 = dlc.constant dense<2.441410e-04> : tensor<8x1xf16>
    %2 = dlc.reduce sum %a0 {axes = array<i64: 1>} : (tensor<8x4096xf16>) -> tensor<8x1xf16>
    %3 = dlc.mul %2, %1 : (tensor<8x1xf16>, tensor<8x1xf16>) -> tensor<8x1xf16>
    %4 = dlc.sub %a0, %3 : (tensor<8x4096xf16>, tensor<8x1xf16>) -> tensor<8x4096xf16>
    %5 = dlc.mul %4, %4 : (tensor<8x4096xf16>, tensor<8x4096xf16>) -> tensor<8x4096xf16>
    %6 = dlc.reduce sum %5 {axes = array<i64: 1>} : (tensor<8x4096xf16>) -> tensor<8x1xf16>
    %7 = dlc.mul %6, %1 : (tensor<8x1xf16>, tensor<8x1xf16>) -> tensor<8x1xf16>
    %8 = dlc.add %7, %0 : (tensor<8x1xf16>, tensor<8x1xf16>) -> tensor<8x1xf16>
    %9 = dlc.rsqrt %8 : tensor<8x1xf16>
    %10 = dlc.mul %4, %9 : (tensor<8x4096xf16>, tensor<8x1xf16>) -> tensor<8x4096xf16>
    %11 = dlc.mul %10, %a1 : (tensor<8x4096xf16>, tensor<1x4096xf16>) -> tensor<8x4096xf16>
    %12 = dlc.add %11, %a2 : (tensor<8x4096xf16>, tensor<1x4096xf16>) -> tensor<8x4096xf16>
    dlc.yield %12 : tensor<8x4096xf16>
  }
  %argmax, %max = dlc.kernel(%y) {dlc.offsets = array<i64: -1, -1>} : (tensor<16x10xf32>) -> (tensor<16x1xi32>, tensor<16x1xf32>) {
  ^bb0(%a0: tensor<16x10xf32>):
    %0 = dlc.argmax %a0 {axis = 1 : i64} : (tensor<16x10xf32>) -> tensor<16x1xi32>
    %1 = dlc.reduce max %a0 {axes = array<i64: 1>} : (tensor<16x10xf32>) -> tensor<16x1xf32>
    dlc.yield %0, %1 : tensor<16x1xi32>, tensor<16x1xf32>
  }
  return %softmax, %layernorm, %argmax, %max : tensor<64x1000xf32>, tensor<8x4096xf16>, tensor<16x1xi32>, tensor<16x1xf32>
}
