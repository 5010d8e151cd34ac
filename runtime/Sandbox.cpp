//===- Sandbox.cpp - Running untrusted parsing in a child process --------===//
#include "runtime/Sandbox.h"
#include "runtime/Sanitizers.h"
#include "runtime/Support.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <mutex>
#include <new>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

// Sanitizer runtimes (ASan, UBSan) define it; their reports then go to the
// child's standard error, which the parent reads, not to the log files of
// the parent's ASAN_OPTIONS=log_path.
extern "C" void __sanitizer_set_report_fd(void *fd) __attribute__((weak));
// And a callback a sanitizer runs before it ends a process on an error:
// libFuzzer's would write the child's crash as a finding of its own.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void))
    __attribute__((weak));

namespace dlc::rt {
namespace {

/// One anonymous shared page between a child and its parent.
struct SharedState {
  std::atomic<int> stage{0};
  std::atomic<int> outOfMemory{0};
  std::atomic<int> returned{0};
};

bool gInChild = false;
SharedState *gShared = nullptr;
std::atomic<void (*)()> gFinishHook{nullptr};

/// The child's file descriptor of the output pipe.
constexpr int kOutputFd = 3;
/// How much of the child's standard error the parent keeps.
constexpr size_t kStderrKeep = 8192;

void writeAll(int fd, const char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    data += n;
    size -= size_t(n);
  }
}

[[noreturn]] void childOutOfMemory() {
  if (gShared)
    gShared->outOfMemory.store(1);
  static const char message[] = "out of memory\n";
  writeAll(2, message, sizeof(message) - 1);
  _exit(125);
}

/// Reads /proc/<pid>/<name> ("self" when pid is 0) into `text` (at most
/// size - 1 bytes, NUL-terminated); false if it cannot be read. Only
/// open/read/close, so it is safe in a forked child.
bool readProcFile(pid_t pid, const char *name, char *text, size_t size) {
  char path[64];
  if (pid == 0)
    std::snprintf(path, sizeof(path), "/proc/self/%s", name);
  else
    std::snprintf(path, sizeof(path), "/proc/%d/%s", int(pid), name);
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  ssize_t n = ::read(fd, text, size - 1);
  ::close(fd);
  if (n <= 0)
    return false;
  text[n] = '\0';
  return true;
}

/// Field `index` (0: size, 1: resident) of /proc/<pid>/statm in bytes, 0 if
/// unknown.
uint64_t statmBytes(pid_t pid, int index) {
  char text[128];
  if (!readProcFile(pid, "statm", text, sizeof(text)))
    return 0;
  char *at = text;
  unsigned long long pages = 0;
  for (int i = 0; i <= index; ++i)
    pages = std::strtoull(at, &at, 10);
  long pageSize = ::sysconf(_SC_PAGESIZE);
  return pageSize > 0 ? uint64_t(pages) * uint64_t(pageSize) : 0;
}

/// The address space this process has mapped (VmSize), 0 if unknown.
[[maybe_unused]] uint64_t mappedBytes() { return statmBytes(0, 0); }

/// The resident memory of process `pid` (RSS), 0 if unknown.
[[maybe_unused]] uint64_t residentBytes(pid_t pid) {
  return statmBytes(pid, 1);
}

/// The CPU time process `pid` has used (user and system, in clock ticks;
/// 0 if unknown).
uint64_t cpuTicksOf(pid_t pid) {
  char text[1024];
  if (!readProcFile(pid, "stat", text, sizeof(text)))
    return 0;
  // After the command name's closing parenthesis: the state, 10 fields,
  // then utime and stime.
  const char *at = std::strrchr(text, ')');
  if (!at)
    return 0;
  ++at;
  for (int field = 0; field < 11; ++field) {
    at = std::strchr(at + 1, ' ');
    if (!at)
      return 0;
  }
  char *end = nullptr;
  unsigned long long utime = std::strtoull(at + 1, &end, 10);
  unsigned long long stime = std::strtoull(end, nullptr, 10);
  return uint64_t(utime) + uint64_t(stime);
}

/// Closes every descriptor from `first` on.
void closeFrom(int first) {
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, unsigned(first), ~0U, 0U) == 0)
    return;
