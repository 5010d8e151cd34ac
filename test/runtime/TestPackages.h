//===- TestPackages.h - Hand-written packages for the session tests -*- C++
//-*-===//
//
// One CUDA source with every test kernel (so the sim compiles it once per
// cache), written the way the code generator writes its output: extern "C"
// __global__ kernels with pointer parameters, and a dlc_sim_entry_<name>
// trampoline per kernel under #ifdef DLC_SIM. It compiles with NVRTC too
// (the GPU tests run it), so it includes nothing outside #ifndef DLC_SIM.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TEST_RUNTIME_TESTPACKAGES_H
#define DLC_TEST_RUNTIME_TESTPACKAGES_H

#include "TestUtil.h"
#include "runtime/Package.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include <string>
#include <vector>

namespace dlc::rt::test {

constexpr int kEwSize = 1000;      ///< k_ew: elements
constexpr int kRowLength = 1000;   ///< k_rowsum, k_warpmax: columns
constexpr int kChainSize = 100000; ///< k_chain: elements
constexpr int kHalfInputs = 4096;  ///< k_half: float inputs

inline const char *testKernelSource() {
  return R"cuda(
// half/bfloat16 conversions: the shim's API under the sim, PTX on a GPU
// (NVRTC has no standard headers, so no cuda_fp16.h). Functions, not
// macros: the sim device accepts no #define but dlc's own.
#ifdef DLC_SIM
__device__ __forceinline__ float HALF_BITS_TO_FLOAT(unsigned short b) {
  return __half2float(__ushort_as_half(b));
}
__device__ __forceinline__ float BF16_BITS_TO_FLOAT(unsigned short b) {
  return __bfloat162float(__ushort_as_bfloat16(b));
}
__device__ __forceinline__ unsigned short FLOAT_TO_HALF_BITS(float f) {
  return __half_as_ushort(__float2half(f));
}
__device__ __forceinline__ unsigned short FLOAT_TO_BF16_BITS(float f) {
  return __bfloat16_as_ushort(__float2bfloat16(f));
}
#else
__device__ __forceinline__ float HALF_BITS_TO_FLOAT(unsigned short h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ float BF16_BITS_TO_FLOAT(unsigned short h) {
  return __uint_as_float((unsigned)h << 16);
}
__device__ __forceinline__ unsigned short FLOAT_TO_HALF_BITS(float f) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ unsigned short FLOAT_TO_BF16_BITS(float f) {
  unsigned short h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
#endif

// Elementwise: out = exp(x) + y * tanh(x) over 1000 elements.
extern "C" __global__ void k_ew(const float *__restrict__ x,
                                const float *__restrict__ y,
                                float *__restrict__ out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 1000)
    out[i] = expf(x[i]) + y[i] * tanhf(x[i]);
}

// Row sums of a [rows, 1000] matrix: one block of 256 threads per row, a
// tree reduction in shared memory.
extern "C" __global__ void __launch_bounds__(256)
k_rowsum(const float *__restrict__ in, float *__restrict__ out) {
  __shared__ float partial[256];
  const int row = blockIdx.x;
  float s = 0.0f;
  for (int c = threadIdx.x; c < 1000; c += blockDim.x)
    s += in[row * 1000 + c];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[row] = partial[0];
}

// Row maxima with warp shuffles: 128 threads (4 warps) per row.
extern "C" __global__ void k_warpmax(const float *__restrict__ in,
                                     float *__restrict__ out) {
  __shared__ float warpMax[4];
  const int row = blockIdx.x;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  float m = -3.0e38f;
  for (int c = threadIdx.x; c < 1000; c += blockDim.x)
    m = fmaxf(m, in[row * 1000 + c]);
  for (int offset = 16; offset > 0; offset /= 2)
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
  if (lane == 0)
    warpMax[warp] = m;
  __syncthreads();
  if (warp == 0) {
    m = lane < 4 ? warpMax[lane] : -3.0e38f;
    for (int offset = 16; offset > 0; offset /= 2)
      m = fmaxf(m, __shfl_down_sync(0xffffffffu, m, offset));
    if (lane == 0)
      out[row] = m;
  }
}

// Every shuffle and vote, written per thread: 8 floats, 3 votes, 1 double.
extern "C" __global__ void k_shfl(const float *__restrict__ in,
                                  float *__restrict__ outf,
                                  unsigned *__restrict__ votes,
                                  double *__restrict__ outd) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const float v = in[t];
  float *o = outf + t * 8;
  o[0] = __shfl_sync(0xffffffffu, v, (lane + 3) % 32);
  o[1] = __shfl_up_sync(0xffffffffu, v, 2);
  o[2] = __shfl_down_sync(0xffffffffu, v, 5);
  o[3] = __shfl_xor_sync(0xffffffffu, v, 7);
  o[4] = __shfl_sync(0xffffffffu, v, 5, 8);
  o[5] = __shfl_up_sync(0xffffffffu, v, 3, 8);
  o[6] = __shfl_down_sync(0xffffffffu, v, 3, 8);
  o[7] = __shfl_xor_sync(0xffffffffu, v, 9, 8);
  unsigned *w = votes + t * 3;
  w[0] = __ballot_sync(0xffffffffu, lane % 3 == 0);
  w[1] = __any_sync(0xffffffffu, v > 0.9f);
  w[2] = __all_sync(0xffffffffu, v >= 0.0f);
  outd[t] = __shfl_xor_sync(0xffffffffu, (double)v * 1.0e10, 1);
  __syncwarp();
}

// Atomics from many blocks at once.
extern "C" __global__ void k_atomics(const float *__restrict__ in,
                                     float *__restrict__ sum,
                                     int *__restrict__ counts,
                                     unsigned long long *__restrict__ big) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  atomicAdd(sum, in[i]);
  atomicAdd(&counts[0], 1);
  atomicMax(&counts[1], i);
  atomicMin(&counts[2], -i);
  atomicAdd(big, (unsigned long long)i);
  if (i == 77)
    atomicExch(&counts[3], 12345);
  atomicCAS(&counts[4], 0, 1);
}

// Coordinates of a 3-D launch: out[global linear id] = encoded coordinates.
extern "C" __global__ void k_coords(int *__restrict__ out) {
  const int block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const int threads = blockDim.x * blockDim.y * blockDim.z;
  const int thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  out[block * threads + thread] = threadIdx.x + 10 * threadIdx.y +
                                  100 * threadIdx.z + 1000 * blockIdx.x +
                                  10000 * blockIdx.y + 100000 * blockIdx.z;
}

// half and bfloat16 conversions: all 65536 bit patterns decoded, and float
// inputs encoded.
extern "C" __global__ void k_half(const unsigned short *__restrict__ bits,
                                  const float *__restrict__ f,
                                  float *__restrict__ halfDecoded,
                                  float *__restrict__ bf16Decoded,
                                  unsigned short *__restrict__ halfEncoded,
                                  unsigned short *__restrict__ bf16Encoded) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 65536) {
    halfDecoded[i] = HALF_BITS_TO_FLOAT(bits[i]);
    bf16Decoded[i] = BF16_BITS_TO_FLOAT(bits[i]);
  }
  if (i < 4096) {
    halfEncoded[i] = FLOAT_TO_HALF_BITS(f[i]);
    bf16Encoded[i] = FLOAT_TO_BF16_BITS(f[i]);
  }
}

