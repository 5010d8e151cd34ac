//===- SimExecutor.h - Running CUDA blocks and threads on the CPU -*- C++
//-*-===//
//
// The execution engine of the sim device (docs/sim.md). A launch runs every
// block of the grid, spread over a few OS threads; each OS thread runs one
// block at a time. Within a block, kernels without barriers run their
// threads as a plain loop; kernels with __syncthreads or warp collectives
// run each thread as a fiber, switching at every barrier, with a scheduler
// that releases a barrier once all threads arrived and reports deadlocks and
// barrier divergence as errors instead of hanging.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_RUNTIME_SIMEXECUTOR_H
#define DLC_RUNTIME_SIMEXECUTOR_H

#define DLC_SIM_ABI_ONLY
#include "runtime/sim/SimShim.h"
#undef DLC_SIM_ABI_ONLY

#include "runtime/Status.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace dlc::rt::sim {

/// A kernel's trampoline in the compiled source: dlc_sim_entry_<name>.
using EntryFn = void (*)(void *const *args);
/// dlc_sim_thread_state in the compiled source: the calling OS thread's
/// ThreadState.
using StateFn = dlc_sim::ThreadState *(*)();

struct Launch {
  EntryFn entry = nullptr;
  void *const *args = nullptr;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  /// Run threads as fibers (the kernel uses barriers or warp collectives).
  bool usesBarriers = false;
};

/// How fibers switch: a few instructions of assembly (x86-64), or
/// swapcontext (portable, but a system call per switch).
enum class FiberBackend { Assembly, Ucontext };

/// The default backend for this machine; $DLC_SIM_FIBERS=ucontext forces
/// swapcontext.
FiberBackend defaultFiberBackend();

class Worker;

class Executor {
public:
  /// `threads` OS threads run blocks: the caller's and threads - 1 more.
  Executor(StateFn stateFn, int threads, FiberBackend backend);
  ~Executor();

  /// Runs the whole grid. Errors describe a deadlock, barrier divergence, or
  /// a barrier in a kernel that said it has none.
  Status launch(const Launch &launch);

private:
  StateFn stateFn_;
  std::vector<std::unique_ptr<Worker>> workers_;
};

} // namespace dlc::rt::sim

#endif // DLC_RUNTIME_SIMEXECUTOR_H
