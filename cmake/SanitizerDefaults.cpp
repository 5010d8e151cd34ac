//===- SanitizerDefaults.cpp - Built-in options of the sanitizer build ----===//
//
// Linked into every executable of a DLC_ENABLE_SANITIZERS build (see
// cmake/Sanitizers.cmake). ASAN_OPTIONS from the environment are parsed after
// these, so a user's options add to them.
//
// intercept_tls_get_addr=0: the __tls_get_addr interceptor of GCC <= 13 and
// LLVM <= 16 mistakes a glibc >= 2.25 dynamic TLS block whose address is 16
// past a page boundary for a glibc 2.19 block with a header, records a bogus
// range, and LeakSanitizer's tracer then segfaults at exit ("Tracer caught
// signal 11", google/sanitizers#1322). The sim device's kernels live in a
// dlopen'ed object with thread_local state, so this hit `dlc run` at random.
// Dynamic TLS holds no heap pointers that dlc relies on, so no leak is hidden.
//
// UBSan's abort_on_error=1: a report aborts the process (exit code 134, not
// 1), so a test that expects a failure (`not dlc ...`) cannot swallow it.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "intercept_tls_get_addr=0";
}

extern "C" const char *__ubsan_default_options() {
  return "print_stacktrace=1:abort_on_error=1";
}