// One link of a 20-kernel chain over 100000 elements.
extern "C" __global__ void k_chain(const float *__restrict__ in,
                                   float *__restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 100000)
    out[i] = tanhf(in[i]) * 0.5f + 0.25f;
}

// Broken kernels for the sim's error detection (undefined behaviour on a
// GPU; never run there).
extern "C" __global__ void k_bad_sync(float *__restrict__ out) {
  if (threadIdx.x < 16)
    __syncthreads();
  out[threadIdx.x] = 1.0f;
}
extern "C" __global__ void k_bad_warp(float *__restrict__ out) {
  float v = out[threadIdx.x];
  if (threadIdx.x % 32 < 16)
    v = __shfl_xor_sync(0xffffffffu, v, 1);
  else
    __syncthreads();
  out[threadIdx.x] = v;
}
extern "C" __global__ void k_bad_exit(float *__restrict__ out) {
  if (threadIdx.x >= 8)
    return;
  out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, 1.0f, 1);
}
extern "C" __global__ void k_bad_mask(float *__restrict__ out) {
  out[threadIdx.x] = __shfl_sync(0x1u, 2.0f, 0);
}

#ifdef DLC_SIM
extern "C" void dlc_sim_entry_k_ew(void *const *a) {
  k_ew((const float *)a[0], (const float *)a[1], (float *)a[2]);
}
extern "C" void dlc_sim_entry_k_rowsum(void *const *a) {
  k_rowsum((const float *)a[0], (float *)a[1]);
}
extern "C" void dlc_sim_entry_k_warpmax(void *const *a) {
  k_warpmax((const float *)a[0], (float *)a[1]);
}
extern "C" void dlc_sim_entry_k_shfl(void *const *a) {
  k_shfl((const float *)a[0], (float *)a[1], (unsigned *)a[2], (double *)a[3]);
}
extern "C" void dlc_sim_entry_k_atomics(void *const *a) {
  k_atomics((const float *)a[0], (float *)a[1], (int *)a[2],
            (unsigned long long *)a[3]);
}
extern "C" void dlc_sim_entry_k_coords(void *const *a) {
  k_coords((int *)a[0]);
}
extern "C" void dlc_sim_entry_k_half(void *const *a) {
  k_half((const unsigned short *)a[0], (const float *)a[1], (float *)a[2],
         (float *)a[3], (unsigned short *)a[4], (unsigned short *)a[5]);
}
extern "C" void dlc_sim_entry_k_chain(void *const *a) {
  k_chain((const float *)a[0], (float *)a[1]);
}
extern "C" void dlc_sim_entry_k_bad_sync(void *const *a) { k_bad_sync((float *)a[0]); }
extern "C" void dlc_sim_entry_k_bad_warp(void *const *a) { k_bad_warp((float *)a[0]); }
extern "C" void dlc_sim_entry_k_bad_exit(void *const *a) { k_bad_exit((float *)a[0]); }
extern "C" void dlc_sim_entry_k_bad_mask(void *const *a) { k_bad_mask((float *)a[0]); }
#endif
)cuda";
}

