//===- SandboxTest.cpp - Work in a child process under limits -------------===//
//
// runtime/Sandbox.h: how dlc runs MLIR's readers on untrusted bytes. Each
// way a child can end (its answer, a signal, an LLVM fatal error, an exit,
// each limit) must come back to the parent as a description, and children
// of several threads at once must not see each other's pipes.
//
//===----------------------------------------------------------------------===//

#include "runtime/Sandbox.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace dlc::rt;
using ::testing::HasSubstr;

namespace {

/// Recursion the optimizer cannot turn into a loop: `depth` frames of 1 KiB.
int recurse(int depth) {
  volatile char frame[1024];
  frame[0] = char(depth);
  if (depth == 0)
    return frame[0];
  return recurse(depth - 1) + frame[0];
}

} // namespace

TEST(Sandbox, ReturnsTheWorksOutput) {
  std::string big(3 << 20, 'x'); // more than a pipe holds
  big[12345] = 'y';
  ChildResult r = runInChild(
      {}, [](std::string_view input) { return std::string(input); }, big);
  ASSERT_TRUE(r.returned()) << r.describe();
  EXPECT_EQ(r.output, big);
  EXPECT_EQ(r.describe(), "finished");
}

TEST(Sandbox, TheChildKnowsItIsOne) {
  EXPECT_FALSE(inChild());
  ChildResult r = runInChild({}, [](std::string_view) {
    return std::string(inChild() ? "yes" : "no");
  });
  ASSERT_TRUE(r.returned());
  EXPECT_EQ(r.output, "yes");
  EXPECT_FALSE(inChild());
}

TEST(Sandbox, ASignalIsACrash) {
  ChildResult r = runInChild({}, [](std::string_view) -> std::string {
    std::raise(SIGSEGV);
    return "not reached";
  });
  EXPECT_EQ(r.end, ChildResult::End::Signal);
  EXPECT_EQ(r.code, SIGSEGV);
  EXPECT_EQ(r.describe(), "crashed with signal 11, SIGSEGV");
  EXPECT_TRUE(r.output.empty());
}

TEST(Sandbox, AnLlvmFatalErrorIsQuoted) {
  ChildResult r = runInChild({}, [](std::string_view) -> std::string {
    std::fputs("some noise\nLLVM ERROR: SmallVector unable to grow\n", stderr);
    std::fflush(stderr);
    std::abort();
  });
  EXPECT_EQ(r.end, ChildResult::End::Signal);
  EXPECT_EQ(r.describe(),
            "crashed with signal 6, SIGABRT: LLVM ERROR: SmallVector unable "
            "to grow");
  EXPECT_THAT(r.stderrTail, HasSubstr("some noise"));
}

TEST(Sandbox, AnExitIsNotAnAnswer) {
  ChildResult r =
      runInChild({}, [](std::string_view) -> std::string { _exit(3); });
  EXPECT_EQ(r.end, ChildResult::End::Exit);
  EXPECT_EQ(r.describe(), "exited with code 3");
  ChildResult zero =
      runInChild({}, [](std::string_view) -> std::string { _exit(0); });
  EXPECT_EQ(zero.end, ChildResult::End::Exit);
}

TEST(Sandbox, StagesComeBack) {
  ChildResult r = runInChild({}, [](std::string_view) -> std::string {
    setChildStage(1);
    setChildStage(2);
    std::raise(SIGBUS);
    return "";
  });
  EXPECT_EQ(r.stage, 2);
  EXPECT_EQ(r.code, SIGBUS);
  // Outside a child, stages go nowhere.
  setChildStage(5);
}

TEST(Sandbox, MemoryLimit) {
  // RLIMIT_AS; under AddressSanitizer the parent's watch of the child's
  // resident memory (the blocks are written, so they are resident).
  ChildLimits limits;
  limits.memoryBytes = uint64_t(256) << 20;
  ChildResult r = runInChild(limits, [](std::string_view) {
    std::vector<std::vector<char>> blocks;
    for (int i = 0; i < 64; ++i) {
      blocks.emplace_back(size_t(64) << 20, char(i));
      ::usleep(20000);
    }
    return std::to_string(blocks.size());
  });
  EXPECT_EQ(r.end, ChildResult::End::MemoryLimit) << r.describe();
  EXPECT_EQ(r.describe(), "ran out of its memory limit of 256 MiB");
  // Within the limit, the same work finishes.
  ChildResult small = runInChild(limits, [](std::string_view) {
    std::vector<char> block(size_t(64) << 20, 1);
    return std::to_string(block[123]);
  });
  ASSERT_TRUE(small.returned()) << small.describe();
  EXPECT_EQ(small.output, "1");
}

