//===- Package.h - The compiled model (.dlcpkg) -------------------*- C++
//-*-===//
//
// A Package is everything the runtime needs to run a compiled model: the CUDA
// source of all kernels and its cubins, the schedule of steps, the arena size
// and the constants. The compiler (codegen/) fills one in; the runtime loads
// and executes it. docs/package-format.md describes the file layout.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_PACKAGE_H
#define DLC_RUNTIME_PACKAGE_H

#include "runtime/Checked.h"
#include "runtime/Status.h"
#include "runtime/Tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace dlc::rt {

/// The format version written by this build. Versions 1 (GEMM steps
/// without epilogues), 2 (without the TF32 flag), 3 (FNV-1a checksum,
/// weights inside the reference model), 4 (kernels without signatures) and
/// 5 (GEMM steps without FP8 types and scales) and 6 (no convolution
/// steps) are still read; other versions are rejected.
constexpr uint32_t kPackageVersion = 7;
/// The oldest format version this build reads.
constexpr uint32_t kOldestPackageVersion = 1;
/// The first format version whose kernels carry their signatures
/// (KernelInfo::params).
constexpr uint32_t kSignatureVersion = 5;
/// The first format version whose GEMM steps carry C's type and the FP8
/// scales (GemmStep::cType, scaleA, scaleB).
constexpr uint32_t kFp8Version = 6;
/// The first format version with convolution steps (Step::Kind::Conv).
constexpr uint32_t kConvVersion = 7;

/// The most threads one kernel launch may have (grid x * y * z times the
/// threads of a block): a generated kernel computes its thread's index as
/// `blockIdx.x * <block size> + threadIdx.x` in int wherever its tensors
/// have fewer than 2^31 - 4096 elements (codegen/PointwiseEmitter.cpp,
/// RowEmitter.cpp), so a larger launch overflows that arithmetic. The code
/// generator keeps every launch within it (a grid-stride loop beyond).
constexpr uint64_t kMaxLaunchThreads = (uint64_t(1) << 31) - 1;

struct TensorDesc {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// The element count; overflowed when a dimension is negative or the
  /// product does not fit in 64 bits.
  Checked elementCount() const;
  /// The byte size; overflowed likewise.
  Checked checkedByteSize() const;
  /// The same for a description validatePackage accepted (whose byte size
  /// fits): for any other they saturate (INT64_MAX, UINT64_MAX), never
  /// wrap.
  int64_t numElements() const;
  uint64_t byteSize() const;
};

/// Where a kernel or library call finds a tensor: an input or output buffer
/// of the run, the arena, or the constant blob, plus a byte offset into it.
struct BufferRef {
  enum class Kind : uint8_t { Input = 0, Output = 1, Arena = 2, Constant = 3 };
  Kind kind = Kind::Arena;
  /// Input or output number for Input/Output; unused otherwise.
  uint32_t index = 0;
  /// Byte offset inside the buffer (the arena or constant offset).
  uint64_t offset = 0;
  /// Bytes the step may touch starting at `offset`.
  uint64_t bytes = 0;
};

/// Launch of kernel `kernel` (an index into Package::kernels). Its parameters
/// are exactly `args`, each passed as a device pointer, in order.
struct KernelStep {
  uint32_t kernel = 0;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedBytes = 0;
  std::vector<BufferRef> args;
  /// Floating-point operations of the kernel's matrix products (flash
  /// attention: 2 * (d + dv) per query-key pair it computes), 0 for a
  /// memory-bound kernel. In the optional section KFLP.
  double flops = 0;
  /// Bytes the kernel reads and writes where that is less than its buffers
  /// in full (a gather or a slice reads only the rows it selects); 0: every
  /// buffer in full. At most the sum of its buffers. In the optional section
  /// KBYT.
  uint64_t bytes = 0;
};

/// The activation at the end of a GEMM (GemmStep::epilogue).
enum class GemmEpilogue : uint8_t {
  None = 0,
  Relu = 1,     ///< max(x, 0)
  GeluTanh = 2, ///< 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
};
/// "none", "relu", "gelu_tanh".
const char *gemmEpilogueName(GemmEpilogue epilogue);

