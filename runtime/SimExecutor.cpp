//===- SimExecutor.cpp - Running CUDA blocks and threads on the CPU -------===//

#include "runtime/SimExecutor.h"
#include "runtime/Sanitizers.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <sys/mman.h>
#include <thread>
#include <ucontext.h>
#include <unistd.h>

#ifdef DLC_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

//===----------------------------------------------------------------------===//
// Assembly context switch (x86-64 System V)
//===----------------------------------------------------------------------===//
//
// dlc_sim_fiber_switch(void **save, void *next) pushes the callee-saved
// registers and the SSE/x87 control words, stores the stack pointer in *save,
// loads `next` and pops the same frame from it. A new fiber's stack is
// prepared with such a frame whose return address is dlc_sim_fiber_start,
// which calls r13(r12).

#if defined(__x86_64__) && defined(__ELF__)
#define DLC_SIM_HAVE_ASM_FIBERS 1
extern "C" void dlc_sim_fiber_switch(void **save, void *next);
extern "C" void dlc_sim_fiber_start();
asm(R"(
  .text
  .p2align 4
  .globl dlc_sim_fiber_switch
  .hidden dlc_sim_fiber_switch
  .type dlc_sim_fiber_switch, @function
dlc_sim_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size dlc_sim_fiber_switch, .-dlc_sim_fiber_switch

  .p2align 4
  .globl dlc_sim_fiber_start
  .hidden dlc_sim_fiber_start
  .type dlc_sim_fiber_start, @function
dlc_sim_fiber_start:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size dlc_sim_fiber_start, .-dlc_sim_fiber_start
)");
#endif

namespace dlc::rt::sim {

FiberBackend defaultFiberBackend() {
  const char *env = std::getenv("DLC_SIM_FIBERS");
  if (env && std::string(env) == "ucontext")
    return FiberBackend::Ucontext;
#ifdef DLC_SIM_HAVE_ASM_FIBERS
  return FiberBackend::Assembly;
#else
  return FiberBackend::Ucontext;
#endif
}

namespace {

/// Raised from a hook in loop mode (no fibers) to abandon the block; it
/// unwinds through the kernel's frames back to Worker::runBlock and never
/// leaves this file.
struct SimTrap {
  std::string message;
};

enum class FiberState : uint8_t { Ready, AtBarrier, AtWarp, Done };

const char *warpOpName(int op) {
  switch (op) {
  case dlc_sim::kWarpSync:
    return "__syncwarp";
  case dlc_sim::kShflIdx:
    return "__shfl_sync";
  case dlc_sim::kShflUp:
    return "__shfl_up_sync";
  case dlc_sim::kShflDown:
    return "__shfl_down_sync";
  case dlc_sim::kShflXor:
    return "__shfl_xor_sync";
  case dlc_sim::kBallot:
    return "__ballot_sync";
  case dlc_sim::kAny:
    return "__any_sync";
  case dlc_sim::kAll:
    return "__all_sync";
  }
  return "a warp collective";
}

std::string hexMask(unsigned mask) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", mask);
  return buf;
}

/// One lane's part in a warp collective.
struct WarpRequest {
  int op = 0;
  unsigned mask = 0;
  unsigned long long value = 0;
  int param = 0;
  int width = 32;
};

/// The result of `lane`'s request given the requests of the `group` lanes
/// (indexed by lane), following PTX shfl.sync / vote.sync semantics.
unsigned long long warpResult(int lane, unsigned group,
                              const WarpRequest *requests) {
  const WarpRequest &self = requests[lane];
  switch (self.op) {
  case dlc_sim::kWarpSync:
    return 0;
  case dlc_sim::kBallot: {
    unsigned bits = 0;
    for (int j = 0; j < 32; ++j)
      if ((group >> j & 1) && requests[j].value)
        bits |= 1u << j;
    return bits;
  }
  case dlc_sim::kAny:
  case dlc_sim::kAll: {
    bool any = false, all = true;
    for (int j = 0; j < 32; ++j)
      if (group >> j & 1) {
        any |= requests[j].value != 0;
        all &= requests[j].value != 0;
      }
    return self.op == dlc_sim::kAny ? any : all;
  }
  default:
    break;
  }
  // Shuffles: the segment mask and clamp of PTX shfl.sync, with
  // c = ((32 - width) << 8) | (up ? 0 : 31).
  const int segMask = (32 - self.width) & 31;
  const int clamp = self.op == dlc_sim::kShflUp ? 0 : 31;
  const int maxLane = (lane & segMask) | (clamp & ~segMask);
  const int minLane = lane & segMask;
  const int b = self.param & 31;
  int j = lane;
  bool inRange = true;
  switch (self.op) {
  case dlc_sim::kShflIdx:
    j = minLane | (b & ~segMask);
    inRange = j <= maxLane;
    break;
  case dlc_sim::kShflUp:
    j = lane - b;
    inRange = j >= maxLane;
    break;
  case dlc_sim::kShflDown:
    j = lane + b;
    inRange = j <= maxLane;
    break;
  case dlc_sim::kShflXor:
    j = lane ^ b;
    inRange = j <= maxLane;
    break;
  }
  if (!inRange)
    j = lane;
  // Reading a lane outside the group is undefined in CUDA; the sim returns
  // the caller's own value.
  if (j < 0 || j > 31 || !(group >> j & 1))
    j = lane;
  return requests[j].value;
}

bool isValidWidth(int width) {
  return width >= 1 && width <= 32 && (width & (width - 1)) == 0;
}

/// "0-15, 32-47".
std::string formatRanges(const std::vector<uint32_t> &sorted) {
  std::string s;
  for (size_t i = 0; i < sorted.size();) {
    size_t j = i;
    while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1)
      ++j;
    if (!s.empty())
      s += ", ";
    s += std::to_string(sorted[i]);
    if (j > i)
      s += "-" + std::to_string(sorted[j]);
    i = j + 1;
  }
  return s;
}