TEST(Sandbox, CpuLimit) {
  ChildLimits limits;
  limits.cpuSeconds = 1;
  ChildResult r = runInChild(limits, [](std::string_view) -> std::string {
    volatile uint64_t x = 0;
    while (true)
      x = x + 1;
  });
  EXPECT_EQ(r.end, ChildResult::End::CpuLimit) << r.describe();
  EXPECT_EQ(r.describe(), "exceeded its CPU time limit of 1 s");
}

TEST(Sandbox, WallLimit) {
  ChildLimits limits;
  limits.wallSeconds = 1;
  auto start = std::chrono::steady_clock::now();
  ChildResult r = runInChild(limits, [](std::string_view) -> std::string {
    while (true)
      ::pause();
  });
  EXPECT_EQ(r.end, ChildResult::End::WallLimit) << r.describe();
  EXPECT_EQ(r.describe(), "did not finish within 1 s");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(Sandbox, IdleChildrenAreForkedAgain) {
  // A child that never runs (it waits for a lock another thread of the
  // parent held when it forked) is killed and forked again. Here the first
  // child waits, the second finds the first's file and answers.
  char dir[] = "/tmp/dlc-sandbox-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string marker = std::string(dir) + "/first";
  ChildLimits limits;
  limits.idleSeconds = 1;
  limits.wallSeconds = 60;
  ChildResult r = runInChild(
      limits,
      [](std::string_view input) -> std::string {
        const std::string path(input);
        if (::access(path.c_str(), F_OK) != 0) {
          int fd = ::open(path.c_str(), O_CREAT | O_WRONLY, 0600);
          ::close(fd);
          while (true)
            ::pause();
        }
        return "second";
      },
      marker);
  ::unlink(marker.c_str());
  ::rmdir(dir);
  ASSERT_TRUE(r.returned()) << r.describe();
  EXPECT_EQ(r.output, "second");

  // One that never runs is an error after kChildAttempts tries.
  ChildResult stuck = runInChild(limits, [](std::string_view) -> std::string {
    while (true)
      ::pause();
  });
  EXPECT_EQ(stuck.end, ChildResult::End::Idle);
  EXPECT_EQ(stuck.describe(), "made no progress for 1 s, 3 times (waiting "
                              "for a lock held when it was forked)");
}

TEST(Sandbox, StackSize) {
  // 32 MiB of frames: more than a default 8 MiB stack holds.
  ChildLimits big;
  big.stackBytes = uint64_t(256) << 20;
  ChildResult deep = runInChild(big, [](std::string_view) {
    return std::to_string(recurse(32 << 10) != 1);
  });
  ASSERT_TRUE(deep.returned()) << deep.describe();
  ChildLimits small;
  small.stackBytes = uint64_t(1) << 20;
  ChildResult overflow = runInChild(small, [](std::string_view) {
    return std::to_string(recurse(32 << 10));
  });
  EXPECT_FALSE(overflow.returned());
}

TEST(Sandbox, ThreadsForkAtOnce) {
  // Each child must see only its own pipes: a child of another thread
  // holding this one's write end would delay its end of file to that
  // child's end (here: the sleeping ones).
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([t, &bad] {
      for (int i = 0; i < 10; ++i) {
        ChildLimits limits;
        limits.wallSeconds = 60;
        // The fork server makes the children: none is a copy of this
        // process, whose other threads may hold an allocator's lock
        // (GCC 12's AddressSanitizer does not take its locks across fork),
        // so none needs ChildLimits::idleSeconds.
        ChildResult r = runInChild(
            limits,
            [](std::string_view input) {
              if (std::stoi(std::string(input)) / 100 % 2)
                ::usleep(20000);
              return std::string(input);
            },
            std::to_string(t * 100 + i));
        if (!r.returned() || !r.fromServer ||
            r.output != std::to_string(t * 100 + i))
          ++bad;
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(bad.load(), 0);
}

TEST(Sandbox, NoCoreFilesAndNoDescriptorsLeak) {
  ChildResult r = runInChild({}, [](std::string_view) {
    // Descriptors 0-3 only.
    std::string open;
    for (int fd = 0; fd < 64; ++fd)
      if (::fcntl(fd, F_GETFD) != -1)
        open += std::to_string(fd) + " ";
    return open;
  });
  ASSERT_TRUE(r.returned());
  EXPECT_EQ(r.output, "0 1 2 3 ");
}

namespace {
std::mutex gHeld;

/// Whether /proc says process `pid` has ended (gone, or a zombie).
bool ended(int pid) {
  std::string path = "/proc/" + std::to_string(pid) + "/stat";
  FILE *f = std::fopen(path.c_str(), "r");
  if (!f)
    return true;
  char text[512] = {0};
  size_t n = std::fread(text, 1, sizeof(text) - 1, f);
  std::fclose(f);
  const char *close = std::strrchr(text, ')');
  return n == 0 || (close && close[1] == ' ' && close[2] == 'Z');
}
} // namespace

TEST(Sandbox, ChildrenFindNoLockAnotherThreadHolds) {
  // Another thread holds a lock the work takes: a copy of this process
  // would hold it for ever. The fork server, made while this process had
  // one thread, makes a child in which the lock is free.
  ASSERT_TRUE(startForkServer());
  ASSERT_NE(forkServerPid(), 0);
  std::atomic<bool> locked{false}, release{false};
  std::thread holder([&] {
    std::lock_guard<std::mutex> lock(gHeld);
    locked.store(true);
    while (!release.load())
      ::usleep(1000);
  });
  while (!locked.load())
    ::usleep(1000);
  ChildLimits limits;
  limits.wallSeconds = 60;
  ChildResult r = runInChild(limits, [](std::string_view) {
    std::lock_guard<std::mutex> lock(gHeld);
    return std::string("took it");
  });
  release.store(true);
  holder.join();
  ASSERT_TRUE(r.returned()) << r.describe();
  EXPECT_TRUE(r.fromServer);
  EXPECT_EQ(r.output, "took it");
}

TEST(Sandbox, ChildrenAreNotThisProcesssChildren) {
  ChildResult r = runInChild(
      {},
      [](std::string_view parent) {
        return std::string(std::to_string(::getppid()) == parent ? "mine"
                                                                 : "not");
      },
      std::to_string(::getpid()));
  ASSERT_TRUE(r.returned()) << r.describe();
  EXPECT_EQ(r.output, "not");
}

TEST(Sandbox, AKilledServerIsReplaced) {
  ASSERT_TRUE(startForkServer());
  int first = forkServerPid();
  ASSERT_GT(first, 0);
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  ::waitpid(first, nullptr, 0);
  ChildResult r =
      runInChild({}, [](std::string_view) { return std::string("again"); });
  ASSERT_TRUE(r.returned()) << r.describe();
  EXPECT_EQ(r.output, "again");
  EXPECT_TRUE(r.fromServer);
  EXPECT_NE(forkServerPid(), first);
  EXPECT_NE(forkServerPid(), 0);
}

TEST(Sandbox, TheServerEndsWithItsProcess) {
  // A forked copy of this process starts a server of its own (not its
  // parent's), uses it and exits: its server ends too.
  int pipeFds[2];
  ASSERT_EQ(::pipe(pipeFds), 0);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(pipeFds[0]);
    ChildResult r =
        runInChild({}, [](std::string_view) { return std::string("ok"); });
    int server = forkServerPid();
    if (!r.returned() || !r.fromServer || r.output != "ok")
      server = -1;
    (void)!::write(pipeFds[1], &server, sizeof(server));
    _exit(0);
  }
  ::close(pipeFds[1]);
  int server = 0;
  ASSERT_EQ(::read(pipeFds[0], &server, sizeof(server)),
            ssize_t(sizeof(server)));
  ::close(pipeFds[0]);
  ::waitpid(pid, nullptr, 0);
  ASSERT_GT(server, 0);
  EXPECT_NE(server, forkServerPid());
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = ended(server);
    if (!gone)
      ::usleep(10000);
  }
  EXPECT_TRUE(gone);
}
