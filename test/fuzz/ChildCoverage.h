//===- ChildCoverage.h - Coverage of work in a child ------------*- C++ -*-===//
//
// dlc reads and evaluates a package's reference model in a forked child
// (runtime/Sandbox.h). libFuzzer reads its coverage counters (the inline
// 8-bit counters of -fsanitize=fuzzer, one section of the executable) in
// the parent, so a child's coverage would be lost: the child copies its
// counters into a shared mapping when its work returns
// (rt::setChildFinishHook) and the parent keeps the larger of each pair.
// A child that crashes hands nothing back (its crash is an error the
// target sees).
//
// ChildCoverage.cpp is compiled without coverage instrumentation: a
// translation unit that names the counters' section bounds itself must not
// also get the instrumentation's module constructor, which registers them
// with libFuzzer (one copy of it is kept in the link).
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TEST_FUZZ_CHILDCOVERAGE_H
#define DLC_TEST_FUZZ_CHILDCOVERAGE_H

namespace dlc::fuzz::childcoverage {

/// Sets up the shared copy and the child's hook (once per process).
void install();
/// Before a call that may run work in a child.
void begin();
/// After it: the child's counters join this process's.
void merge();

} // namespace dlc::fuzz::childcoverage

#endif // DLC_TEST_FUZZ_CHILDCOVERAGE_H