/// The test kernels, without signatures: signKernels() gives them the ones
/// of a package's launches.
inline std::vector<KernelInfo> testKernels() {
  std::vector<KernelInfo> kernels;
  for (auto [name, barriers] :
       std::vector<std::pair<const char *, bool>>{{"k_ew", false},
                                                  {"k_rowsum", true},
                                                  {"k_warpmax", true},
                                                  {"k_shfl", true},
                                                  {"k_atomics", false},
                                                  {"k_coords", false},
                                                  {"k_half", false},
                                                  {"k_chain", false},
                                                  {"k_bad_sync", true},
                                                  {"k_bad_warp", true},
                                                  {"k_bad_exit", true},
                                                  {"k_bad_mask", true}}) {
    KernelInfo k;
    k.name = name;
    k.usesBarriers = barriers;
    kernels.push_back(k);
  }
  return kernels;
}

inline uint32_t kernelIndex(const std::string &name) {
  std::vector<KernelInfo> ks = testKernels();
  for (size_t i = 0; i < ks.size(); ++i)
    if (ks[i].name == name)
      return uint32_t(i);
  return ~0u;
}

inline BufferRef bufferRef(BufferRef::Kind kind, uint32_t index,
                           uint64_t offset, uint64_t bytes) {
  BufferRef r;
  r.kind = kind;
  r.index = index;
  r.offset = offset;
  r.bytes = bytes;
  return r;
}
inline BufferRef inputRef(uint32_t i, uint64_t bytes) {
  return bufferRef(BufferRef::Kind::Input, i, 0, bytes);
}
inline BufferRef outputRef(uint32_t i, uint64_t bytes) {
  return bufferRef(BufferRef::Kind::Output, i, 0, bytes);
}
inline BufferRef arenaRef(uint64_t offset, uint64_t bytes) {
  return bufferRef(BufferRef::Kind::Arena, 0, offset, bytes);
}

inline Step kernelStep(const std::string &name, std::vector<uint32_t> grid,
                       std::vector<uint32_t> block,
                       std::vector<BufferRef> args) {
  Step s;
  s.kind = Step::Kind::Kernel;
  s.label = name;
  s.kernel.kernel = kernelIndex(name);
  for (size_t d = 0; d < 3; ++d) {
    s.kernel.grid[d] = d < grid.size() ? grid[d] : 1;
    s.kernel.block[d] = d < block.size() ? block[d] : 1;
  }
  s.kernel.args = std::move(args);
  return s;
}

/// The parameters a test kernel writes through (the rest it only reads).
inline std::vector<size_t> writtenParams(const std::string &kernel) {
  if (kernel == "k_ew")
    return {2};
  if (kernel == "k_rowsum" || kernel == "k_warpmax" || kernel == "k_chain" ||
      kernel == "k_inc")
    return {1};
  if (kernel == "k_shfl" || kernel == "k_atomics")
    return {1, 2, 3};
  if (kernel == "k_half")
    return {2, 3, 4, 5};
  // k_coords, k_bad_*, gemm_epi0 and the tests' own one-parameter kernels.
  return {0};
}