size_t fiberStackBytes() {
  size_t kib = 128;
  if (const char *env = std::getenv("DLC_SIM_STACK_KB")) {
    long v = std::atol(env);
    if (v >= 16)
      kib = size_t(v);
  }
  return kib * 1024;
}

} // namespace

//===----------------------------------------------------------------------===//
// Fibers
//===----------------------------------------------------------------------===//

class Worker;

struct Fiber {
  Worker *worker = nullptr;
  uint32_t index = 0;
  FiberState state = FiberState::Ready;
  WarpRequest request;
  unsigned long long result = 0;

  // The stack: a guard page at the low end, then `stackBytes` usable bytes.
  uint8_t *mapping = nullptr;
  size_t mappingBytes = 0;
  uint8_t *stackLow = nullptr;
  size_t stackBytes = 0;

  void *sp = nullptr; // Assembly backend
  ucontext_t context; // Ucontext backend
#ifdef DLC_ASAN
  void *fakeStack = nullptr;
#endif

  ~Fiber() {
    if (mapping)
      ::munmap(mapping, mappingBytes);
  }
};

class Worker {
public:
  explicit Worker(FiberBackend backend) : backend_(backend) {
    hooks_.abiVersion = dlc_sim::kAbiVersion;
    hooks_.syncthreads = &Worker::hookSyncthreads;
    hooks_.warpOp = &Worker::hookWarpOp;
  }

  /// Binds the worker to the calling OS thread for one launch.
  void begin(const Launch &launch, dlc_sim::ThreadState *state) {
    launch_ = &launch;
    state_ = state;
    state_->hooks = &hooks_;
    state_->ctx = this;
    state_->bdim =
        dlc_sim::Dim3(launch.block[0], launch.block[1], launch.block[2]);
    state_->gdim =
        dlc_sim::Dim3(launch.grid[0], launch.grid[1], launch.grid[2]);
    blockThreads_ = launch.block[0] * launch.block[1] * launch.block[2];
    fiberMode_ = launch.usesBarriers;
  }

  Status runBlock(uint64_t linearBlock);

private:
  static void hookSyncthreads(void *ctx) {
    static_cast<Worker *>(ctx)->onSyncthreads();
  }
  static unsigned long long hookWarpOp(void *ctx, int op, unsigned mask,
                                       unsigned long long value, int param,
                                       int width) {
    return static_cast<Worker *>(ctx)->onWarpOp(op, mask, value, param, width);
  }
  void onSyncthreads();
  unsigned long long onWarpOp(int op, unsigned mask, unsigned long long value,
                              int param, int width);