#endif
  struct rlimit files;
  int last = 65536;
  if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < 65536)
    last = int(files.rlim_cur);
  for (int fd = first; fd < last; ++fd)
    ::close(fd);
}

/// What a child runs: the job applied to its input.
using Work = std::function<std::string()>;

/// Signals at their default actions, none blocked.
void defaultSignals() {
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP)
      ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::pthread_sigmask(SIG_SETMASK, &none, nullptr);
}

struct ChildWork {
  const ChildLimits *limits;
  const Work *work;
};

[[noreturn]] void finishChild(const ChildWork &job) {
#ifndef DLC_ASAN
  if (job.limits->memoryBytes != 0) {
    // Counted from what the child has mapped now (the parent's heap,
    // libraries, a CUDA context's reservations, the work's stack).
    uint64_t limit = mappedBytes() + job.limits->memoryBytes;
    struct rlimit as = {rlim_t(limit), rlim_t(limit)};
    ::setrlimit(RLIMIT_AS, &as);
  }
#endif
  std::string output = (*job.work)();
  if (void (*hook)() = gFinishHook.load())
    hook();
  writeAll(kOutputFd, output.data(), output.size());
  gShared->returned.store(1);
  _exit(0);
}

void *childThread(void *arg) { finishChild(*static_cast<ChildWork *>(arg)); }

[[noreturn]] void childMain(const ChildLimits &limits, const Work &work,
                            int outputFd, int errorFd, pid_t parent) {
  gInChild = true;
  // A crash ends the child: the parent's handlers (LLVM's stack dump,
  // which also removes the parent's temporary files) do not run here.
  defaultSignals();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent)
    _exit(126);

  // Descriptors: 0 /dev/null, 1 and 2 the error pipe, 3 the output pipe,
  // nothing else (another thread's pipe must see its end of file when its
  // own child exits, not when this one does).
  int nullFd = ::open("/dev/null", O_RDONLY);
  int high[3] = {::fcntl(outputFd, F_DUPFD, 16), ::fcntl(errorFd, F_DUPFD, 16),
                 nullFd >= 0 ? ::fcntl(nullFd, F_DUPFD, 16) : -1};
  if (high[0] < 0 || high[1] < 0)
    _exit(126);
  if (high[2] >= 0)
    ::dup2(high[2], 0);
  ::dup2(high[1], 1);
  ::dup2(high[1], 2);
  ::dup2(high[0], kOutputFd);
  closeFrom(kOutputFd + 1);
  if (__sanitizer_set_report_fd)
    __sanitizer_set_report_fd(reinterpret_cast<void *>(intptr_t(2)));
  if (__sanitizer_set_death_callback)
    __sanitizer_set_death_callback(nullptr);

  struct rlimit noCore = {0, 0};
  ::setrlimit(RLIMIT_CORE, &noCore);
  if (limits.cpuSeconds != 0) {
    // SIGXCPU at the limit; SIGKILL a little later if it were ignored.
    struct rlimit cpu = {rlim_t(limits.cpuSeconds),
                         rlim_t(limits.cpuSeconds) + 5};
    ::setrlimit(RLIMIT_CPU, &cpu);
  }
  std::set_new_handler(childOutOfMemory);

  static ChildWork job;
  job = {&limits, &work};
  if (limits.stackBytes != 0) {
    pthread_attr_t attr;
    pthread_t thread;
    if (::pthread_attr_init(&attr) == 0 &&
        ::pthread_attr_setstacksize(&attr, size_t(limits.stackBytes)) == 0 &&
        ::pthread_create(&thread, &attr, childThread, &job) == 0) {
      ::pthread_join(thread, nullptr);
      _exit(126); // not reached: the thread exits the process
    }
  }
  finishChild(job);
}