/// Gives each kernel of `p` without a signature (KernelInfo::signature) the
/// one the code generator would record for it: the block of the steps that
/// launch it (the first one's), the largest grid they launch, and one
/// parameter per argument, each of the fewest bytes they pass, written
/// where the kernel writes (writtenParams); an epilogue kernel of a GEMM
/// step takes C and the bias in blocks of kEpilogueThreads. A kernel no
/// step launches takes nothing. Call it once the steps are in place.
inline Package &signKernels(Package &p) {
  std::vector<std::optional<KernelSignature>> sigs(p.kernels.size());
  auto merge = [&](size_t kernel, const uint32_t(&block)[3],
                   const uint32_t(&grid)[3],
                   const std::vector<uint64_t> &bytes) {
    if (kernel >= sigs.size() || p.kernels[kernel].signature)
      return;
    std::optional<KernelSignature> &sig = sigs[kernel];
    if (!sig) {
      sig.emplace();
      for (int d = 0; d < 3; ++d) {
        sig->block[d] = block[d];
        sig->grid[d] = grid[d];
      }
      sig->params.resize(bytes.size());
      for (size_t a = 0; a < bytes.size(); ++a)
        sig->params[a].bytes = bytes[a];
      for (size_t w : writtenParams(p.kernels[kernel].name))
        if (w < sig->params.size())
          sig->params[w].writes = true;
      return;
    }
    for (int d = 0; d < 3; ++d)
      sig->grid[d] = std::max(sig->grid[d], grid[d]);
    for (size_t a = 0; a < std::min(bytes.size(), sig->params.size()); ++a)
      sig->params[a].bytes = std::min(sig->params[a].bytes, bytes[a]);
  };
  for (const Step &s : p.steps) {
    if (s.kind == Step::Kind::Kernel) {
      std::vector<uint64_t> bytes;
      for (const BufferRef &a : s.kernel.args)
        bytes.push_back(a.bytes);
      merge(s.kernel.kernel, s.kernel.block, s.kernel.grid, bytes);
    } else if (s.kind == Step::Kind::Gemm && s.gemm.epilogueKernel >= 0) {
      const GemmStep &g = s.gemm;
      const uint64_t es = dtypeSize(g.dtype);
      const uint32_t block[3] = {kEpilogueThreads, 1, 1};
      const uint32_t grid[3] = {kEpilogueMaxBlocks, 1, 1};
      merge(size_t(g.epilogueKernel), block, grid,
            {uint64_t(g.batch * g.m * g.n) * es,
             g.bias ? uint64_t(g.n) * es : 0});
    }
  }
  for (size_t k = 0; k < p.kernels.size(); ++k)
    if (!p.kernels[k].signature)
      p.kernels[k].signature = sigs[k] ? *sigs[k] : KernelSignature();
  return p;
}

/// A package with the test source and all its kernels, and no steps yet.
inline Package basePackage() {
  Package p;
  p.cudaSource = testKernelSource();
  p.kernels = testKernels();
  return p;
}

inline Package elementwisePackage() {
  Package p = basePackage();
  const uint64_t bytes = kEwSize * 4;
  p.inputs = {{DType::F32, {kEwSize}}, {DType::F32, {kEwSize}}};
  p.outputs = {{DType::F32, {kEwSize}}};
  p.steps.push_back(kernelStep(
      "k_ew", {(kEwSize + 127) / 128}, {128},
      {inputRef(0, bytes), inputRef(1, bytes), outputRef(0, bytes)}));
  signKernels(p);
  return p;
}

/// Row sums and row maxima of a [rows, 1000] input.
inline Package reductionPackage(int rows) {
  Package p = basePackage();
  const uint64_t in = uint64_t(rows) * kRowLength * 4, out = uint64_t(rows) * 4;
  p.inputs = {{DType::F32, {rows, kRowLength}}};
  p.outputs = {{DType::F32, {rows}}, {DType::F32, {rows}}};
  p.steps.push_back(kernelStep("k_rowsum", {uint32_t(rows)}, {256},
                               {inputRef(0, in), outputRef(0, out)}));
  p.steps.push_back(kernelStep("k_warpmax", {uint32_t(rows)}, {128},
                               {inputRef(0, in), outputRef(1, out)}));
  signKernels(p);
  return p;
}

