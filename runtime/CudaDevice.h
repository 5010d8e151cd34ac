//===- CudaDevice.h - The cuda back end of the step executor ----*- C++ -*-===//
//
// The parts of the cuda Device (Device.h), each in its own file:
//   CudaDevice.cpp  the device: context, stream, memory, launches, copies,
//                   events, and the Device operations built on the parts;
//   CudaModule.cpp  the package's kernels: its cubin for this GPU, or the
//                   source compiled with NVRTC (Nvrtc.h);
//   CudaBlas.cpp    GEMM steps: cuBLAS for plain products, cuBLASLt for
//                   those with an epilogue;
//   CudaGraph.cpp   runs captured once into a CUDA Graph and replayed.
// Internal to the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_CUDADEVICE_H
#define DLC_RUNTIME_CUDADEVICE_H

#include "runtime/CudaLibs.h"
#include "runtime/Device.h"

#include <array>
#include <functional>
#include <string>
#include <vector>

namespace dlc::rt {

/// What the parts of the CUDA back end share: the driver, the device's
/// primary context and the session's stream, and the sticky error that
/// made the context unusable.
///
/// A kernel fault (CUDA_ERROR_ILLEGAL_ADDRESS and the like) is sticky: the
/// context, and so the session, cannot be used again; later runs say so
/// instead of failing in some unrelated call. Every other failure leaves
/// the session usable.
class CudaContext {
public:
  explicit CudaContext(const CudaDriver *cu) : cu(cu) {}

  /// Ok for CUDA_SUCCESS, else "<call> failed[ for <what>]: <error>",
  /// remembered when the error is sticky.
  Status check(CUresult r, const std::string &call,
               const std::string &what = "");
  /// Remembers `message` as what broke the context when `r` is sticky.
  void noteError(CUresult r, const std::string &message);
  /// An error once a sticky error broke the context.
  Status usable() const;
  /// cuMemAlloc of `bytes` (256 for none: zero-sized tensors still get a
  /// valid, distinct address).
  Status allocate(CUdeviceptr &ptr, size_t bytes, const std::string &what);

  const CudaDriver *const cu;
  CUdevice device = 0;
  CUcontext ctx = nullptr;
  CUstream stream = nullptr;

private:
  /// The sticky error that made the context unusable, if any.
  std::string broken_;
};

/// The package's kernels loaded into the context (CudaModule.cpp).
class CudaModule {
public:
  /// Loads the cubin for `arch` ("sm_90") or, without a usable one, the
  /// package's source compiled for it, and finds every kernel.
  Status load(CudaContext &ctx, const Package &pkg, const std::string &arch);
  /// Unloads the module (the context current).
  void unload(const CudaDriver *cu);
  CUfunction function(size_t kernel) const { return functions_[kernel]; }

private:
  CUmodule module_ = nullptr;
  std::vector<CUfunction> functions_;
};

/// The GEMM steps of a package on cuBLAS and cuBLASLt (CudaBlas.cpp).
class CudaBlas {
public:
  CudaBlas(CudaContext &ctx, const Package &pkg) : ctx_(ctx), pkg_(pkg) {}
  /// Loads cuBLAS and makes its handle (once).
  Status initBlas();
  /// Loads cuBLASLt and makes the handle, the heuristic preferences and the
  /// descriptors of every GEMM step with an epilogue.
  Status initLt();
  /// Destroys the handles and descriptors and frees the workspace (the
  /// context current).
  void release();

  /// Enqueues GEMM `g` (of step `i`; no epilogue) as one cuBLAS call.
  Status gemm(size_t i, const GemmStep &g, CUdeviceptr a, CUdeviceptr b,
              CUdeviceptr c);
  /// Enqueues GEMM step `i` (which has an epilogue) as one cuBLASLt call;
  /// false, with nothing enqueued, when cuBLASLt has no algorithm for it
  /// and the step has an epilogue kernel.
  Result<bool> ltGemm(size_t i, const GemmOperands &ops);

private:
  /// A GEMM step with an epilogue: its cuBLASLt descriptors, made once,
  /// and the algorithms chosen so far, one per combination of operand
  /// alignments it ran with (runOnDevice buffers may be less aligned than
  /// the session's own).
  struct LtGemm {
    cublasLtMatmulDesc_t desc = nullptr;
    /// cuBLASLt's A (our B), B (our A), and C and D (same layout).
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, cd = nullptr;
    struct Algo {
      std::array<uint32_t, 5> alignments; ///< A, B, C, D, bias
      cublasLtMatmulAlgo_t algo;
      /// No algorithm for these alignments: the epilogue kernel runs.
      bool fallback = false;
    };
    std::vector<Algo> algos;
  };
  Status checkLt(cublasStatus_t st, const char *call,
                 const std::string &what) const;
  Status makeLtLayout(cublasLtMatrixLayout_t &layout, cudaDataType type,
                      int64_t rows, int64_t cols, int64_t ld, int64_t stride,
                      int64_t batch, const std::string &what);
  /// The workspace cuBLAS and cuBLASLt share, allocated once.
  Status ensureWorkspace();