int64_t nowMs() {
  struct timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

const char *signalName(int sig) {
  switch (sig) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGBUS:
    return "SIGBUS";
  case SIGABRT:
    return "SIGABRT";
  case SIGILL:
    return "SIGILL";
  case SIGFPE:
    return "SIGFPE";
  case SIGKILL:
    return "SIGKILL";
  case SIGTRAP:
    return "SIGTRAP";
  case SIGSYS:
    return "SIGSYS";
  case SIGPIPE:
    return "SIGPIPE";
  case SIGTERM:
    return "SIGTERM";
  default:
    return nullptr;
  }
}

/// The first line of `text` that holds `marker`, from the marker (or from
/// the line's start when the marker is within its first 120 characters)
/// to the line's end, at most 300 characters; empty if none.
std::string findLine(const std::string &text, const char *marker) {
  size_t found = text.find(marker);
  if (found == std::string::npos)
    return {};
  size_t start = text.rfind('\n', found);
  start = start == std::string::npos ? 0 : start + 1;
  if (found - start > 120)
    start = found;
  start = text.find_first_not_of(" \t", start);
  size_t end = text.find('\n', found);
  if (end == std::string::npos)
    end = text.size();
  return text.substr(start, std::min<size_t>(end - start, 300));
}

} // namespace

bool inChild() { return gInChild; }

void setChildStage(int stage) {
  if (gInChild && gShared)
    gShared->stage.store(stage);
}

void setChildFinishHook(void (*hook)()) { gFinishHook.store(hook); }

std::string ChildResult::describe() const {
  std::string text;
  switch (end) {
  case End::Returned:
    return "finished";
  case End::Signal: {
    text = "crashed with signal " + std::to_string(code);
    if (const char *name = signalName(code))
      text += std::string(", ") + name;
    break;
  }
  case End::Exit:
    text = "exited with code " + std::to_string(code);
    break;
  case End::MemoryLimit:
    text = "ran out of its memory limit of " + formatBytes(limits.memoryBytes);
    break;
  case End::CpuLimit:
    text = "exceeded its CPU time limit of " +
           std::to_string(limits.cpuSeconds) + " s";
    break;
  case End::WallLimit:
    text = "did not finish within " + std::to_string(limits.wallSeconds) + " s";
    break;
  case End::Idle:
    text = "made no progress for " + std::to_string(limits.idleSeconds) +
           " s, " + std::to_string(kChildAttempts) +
           " times (waiting for a lock held when it was forked)";
    break;
  case End::NoChild:
    return "could not be started: " + detail;
  }
  if (!detail.empty())
    text += ": " + detail;
  return text;
}