/// k_shfl on 2 blocks of 64 threads.
inline Package shufflePackage() {
  Package p = basePackage();
  const int n = 128;
  p.inputs = {{DType::F32, {n}}};
  p.outputs = {
      {DType::F32, {n, 8}}, {DType::I32, {n, 3}}, {DType::F32, {n, 2}}};
  p.steps.push_back(kernelStep("k_shfl", {2}, {64},
                               {inputRef(0, n * 4), outputRef(0, n * 32),
                                outputRef(1, n * 12), outputRef(2, n * 8)}));
  signKernels(p);
  return p;
}

/// A chain of `links` k_chain launches over 100000 elements, through the
/// arena.
inline Package chainPackage(int links) {
  Package p = basePackage();
  const uint64_t bytes = kChainSize * 4;
  const uint64_t slot = (bytes + 255) / 256 * 256;
  p.inputs = {{DType::F32, {kChainSize}}};
  p.outputs = {{DType::F32, {kChainSize}}};
  p.arenaBytes = 2 * slot;
  const uint32_t grid = (kChainSize + 255) / 256;
  for (int i = 0; i < links; ++i) {
    BufferRef src =
        i == 0 ? inputRef(0, bytes) : arenaRef((i - 1) % 2 * slot, bytes);
    BufferRef dst =
        i == links - 1 ? outputRef(0, bytes) : arenaRef(i % 2 * slot, bytes);
    p.steps.push_back(kernelStep("k_chain", {grid}, {256}, {src, dst}));
    p.steps.back().label = "k" + std::to_string(i) + ": tanh+mul+add";
  }
  signKernels(p);
  return p;
}

/// C = A x B for A f32[3, 4, 5] (batch 3) and a broadcast B f32[6, 5]
/// (transB, stride 0) into the arena, then a copy to the output, then a
/// second GEMM D = 0.5 * A[0]^T x E + 2 * D... written directly to output 1.
inline Package gemmPackage() {
  Package p;
  p.inputs = {
      {DType::F32, {3, 4, 5}}, {DType::F32, {6, 5}}, {DType::F32, {4, 3}}};
  p.outputs = {{DType::F32, {3, 4, 6}}, {DType::F32, {5, 3}}};
  p.arenaBytes = 3 * 4 * 6 * 4;
  Step g;
  g.kind = Step::Kind::Gemm;
  g.label = "bmm";
  GemmStep &m = g.gemm;
  m.transB = true;
  m.m = 4;
  m.n = 6;
  m.k = 5;
  m.batch = 3;
  m.lda = 5;
  m.ldb = 5;
  m.ldc = 6;
  m.strideA = 20;
  m.strideB = 0;
  m.strideC = 24;
  m.a = inputRef(0, 3 * 4 * 5 * 4);
  m.b = inputRef(1, 6 * 5 * 4);
  m.c = arenaRef(0, p.arenaBytes);
  p.steps.push_back(g);
  Step c;
  c.kind = Step::Kind::Copy;
  c.label = "copy";
  c.copy.src = arenaRef(0, p.arenaBytes);
  c.copy.dst = outputRef(0, p.arenaBytes);
  p.steps.push_back(c);
  // out1 (5x3) = 0.5 * A[1]^T (5x4) x in2 (4x3): transA on the second
  // batch's matrix of input 0.
  Step t;
  t.kind = Step::Kind::Gemm;
  t.label = "matmul-transA";
  GemmStep &n = t.gemm;
  n.transA = true;
  n.m = 5;
  n.n = 3;
  n.k = 4;
  n.lda = 5;
  n.ldb = 3;
  n.ldc = 3;
  n.alpha = 0.5;
  n.a = bufferRef(BufferRef::Kind::Input, 0, 20 * 4, 20 * 4);
  n.b = inputRef(2, 12 * 4);
  n.c = outputRef(1, 15 * 4);
  p.steps.push_back(t);
  return p;
}