/// Row-major batched matrix product
///   C[b] = alpha * op(A[b]) * op(B[b]) + beta * C[b],  b in [0, batch)
/// where op(A) is M x K (A stored K x M when transA), op(B) is K x N (B stored
/// N x K when transB), C is M x N. lda/ldb/ldc are row strides in elements;
/// strideA/B/C are batch strides in elements (0 broadcasts one matrix).
///
/// With an epilogue (a cuBLASLt call on CUDA), computed in f32 before the
/// result is rounded to C's type once:
///   C[b](i, j) = act(alpha * (op(A[b]) op(B[b]))(i, j) + beta * X[b](i, j)
///                    + bias[j])
/// where X is `addend` when present (laid out like C: ldc, strideC; cuBLASLt's
/// C, with the result its D), else C itself; `bias` is N elements of C's
/// type shared by every row and batch.
struct GemmStep {
  DType dtype = DType::F32;   ///< type of A and B (and of C unless FP8)
  DType accType = DType::F32; ///< accumulation type
  /// Type of C, the bias and the addend of an FP8 product (dtype F8E4M3):
  /// bf16 or f16. Other products' C is of dtype (outType()).
  DType cType = DType::F32;
  /// FP8 dequantization scales of A and B (cuBLASLt's A and B scales,
  /// recorded from calibration): C = alpha * scaleA * scaleB * A * B + ...
  /// Both 1 for other products.
  double scaleA = 1.0, scaleB = 1.0;
  bool transA = false, transB = false;
  int64_t m = 0, n = 0, k = 0, batch = 1;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t strideA = 0, strideB = 0, strideC = 0;
  double alpha = 1.0, beta = 0.0;
  BufferRef a, b, c;
  GemmEpilogue epilogue = GemmEpilogue::None;
  std::optional<BufferRef> bias;
  std::optional<BufferRef> addend;
  /// f32 products on tensor cores: A and B rounded to TF32 (10 mantissa
  /// bits), products accumulated in f32 (cuBLAS's
  /// CUBLAS_COMPUTE_32F_FAST_TF32). Only for dtype F32.
  bool tf32 = false;
  /// A step with an epilogue: the kernel (index into Package::kernels)
  /// that applies bias and activation in place to C, for a device that
  /// runs the product without its epilogue (cuBLASLt without an algorithm
  /// for it, or DLC_GEMM_EPILOGUE_FALLBACK=1): C = alpha * A * B + beta *
  /// addend as a plain GEMM, then the kernel over C's batch * m * n
  /// contiguous elements, kEpilogueThreads threads a block, at most
  /// kEpilogueMaxBlocks blocks (a grid-stride loop); its parameters are C
  /// and the bias. -1: none.
  int32_t epilogueKernel = -1;
  /// Whether the step needs the epilogue path (a bias, an addend or an
  /// activation); plain products run as cuBLAS GEMMs.
  bool hasEpilogue() const {
    return epilogue != GemmEpilogue::None || bias || addend;
  }
  /// Whether A and B are FP8 (a cuBLASLt product on sm_89+).
  bool isFp8() const { return dtype == DType::F8E4M3; }
  /// The type of C, the bias and the addend.
  DType outType() const { return isFp8() ? cType : dtype; }
  /// Whether a GPU runs it as a cuBLASLt matmul (an epilogue, or FP8
  /// operands, which cuBLAS's GEMMs do not take) rather than a cuBLAS GEMM.
  bool usesLt() const { return hasEpilogue() || isFp8(); }
};

/// Threads per block of a GEMM step's epilogue kernel.
constexpr uint32_t kEpilogueThreads = 256;
/// The most blocks the runtime launches an epilogue kernel with.
constexpr uint32_t kEpilogueMaxBlocks = 65535;

/// A convolution on channels-last tensors by a library (cuDNN on cuda, a
/// CPU convolution on sim), with an optional epilogue:
///   y[n, oh, ow, o] = act(sum_{r, s, c} x[n, oh*strideH - padH + r*dilH,
///                                         ow*strideW - padW + s*dilW,
///                                         g*C/G + c] * w[o, r, s, c]
///                         + bias[o] + addend[n, oh, ow, o])
/// with g = o / (K/G); positions outside x read 0. x is [N, H, W, C], w
/// [K, R, S, C/G] (KRSC), y and the addend [N, P, Q, K], the bias K
/// elements, all of `dtype` (f32, f16 or bf16), accumulated in f32 and
/// rounded to y's type once.
struct ConvStep {
  DType dtype = DType::F32;
  int64_t n = 0, h = 0, w = 0, c = 0; ///< input
  int64_t k = 0, r = 0, s = 0;        ///< output channels, filter size
  int64_t p = 0, q = 0;               ///< output height and width
  int64_t groups = 1;
  int64_t strideH = 1, strideW = 1, padH = 0, padW = 0, dilH = 1, dilW = 1;
  BufferRef x, filter, y;
  std::optional<BufferRef> bias, addend;
  /// None or Relu.
  GemmEpilogue epilogue = GemmEpilogue::None;
  /// f32 convolutions on tensor cores with TF32 inputs (cuDNN's default
  /// math); off: exact f32 (CUDNN_FMA_MATH).
  bool tf32 = false;
  bool hasEpilogue() const {
    return epilogue != GemmEpilogue::None || bias || addend;
  }
};