namespace {
/// One child; `idle` says whether it was killed for making no progress.
ChildResult runOnce(const ChildLimits &limits, const Work &work, bool &idle) {
  idle = false;
  ChildResult result;
  result.limits = limits;
  int outputPipe[2], errorPipe[2];
  if (::pipe2(outputPipe, O_CLOEXEC) != 0) {
    result.detail = std::strerror(errno);
    return result;
  }
  if (::pipe2(errorPipe, O_CLOEXEC) != 0) {
    result.detail = std::strerror(errno);
    ::close(outputPipe[0]);
    ::close(outputPipe[1]);
    return result;
  }
  void *page = ::mmap(nullptr, sizeof(SharedState), PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  auto closeAll = [&] {
    for (int fd : {outputPipe[0], outputPipe[1], errorPipe[0], errorPipe[1]})
      if (fd >= 0)
        ::close(fd);
  };
  if (page == MAP_FAILED) {
    result.detail = std::strerror(errno);
    closeAll();
    return result;
  }
  SharedState *shared = new (page) SharedState();
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    result.detail = std::strerror(errno);
    closeAll();
    ::munmap(page, sizeof(SharedState));
    return result;
  }
  if (pid == 0) {
    gShared = shared;
    ::close(outputPipe[0]);
    ::close(errorPipe[0]);
    childMain(limits, work, outputPipe[1], errorPipe[1], parent);
  }
  ::close(outputPipe[1]);
  ::close(errorPipe[1]);
  outputPipe[1] = errorPipe[1] = -1;

  // Read both pipes to their ends (the child blocks on a full pipe), up to
  // the deadline.
  std::string errHead, errTail;
  const int64_t deadline =
      limits.wallSeconds ? nowMs() + int64_t(limits.wallSeconds) * 1000 : 0;
  bool timedOut = false;
  // Under AddressSanitizer, where RLIMIT_AS cannot be used, the parent
  // watches the child's resident memory instead (from what this process
  // has resident, which the child starts with).
  uint64_t rssLimit = 0;
#ifdef DLC_ASAN
  if (limits.memoryBytes != 0)
    rssLimit = residentBytes(::getpid()) + limits.memoryBytes;
#endif
  bool overRss = false;
  // The child's CPU time, and when it last grew.
  uint64_t cpuTicks = 0;
  int64_t progressAt = nowMs();
  struct pollfd fds[2] = {{outputPipe[0], POLLIN, 0},
                          {errorPipe[0], POLLIN, 0}};
  std::string buffer(65536, '\0');
  while (fds[0].fd >= 0 || fds[1].fd >= 0) {
    int timeout = -1;
    if (deadline) {
      int64_t left = deadline - nowMs();
      if (left <= 0) {
        timedOut = true;
        break;
      }
      timeout = int(std::min<int64_t>(left, 1 << 30));
    }
    if (rssLimit != 0) {
      if (residentBytes(pid) > rssLimit) {
        overRss = true;
        break;
      }
      timeout = timeout < 0 ? 100 : std::min(timeout, 100);
    }
    if (limits.idleSeconds != 0) {
      uint64_t ticks = cpuTicksOf(pid);
      int64_t now = nowMs();
      if (ticks != cpuTicks) {
        cpuTicks = ticks;
        progressAt = now;
      } else if (now - progressAt > int64_t(limits.idleSeconds) * 1000) {
        idle = true;
        break;
      }
      timeout = timeout < 0 ? 250 : std::min(timeout, 250);
    }
    int n = ::poll(fds, 2, timeout);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0)
        continue;
      ssize_t got = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (got < 0 && errno == EINTR)
        continue;
      if (got <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        continue;
      }
      if (i == 0) {
        result.output.append(buffer.data(), size_t(got));
      } else {
        size_t take = errHead.size() < kStderrKeep
                          ? std::min(kStderrKeep - errHead.size(), size_t(got))
                          : 0;
        errHead.append(buffer.data(), take);
        errTail.append(buffer.data() + take, size_t(got) - take);
        if (errTail.size() > 2 * kStderrKeep)
          errTail.erase(0, errTail.size() - kStderrKeep);
      }
    }
  }
  if (timedOut || overRss || idle)
    ::kill(pid, SIGKILL);
  for (int i = 0; i < 2; ++i)
    if (fds[i].fd >= 0)
      ::close(fds[i].fd);
  int status = 0;
  struct rusage usage;
  std::memset(&usage, 0, sizeof(usage));
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR)
    ;

  if (errTail.size() > kStderrKeep)
    errTail.erase(0, errTail.size() - kStderrKeep);
  std::string err = errHead + errTail;
  result.stderrTail =
      err.size() > kStderrKeep ? err.substr(err.size() - kStderrKeep) : err;
  result.stage = shared->stage.load();
  const bool outOfMemory = shared->outOfMemory.load() != 0;
  const bool returned = shared->returned.load() != 0;
  ::munmap(page, sizeof(SharedState));

  if (const char *show = std::getenv("DLC_CHILD_STDERR"); show && *show)
    writeAll(2, err.data(), err.size());
  // The line that says why, if the child printed one: LLVM's fatal errors,
  // sanitizer reports, glibc's heap checks, uncaught exceptions.
  std::string fatal;
  for (const char *marker :
       {"LLVM ERROR:", "ERROR: AddressSanitizer", "CHECK failed",
        "runtime error:", "ERROR: libFuzzer", "free(): ", "malloc(): ",
        "double free", "corrupted ", "terminate called"}) {
    fatal = findLine(err, marker);
    if (!fatal.empty())
      break;
  }
  result.detail = fatal;
  const double cpuUsed =
      double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
      1e-6 * double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  if (idle) {
    result.end = ChildResult::End::Idle;
    result.detail.clear();
  } else if (timedOut) {
    result.end = ChildResult::End::WallLimit;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && returned) {
    result.end = ChildResult::End::Returned;
    result.detail.clear();
    return result;
  } else if (outOfMemory || overRss ||
             (limits.memoryBytes != 0 &&
              fatal.find("out of memory") != std::string::npos)) {
    result.end = ChildResult::End::MemoryLimit;
    result.detail.clear();
  } else if (WIFSIGNALED(status) &&
             (WTERMSIG(status) == SIGXCPU ||
              (WTERMSIG(status) == SIGKILL && limits.cpuSeconds != 0 &&
               cpuUsed >= double(limits.cpuSeconds)))) {
    result.end = ChildResult::End::CpuLimit;
    result.detail.clear();
  } else if (WIFSIGNALED(status)) {
    result.end = ChildResult::End::Signal;
    result.code = WTERMSIG(status);
  } else {
    result.end = ChildResult::End::Exit;
    result.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  result.output.clear();
  return result;
}

