//===- FaultInjection.cpp - Injected failures for testing the runtime -----===//

#include "runtime/FaultInjection.h"
#include "runtime/CudaLibs.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

namespace dlc::rt::fault {

std::atomic<int> detail::gState{-1};

namespace {

std::atomic<uint64_t> gFiredTotal{0};

struct Armed {
  uint64_t nth = 1;
  uint64_t times = 1; ///< 0: every call from the nth on
  uint64_t calls = 0;
  uint64_t fired = 0;
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, Armed> armed;
  bool environmentRead = false;
};

Registry &registry() {
  static Registry r;
  return r;
}

std::string modeEffect(const char *injected, rt::detail::FaultMode mode) {
  using rt::detail::FaultMode;
  std::string code = injected;
  if (code == "nullptr")
    return "returns a null string (the runtime falls back to its own names)";
  switch (mode) {
  case FaultMode::Before:
    return "returns " + code;
  case FaultMode::After:
    return "releases, then returns " + code;
  case FaultMode::Launch:
    return "returns " + code + " without launching";
  case FaultMode::Synchronize:
    return "returns " + code +
           " (a sticky error: the session is unusable "
           "afterwards)";
  case FaultMode::EndCapture:
    return "ends the capture, discards its graph, returns " + code;
  }
  return "returns " + code;
}

std::string errorOf(const char *injected) {
  return std::string(injected) == "nullptr" ? "" : injected;
}

std::vector<SiteInfo> makeSites() {
  using rt::detail::FaultMode;
  std::vector<SiteInfo> out;
#define DLC_SITE(fn, injected, mode, resource, delta)                          \
  out.push_back(                                                               \
      {#fn, errorOf(#injected), modeEffect(#injected, FaultMode::mode)});
  DLC_CUDA_DRIVER_FUNCTIONS(DLC_SITE)
  DLC_NVRTC_FUNCTIONS(DLC_SITE)
#undef DLC_SITE
#define DLC_SITE(member, symbol, site, injected, mode, resource, delta)        \
  out.push_back(                                                               \
      {#site, errorOf(#injected), modeEffect(#injected, FaultMode::mode)});
  DLC_CUBLAS_FUNCTIONS(DLC_SITE)
#undef DLC_SITE
#define DLC_SITE(fn, injected, mode, resource, delta)                          \
  out.push_back(                                                               \
      {#fn, errorOf(#injected), modeEffect(#injected, FaultMode::mode)});
  DLC_CUBLASLT_FUNCTIONS(DLC_SITE)
  DLC_CUDNN_FUNCTIONS(DLC_SITE)
#undef DLC_SITE
  out.push_back({"libcuda-missing", "",
                 "the CUDA driver library does not load, as if not installed"});
  out.push_back({"libnvrtc-missing", "", "NVRTC does not load"});
  out.push_back({"libcublas-missing", "", "cuBLAS does not load"});
  out.push_back({"libcublaslt-missing", "", "cuBLASLt does not load"});
  out.push_back({"libcudnn-missing", "", "cuDNN does not load"});
  out.push_back(
      {"kernel-fault", "",
       "a kernel faults: on CUDA the launch (cuLaunchKernel or cuGraphLaunch) "
       "succeeds and the next cuStreamSynchronize returns "
       "CUDA_ERROR_ILLEGAL_ADDRESS, a sticky error; on sim the kernel step "
       "fails"});
  out.push_back({"sim-compile", "",
                 "the sim device's host compiler exits with "
                 "status 1"});
  out.push_back({"sim-load", "",
                 "dlopen of the sim device's compiled kernels "
                 "fails (the runtime rebuilds them once)"});
  out.push_back({"sim-alloc", "",
                 "a host allocation of the sim device (arena, "
                 "constants) fails"});
  out.push_back({"package-truncated", "",
                 "a package file reads back with its second half missing"});
  out.push_back({"package-corrupt", "",
                 "a package file reads back with one payload byte flipped"});
  out.push_back({"cache-corrupt", "",
                 "a kernel cache entry (cubin or sim shared object) reads back "
                 "corrupt: it is ignored, recompiled and rewritten"});
  return out;
}

void updateStateLocked(Registry &r) {
  detail::gState.store(r.armed.empty() ? 0 : 1);
}

Status injectLocked(Registry &r, const std::string &site, uint64_t nth,
                    uint64_t times) {
  if (!isSite(site))
    return Status::error("unknown fault site '" + site +
                         "' (docs/reliability.md lists them)");
  if (nth == 0)
    return Status::error("fault site '" + site + "': calls are counted from 1");
  Armed a;
  a.nth = nth;
  a.times = times;
  r.armed[site] = a;
  return Status::ok();
}

Status parseSpecLocked(Registry &r, const std::string &spec) {
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string item = spec.substr(
        pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    if (item.empty())
      continue;
    std::string site = item;
    uint64_t nth = 1, times = 1;
    size_t colon = item.find(':');
    if (colon != std::string::npos) {
      site = item.substr(0, colon);
      std::string count = item.substr(colon + 1);
      if (!count.empty() && count.back() == '+') {
        times = 0;
        count.pop_back();
      }
      char *end = nullptr;
      unsigned long long v =
          count.empty() ? 0 : std::strtoull(count.c_str(), &end, 10);
      if (count.empty() || *end != '\0' || v == 0)
        return Status::error("'" + item +
                             "': expected <site>[:<nth>[+]] with nth >= 1");
      nth = v;
    }
    DLC_RT_RETURN_IF_ERROR(injectLocked(r, site, nth, times));
  }
  return Status::ok();
}

void readEnvironmentLocked(Registry &r) {
  if (r.environmentRead)
    return;
  r.environmentRead = true;
  const char *spec = std::getenv("DLC_FAULT_INJECT");
  if (spec && *spec) {
    Status st = parseSpecLocked(r, spec);
    // Sites cannot report errors; a mistyped variable must not go unnoticed.
    if (!st)
      std::fprintf(stderr, "dlc: warning: ignoring DLC_FAULT_INJECT: %s\n",
                   st.message().c_str());
  }
  updateStateLocked(r);
}

} // namespace

bool detail::shouldFailSlow(const char *site) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  readEnvironmentLocked(r);
  auto it = r.armed.find(site);
  if (it == r.armed.end())
    return false;
  Armed &a = it->second;
  ++a.calls;
  bool fail = a.calls >= a.nth && (a.times == 0 || a.calls < a.nth + a.times);
  if (fail) {
    ++a.fired;
    ++gFiredTotal;
  }
  return fail;
}

Status inject(const std::string &site, uint64_t nth, uint64_t times) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  readEnvironmentLocked(r);
  Status st = injectLocked(r, site, nth, times);
  updateStateLocked(r);
  return st;
}

Status injectSpec(const std::string &spec) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  readEnvironmentLocked(r);
  Status st = parseSpecLocked(r, spec);
  updateStateLocked(r);
  return st;
}

void clear() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.environmentRead = true;
  r.armed.clear();
  updateStateLocked(r);
}

uint64_t calls(const std::string &site) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.armed.find(site);
  return it == r.armed.end() ? 0 : it->second.calls;
}

uint64_t fired(const std::string &site) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.armed.find(site);
  return it == r.armed.end() ? 0 : it->second.fired;
}

uint64_t firedTotal() { return gFiredTotal.load(); }

const std::vector<SiteInfo> &sites() {
  static const std::vector<SiteInfo> all = makeSites();
  return all;
}

bool isSite(const std::string &name) {
  for (const SiteInfo &s : sites())
    if (s.name == name)
      return true;
  return false;
}

} // namespace dlc::rt::fault
