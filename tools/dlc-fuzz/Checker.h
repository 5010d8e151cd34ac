//===- Checker.h - Differential check of one program --------------*- C++
//-*-===//
//
// Compiles a program under several configurations, runs it on the sim device
// (and on a GPU when asked), and compares every output with the reference
// interpreter. The check runs in the calling process; dlc-fuzz runs each
// check in a child process so that a crash is a reported failure.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TOOLS_FUZZ_CHECKER_H
#define DLC_TOOLS_FUZZ_CHECKER_H

#include "runtime/Package.h"
#include "runtime/Tensor.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dlc::fuzz {

/// Why a check failed.
struct Failure {
  /// "compile", "run", "mismatch", "lowering", "reference", "crash",
  /// "timeout".
  std::string kind;
  /// The configuration: "sim", "sim no-fuse", "sim no-in-place", "cuda", ...,
  /// or "-" where none applies.
  std::string config;
  std::string message;

  /// One line: "[config] kind: message" (the message's first lines).
  std::string describe() const;
  /// Tab-separated for the pipe between child and parent.
  std::string serialize() const;
  static Failure deserialize(const std::string &text);
};

struct CheckOptions {
  /// Also run on the GPU.
  bool cuda = false;
  /// Only the configurations whose names are listed (all when empty).
  std::vector<std::string> onlyConfigs;
  /// Skip the TOSA-versus-dlc lowering comparison.
  bool skipLowering = false;
  /// Corrupt one element of the first output of every device run: a test
  /// of the checker itself, which must then report a mismatch.
  bool injectError = false;
  /// Told what the check is about to do ("compile sim no-fuse"), so that a
  /// crash can be placed.
  std::function<void(const std::string &)> progress;
};

/// Tolerance of the relative error by norm for outputs of `type`: 1e-4 f32,
/// 2e-2 f16, 4e-2 bf16; integers and booleans compare exactly.
double fuzzTolerance(rt::DType type);

/// Compares `got` with the reference `expected`; a message if they differ.
std::optional<std::string> compareOutput(const rt::HostTensor &got,
                                         const rt::HostTensor &expected);

/// Only lowers both forms and evaluates them with the reference interpreter
/// (no code generation): finite results, and the two forms agree. `inputs`
/// describes the arguments.
std::optional<Failure>
checkReferenceOnly(const std::string &mlirText, const std::string &dlcOnlyText,
                   const std::vector<rt::TensorDesc> &inputs,
                   uint64_t inputSeed);

/// Checks the gradient of `mlirText`'s f32 results (weighted and summed)
/// with respect to its f32 arguments, built from the ops' rules after
/// lowering, against central differences of the reference interpreter at
/// inputs like checkReferenceOnly's (passes/GradientCheck.h; at most 16
/// elements of each argument). `checked` says whether it was checked: not
/// when an op on the gradient's path has no rule, a value is rounded to a
/// 16-bit type (the differences see a staircase), or there is no f32
/// result.
std::optional<Failure>
checkGradientsOf(const std::string &mlirText,
                 const std::vector<rt::TensorDesc> &inputs, uint64_t inputSeed,
                 bool &checked);
/// Checks `mlirText` on inputs dlc::randomInputs(package, inputSeed). When
/// `dlcOnlyText` is not empty it is the same program written in dlc only:
/// its lowered form must give the same reference results.
/// Outputs that differ by more than their tolerance but within their
/// rounding sensitivity (see Checker.cpp) pass and are listed in `notes`.
std::optional<Failure>
checkProgramText(const std::string &mlirText, const std::string &dlcOnlyText,
                 uint64_t inputSeed, const CheckOptions &options,
                 std::vector<std::string> *notes = nullptr);

} // namespace dlc::fuzz

#endif // DLC_TOOLS_FUZZ_CHECKER_H