/// Forks children from this process (idle ones again, kChildAttempts
/// times in all).
ChildResult runHere(const ChildLimits &limits, const Work &work) {
  ChildResult result;
  for (int attempt = 1; attempt <= kChildAttempts; ++attempt) {
    bool idle = false;
    result = runOnce(limits, work, idle);
    if (!idle)
      break;
  }
  return result;
}

//===----------------------------------------------------------------------===//
// The fork server
//===----------------------------------------------------------------------===//

/// A request to the fork server; with it come two descriptors: a memfd
/// that holds the input, and the write end of the pipe for the answer.
struct Request {
  uint64_t job;
  ChildLimits limits;
  uint64_t inputSize;
};

/// The server's socket in the process that started it (-1: none), and
/// that process's ID (a forked copy of it must start its own).
std::mutex gServerMutex;
int gServerFd = -1;
pid_t gServerPid = 0;
pid_t gServerOwner = 0;

/// A supervisor's answer: how the child ended, then its strings.
std::vector<uint8_t> encodeResult(const ChildResult &r) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.u8(uint8_t(r.end));
  w.i32(r.code);
  w.i32(r.stage);
  w.string(r.output);
  w.string(r.detail);
  w.string(r.stderrTail);
  return out;
}

bool decodeResult(const std::vector<uint8_t> &bytes, ChildResult &r) {
  ByteReader reader(bytes.data(), bytes.size());
  uint8_t end = 0;
  if (!reader.u8(end) || end > uint8_t(ChildResult::End::NoChild) ||
      !reader.i32(r.code) || !reader.i32(r.stage) || !reader.string(r.output) ||
      !reader.string(r.detail) || !reader.string(r.stderrTail) ||
      reader.remaining() != 0)
    return false;
  r.end = ChildResult::End(end);
  return true;
}

