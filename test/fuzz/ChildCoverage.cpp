//===- ChildCoverage.cpp - Coverage of work done in a child process -------===//
#include "test/fuzz/ChildCoverage.h"

#include "runtime/Sandbox.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sys/mman.h>

// The bounds of the counters' section, which the linker defines.
extern "C" __attribute__((weak)) uint8_t __start___sancov_cntrs[];
extern "C" __attribute__((weak)) uint8_t __stop___sancov_cntrs[];

namespace {
uint8_t *shared = nullptr;
size_t size = 0;
} // namespace

void dlc::fuzz::childcoverage::install() {
  if (shared || !__start___sancov_cntrs || !__stop___sancov_cntrs)
    return;
  size = size_t(__stop___sancov_cntrs - __start___sancov_cntrs);
  void *mapping = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED)
    return;
  shared = static_cast<uint8_t *>(mapping);
  rt::setChildFinishHook(
      [] { std::memcpy(shared, __start___sancov_cntrs, size); });
}

void dlc::fuzz::childcoverage::begin() {
  if (shared)
    std::memset(shared, 0, size);
}

void dlc::fuzz::childcoverage::merge() {
  if (!shared)
    return;
  for (size_t i = 0; i < size; ++i)
    if (shared[i] > __start___sancov_cntrs[i])
      __start___sancov_cntrs[i] = shared[i];
}