/// GEMMs with epilogues (cuBLASLt on CUDA), straight into the outputs:
///   out0 f32[2, 5, 7] = relu(A[b] x B[b]^T + addend[b] + bias), batch 2;
///   out1 f16[4, 9] = gelu_tanh(A^T x B + bias), the bias a constant;
///   out2 bf16[3, 4, 5] = A x B[b] + addend[b], A broadcast (stride 0).
inline Package epiloguePackage() {
  Package p;
  p.inputs = {{DType::F32, {2, 5, 6}}, {DType::F32, {2, 7, 6}},
              {DType::F32, {7}},       {DType::F32, {2, 5, 7}},
              {DType::F16, {6, 4}},    {DType::F16, {6, 9}},
              {DType::BF16, {4, 8}},   {DType::BF16, {3, 8, 5}},
              {DType::BF16, {3, 4, 5}}};
  p.outputs = {
      {DType::F32, {2, 5, 7}}, {DType::F16, {4, 9}}, {DType::BF16, {3, 4, 5}}};
  // The f16 bias: 9 values, k/8 - 0.5.
  for (int i = 0; i < 9; ++i) {
    uint16_t h = floatToHalf(float(i) / 8.0f - 0.5f);
    p.constants.push_back(uint8_t(h));
    p.constants.push_back(uint8_t(h >> 8));
  }
  Step s;
  s.kind = Step::Kind::Gemm;
  s.label = "gemm relu";
  GemmStep &g = s.gemm;
  g.transB = true;
  g.m = 5;
  g.n = 7;
  g.k = 6;
  g.batch = 2;
  g.lda = 6;
  g.ldb = 6;
  g.ldc = 7;
  g.strideA = 30;
  g.strideB = 42;
  g.strideC = 35;
  g.beta = 1.0;
  g.a = inputRef(0, 240);
  g.b = inputRef(1, 336);
  g.c = outputRef(0, 280);
  g.bias = inputRef(2, 28);
  g.addend = inputRef(3, 280);
  g.epilogue = GemmEpilogue::Relu;
  p.steps.push_back(s);

  Step t;
  t.kind = Step::Kind::Gemm;
  t.label = "gemm gelu";
  GemmStep &h = t.gemm;
  h.dtype = DType::F16;
  h.transA = true;
  h.m = 4;
  h.n = 9;
  h.k = 6;
  h.lda = 4;
  h.ldb = 9;
  h.ldc = 9;
  h.a = inputRef(4, 48);
  h.b = inputRef(5, 108);
  h.c = outputRef(1, 72);
  h.bias = bufferRef(BufferRef::Kind::Constant, 0, 0, 18);
  h.epilogue = GemmEpilogue::GeluTanh;
  p.steps.push_back(t);

  Step u;
  u.kind = Step::Kind::Gemm;
  u.label = "gemm residual";
  GemmStep &r = u.gemm;
  r.dtype = DType::BF16;
  r.m = 4;
  r.n = 5;
  r.k = 8;
  r.batch = 3;
  r.lda = 8;
  r.ldb = 5;
  r.ldc = 5;
  r.strideA = 0;
  r.strideB = 40;
  r.strideC = 20;
  r.beta = 1.0;
  r.a = inputRef(6, 64);
  r.b = inputRef(7, 240);
  r.c = outputRef(2, 120);
  r.addend = inputRef(8, 120);
  p.steps.push_back(u);
  return p;
}

/// An FP8 product as dlc-assign-precision writes one (cuBLASLt on CUDA):
///   out0 bf16[8, 16] = 0.5 * 0.25 * (x f8e4m3[8, 32] x w f8e4m3[16, 32]^T)
///                      + bias bf16[16],
/// the per-tensor scales folded into alpha.
inline Package fp8Package() {
  Package p;
  p.inputs = {
      {DType::F8E4M3, {8, 32}}, {DType::F8E4M3, {16, 32}}, {DType::BF16, {16}}};
  p.outputs = {{DType::BF16, {8, 16}}};
  Step s;
  s.kind = Step::Kind::Gemm;
  s.label = "gemm fp8";
  GemmStep &g = s.gemm;
  g.dtype = DType::F8E4M3;
  g.cType = DType::BF16;
  g.transB = true;
  g.m = 8;
  g.n = 16;
  g.k = 32;
  g.lda = 32;
  g.ldb = 32;
  g.ldc = 16;
  g.scaleA = 0.5;
  g.scaleB = 0.25;
  g.a = inputRef(0, 256);
  g.b = inputRef(1, 512);
  g.c = outputRef(0, 256);
  g.bias = inputRef(2, 32);
  p.steps.push_back(s);
  return p;
}