/// A supervisor: runs one request's child (from this process, which has
/// one thread) and writes how it ended to `replyFd`.
[[noreturn]] void supervise(const Request &request, int inputFd, int replyFd) {
  const char *data = nullptr;
  struct stat info;
  if (request.inputSize != 0) {
    if (::fstat(inputFd, &info) != 0 ||
        uint64_t(info.st_size) < request.inputSize ||
        request.inputSize > uint64_t(SIZE_MAX))
      _exit(1);
    void *mapping = ::mmap(nullptr, size_t(request.inputSize), PROT_READ,
                           MAP_PRIVATE, inputFd, 0);
    if (mapping == MAP_FAILED)
      _exit(1);
    data = static_cast<const char *>(mapping);
  }
  ::close(inputFd);
  ChildJob job = reinterpret_cast<ChildJob>(uintptr_t(request.job));
  std::string_view input(data, size_t(request.inputSize));
  ChildResult result =
      runHere(request.limits, [job, input] { return job(input); });
  std::vector<uint8_t> answer = encodeResult(result);
  writeAll(replyFd, reinterpret_cast<const char *>(answer.data()),
           answer.size());
  _exit(0);
}

/// The fork server: reads requests until the process that started it
/// closes its end of the socket, and forks a supervisor for each.
[[noreturn]] void serverMain(int control) {
  defaultSignals();
  // Supervisors are reaped by the kernel.
  ::signal(SIGCHLD, SIG_IGN);
  if (__sanitizer_set_death_callback)
    __sanitizer_set_death_callback(nullptr);
  // Descriptors: 0 and 1 /dev/null, 2 /dev/null too unless DLC_CHILD_STDERR
  // asks for the children's errors, 3 the socket, nothing else (the
  // parent's pipes must see their ends when the parent closes them).
  const char *show = std::getenv("DLC_CHILD_STDERR");
  int nullFd = ::open("/dev/null", O_RDWR);
  int high = ::fcntl(control, F_DUPFD, 16);
  if (nullFd < 0 || high < 0)
    _exit(1);
  ::dup2(nullFd, 0);
  ::dup2(nullFd, 1);
  if (!show || !*show)
    ::dup2(nullFd, 2);
  ::dup2(high, 3);
  closeFrom(4);
  control = 3;
  const pid_t server = ::getpid();
  for (;;) {
    Request request;
    char space[CMSG_SPACE(2 * sizeof(int))];
    struct iovec iov = {&request, sizeof(request)};
    struct msghdr message;
    std::memset(&message, 0, sizeof(message));
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = space;
    message.msg_controllen = sizeof(space);
    ssize_t n = ::recvmsg(control, &message, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      _exit(0);
    int fds[2] = {-1, -1};
    int count = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c;
         c = CMSG_NXTHDR(&message, c))
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
        size_t bytes = c->cmsg_len - CMSG_LEN(0);
        for (size_t i = 0; i < bytes / sizeof(int); ++i) {
          int fd;
          std::memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
          if (count < 2)
            fds[count] = fd;
          else
            ::close(fd);
          ++count;
        }
      }
    if (size_t(n) == sizeof(request) && count == 2 &&
        !(message.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
      pid_t pid = ::fork();
      if (pid == 0) {
        ::signal(SIGCHLD, SIG_DFL);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != server)
          _exit(1);
        ::close(control);
        supervise(request, fds[0], fds[1]);
      }
    }
    for (int fd : fds)
      if (fd >= 0)
        ::close(fd);
  }
}

/// The number of threads of this process; 0 if unknown.
int threadCount() {
  char text[8192];
  if (!readProcFile(0, "status", text, sizeof(text)))
    return 0;
  const char *at = std::strstr(text, "\nThreads:");
  return at ? std::atoi(at + 9) : 0;
}

/// Drops the server (its socket, and the process if it ended). Called
/// with gServerMutex held.
void dropServerLocked() {
  if (gServerFd >= 0)
    ::close(gServerFd);
  if (gServerOwner == ::getpid() && gServerPid > 0)
    ::waitpid(gServerPid, nullptr, WNOHANG);
  gServerFd = -1;
  gServerPid = 0;
  gServerOwner = 0;
}

