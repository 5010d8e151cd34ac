//===- FaultInjection.h - Injected failures for tests -----------*- C++ -*-===//
//
// Every place where the runtime can fail for reasons outside its control
// (a CUDA driver, NVRTC or cuBLAS call, a library that does not load, the
// host compiler of the sim device, a host allocation, a package or cache
// file on disk, a kernel that faults) is a named fault site. A test, or a
// user reproducing a bug report, arms sites and the runtime then takes its
// real error path there: a CUDA call returns the error code that API really
// returns (CUDA_ERROR_OUT_OF_MEMORY for cuMemAlloc), a package file reads
// back truncated, the host compiler "exits" with status 1.
//
// Armed from the environment (read once, at the first site reached):
//   DLC_FAULT_INJECT=<site>[:<nth>[+]][,<site>[:<nth>[+]]...]
// fails the nth call (1-based, default 1) of each site counted from the
// start of the process; `nth+` fails the nth and every later call. Or from
// code with inject()/clear() below. docs/reliability.md lists the sites.
//
// Internal to the runtime and its tests. When nothing is armed a site costs
// one relaxed atomic load.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_FAULTINJECTION_H
#define DLC_RUNTIME_FAULTINJECTION_H

#include "runtime/Status.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace dlc::rt::fault {

namespace detail {
/// -1: the environment was not read yet; 0: nothing armed; 1: armed.
extern std::atomic<int> gState;
bool shouldFailSlow(const char *site);
} // namespace detail

/// Whether the current call of `site` fails. Counts the calls of armed
/// sites; unarmed sites are not counted.
inline bool shouldFail(const char *site) {
  if (detail::gState.load(std::memory_order_relaxed) == 0)
    return false;
  return detail::shouldFailSlow(site);
}

/// Arms `site`: its nth call from now fails (1-based), and the `times - 1`
/// calls after it (times = 0: every call from the nth on). Re-arming a site
/// restarts its count. Errors name an unknown site.
Status inject(const std::string &site, uint64_t nth = 1, uint64_t times = 1);
/// Arms sites from a DLC_FAULT_INJECT specification (see above).
Status injectSpec(const std::string &spec);
/// Disarms every site and forgets the counts (the environment is not read
/// again).
void clear();

/// Calls of `site` seen since it was armed.
uint64_t calls(const std::string &site);
/// Failures `site` injected since it was armed.
uint64_t fired(const std::string &site);
/// Failures injected at any site since the process started (never reset):
/// lets a cache tell an injected failure from a real one and not keep it.
uint64_t firedTotal();

struct SiteInfo {
  std::string name;
  /// The error code an API site returns ("CUDA_ERROR_OUT_OF_MEMORY"), empty
  /// for other sites and for APIs returning a string.
  std::string error;
  /// What fails there, for documentation: "returns CUDA_ERROR_OUT_OF_MEMORY".
  std::string effect;
};
/// Every site, CUDA, NVRTC and cuBLAS entry points first.
const std::vector<SiteInfo> &sites();
bool isSite(const std::string &name);

/// Arms one site for a scope (tests).
class ScopedFault {
public:
  explicit ScopedFault(const std::string &site, uint64_t nth = 1,
                       uint64_t times = 1) {
    status_ = inject(site, nth, times);
  }
  ~ScopedFault() { clear(); }
  ScopedFault(const ScopedFault &) = delete;
  ScopedFault &operator=(const ScopedFault &) = delete;
  const Status &status() const { return status_; }

private:
  Status status_;
};

} // namespace dlc::rt::fault

#endif // DLC_RUNTIME_FAULTINJECTION_H