/// Device-to-device copy of `src.bytes` bytes.
struct CopyStep {
  BufferRef src, dst;
};

struct Step {
  enum class Kind : uint8_t { Kernel = 0, Gemm = 1, Copy = 2, Conv = 3 };
  Kind kind = Kind::Kernel;
  KernelStep kernel;
  GemmStep gemm;
  CopyStep copy;
  ConvStep conv;
  /// What the step computes, for errors and profiles ("k3: add+exp+reduce").
  std::string label;
};

/// One parameter of a kernel as compiled: every parameter of a dlc kernel
/// is a pointer to one tensor.
struct KernelParam {
  /// Bytes the kernel may read or write through it, from the address it is
  /// passed: the byte size of the tensor it was compiled for.
  uint64_t bytes = 0;
  /// Whether the kernel writes through it.
  bool writes = false;
  bool operator==(const KernelParam &o) const {
    return bytes == o.bytes && writes == o.writes;
  }
};

/// What a kernel was compiled for: how it is launched and what it takes.
/// validatePackage holds every launch of the kernel to it.
struct KernelSignature {
  bool operator==(const KernelSignature &o) const {
    for (int d = 0; d < 3; ++d)
      if (block[d] != o.block[d] || grid[d] != o.grid[d])
        return false;
    return params == o.params;
  }
  /// The threads of a block, exactly: a kernel's shared arrays and its
  /// mapping of threads to data assume them.
  uint32_t block[3] = {1, 1, 1};
  /// The most blocks it handles in each dimension (the grid it was
  /// compiled for; a launch may have fewer, but blocks past these would
  /// index past its tensors).
  uint32_t grid[3] = {1, 1, 1};
  /// Its parameters, in order.
  std::vector<KernelParam> params;
};

/// One __global__ function of Package::cudaSource.
struct KernelInfo {
  std::string name;
  /// Whether it uses __syncthreads or warp collectives; the sim device runs
  /// kernels without them as plain loops.
  bool usesBarriers = false;
  /// Its signature. Unknown for a kernel read from a package of format
  /// version 1 to 4, which did not record them; validatePackage refuses
  /// such a kernel (docs/package-format.md).
  std::optional<KernelSignature> signature;
};

/// What ptxas reported for one __global__ function of a cubin.
struct KernelResources {
  std::string kernel;
  uint32_t registers = 0;
  /// Per-thread stack frame (local arrays and spilled registers).
  uint32_t stackBytes = 0;
  uint32_t spillStoreBytes = 0;
  uint32_t spillLoadBytes = 0;
  bool spills() const { return spillStoreBytes != 0 || spillLoadBytes != 0; }
};

/// A cubin compiled from cudaSource for one GPU architecture ("sm_90").
struct Cubin {
  std::string arch;
  std::vector<uint8_t> image;
  /// ptxas's report per kernel (optional section KRES; empty in packages
  /// written before it existed).
  std::vector<KernelResources> resources;
};

/// Every constant starts at a multiple of this offset in Package::constants
/// (what cuBLAS and vector loads need of any operand).
constexpr uint64_t kConstantAlignment = 256;

/// A weight of the reference model (a dense_resource blob of referenceIR,
/// which is written without its resources' data), stored once: as a range
/// of Package::constants when the compiled model keeps the same bytes there,
/// else as its own bytes.
struct ReferenceBlob {
  /// The resource's name in referenceIR.
  std::string key;
  uint64_t alignment = 1;
  bool inConstants = false;
  /// The range of Package::constants, when inConstants.
  uint64_t offset = 0, size = 0;
  /// The bytes, otherwise.
  std::vector<uint8_t> data;
};