bool startServerLocked() {
  if (gServerFd >= 0 && gServerOwner == ::getpid())
    return true;
  if (gServerFd >= 0) {
    // A copy of the process that started it (a fork): not this one's.
    ::close(gServerFd);
    gServerFd = -1;
    gServerPid = 0;
  }
  if (gInChild || threadCount() != 1)
    return false;
  int sockets[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sockets) != 0)
    return false;
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(sockets[0]);
    ::close(sockets[1]);
    return false;
  }
  if (pid == 0) {
    ::close(sockets[0]);
    serverMain(sockets[1]);
  }
  ::close(sockets[1]);
  gServerFd = sockets[0];
  gServerPid = pid;
  gServerOwner = ::getpid();
  return true;
}

/// Sends a request to the server; false if there is none or it is gone.
bool sendRequest(const Request &request, int inputFd, int replyFd) {
  std::lock_guard<std::mutex> lock(gServerMutex);
  if (!startServerLocked())
    return false;
  const int fds[2] = {inputFd, replyFd};
  char space[CMSG_SPACE(sizeof(fds))];
  std::memset(space, 0, sizeof(space));
  struct iovec iov = {const_cast<Request *>(&request), sizeof(request)};
  struct msghdr message;
  std::memset(&message, 0, sizeof(message));
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = space;
  message.msg_controllen = sizeof(space);
  struct cmsghdr *c = CMSG_FIRSTHDR(&message);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(fds));
  std::memcpy(CMSG_DATA(c), fds, sizeof(fds));
  // A server that is gone (killed) is replaced once, if this process
  // still has one thread.
  for (int attempt = 0; attempt < 2;) {
    ssize_t n = ::sendmsg(gServerFd, &message, MSG_NOSIGNAL);
    if (n == ssize_t(sizeof(request)))
      return true;
    if (n < 0 && errno == EINTR)
      continue;
    dropServerLocked();
    if (++attempt == 2 || !startServerLocked())
      break;
  }
  return false;
}

/// Runs the job through the fork server; false (and `result` untouched)
/// if there is none.
bool runThroughServer(const ChildLimits &limits, ChildJob job,
                      std::string_view input, ChildResult &result) {
  int inputFd = ::memfd_create("dlc-child-input", MFD_CLOEXEC);
  if (inputFd < 0)
    return false;
  size_t done = 0;
  while (done < input.size()) {
    ssize_t n = ::write(inputFd, input.data() + done, input.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      ::close(inputFd);
      return false;
    }
    done += size_t(n);
  }
  int reply[2];
  if (::pipe2(reply, O_CLOEXEC) != 0) {
    ::close(inputFd);
    return false;
  }
  Request request{};
  request.job = uint64_t(reinterpret_cast<uintptr_t>(job));
  request.limits = limits;
  request.inputSize = input.size();
  const bool sent = sendRequest(request, inputFd, reply[1]);
  ::close(inputFd);
  ::close(reply[1]);
  if (!sent) {
    ::close(reply[0]);
    return false;
  }
  std::vector<uint8_t> answer;
  std::vector<uint8_t> buffer(65536);
  for (;;) {
    ssize_t n = ::read(reply[0], buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    answer.insert(answer.end(), buffer.begin(), buffer.begin() + n);
  }
  ::close(reply[0]);
  result = ChildResult();
  if (!decodeResult(answer, result)) {
    result = ChildResult();
    result.end = ChildResult::End::NoChild;
    result.detail = "its supervisor ended without an answer";
  }
  result.limits = limits;
  result.fromServer = true;
  return true;
}

} // namespace

bool startForkServer() {
  std::lock_guard<std::mutex> lock(gServerMutex);
  return startServerLocked();
}

int forkServerPid() {
  std::lock_guard<std::mutex> lock(gServerMutex);
  return gServerFd >= 0 && gServerOwner == ::getpid() ? int(gServerPid) : 0;
}

ChildResult runInChild(const ChildLimits &limits, ChildJob job,
                       std::string_view input) {
  ChildResult result;
  if (!gInChild && runThroughServer(limits, job, input, result))
    return result;
  return runHere(limits, [job, input] { return job(input); });
}

} // namespace dlc::rt
