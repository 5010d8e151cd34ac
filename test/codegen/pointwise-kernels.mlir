// RUN: dlc-opt %s --split-input-file --dlc-test-codegen="print-source=true reference=false" | FileCheck %s
// RUN: dlc-opt %s --split-input-file --dlc-test-codegen -o /dev/null
// The pointwise template: each thread computes 4 consecutive f32 elements
// with one 16-byte load of every input read at the output's own index, and
// one 16-byte store, when one test finds every such pointer aligned; else
// the same body element by element (a loop not unrolled, so that its loads
// do not all stay in registers). A broadcast row vector is read per
// element; splat constants are literals.
// The kernels of pointwise.mlir as `dlc compile pointwise.mlir --emit=fused
// --no-merge-kernels` forms them; the second RUN line builds their package and
// runs the reference interpreter on them.

// CHECK: __device__ __forceinline__ float dlc_h2f(unsigned short h)
// CHECK: asm("cvt.f32.f16 %0, %1;"
// CHECK: __device__ __forceinline__ unsigned short dlc_f2h(float f)
// CHECK: asm("cvt.rn.f16.f32 %0, %1;"
// CHECK-NOT: #include

// CHECK-LABEL: // k0: add+mul+exp (pointwise, 8192 elements, 4 per thread;
// CHECK: extern "C" __global__ void k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out0) {
// CHECK-NEXT: const int tid = (int)blockIdx.x * 256 + (int)threadIdx.x;
// CHECK-NEXT: if (tid < 2048) {
// CHECK-NEXT: const int base = tid * 4;
// CHECK-NEXT: const int il = base % 128;
// CHECK-NEXT: if (((reinterpret_cast<unsigned long long>(in0) & 15ull) | (reinterpret_cast<unsigned long long>(out0) & 15ull)) == 0) {
// CHECK-NEXT: alignas(16) float y0[4];
// CHECK-NEXT: alignas(16) float x0[4];
// CHECK-NEXT: dlc_copy16(x0 + 0, in0 + base + 0);
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: for (int v = 0; v < 4; ++v) {
// CHECK-NEXT: const int i1 = il + v;
// CHECK-NEXT: const float [[X:v[0-9]+]] = x0[v];
// CHECK-NEXT: const float [[B:v[0-9]+]] = in1[i1];
// CHECK-NEXT: const float [[S:v[0-9]+]] = [[X]] + [[B]];
// CHECK-NEXT: const float [[M:v[0-9]+]] = [[S]] * 2.0f;
// CHECK-NEXT: const float [[E:v[0-9]+]] = expf([[M]]);
// CHECK-NEXT: y0[v] = [[E]];
// CHECK-NEXT: }
// CHECK-NEXT: dlc_copy16(out0 + base + 0, y0 + 0);
// CHECK-NEXT: }
// CHECK-NEXT: else {
// CHECK-NEXT: #pragma unroll 1
// CHECK-NEXT: for (int v = 0; v < 4; ++v) {
// CHECK-NEXT: const int i1 = il + v;
// CHECK-NEXT: const float [[X2:v[0-9]+]] = in0[base + v];
// CHECK-NEXT: const float [[B2:v[0-9]+]] = in1[i1];
// CHECK-NEXT: const float [[S2:v[0-9]+]] = [[X2]] + [[B2]];
// CHECK-NEXT: const float [[M2:v[0-9]+]] = [[S2]] * 2.0f;
// CHECK-NEXT: const float [[E2:v[0-9]+]] = expf([[M2]]);
// CHECK-NEXT: out0[base + v] = [[E2]];
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: #ifdef DLC_SIM
// CHECK-NEXT: extern "C" void dlc_sim_entry_k0(void* const* args) {
// CHECK-NEXT: k0((const float*)args[0], (const float*)args[1], (float*)args[2]);
// CHECK-NEXT: }
// CHECK-NEXT: #endif

// f16 output: 8 elements per thread; the f32 input needs two 16-byte loads.
// The outer index is the same for the 8 elements (128 % 8 == 0).
// CHECK-LABEL: // k1: tanh+cast (pointwise, 8192 elements, 8 per thread;
// CHECK: extern "C" __global__ void k1(const float* __restrict__ in0, unsigned short* __restrict__ out0) {
// CHECK: if (tid < 1024) {
// CHECK: alignas(16) float x0[8];
// CHECK: dlc_copy16(x0 + 0, in0 + base + 0);
// CHECK-NEXT: dlc_copy16(x0 + 4, in0 + base + 4);
// CHECK: for (int v = 0; v < 8; ++v) {
// CHECK: const float [[T:v[0-9]+]] = tanhf(
// CHECK: const float [[R:v[0-9]+]] = dlc_round_f16([[T]]);
// CHECK: y0[v] = dlc_f2h([[R]]);
// CHECK: dlc_copy16(out0 + base + 0, y0 + 0);

// Small or odd sizes: one element per thread, plain loads and stores.
// CHECK-LABEL: // k2: sub (pointwise, 15 elements, 1 per thread;
// CHECK: extern "C" __global__ void k2(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out0) {
// CHECK-NEXT: const int tid = (int)blockIdx.x * 32 + (int)threadIdx.x;
// CHECK-NEXT: if (tid < 15) {
// CHECK-NEXT: const int i0 = (tid) / 5;
// CHECK-NEXT: const float [[A:v[0-9]+]] = in0[tid];
// CHECK-NEXT: const float [[B:v[0-9]+]] = in1[i0];
// CHECK-NEXT: const float [[D:v[0-9]+]] = [[A]] - [[B]];
// CHECK-NEXT: out0[tid] = [[D]];

func.func @main(%x: tensor<64x128xf32>, %b: tensor<1x128xf32>, %u: tensor<3x5xf32>, %w: tensor<3x1xf32>) -> (tensor<64x128xf32>, tensor<64x128xf16>, tensor<3x5xf32>) attributes {dlc.arena_bytes = 0 : i64, dlc.intermediate_bytes = 0 : i64} {
  %k0 = dlc.kernel(%x, %b) {dlc.offsets = array<i64: -1>} : (tensor<64x128xf32>, tensor<1x128xf32>) -> tensor<64x128xf32> {
  ^bb0(%a0: tensor<64x128xf32>, %a1: tensor<1x128xf32>):
    %0 = dlc.constant dense<2.000000e+00> : tensor<64x128xf32>
    %1 = dlc.add %a0, %a1 : (tensor<64x128xf32>, tensor<1x128xf32>) -> tensor<64x128xf32>
    %2 = dlc.mul %1, %0 : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
    %3 = dlc.exp %2 : tensor<64x128xf32>
    dlc.yield %3 : tensor<64x128xf32>
  }
  %k1 = dlc.kernel(%x) {dlc.offsets = array<i64: -1>} : (tensor<64x128xf32>) -> tensor<64x128xf16> {
  ^bb0(%a0: tensor<64x128xf32>):
    %0 = dlc.tanh %a0 : tensor<64x128xf32>
    %1 = dlc.cast %0 : tensor<64x128xf32> -> tensor<64x128xf16>
    dlc.yield %1 : tensor<64x128xf16>
  }
  %k2 = dlc.kernel(%u, %w) {dlc.offsets = array<i64: -1>} : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32> {
  ^bb0(%a0: tensor<3x5xf32>, %a1: tensor<3x1xf32>):
    %0 = dlc.sub %a0, %a1 : (tensor<3x5xf32>, tensor<3x1xf32>) -> tensor<3x5xf32>
    dlc.yield %0 : tensor<3x5xf32>
  }
  return %k0, %k1, %k2 : tensor<64x128xf32>, tensor<64x128xf16>, tensor<3x5xf32>
}