  Status runLoopBlock();
  Status runFiberBlock();
  Status resolveWarps(bool &progressed);
  Status ensureFibers(uint32_t count);
  void prepareFiber(Fiber &f);
  void setThread(uint32_t linear) {
    uint32_t bx = launch_->block[0], by = launch_->block[1];
    state_->tid = {linear % bx, (linear / bx) % by, linear / (bx * by)};
  }
  std::string blockName() const {
    return "block (" + std::to_string(state_->bid.x) + "," +
           std::to_string(state_->bid.y) + "," + std::to_string(state_->bid.z) +
           ")";
  }
  std::string threadName(uint32_t linear) const;
  std::string describeThreads() const;

  // Context switches.
  static void fiberMain(void *arg);
  static void fiberMainUcontext(unsigned hi, unsigned lo);
  void switchToFiber(Fiber &f);
  void switchToScheduler(Fiber &f, bool finished);

  FiberBackend backend_;
  dlc_sim::Hooks hooks_;
  const Launch *launch_ = nullptr;
  dlc_sim::ThreadState *state_ = nullptr;
  uint32_t blockThreads_ = 1;
  bool fiberMode_ = false;

  std::vector<std::unique_ptr<Fiber>> fibers_;
  uint32_t current_ = 0;
  void *schedulerSp_ = nullptr;
  ucontext_t schedulerContext_;
#ifdef DLC_ASAN
  void *schedulerFakeStack_ = nullptr;
  const void *schedulerStackBottom_ = nullptr;
  size_t schedulerStackSize_ = 0;
#endif
};

std::string Worker::threadName(uint32_t linear) const {
  uint32_t bx = launch_->block[0], by = launch_->block[1];
  return "thread " + std::to_string(linear) + " (" +
         std::to_string(linear % bx) + "," +
         std::to_string((linear / bx) % by) + "," +
         std::to_string(linear / (bx * by)) + ")";
}

/// "threads 0-15 wait at __syncthreads(); threads 16-31 have exited".
std::string Worker::describeThreads() const {
  std::map<std::string, std::vector<uint32_t>> groups;
  for (uint32_t i = 0; i < blockThreads_; ++i) {
    const Fiber &f = *fibers_[i];
    std::string what;
    switch (f.state) {
    case FiberState::Ready:
      what = "are runnable";
      break;
    case FiberState::AtBarrier:
      what = "wait at __syncthreads()";
      break;
    case FiberState::AtWarp:
      what = std::string("wait in ") + warpOpName(f.request.op) + " (mask " +
             hexMask(f.request.mask) + ")";
      break;
    case FiberState::Done:
      what = "have exited";
      break;
    }
    groups[what].push_back(i);
  }
  // In order of each group's first thread.
  std::vector<std::pair<std::string, std::vector<uint32_t>>> ordered(
      groups.begin(), groups.end());
  std::sort(ordered.begin(), ordered.end(), [](const auto &a, const auto &b) {
    return a.second.front() < b.second.front();
  });
  std::string s;
  for (auto &[what, threads] : ordered) {
    if (!s.empty())
      s += "; ";
    s += (threads.size() == 1 ? "thread " : "threads ") +
         formatRanges(threads) + " " + what;
  }
  return s;
}

void Worker::fiberMain(void *arg) {
  Fiber *f = static_cast<Fiber *>(arg);
  Worker *w = f->worker;
#ifdef DLC_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &w->schedulerStackBottom_,
                                  &w->schedulerStackSize_);
#endif
  w->launch_->entry(w->launch_->args);
  f->state = FiberState::Done;
  w->switchToScheduler(*f, /*finished=*/true);
  std::abort(); // a finished fiber is never resumed
}

void Worker::fiberMainUcontext(unsigned hi, unsigned lo) {
  fiberMain(reinterpret_cast<void *>((uintptr_t(hi) << 32) | uintptr_t(lo)));
}