/// Inputs of fp8Package(): E4M3 values uniform in [-8, 8), a bias in
/// [-1, 1).
inline std::vector<HostTensor> fp8Inputs(uint64_t seed = 37) {
  std::vector<HostTensor> in;
  Rng rng(seed);
  for (const TensorDesc &d : fp8Package().inputs) {
    HostTensor t(d.dtype, d.shape);
    const float range = d.dtype == DType::F8E4M3 ? 8.0f : 1.0f;
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.setFromDouble(i, rng.uniform(-range, range));
    in.push_back(std::move(t));
  }
  return in;
}

/// The f32 step of epiloguePackage() alone, with its epilogue kernel
/// (GemmStep::epilogueKernel), written as the compiler writes them, for a
/// device that runs the product without cuBLASLt.
inline Package epilogueFallbackPackage() {
  Package full = epiloguePackage();
  Package p;
  p.inputs.assign(full.inputs.begin(), full.inputs.begin() + 4);
  p.outputs = {full.outputs[0]};
  p.steps = {full.steps[0]};
  p.steps[0].gemm.epilogueKernel = 0;
  p.kernels = {{"gemm_epi0", /*usesBarriers=*/false, std::nullopt}};
  p.cudaSource = R"cuda(
extern "C" __global__ void __launch_bounds__(256) gemm_epi0(float* __restrict__ c, const float* __restrict__ bias) {
  for (long long i = (long long)blockIdx.x * 256 + threadIdx.x; i < 70LL; i += (long long)gridDim.x * 256) {
    float x = (c[i]);
    x += (bias[i % 7LL]);
    x = fmaxf(x, 0.0f);
    c[i] = (x);
  }
}
#ifdef DLC_SIM
extern "C" void dlc_sim_entry_gemm_epi0(void* const* args) {
  gemm_epi0((float*)args[0], (const float*)args[1]);
}
#endif
)cuda";
  signKernels(p);
  return p;
}

/// Convolution steps (library convolutions, channels-last): an f32 one with
/// groups, stride, padding, a bias, a residual and relu (cuDNN's fused call),
/// an f32 plain one with dilation, and a bf16 plain one. Every operand is an
/// input, so tests choose the values.
inline Package convPackage() {
  Package p;
  p.inputs = {{DType::F32, {2, 6, 6, 4}}, {DType::F32, {8, 3, 3, 2}},
              {DType::F32, {8}},          {DType::F32, {2, 3, 3, 8}},
              {DType::F32, {3, 3, 3, 4}}, {DType::BF16, {1, 5, 5, 3}},
              {DType::BF16, {4, 3, 3, 3}}};
  p.outputs = {{DType::F32, {2, 3, 3, 8}},
               {DType::F32, {2, 2, 2, 3}},
               {DType::BF16, {1, 5, 5, 4}}};
  auto conv = [&](const char *label) -> ConvStep & {
    Step s;
    s.kind = Step::Kind::Conv;
    s.label = label;
    p.steps.push_back(s);
    return p.steps.back().conv;
  };
  ConvStep &a = conv("conv 3x3/2 bias+addend+relu");
  a.n = 2, a.h = 6, a.w = 6, a.c = 4, a.k = 8, a.r = 3, a.s = 3, a.p = 3;
  a.q = 3, a.groups = 2, a.strideH = 2, a.strideW = 2, a.padH = 1, a.padW = 1;
  a.x = inputRef(0, 2 * 6 * 6 * 4 * 4);
  a.filter = inputRef(1, 8 * 3 * 3 * 2 * 4);
  a.bias = inputRef(2, 8 * 4);
  a.addend = inputRef(3, 2 * 3 * 3 * 8 * 4);
  a.y = outputRef(0, 2 * 3 * 3 * 8 * 4);
  a.epilogue = GemmEpilogue::Relu;
  ConvStep &b = conv("conv 3x3 dilated");
  b.n = 2, b.h = 6, b.w = 6, b.c = 4, b.k = 3, b.r = 3, b.s = 3, b.p = 2;
  b.q = 2, b.dilH = 2, b.dilW = 2;
  b.x = inputRef(0, 2 * 6 * 6 * 4 * 4);
  b.filter = inputRef(4, 3 * 3 * 3 * 4 * 4);
  b.y = outputRef(1, 2 * 2 * 2 * 3 * 4);
  ConvStep &c = conv("conv 3x3 bf16");
  c.dtype = DType::BF16;
  c.n = 1, c.h = 5, c.w = 5, c.c = 3, c.k = 4, c.r = 3, c.s = 3, c.p = 5;
  c.q = 5, c.padH = 1, c.padW = 1;
  c.x = inputRef(5, 5 * 5 * 3 * 2);
  c.filter = inputRef(6, 4 * 3 * 3 * 3 * 2);
  c.y = outputRef(2, 5 * 5 * 4 * 2);
  return p;
}

