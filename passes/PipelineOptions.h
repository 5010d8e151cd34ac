//===- PipelineOptions.h - The knobs of the dlc pipeline --------*- C++ -*-===//
//
// The one list of the pipeline's knobs. `dlc compile`'s flags,
// dlc::CompileOptions, `dlc-opt --dlc-pipeline=...` and the command that
// `dlc compile --print-pipeline` prints are all made from it, so a knob
// added here is one line and reaches all four. No MLIR types: the public
// API (dlc/dlc.h) includes it.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_PASSES_PIPELINEOPTIONS_H
#define DLC_PASSES_PIPELINEOPTIONS_H

#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>

/// X(type, field, default, option, description): `option` names the knob in
/// `--dlc-pipeline=...` and in `dlc compile`'s flags (--no-OPTION turns off
/// one that is on by default, --OPTION=N sets a count). The description is
/// of the knob on, in lower case.
#define DLC_PIPELINE_KNOBS(X)                                                  \
  X(bool, fuse, true, "fuse",                                                  \
    "kernel fusion (without it every op is a kernel of its own)")              \
  X(bool, mergeKernels, true, "merge-kernels",                                 \
    "one launch for independent pointwise kernels of one shape "               \
    "(dlc-merge-kernels; off without fusion)")                                 \
  X(bool, graphRewrites, true, "graph-rewrites",                               \
    "the rewrites around fusion: sibling GEMMs, attention, GEMM epilogues, "   \
    "merged launches (off without fusion)")                                    \
  X(unsigned, maxOpsPerKernel, 0, "max-ops-per-kernel",                        \
    "largest number of operations in one fused kernel (0: dlc-fuse's "         \
    "default)")                                                                \
  X(unsigned, maxOutputsPerKernel, 0, "max-outputs-per-kernel",                \
    "largest number of results one fused kernel writes (0: dlc-fuse's "        \
    "default)")                                                                \
  X(bool, generatedGemm, true, "generated-gemm",                               \
    "generated GEMMs: an f32 matrix product read only by an elementwise "      \
    "kernel computed in that kernel, where that is expected to pay "           \
    "(dlc-fuse-gemm)")                                                         \
  X(double, generatedGemmSpeed, 0.5, "generated-gemm-speed",                   \
    "the generated GEMM's speed over the library's that dlc-fuse-gemm "        \
    "assumes (1: every eligible product is generated)")                        \
  X(bool, planMemory, true, "plan-memory",                                     \
    "memory planning: one arena for the intermediates (code generation "       \
    "needs it)")                                                               \
  X(bool, inPlace, true, "in-place", "in-place kernel outputs")                \
  X(bool, canonicalize, true, "canonicalize",                                  \
    "canonicalization and CSE after lowering")                                 \
  X(std::string, precision, "f32", "precision",                                \
    "storage type of matrix products, attention and convolutions and of what " \
    "follows them: f32, tf32 (f32 with TF32 products), bf16, fp16 or fp8 "     \
    "(E4M3 weight products, bf16 elsewhere; dlc-assign-precision; "            \
    "docs/precision.md)")                                                      \
  X(std::string, layout, "auto", "layout",                                     \
    "layout of 4-D activations around convolutions: auto (per cluster of "     \
    "convolutions, where channels-last pays), nchw (the model's) or nhwc "     \
    "(channels-last; dlc-assign-layout, docs/fusion.md)")                      \
  X(bool, libraryConv, true, "library-conv",                                   \
    "channels-last convolutions other than 1x1 as library convolutions "       \
    "(cuDNN on cuda, a CPU convolution on sim; off: im2col and a GEMM)")       \
  X(std::string, ioPrecision, "declared", "io-precision",                      \
    "type of the model's f32 inputs and outputs under a low precision: "       \
    "declared (as written) or low (bf16, fp16 under fp16; the caller "         \
    "converts)")                                                               \
  X(bool, train, false, "train",                                               \
    "a training step: the loss, its gradients and an optimizer step "          \
    "(dlc-autodiff, dlc-apply-optimizer; docs/training.md)")                   \
  X(std::string, loss, "sum", "loss",                                          \
    "the training loss on the first output: sum, mse or cross_entropy")        \
  X(std::string, optimizer, "sgd", "optimizer",                                \
    "the training optimizer: sgd or adamw")                                    \
  X(double, lr, 1e-3, "lr", "the learning rate")                               \
  X(double, momentum, 0.0, "momentum", "sgd's momentum")                       \
  X(bool, nesterov, false, "nesterov", "sgd's Nesterov momentum")              \
  X(double, weightDecay, -1.0, "weight-decay",                                 \
    "weight decay: L2 in the gradient (sgd), decoupled (adamw); -1: the "      \
    "optimizer's default as PyTorch's (sgd 0, adamw 0.01)")                    \
  X(std::string, betas, "0.9,0.999", "betas",                                  \
    "adamw's moment decays, as beta1,beta2")                                   \
  X(double, eps, 1e-8, "eps", "adamw's epsilon")                               \
  X(double, gradClip, 0.0, "grad-clip",                                        \
    "the largest global 2-norm of the gradients (0: no clipping)")             \
  X(unsigned, accumulate, 1, "accumulate",                                     \
    "micro-batches per optimizer step, their gradients averaged (training)")   \
  X(std::string, lossScale, "auto", "loss-scale",                              \
    "training's loss scaling: auto (dynamic under fp16), dynamic "             \
    "(GradScaler's rules) or none")                                            \
  X(unsigned, dropoutSeed, 0, "dropout-seed",                                  \
    "training's dropout seed (xor'd into each Dropout's own; the masks are "   \
    "Philox streams, docs/training.md)")                                       \
  X(std::string, memoryBudget, "", "memory-budget",                            \
    "the most device memory the step may take (arena, parameters, state, "     \
    "inputs and outputs), as 6GiB, 512MB or bytes: values are recomputed "     \
    "instead of kept where that fits it (dlc-rematerialize, docs/memory.md)")  \
  X(double, activationBudget, 0.0, "activation-budget",                        \
    "the fraction (0, 1] of the keep-everything plan's intermediate memory "   \
    "the step may take (0: no limit; dlc-rematerialize)")

