//===- Sanitizers.h - Whether this build runs under ASan --------*- C++ -*-===//
//
// DLC_ASAN is defined when the translation unit is compiled with
// AddressSanitizer: GCC says so with __SANITIZE_ADDRESS__, clang with
// __has_feature(address_sanitizer). The sandbox and the sim's fibers adapt
// to it, and tests that repeat a check thousands of times (each in forked,
// instrumented children) take a slice of their cases.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_SANITIZERS_H
#define DLC_RUNTIME_SANITIZERS_H

#if defined(__SANITIZE_ADDRESS__)
#define DLC_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DLC_ASAN 1
#endif
#endif

#endif // DLC_RUNTIME_SANITIZERS_H