/// The figures of a compiled model, as `dlc compile --stats-json` writes
/// them (type, member, JSON name); docs/fusion.md defines each, and they
/// stay stable: they are how performance is tracked without a GPU.
#define DLC_PACKAGE_STATS(X)                                                   \
  X(uint64_t, kernels, "kernels")                                              \
  X(uint64_t, gemms, "gemms")                                                  \
  X(uint64_t, attention, "attention")                                          \
  X(uint64_t, convolutions, "convolutions")                                    \
  X(uint64_t, launches, "launches")                                            \
  X(uint64_t, bytesMoved, "bytes_moved")                                       \
  X(uint64_t, minBytes, "min_bytes")                                           \
  X(uint64_t, arenaBytes, "arena_bytes")                                       \
  X(uint64_t, arenaLowerBound, "arena_lower_bound")                            \
  X(uint64_t, intermediateBytes, "intermediate_bytes")                         \
  X(uint64_t, constantBytes, "constant_bytes")                                 \
  X(double, flops, "flops")                                                    \
  X(uint64_t, dataMovementKernels, "data_movement_kernels")                    \
  X(uint64_t, castKernels, "cast_kernels")                                     \
  X(uint64_t, peakBytes, "peak_bytes")                                         \
  X(uint64_t, activationBytesKept, "activation_bytes_kept")                    \
  X(double, recomputeFlops, "recompute_flops")                                 \
  X(uint64_t, gemmKernels, "gemm_kernels")

/// DLC_PACKAGE_STATS as a struct (optional section STAT: name and value
/// pairs, so that a reader skips figures it does not know).
struct PackageStats {
#define DLC_PACKAGE_STATS_FIELD(type, member, name) type member = 0;
  DLC_PACKAGE_STATS(DLC_PACKAGE_STATS_FIELD)
#undef DLC_PACKAGE_STATS_FIELD
};

/// Bytes a step moves: each buffer it references, once per reference (an
/// in-place kernel reads and writes the same bytes: both count), except the
/// parts a kernel does not touch (KernelStep::bytes).
uint64_t stepBytes(const Step &step);
/// Floating-point operations of a step's matrix products: 2 m n k per GEMM
/// batch, a kernel's recorded FLOPs (flash attention).
double stepFlops(const Step &step);

/// A training step's persistent tensor (docs/training.md): a parameter
/// (`trainable`) or an optimizer's state. A step reads it as input `input`
/// and writes its new value as output `output` (same type); its first value
/// is `initial`, a range of the package's constants.
/// The most micro-batches a training step may accumulate.
constexpr uint32_t kMaxMicroBatches = 65536;

struct StateTensor {
  std::string name;
  /// A parameter; else a `buffer` of the model (state its forward pass
  /// updates, saved with the parameters: batch normalization's running
  /// statistics), or else an optimizer's state.
  bool trainable = false;
  uint32_t input = 0, output = 0;
  uint64_t initialOffset = 0, initialBytes = 0;
  bool buffer = false;
};

struct Package {
  /// Name of the compiled function (normally "main").
  std::string entry = "main";
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  /// The model's names of the inputs and outputs (ONNX tensor names), or
  /// empty: `dlc run --input NAME=FILE` binds by these. Either empty or one
  /// per input (output); an unnamed one is "".
  std::vector<std::string> inputNames, outputNames;
  /// The CUDA C++ source of every kernel; it compiles both with NVRTC and
  /// with a host compiler under -DDLC_SIM against runtime/sim/SimShim.h.
  std::string cudaSource;
  std::vector<KernelInfo> kernels;
  std::vector<Cubin> cubins;
  std::vector<Step> steps;
  uint64_t arenaBytes = 0;
  std::vector<uint8_t> constants;
  /// The model in the dlc dialect before fusion, for the reference check
  /// (MLIR bytecode, written and read by the compiler only). Since format
  /// version 4 its resources' data are in referenceBlobs.
  std::string referenceIR;
  std::vector<ReferenceBlob> referenceBlobs;
  /// Summary figures from the compiler, in the summary line of `dlc compile`
  /// and `dlc run` (not with --quiet).
  uint64_t intermediateBytes = 0; ///< sum of all intermediate buffers
  uint32_t sourceOpCount = 0;     ///< dlc ops before fusion
  /// The precision the model was compiled for (`--precision`: "f32",
  /// "tf32", "bf16" or "fp16"; optional section PREC), which sets the
  /// tolerance of `dlc run --check`; empty in a package written before it
  /// was recorded.
  std::string precision;
  /// What the compiler counted (section STAT); absent in a package written
  /// before it was recorded.
  std::optional<PackageStats> stats;
  /// A training step's parameters and optimizer state (optional section
  /// TRST); empty for inference. A training step's output 0 is its loss.
  std::vector<StateTensor> state;
  /// The micro-batches of a training step's optimizer step (`--accumulate`,
  /// optional section TSTP): the step accumulates gradients over this many
  /// runs and updates the parameters on the last (docs/training.md); 1
  /// without accumulation, and for inference.
  uint32_t microBatches = 1;
  /// The output that is 1.0 when a run skipped its update because a
  /// gradient was not finite (dynamic loss scaling; section TSTP), or 0
  /// for none (output 0 is the loss).
  uint32_t skippedOutput = 0;
  /// The format version the package was read from (deserializePackage), or
  /// kPackageVersion for one made in memory. validatePackage requires every
  /// kernel's signature from kSignatureVersion on.
  uint32_t formatVersion = kPackageVersion;
};

