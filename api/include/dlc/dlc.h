//===- dlc.h - The dlc C++ API: compile a model, run it -----------*- C++
//-*-===//
//
// The public entry point for programs that use dlc as a JIT:
//
//   dlc::CompileOptions options;
//   auto package = dlc::compileFile("model.mlir", options);
//   if (!package) { std::cerr << package.message(); return 1; }
//   auto session = dlc::rt::Session::create(*package,
//   {dlc::rt::DeviceKind::Sim}); auto outputs = (*session)->run(inputs);
//
// This header exposes no MLIR or LLVM types.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_DLC_H
#define DLC_DLC_H

#include "passes/PipelineOptions.h"
#include "runtime/Package.h"
#include "runtime/Runtime.h"
#include "runtime/Status.h"
#include "runtime/Tensor.h"
#include "runtime/Training.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dlc {

/// The pipeline's knobs (fuse, maxOpsPerKernel, ...: dlc::PipelineOptions,
/// the same as `dlc compile`'s flags and `dlc-opt --dlc-pipeline=...`
/// take), then what code generation and packaging take.
struct CompileOptions : PipelineOptions {
  /// GPU architectures to compile cubins for; empty means the present GPU's,
  /// or sm_90 without one.
  std::vector<std::string> archs;
  /// Compile cubins with NVRTC at compile time (else on first CUDA load).
  bool compileCubins = true;
  /// f32 matrix products on tensor cores with operands rounded to TF32
  /// (PyTorch's allow_tf32, XLA's default precision); off: full f32.
  bool tf32 = false;
  /// Store the lowered model in the package (MLIR bytecode; its weights are
  /// ranges of the package's constants where the compiled model keeps them
  /// unchanged, else stored beside it) so that `dlc run --check` can compare
  /// a package's outputs with the reference interpreter.
  bool referenceModel = true;
  /// Reuse the package of an earlier compile of the same MLIR text with the
  /// same options, DLC_* environment and compiler (a compile cache under
  /// kernelCacheDir()/packages, like torch.compile's FX graph cache; see
  /// docs/compile-cache.md). `dlc compile` turns it on (`--no-cache` off).
  /// An ONNX model's external data files are checked too.
  bool packageCache = false;
  /// Name of the function to compile.
  std::string entry = "main";
  /// `--precision-report`: measure the relative error of every value the
  /// compiled model stores (GEMM, attention and fused-kernel results)
  /// against the f32 reference interpreter, on calibrationInputs or seeded
  /// inputs, running the model on sim (docs/precision.md). Only for a low
  /// precision (bf16, fp16, fp8).
  bool precisionReport = false;
  /// `--precision-tolerance=T` (0: off): ops that bring in a relative
  /// error above T (measured as for the report) are kept in f32 and the
  /// model is measured again, a few rounds at most.
  double precisionTolerance = 0;
  /// The inputs the report, the tolerance and fp16's range check measure
  /// on; empty: seeded ones (calibrationSeed, as randomInputs makes them).
  std::vector<rt::HostTensor> calibrationInputs;
  uint64_t calibrationSeed = 1;
  /// Static shapes of ONNX graph inputs by name (required for inputs with
  /// dynamic dimensions), as `dlc --input-shape name=1x3x224x224` gives.
  std::map<std::string, std::vector<int64_t>> onnxInputShapes;
};

/// One value of the precision report.
struct PrecisionEntry {
  std::string op; ///< the model's op that computes it ("dlc.matmul")
  /// What stores it in the compiled model: "gemm", "attention" or "kernel".
  std::string kind;
  std::string location; ///< its ONNX node name or file:line:col
  std::string type;     ///< as the compiled model stores it, "bf16[4, 16]"
  /// Relative error (by norm) against the f32 reference interpreter.
  double error = 0;
  /// The error it brings in: error less the largest error of the stored
  /// values it is computed from.
  double localError = 0;
  /// Kept in f32 by the precision tolerance.
  bool keptF32 = false;
};

/// `--precision-report` and `--precision-tolerance`'s account.
struct PrecisionReport {
  std::string precision;
  /// "seeded inputs (seed 1)" or "given inputs".
  std::string inputs;
  double tolerance = 0;
  /// Every stored value, worst first.
  std::vector<PrecisionEntry> entries;
  /// What the tolerance kept in f32, with the local error that made it.
  std::vector<PrecisionEntry> kept;
};
/// The report as `dlc compile --precision-report` prints it.
std::string formatPrecisionReport(const PrecisionReport &report);

/// Compiles MLIR text (TOSA and/or dlc, with a func.func named
/// options.entry). On failure the message holds every diagnostic, each with
/// its `name:line:col` location.
rt::Result<rt::Package> compile(const std::string &mlirText,
                                const CompileOptions &options = {},
                                const std::string &bufferName = "<input>");
/// Compiles a model file: MLIR text, or an ONNX model (`.onnx`, or any
/// file that parses as an ONNX ModelProto), imported first.
rt::Result<rt::Package> compileFile(const std::string &path,
                                    const CompileOptions &options = {});

/// Evaluates the package's model with the double-precision reference
/// interpreter (the oracle of `dlc run --check`).
rt::Result<std::vector<rt::HostTensor>>
runReference(const rt::Package &package,
             const std::vector<rt::HostTensor> &inputs);

/// Deterministic pseudo-random inputs for the package: floats uniform in
/// [-1, 1), integers in [0, 8), booleans fair.
std::vector<rt::HostTensor> randomInputs(const rt::Package &package,
                                         uint64_t seed);

/// The default tolerance of a relative error (by norm) for an output type:
/// 1e-5 for f32 and integers, 1e-2 for f16, 2e-2 for bf16.
double defaultTolerance(rt::DType type);
/// The tolerance for outputs of `package` (TF32 products loosen f32's).
double defaultTolerance(const rt::Package &package, rt::DType type);

/// What the package cache (CompileOptions::packageCache) did in this
/// process.
struct PackageCacheStats {
  uint64_t hits = 0;
  uint64_t misses = 0;
  /// Entries that did not read back whole; removed and compiled again.
  uint64_t corruptEntries = 0;
  /// Entries removed to keep the cache under its size limit.
  uint64_t evicted = 0;
};
PackageCacheStats packageCacheStats();

} // namespace dlc

#endif // DLC_DLC_H