/// Declares the field of an X list's entry (in a struct).
#define DLC_PIPELINE_FIELD(type, field, defaultValue, option, description)     \
  type field = defaultValue;
/// Calls `visit(option, field)` for an X list's entry (in forEach).
#define DLC_PIPELINE_VISIT(type, field, defaultValue, option, description)     \
  visit(option, field);

namespace dlc {

/// The pipeline's knobs, one field per DLC_PIPELINE_KNOBS entry. The graph
/// rewrites, canonicalization and merged launches are turned off only to
/// test that results do not depend on them (dlc-fuzz does).
struct PipelineOptions {
  DLC_PIPELINE_KNOBS(DLC_PIPELINE_FIELD)

  /// Calls `visit(option, value)` for every knob, in the list's order.
  template <typename Visitor> void forEach(Visitor &&visit) const {
    DLC_PIPELINE_KNOBS(DLC_PIPELINE_VISIT)
  }
};

/// Reads "beta1,beta2", each in [0, 1).
inline bool parseBetas(const std::string &text, double &beta1, double &beta2) {
  size_t comma = text.find(',');
  if (comma == std::string::npos)
    return false;
  auto number = [](const std::string &s, double &out) {
    if (s.empty() || s.size() > 64)
      return false;
    char *end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && out >= 0 && out < 1;
  };
  return number(text.substr(0, comma), beta1) &&
         number(text.substr(comma + 1), beta2);
}

/// Reads a byte count: a number with an optional unit (B, KB, MB, GB, TB
/// by powers of 1000; KiB, MiB, GiB, TiB by powers of 1024), at least 1
/// and at most 2^60 bytes; "" is none (0). False when the text is neither.
inline bool parseByteSize(const std::string &text, uint64_t &bytes) {
  bytes = 0;
  if (text.empty())
    return true;
  if (text.size() > 64)
    return false;
  char *end = nullptr;
  double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || !(number > 0))
    return false;
  std::string unit(end);
  static const std::pair<const char *, double> units[] = {
      {"", 1},
      {"B", 1},
      {"KB", 1e3},
      {"MB", 1e6},
      {"GB", 1e9},
      {"TB", 1e12},
      {"KiB", 1024.0},
      {"MiB", 1048576.0},
      {"GiB", 1073741824.0},
      {"TiB", 1099511627776.0}};
  for (auto [name, scale] : units) {
    if (unit != name)
      continue;
    double value = number * scale;
    if (!(value >= 1 && value <= 1152921504606846976.0))
      return false;
    bytes = uint64_t(value);
    return true;
  }
  return false;
}

