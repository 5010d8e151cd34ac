//===- LargePages.cpp - Transparent huge pages for large allocations ----===//
//
// The command-line tools' operator new (dlc, dlc-run): an allocation of
// 4 MiB or more is advised to the kernel as transparent-huge-page memory
// (madvise MADV_HUGEPAGE), what glibc's `glibc.malloc.hugetlb=1` tunable
// does, which only the environment can set. Compiling a model copies its
// weights a few times (ONNX bytes, the imported constants, the package's
// constants, the serialized package): hundreds of megabytes of fresh
// memory, touched a 4 KiB page at a time, whose page faults took most of
// a BERT-base training step's compile (docs/memory.md, "Compile time").
// With 2 MiB pages there are 512 times fewer. The kernel decides: where
// THP is off, the advice does nothing.
//
// Memory comes from malloc (aligned_alloc for the aligned forms), so the
// library's operator delete frees it. Not under the sanitizers, whose own
// operator new reports mismatched deallocations.
//
//===----------------------------------------------------------------------===//

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) &&         \
    defined(__linux__)
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||     \
    __has_feature(memory_sanitizer)
#define DLC_NO_LARGE_PAGES
#endif
#endif

#ifndef DLC_NO_LARGE_PAGES
#include <cstdint>
#include <cstdlib>
#include <new>
#include <sys/mman.h>

namespace {

constexpr std::size_t kLargeAllocation = std::size_t(4) << 20;
constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;

/// Advises the 2 MiB-aligned pages inside [p, p + size).
void adviseHugePages(void *p, std::size_t size) {
  std::uintptr_t begin = reinterpret_cast<std::uintptr_t>(p);
  std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  std::uintptr_t last = (begin + size) & ~(kHugePage - 1);
  if (last > first)
    (void)madvise(reinterpret_cast<void *>(first), last - first, MADV_HUGEPAGE);
}

/// `get()`'s memory (advised when large), retried after the new handler
/// while it returns none: the library's rules for operator new.
template <typename Get> void *allocateWith(std::size_t size, Get get) {
  for (;;) {
    if (void *p = get()) {
      if (size >= kLargeAllocation)
        adviseHugePages(p, size);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (!handler)
      throw std::bad_alloc();
    handler();
  }
}

void *allocate(std::size_t size) {
  return allocateWith(size, [&] { return std::malloc(size ? size : 1); });
}

void *allocateAligned(std::size_t size, std::align_val_t alignment) {
  std::size_t align = static_cast<std::size_t>(alignment);
  // As the library's: an alignment that is no power of two fails at once
  // (MLIR's bytecode reader asks for whatever a file says).
  if (align == 0 || (align & (align - 1)) != 0)
    throw std::bad_alloc();
  if (align < sizeof(void *))
    align = sizeof(void *);
  // aligned_alloc wants a multiple of the alignment.
  std::size_t rounded = (size + align - 1) / align * align;
  if (rounded < size)
    throw std::bad_alloc();
  return allocateWith(size, [&] {
    return std::aligned_alloc(align, rounded ? rounded : align);
  });
}

} // namespace

void *operator new(std::size_t size) { return allocate(size); }
void *operator new[](std::size_t size) { return allocate(size); }
void *operator new(std::size_t size, std::align_val_t alignment) {
  return allocateAligned(size, alignment);
}
void *operator new[](std::size_t size, std::align_val_t alignment) {
  return allocateAligned(size, alignment);
}

#endif
#endif