void Worker::switchToFiber(Fiber &f) {
#ifdef DLC_ASAN
  __sanitizer_start_switch_fiber(&schedulerFakeStack_, f.stackLow,
                                 f.stackBytes);
#endif
#ifdef DLC_SIM_HAVE_ASM_FIBERS
  if (backend_ == FiberBackend::Assembly)
    dlc_sim_fiber_switch(&schedulerSp_, f.sp);
  else
#endif
    ::swapcontext(&schedulerContext_, &f.context);
#ifdef DLC_ASAN
  __sanitizer_finish_switch_fiber(schedulerFakeStack_, nullptr, nullptr);
#endif
}

void Worker::switchToScheduler(Fiber &f, bool finished) {
#ifdef DLC_ASAN
  __sanitizer_start_switch_fiber(finished ? nullptr : &f.fakeStack,
                                 schedulerStackBottom_, schedulerStackSize_);
#else
  (void)finished;
#endif
#ifdef DLC_SIM_HAVE_ASM_FIBERS
  if (backend_ == FiberBackend::Assembly)
    dlc_sim_fiber_switch(&f.sp, schedulerSp_);
  else
#endif
    ::swapcontext(&f.context, &schedulerContext_);
#ifdef DLC_ASAN
  __sanitizer_finish_switch_fiber(f.fakeStack, &schedulerStackBottom_,
                                  &schedulerStackSize_);
#endif
}