/// The device memory a package needs besides its code: the arena, every
/// input and output buffer, and the constants.
struct MemoryNeeds {
  Checked arena, inputs, outputs, constants;
  /// Their sum.
  Checked total() const { return arena + inputs + outputs + constants; }
  /// "arena 1 KiB, inputs 0 bytes, outputs 256 GiB, constants 0 bytes".
  std::string describe() const;
};
MemoryNeeds memoryNeeds(const Package &package);

/// The header's checksum of a payload in format `version`: FNV-1a up to
/// version 3, XXH64 since version 4 (a 57 MB package took 78 ms to check
/// with FNV-1a, 7 ms with XXH64).
uint64_t packageChecksum(uint32_t version, const uint8_t *payload, size_t size);

/// Serializes to the .dlcpkg byte format (kPackageVersion). A kernel
/// without a signature is written with an empty one (no parameters, one
/// block of one thread), which validatePackage then holds its launches to.
std::vector<uint8_t> serializePackage(const Package &package);
/// Parses the .dlcpkg byte format; a corrupt, truncated or other-version
/// package gives an error saying which.
Result<Package> deserializePackage(const std::vector<uint8_t> &bytes);
/// The same, from `size` bytes at `data` (a mapped file, say).
Result<Package> deserializePackage(const uint8_t *data, size_t size);
Status writePackageFile(const std::string &path, const Package &package);
/// Writes an already serialized package (serializePackage's bytes) the way
/// writePackageFile does: a temporary file renamed into place.
Status writePackageBytes(const std::string &path, const uint8_t *data,
                         size_t size);
/// Copies the package file `from` (`size` bytes, already read and checked)
/// to `path` as writePackageBytes writes; the kernel copies the bytes.
Status copyPackageFile(const std::string &from, const std::string &path,
                       uint64_t size);
Result<Package> readPackageFile(const std::string &path);
/// Checks that the package is consistent, so that running it cannot touch
/// memory outside its buffers through anything the runtime computes:
/// every step's buffer references lie inside their buffers and name
/// existing kernels, inputs and outputs; kernel steps pass their kernel's
/// signature (argument count, bytes, no writes to inputs or constants);
/// launches stay within kMaxLaunchThreads, CUDA's limits and one block
/// per byte of their arguments; GEMM operands and epilogue kernels fit
/// their buffers; no size computation overflows. docs/package-format.md
/// lists the rules. What it cannot check is what the kernels' code does
/// (docs/security.md).
Status validatePackage(const Package &package);

/// Inputs for a package when the user gives none (`dlc run --seed N`,
/// dlc-run, dlc-fuzz): uniform in [-1, 1) for floats, 0..7 for integers,
/// 0/1 for booleans, from std::mt19937_64(seed).
std::vector<HostTensor> randomInputs(const Package &package, uint64_t seed);
/// The same for tensors of `descs` (the calibration inputs of a model).
std::vector<HostTensor> randomTensors(const std::vector<TensorDesc> &descs,
                                      uint64_t seed);
/// The relative error accepted against the reference for outputs of `type`.
double defaultTolerance(DType type);
/// Whether `precision` is one a package may record (Package::precision).
bool isKnownPrecision(const std::string &precision);
/// The same for outputs of `package`: f32 outputs of a package compiled
/// with --precision=bf16 or fp16 get that type's tolerance, with tf32 the
/// TF32 tolerance (kTf32Tolerance). A package that does not record its
/// precision is judged by its GEMM steps: bf16 or fp16 storage gives that
/// type's tolerance, the widest when both occur; TF32 steps the TF32 one.
double defaultTolerance(const Package &package, DType type);
/// Relative error accepted for f32 results of TF32 matrix products: inputs
/// rounded to 10 mantissa bits (unit roundoff 2^-11) give errors of ~1e-3
/// by norm, which later layers carry along (the sim sees ~1e-4 on the
/// examples).
constexpr double kTf32Tolerance = 5e-3;
/// Relative error accepted for results of FP8 (E4M3) products: operands
/// rounded to 3 mantissa bits (unit roundoff 2^-4) after per-tensor
/// scaling; measured on the sim device (docs/precision.md).
constexpr double kFp8Tolerance = 0.1;
/// "kernel", "gemm" or "copy".
const char *stepKindName(Step::Kind kind);

} // namespace dlc::rt

#endif // DLC_RUNTIME_PACKAGE_H