  CudaContext &ctx_;
  const Package &pkg_;
  CUdeviceptr workspace_ = 0;
  const Cublas *blas_ = nullptr;
  cublasHandle_t blasHandle_ = nullptr;
  const CublasLt *lt_ = nullptr;
  cublasLtHandle_t ltHandle_ = nullptr;
  cublasLtMatmulPreference_t ltPreference_ = nullptr;
  std::vector<LtGemm> ltGemms_;
  /// Index into ltGemms_ per step; -1 for the others.
  std::vector<int> ltIndex_;
};

/// Convolution steps on cuDNN (CudaDnn.cpp): one handle, per step its
/// descriptors and the algorithm cuDNN's heuristics choose, made once when
/// the session starts, and one workspace for all of them, allocated before
/// any graph capture.
class CudaDnn {
public:
  CudaDnn(CudaContext &ctx, const Package &pkg) : ctx_(ctx), pkg_(pkg) {}
  /// Loads cuDNN and makes the handle, the descriptors and algorithms of
  /// every convolution step and the workspace.
  Status init();
  /// Destroys the handle and descriptors and frees the buffers (the context
  /// current).
  void release();
  /// Enqueues convolution step `i`.
  Status conv(size_t i, const ConvOperands &ops);

private:
  struct Conv {
    cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
    cudnnFilterDescriptor_t filter = nullptr;
    cudnnConvolutionDescriptor_t conv = nullptr;
    cudnnActivationDescriptor_t activation = nullptr;
    int algo = 0;
    size_t workspaceBytes = 0;
    /// Zeros for a step with an epilogue but no bias (cuDNN's fused call
    /// takes one).
    CUdeviceptr zeroBias = 0;
  };
  Status check(cudnnStatus_t st, const char *call, size_t step) const;
  Status prepare(size_t step, Conv &c);

  CudaContext &ctx_;
  const Package &pkg_;
  const Cudnn *dnn_ = nullptr;
  cudnnHandle_t handle_ = nullptr;
  CUdeviceptr workspace_ = 0;
  size_t workspaceBytes_ = 0;
  /// Index into convs_ per step; -1 for the others.
  std::vector<int> index_;
  std::vector<Conv> convs_;
};

/// Runs captured into a CUDA Graph and replayed (CudaGraph.cpp). The
/// first run executes the steps directly (which also lets cuBLAS finish
/// its lazy setup); the next one captures them into a graph that later
/// runs replay. A graph bakes in its run's input and output pointers: the
/// graphs of the last kMaxGraphs pointer sets are kept (a training session
/// alternates between two sets of state buffers), an older one is
/// destroyed when a new set is captured.
class CudaGraph {
public:
  static constexpr size_t kMaxGraphs = 2;

  /// Runs `enqueueSteps` on the stream directly (the first run, or every
  /// run when `useGraph` is false), or replays the graph captured for
  /// `pointers`, capturing it first if needed.
  Status execute(CudaContext &ctx, bool useGraph,
                 const std::vector<CUdeviceptr> &pointers,
                 const std::function<Status()> &enqueueSteps);
  /// Whether the next execute() on `pointers` would launch directly or
  /// capture a graph.
  bool pending(const std::vector<CUdeviceptr> &pointers) const;
  /// Destroys the graphs (the context current).
  void release(const CudaDriver *cu);

private:
  struct Captured {
    CUgraphExec exec = nullptr;
    std::vector<CUdeviceptr> pointers;
  };
  /// The index of the graph captured for `pointers`, or graphs_.size().
  size_t find(const std::vector<CUdeviceptr> &pointers) const;

  /// The most recently used last.
  std::vector<Captured> graphs_;
  uint64_t runs_ = 0;
};

} // namespace dlc::rt

#endif // DLC_RUNTIME_CUDADEVICE_H