/// Why the knobs of `options` are wrong, or "" when they are
/// right (dlc compile checks them before any work, the compiler again for
/// the C++ API).
inline std::string checkPipelineOptions(const PipelineOptions &options) {
  const std::string &p = options.precision, &io = options.ioPrecision;
  if (p != "f32" && p != "tf32" && p != "bf16" && p != "fp16" && p != "fp8")
    return "unknown precision '" + p +
           "'; expected f32, tf32, bf16, fp16 or fp8";
  if (io != "declared" && io != "low")
    return "unknown io-precision '" + io + "'; expected declared or low";
  if (io == "low" && (p == "f32" || p == "tf32"))
    return "--io-precision=low needs a low precision (--precision=bf16, "
           "fp16 or fp8), not '" +
           p + "'";
  const std::string &layout = options.layout;
  if (layout != "auto" && layout != "nchw" && layout != "nhwc")
    return "unknown layout '" + layout + "'; expected auto, nchw or nhwc";
  const std::string &loss = options.loss, &opt = options.optimizer;
  if (loss != "sum" && loss != "mse" && loss != "cross_entropy")
    return "unknown loss '" + loss + "'; expected sum, mse or cross_entropy";
  if (opt != "sgd" && opt != "adamw")
    return "unknown optimizer '" + opt + "'; expected sgd or adamw";
  double beta1 = 0, beta2 = 0;
  if (!parseBetas(options.betas, beta1, beta2))
    return "--betas takes two numbers in [0, 1) as beta1,beta2, not '" +
           options.betas + "'";
  auto finiteAtLeastZero = [](double v) { return v >= 0 && v < 1e300; };
  if (!finiteAtLeastZero(options.lr) || !finiteAtLeastZero(options.momentum) ||
      (options.weightDecay != -1 && !finiteAtLeastZero(options.weightDecay)) ||
      !finiteAtLeastZero(options.eps) || !finiteAtLeastZero(options.gradClip))
    return "--lr, --momentum, --weight-decay, --eps and --grad-clip take "
           "finite numbers >= 0";
  if (options.nesterov && (opt != "sgd" || options.momentum <= 0))
    return "--nesterov needs --optimizer=sgd and a --momentum above 0";
  if (opt == "adamw" && options.momentum != 0)
    return "--momentum is sgd's; adamw takes --betas";
  if (opt == "sgd" && (beta1 != 0.9 || beta2 != 0.999 || options.eps != 1e-8))
    return "--betas and --eps are adamw's; sgd takes --momentum";
  if (options.accumulate < 1 || options.accumulate > 65536)
    return "--accumulate takes 1 to 65536 micro-batches";
  if (options.accumulate != 1 && !options.train)
    return "--accumulate needs --train";
  uint64_t budget = 0;
  if (!parseByteSize(options.memoryBudget, budget))
    return "--memory-budget takes a size such as 6GiB, 512MB or a byte "
           "count (at least 1 byte, at most 1EiB), not '" +
           options.memoryBudget + "'";
  if (!(options.activationBudget >= 0 && options.activationBudget <= 1))
    return "--activation-budget takes a fraction in (0, 1] (0: none)";
  if (budget && options.activationBudget > 0)
    return "--memory-budget and --activation-budget are two ways of giving "
           "one budget: give one";
  if (!(options.generatedGemmSpeed > 0 && options.generatedGemmSpeed <= 1))
    return "--generated-gemm-speed takes a fraction in (0, 1]";
  const std::string &scaling = options.lossScale;
  if (scaling != "auto" && scaling != "dynamic" && scaling != "none")
    return "unknown loss-scale '" + scaling +
           "'; expected auto, dynamic or none";
  return "";
}

} // namespace dlc

#endif // DLC_PASSES_PIPELINEOPTIONS_H