Status Worker::ensureFibers(uint32_t count) {
  static const size_t pageBytes = size_t(::sysconf(_SC_PAGESIZE));
  static const size_t stackBytes =
      (fiberStackBytes() + pageBytes - 1) / pageBytes * pageBytes;
  while (fibers_.size() < count) {
    auto f = std::make_unique<Fiber>();
    f->worker = this;
    f->index = uint32_t(fibers_.size());
    f->mappingBytes = stackBytes + pageBytes;
    void *p = ::mmap(nullptr, f->mappingBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return Status::error("sim: cannot allocate a stack for thread " +
                           std::to_string(f->index) + ": " +
                           std::strerror(errno));
    f->mapping = static_cast<uint8_t *>(p);
    // The guard page turns a stack overflow into a clean segfault instead
    // of silent corruption of the neighbouring stack.
    ::mprotect(f->mapping, pageBytes, PROT_NONE);
    f->stackLow = f->mapping + pageBytes;
    f->stackBytes = stackBytes;
    fibers_.push_back(std::move(f));
  }
  return Status::ok();
}

void Worker::prepareFiber(Fiber &f) {
  f.state = FiberState::Ready;
#ifdef DLC_ASAN
  f.fakeStack = nullptr;
#endif
#ifdef DLC_SIM_HAVE_ASM_FIBERS
  if (backend_ == FiberBackend::Assembly) {
    // The frame dlc_sim_fiber_switch pops, from low to high addresses:
    // control words, r15, r14, r13 (function), r12 (argument), rbx, rbp,
    // return address. After `ret` the stack pointer is 16-byte aligned, as
    // the call in dlc_sim_fiber_start requires.
    uintptr_t top = uintptr_t(f.stackLow + f.stackBytes) & ~uintptr_t(15);
    uint64_t *sp = reinterpret_cast<uint64_t *>(top);
    *--sp = uint64_t(uintptr_t(&dlc_sim_fiber_start));
    *--sp = 0;                                       // rbp
    *--sp = 0;                                       // rbx
    *--sp = uint64_t(uintptr_t(&f));                 // r12
    *--sp = uint64_t(uintptr_t(&Worker::fiberMain)); // r13
    *--sp = 0;                                       // r14
    *--sp = 0;                                       // r15
    uint32_t mxcsr;
    uint16_t fpucw;
    asm volatile("stmxcsr %0" : "=m"(mxcsr));
    asm volatile("fnstcw %0" : "=m"(fpucw));
    *--sp = uint64_t(mxcsr) | (uint64_t(fpucw) << 32);
    f.sp = sp;
    return;
  }
#endif
  ::getcontext(&f.context);
  f.context.uc_stack.ss_sp = f.stackLow;
  f.context.uc_stack.ss_size = f.stackBytes;
  f.context.uc_link = nullptr;
  uintptr_t p = uintptr_t(&f);
  ::makecontext(&f.context, reinterpret_cast<void (*)()>(&fiberMainUcontext), 2,
                unsigned(p >> 32), unsigned(p & 0xffffffffu));
}

void Worker::onSyncthreads() {
  if (!fiberMode_) {
    if (blockThreads_ == 1)
      return;
    throw SimTrap{"the kernel calls __syncthreads() but its KernelInfo says "
                  "usesBarriers = false, so the sim runs its threads one "
                  "after another and cannot honour the barrier"};
  }
  Fiber &f = *fibers_[current_];
  f.state = FiberState::AtBarrier;
  switchToScheduler(f, /*finished=*/false);
}

unsigned long long Worker::onWarpOp(int op, unsigned mask,
                                    unsigned long long value, int param,
                                    int width) {
  if (!fiberMode_) {
    if (blockThreads_ == 1) {
      // A one-thread block: lane 0 alone.
      WarpRequest req[32];
      req[0] = {op, mask, value, param, width};
      if (!isValidWidth(width))
        throw SimTrap{std::string(warpOpName(op)) + " with width " +
                      std::to_string(width) +
                      " (it must be a power of 2 up to 32)"};
      return warpResult(0, 1u, req);
    }
    throw SimTrap{std::string("the kernel calls ") + warpOpName(op) +
                  " but its KernelInfo says usesBarriers = false, so the sim "
                  "runs its threads one after another and cannot exchange "
                  "values between them"};
  }
  Fiber &f = *fibers_[current_];
  f.request = {op, mask, value, param, width};
  f.state = FiberState::AtWarp;
  switchToScheduler(f, /*finished=*/false);
  return f.result;
}

Status Worker::runLoopBlock() {
  const uint32_t bx = launch_->block[0], by = launch_->block[1],
                 bz = launch_->block[2];
  const EntryFn entry = launch_->entry;
  void *const *args = launch_->args;
  dlc_sim::ThreadState *st = state_;
  try {
    for (uint32_t z = 0; z < bz; ++z)
      for (uint32_t y = 0; y < by; ++y)
        for (uint32_t x = 0; x < bx; ++x) {
          st->tid = {x, y, z};
          entry(args);
        }
  } catch (const SimTrap &trap) {
    return Status::error(blockName() + ": " + trap.message);
  }
  return Status::ok();
}

Status Worker::resolveWarps(bool &progressed) {
  progressed = false;
  const uint32_t n = blockThreads_;
  for (uint32_t base = 0; base < n; base += 32) {
    const uint32_t lanes = std::min<uint32_t>(32, n - base);
    const unsigned existing = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1;
    unsigned handled = 0;
    for (uint32_t l = 0; l < lanes; ++l) {
      Fiber &f = *fibers_[base + l];
      if (f.state != FiberState::AtWarp || (handled >> l & 1))
        continue;
      const WarpRequest &req = f.request;
      // Built only for an error: this loop runs at every collective.
      auto where = [&] {
        return blockName() + ": " + threadName(base + l) + " calls " +
               warpOpName(req.op) + " with mask " + hexMask(req.mask);
      };
      if (!(req.mask >> l & 1))
        return Status::error(where() +
                             ", which does not include its own lane " +
                             std::to_string(l));
      if (!isValidWidth(req.width))
        return Status::error(blockName() + ": " + threadName(base + l) +
                             " calls " + warpOpName(req.op) + " with width " +
                             std::to_string(req.width) +
                             " (it must be a power of 2 up to 32)");
      const unsigned group = req.mask & existing;
      bool blocked = false;
      for (uint32_t j = 0; j < lanes; ++j) {
        if (!(group >> j & 1))
          continue;
        const Fiber &g = *fibers_[base + j];
        if (g.state == FiberState::Done)
          return Status::error(where() + ", but lane " + std::to_string(j) +
                               " (" + threadName(base + j) +
                               ") has exited; every lane named in the mask "
                               "must take part");
        if (g.state != FiberState::AtWarp) {
          blocked = true;
          continue;
        }
        if (g.request.op != req.op || g.request.mask != req.mask)
          return Status::error(where() + " while lane " + std::to_string(j) +
                               " (" + threadName(base + j) + ") calls " +
                               warpOpName(g.request.op) + " with mask " +
                               hexMask(g.request.mask) +
                               "; the lanes of a mask must meet at the same "
                               "collective");
      }
      handled |= group;
      if (blocked)
        continue;
      WarpRequest requests[32];
      for (uint32_t j = 0; j < lanes; ++j)
        if (group >> j & 1)
          requests[j] = fibers_[base + j]->request;
      for (uint32_t j = 0; j < lanes; ++j) {
        if (!(group >> j & 1))
          continue;
        Fiber &g = *fibers_[base + j];
        g.result = warpResult(int(j), group, requests);
        g.state = FiberState::Ready;
      }
      progressed = true;
    }
  }
  return Status::ok();
}

Status Worker::runFiberBlock() {
  const uint32_t n = blockThreads_;
  DLC_RT_RETURN_IF_ERROR(ensureFibers(n));
  for (uint32_t i = 0; i < n; ++i)
    prepareFiber(*fibers_[i]);
  while (true) {
    // Run every runnable thread until it blocks or exits.
    for (uint32_t i = 0; i < n; ++i) {
      Fiber &f = *fibers_[i];
      if (f.state != FiberState::Ready)
        continue;
      current_ = i;
      setThread(i);
      switchToFiber(f);
    }
    bool progressed = false;
    DLC_RT_RETURN_IF_ERROR(resolveWarps(progressed));
    if (progressed)
      continue;
    uint32_t atBarrier = 0, done = 0, atWarp = 0;
    for (uint32_t i = 0; i < n; ++i) {
      switch (fibers_[i]->state) {
      case FiberState::AtBarrier:
        ++atBarrier;
        break;
      case FiberState::Done:
        ++done;
        break;
      case FiberState::AtWarp:
        ++atWarp;
        break;
      case FiberState::Ready:
        break;
      }
    }
    if (done == n)
      return Status::ok();
    if (atWarp > 0)
      return Status::error("deadlock in " + blockName() + ": " +
                           describeThreads());
    if (done > 0)
      return Status::error(
          "barrier divergence in " + blockName() + ": " + describeThreads() +
          "; every thread of a block must reach each __syncthreads()");
    // Everyone is at the barrier: release it.
    for (uint32_t i = 0; i < n; ++i)
      fibers_[i]->state = FiberState::Ready;
  }
}

Status Worker::runBlock(uint64_t linearBlock) {
  const uint64_t gx = launch_->grid[0], gy = launch_->grid[1];
  state_->bid = {uint32_t(linearBlock % gx), uint32_t((linearBlock / gx) % gy),
                 uint32_t(linearBlock / (gx * gy))};
  return fiberMode_ ? runFiberBlock() : runLoopBlock();
}

//===----------------------------------------------------------------------===//
// Executor
//===----------------------------------------------------------------------===//

Executor::Executor(StateFn stateFn, int threads, FiberBackend backend)
    : stateFn_(stateFn) {
  for (int i = 0; i < std::max(1, threads); ++i)
    workers_.push_back(std::make_unique<Worker>(backend));
}

Executor::~Executor() = default;

Status Executor::launch(const Launch &launch) {
  const uint64_t total =
      uint64_t(launch.grid[0]) * launch.grid[1] * launch.grid[2];
  const size_t threads =
      size_t(std::min<uint64_t>(workers_.size(), std::max<uint64_t>(total, 1)));
  std::atomic<uint64_t> next{0};
  std::atomic<bool> failed{false};
  struct Failure {
    uint64_t block = ~uint64_t(0);
    std::string message;
  };
  std::vector<Failure> failures(threads);

  auto work = [&](size_t w) {
    Worker &worker = *workers_[w];
    worker.begin(launch, stateFn_());
    while (!failed.load(std::memory_order_relaxed)) {
      uint64_t b = next.fetch_add(1);
      if (b >= total)
        break;
      Status st = worker.runBlock(b);
      if (!st.isOk()) {
        failures[w] = {b, st.message()};
        failed = true;
        break;
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t w = 1; w < threads; ++w)
    pool.emplace_back(work, w);
  work(0);
  for (std::thread &t : pool)
    t.join();
  if (!failed)
    return Status::ok();
  // Report the failure of the lowest block, so the message does not depend
  // on thread timing more than necessary.
  const Failure *first = nullptr;
  for (const Failure &f : failures)
    if (!f.message.empty() && (!first || f.block < first->block))
      first = &f;
  return Status::error(first->message);
}

} // namespace dlc::rt::sim