/// convPackage()'s outputs computed directly (in double) from `in`, rounded
/// to the outputs' types.
inline std::vector<HostTensor>
convReference(const std::vector<HostTensor> &in) {
  Package p = convPackage();
  std::vector<HostTensor> out;
  const int inputOf[3][5] = {{0, 1, 2, 3}, {0, 4, -1, -1}, {5, 6, -1, -1}};
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const ConvStep &c = p.steps[i].conv;
    const HostTensor &x = in[inputOf[i][0]], &w = in[inputOf[i][1]];
    HostTensor y(p.outputs[i].dtype, p.outputs[i].shape);
    int64_t cg = c.c / c.groups, kg = c.k / c.groups;
    for (int64_t n = 0; n < c.n; ++n)
      for (int64_t oh = 0; oh < c.p; ++oh)
        for (int64_t ow = 0; ow < c.q; ++ow)
          for (int64_t k = 0; k < c.k; ++k) {
            double acc = 0;
            for (int64_t r = 0; r < c.r; ++r)
              for (int64_t s = 0; s < c.s; ++s) {
                int64_t ih = oh * c.strideH - c.padH + r * c.dilH;
                int64_t iw = ow * c.strideW - c.padW + s * c.dilW;
                if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w)
                  continue;
                for (int64_t ch = 0; ch < cg; ++ch)
                  acc += x.getAsDouble(((n * c.h + ih) * c.w + iw) * c.c +
                                       k / kg * cg + ch) *
                         w.getAsDouble(((k * c.r + r) * c.s + s) * cg + ch);
              }
            int64_t o = ((n * c.p + oh) * c.q + ow) * c.k + k;
            if (c.bias)
              acc += in[inputOf[i][2]].getAsDouble(k);
            if (c.addend)
              acc += in[inputOf[i][3]].getAsDouble(o);
            if (c.epilogue == GemmEpilogue::Relu)
              acc = std::max(acc, 0.0);
            y.setFromDouble(o, acc);
          }
    out.push_back(std::move(y));
  }
  return out;
}

/// Inputs of epiloguePackage(), uniform in [-2, 2) (rounded to f16/bf16).
inline std::vector<HostTensor> epilogueInputs(uint64_t seed = 31) {
  std::vector<HostTensor> in;
  Rng rng(seed);
  for (const TensorDesc &d : epiloguePackage().inputs) {
    HostTensor t(d.dtype, d.shape);
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.setFromDouble(i, rng.uniform(-2.0f, 2.0f));
    in.push_back(std::move(t));
  }
  return in;
}

/// k_half over all 65536 bit patterns and 4096 float inputs.
inline Package halfPackage() {
  Package p = basePackage();
  p.inputs = {{DType::I32, {32768}}, {DType::F32, {kHalfInputs}}};
  p.outputs = {{DType::F32, {65536}},
               {DType::F32, {65536}},
               {DType::F16, {kHalfInputs}},
               {DType::BF16, {kHalfInputs}}};
  p.steps.push_back(kernelStep(
      "k_half", {256}, {256},
      {inputRef(0, 131072), inputRef(1, kHalfInputs * 4),
       outputRef(0, 65536 * 4), outputRef(1, 65536 * 4),
       outputRef(2, kHalfInputs * 2), outputRef(3, kHalfInputs * 2)}));
  signKernels(p);
  return p;
}

inline std::vector<HostTensor> halfInputs() {
  HostTensor bits(DType::I32, {32768}); // 65536 u16 values
  for (uint32_t i = 0; i < 65536; ++i) {
    uint16_t b = uint16_t(i);
    std::memcpy(bits.data.data() + 2 * i, &b, 2);
  }
  HostTensor f(DType::F32, {kHalfInputs});
  Rng rng(11);
  for (int i = 0; i < kHalfInputs; ++i) {
    uint32_t u = rng.bits32();
    if (i % 4 == 0) // plenty of values near the f16 range
      u = (u & 0x807fffffu) | ((100u + rng.bits32() % 50u) << 23);
    float v;
    std::memcpy(&v, &u, 4);
    std::memcpy(f.data.data() + 4 * i, &v, 4);
  }
  return {bits, f};
}

} // namespace dlc::rt::test

#endif // DLC_TEST_RUNTIME_TESTPACKAGES_H
