//===- SimSourceCheck.h - The text the sim device compiles ------*- C++ -*-===//
//
// The sim device compiles a package's CUDA source with the host C++ compiler
// and loads the result into the process, and a package is input that anyone
// may have written. So the source is checked before anything is written or
// compiled: only the forms dlc's code generator writes are accepted (the
// rules are listed at the top of SimSourceCheck.cpp), and the compiler gets
// the text with its preprocessor directives resolved (DLC_SIM defined) and
// blanked, with `-nostdinc`. docs/sim.md and docs/security.md describe it.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_SIMSOURCECHECK_H
#define DLC_RUNTIME_SIMSOURCECHECK_H

#include "runtime/Status.h"

#include <cstddef>
#include <string>
#include <vector>

namespace dlc::rt {

/// An `extern "C" __global__` kernel that a checked source defines.
struct SimKernelSignature {
  std::string name;
  /// Its parameters, every one a pointer.
  size_t params = 0;
  /// Whether the source also defines its trampoline dlc_sim_entry_<name>
  /// (which passes exactly `params` arguments).
  bool hasTrampoline = false;
};

/// A CUDA source that checkSimSource accepted; nothing else can be compiled
/// for the sim device (buildSimKernelLibrary takes one).
class CheckedSimSource {
public:
  /// What the host compiler gets: the source with its comments, its
  /// preprocessor directives and the lines that they exclude under DLC_SIM
  /// replaced by spaces, so that every token keeps its line and column.
  const std::string &text() const { return text_; }
  /// The kernels in order of definition.
  const std::vector<SimKernelSignature> &kernels() const { return kernels_; }
  /// The kernel named `name`, or null.
  const SimKernelSignature *kernel(const std::string &name) const;

private:
  friend Result<CheckedSimSource> checkSimSource(const std::string &source);
  CheckedSimSource() = default;
  std::string text_;
  std::vector<SimKernelSignature> kernels_;
};

/// What every error of checkSimSource begins with.
constexpr const char kSimSourceRejected[] =
    "sim: the package's CUDA source is not dlc's: ";

/// Checks `source` (a package's cudaSource) against the rules of
/// SimSourceCheck.cpp. An error names the first offending token:
/// "sim: the package's CUDA source is not dlc's: line 12:3:
/// '__attribute__' is not allowed".
Result<CheckedSimSource> checkSimSource(const std::string &source);

/// A name that checked text may take from the sim shim (or, with `builtin`,
/// from the compiler itself): the one table the checker reads, here for the
/// test that every shim name is one that runtime/sim/SimShim.h declares.
struct SimShimName {
  const char *name;
  bool builtin;
};
const std::vector<SimShimName> &simShimNames();

} // namespace dlc::rt

#endif // DLC_RUNTIME_SIMSOURCECHECK_H
