//===- Sandbox.h - Untrusted work in a child process ------------*- C++ -*-===//
//
// Some third-party code dlc runs on untrusted bytes crashes on hostile
// input instead of reporting an error: MLIR's bytecode reader aborts on a
// count that does not fit a SmallVector, dereferences out-of-range indices
// and recurses once per nesting level. runInChild runs such work in a
// forked child process under resource limits (address space, CPU time, a
// stack of a known size, a wall-clock deadline) and tells the parent how it
// ended: the bytes the work returned, or the signal, exit code or limit
// that ended it. Nothing the child does can crash the parent.
//
// A child is never a copy of a process with several threads, whose locks
// (an allocator's, a lazily initialized static's) another thread may hold
// at the moment of the copy: the child would wait for them for ever. The
// first runInChild of a process with one thread (or startForkServer) forks
// a fork server, which has one thread and makes every later child: it
// forks a supervisor per request, which forks the child and watches it.
// The work therefore is a plain function (ChildJob) and the bytes it
// needs, not a closure over the caller's memory, which the fork server,
// made earlier, does not have. Only when a process already has several
// threads and no fork server does runInChild fork the caller itself, and
// ChildLimits::idleSeconds then forks a child that waits again.
//
// The child runs the work with its signals at their default actions (so a
// crash ends it instead of running the parent's crash handlers, which may
// remove the parent's temporary files), standard input from /dev/null,
// standard output and error into a pipe its supervisor reads (sanitizer
// reports too), every other file descriptor closed, core dumps off and
// PR_SET_PDEATHSIG set (see docs/security.md, "Untrusted MLIR is read
// within limits").
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_SANDBOX_H
#define DLC_RUNTIME_SANDBOX_H

#include <cstdint>
#include <string>
#include <string_view>

namespace dlc::rt {

/// What the child may use; 0 leaves a kind unlimited.
struct ChildLimits {
  /// Address space the child may map beyond what it starts with
  /// (RLIMIT_AS). In AddressSanitizer builds, whose shadow memory needs
  /// terabytes of address space, the parent kills the child instead when
  /// its resident memory grows by more than this (checked every 0.1 s).
  uint64_t memoryBytes = 0;
  /// CPU time (RLIMIT_CPU).
  uint32_t cpuSeconds = 0;
  /// The stack of the thread that runs the work; 0 runs it on the calling
  /// thread's own stack (what is left of it), as the parent would.
  uint64_t stackBytes = 0;
  /// Wall-clock time before the parent kills the child.
  uint32_t wallSeconds = 0;
  /// A child that uses no CPU time for this long is taken to wait for a
  /// lock that another thread of the parent held when it forked (the child
  /// has a copy of the lock, held, and no thread to release it; GCC 12's
  /// AddressSanitizer allocator is one): it is killed and forked again, at
  /// most kChildAttempts times in all. For work that never sleeps. Only
  /// children forked without the fork server can be such children.
  uint32_t idleSeconds = 0;
};

/// How many times runInChild forks for work whose children stay idle.
constexpr int kChildAttempts = 3;

/// How a child ended.
struct ChildResult {
  enum class End {
    Returned,    ///< the work returned `output`
    Signal,      ///< a signal ended it (`code`)
    Exit,        ///< it exited without returning (`code`)
    MemoryLimit, ///< it ran out of its address space
    CpuLimit,    ///< it ran past its CPU time
    WallLimit,   ///< the parent killed it at its deadline
    Idle,        ///< it stayed idle kChildAttempts times (idleSeconds)
    NoChild,     ///< fork or pipe failed (`detail` says why)
  };
  End end = End::NoChild;
  int code = 0;
  /// What the work returned.
  std::string output;
  /// The last value the work passed to setChildStage (0 if none).
  int stage = 0;
  /// A fatal error the child printed ("LLVM ERROR: ..."), or why there was
  /// no child.
  std::string detail;
  /// The end of the child's standard error (at most 8 KiB).
  std::string stderrTail;
  ChildLimits limits;
  /// Whether the fork server made the child (the caller had one thread
  /// when the server started, so no child copied another thread's locks).
  bool fromServer = false;

  bool returned() const { return end == End::Returned; }
  /// "crashed with signal 11 (SIGSEGV)", "ran out of its 2 GiB memory
  /// limit", "exceeded its CPU time limit of 60 s", ..., followed by
  /// `detail` when there is one.
  std::string describe() const;
};

/// Work a child runs: a plain function from bytes to bytes. A pointer to
/// the program's code is valid in the fork server, a copy of this process;
/// what the work needs comes as its input.
using ChildJob = std::string (*)(std::string_view input);

/// Runs `job(input)` in a child process under `limits`; its return value
/// comes back as ChildResult::output. With DLC_CHILD_STDERR=1 in the
/// environment the child's standard error is copied to the fork server's
/// (or this process's) when it ends, for debugging a crash.
ChildResult runInChild(const ChildLimits &limits, ChildJob job,
                       std::string_view input = {});

/// Starts the fork server if none runs and this process has one thread;
/// returns whether one runs. runInChild calls it; a program that checks
/// from several threads calls it first, before it starts threads. The
/// server ends when this process closes its end of their socket (at exit).
bool startForkServer();
/// The fork server's process ID; 0 if none runs.
int forkServerPid();

/// Whether this process is a child of runInChild (work there that would
/// fork again can run in place).
bool inChild();
/// Records how far the work got (ChildResult::stage); any thread of the
/// child may call it. A no-op outside a child.
void setChildStage(int stage);

/// A function the child calls when its work has returned, before it sends
/// the output: coverage-guided fuzzers hand the child's coverage counters
/// back to the parent with it. Null: none.
void setChildFinishHook(void (*hook)());

} // namespace dlc::rt

#endif // DLC_RUNTIME_SANDBOX_H
