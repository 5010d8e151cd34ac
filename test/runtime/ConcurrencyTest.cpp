//===- ConcurrencyTest.cpp - Sessions and caches used from many threads ---===//
//
// A session is used by one thread at a time, but any number of sessions on
// one package may run at once (Runtime.h). These check that they give the
// results of a single session, bit for bit, that sessions starting together
// on a cold kernel cache compile and publish one whole entry, and that the
// fault sites count exactly under contention. Concurrency.* runs in
// runtime.concurrency; FakeCudaConcurrency.* needs the fake CUDA driver
// (runtime.fake-cuda).
//
// The NVRTC cache under concurrent writers is covered by
// NvrtcTest.ConcurrentWritersProduceOneWholeEntry (CompileTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "FakeCudaTestUtil.h"
#include "runtime/CudaLibs.h"
#include "runtime/FaultInjection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

using namespace dlc::rt;
using namespace dlc::rt::test;

namespace {

struct Workload {
  Package package;
  std::vector<HostTensor> inputs;
};

std::vector<Workload> workloads() {
  return {
      {elementwisePackage(),
       {randomF32({kEwSize}, 41), randomF32({kEwSize}, 42)}},
      // Barriers and warp shuffles: threads run as fibers.
      {reductionPackage(16), {randomF32({16, kRowLength}, 43)}},
      // Ping-pong through the arena.
      {chainPackage(6), {randomF32({kChainSize}, 44)}},
      // The CPU GEMM, copies and constants.
      {scenarioPackage(), scenarioInputs()},
  };
}

TEST(Concurrency, SimSessionsOnOnePackageFromManyThreads) {
  const std::vector<Workload> work = workloads();
  // What one session computes, alone.
  std::vector<std::vector<HostTensor>> want;
  for (const Workload &w : work) {
    want.push_back(simOutputs(w.package, w.inputs));
    ASSERT_FALSE(want.back().empty());
  }
  const int threads = 4, runs = 3;
  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      // Each thread opens its own session on every package (the packages
      // and inputs are shared, read-only), and goes through them in its own
      // order.
      std::vector<std::unique_ptr<Session>> sessions;
      SessionOptions opts;
      opts.device = DeviceKind::Sim;
      for (const Workload &w : work) {
        Result<std::unique_ptr<Session>> s = Session::create(w.package, opts);
        if (!s.isOk()) {
          failures[t] = s.message();
          return;
        }
        sessions.push_back(s.take());
      }
      for (int r = 0; r < runs; ++r)
        for (size_t k = 0; k < work.size(); ++k) {
          size_t i = (k + size_t(t)) % work.size();
          Result<std::vector<HostTensor>> out =
              sessions[i]->run(work[i].inputs);
          if (!out.isOk()) {
            failures[t] = out.message();
            return;
          }
          ::testing::AssertionResult same = sameOutputs(*out, want[i]);
          if (!same) {
            failures[t] = "workload " + std::to_string(i) + ", run " +
                          std::to_string(r) + ": " + same.message();
            return;
          }
        }
    });
  for (std::thread &t : pool)
    t.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
}

TEST(Concurrency, SimSessionsStartingTogetherOnAColdCache) {
  TempDir dir("dlc-sim-cold");
  ScopedEnv env("DLC_CACHE_DIR", dir.path());
  Package p = elementwisePackage();
  p.cudaSource += "\n// cold start " + dir.path() + "\n";
  std::vector<HostTensor> in = {randomF32({kEwSize}, 45),
                                randomF32({kEwSize}, 46)};
  const int threads = 4;
  std::vector<Result<std::vector<HostTensor>>> results(
      threads, Result<std::vector<HostTensor>>(Status::error("not run")));
  KernelCacheStats before = kernelCacheStats();
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      ++ready;
      while (ready.load() < threads)
        std::this_thread::yield();
      SessionOptions opts;
      opts.device = DeviceKind::Sim;
      Result<std::unique_ptr<Session>> s = Session::create(p, opts);
      results[t] = s.isOk() ? (*s)->run(in)
                            : Result<std::vector<HostTensor>>(s.status());
    });
  for (std::thread &t : pool)
    t.join();
  for (int t = 0; t < threads; ++t) {
    ASSERT_TRUE(results[t].isOk())
        << "thread " << t << ": " << results[t].message();
    EXPECT_TRUE(sameOutputs(*results[t], *results[0])) << "thread " << t;
  }
  KernelCacheStats after = kernelCacheStats();
  EXPECT_EQ(after.hits + after.misses - before.hits - before.misses,
            uint64_t(threads));
  EXPECT_GE(after.misses, before.misses + 1);
  EXPECT_EQ(after.corruptEntries, before.corruptEntries);
  // One object and its checksum, published whole; no temporary files.
  int objects = 0, sums = 0;
  for (const std::string &n : TempDir::list(dir.path() + "/sim")) {
    EXPECT_EQ(n.find(".tmp."), std::string::npos) << n;
    EXPECT_EQ(n.find(".log."), std::string::npos) << n;
    objects += n.size() > 3 && n.compare(n.size() - 3, 3, ".so") == 0;
    sums += n.size() > 4 && n.compare(n.size() - 4, 4, ".sum") == 0;
  }
  EXPECT_EQ(objects, 1);
  EXPECT_EQ(sums, 1);
  // And a later session finds it intact.
  SessionOptions opts;
  opts.device = DeviceKind::Sim;
  Result<std::unique_ptr<Session>> s = Session::create(p, opts);
  ASSERT_TRUE(s.isOk()) << s.message();
  EXPECT_EQ(kernelCacheStats().hits, after.hits + 1);
}

TEST(Concurrency, FaultSitesCountExactlyUnderContention) {
  const int threads = 8, callsPerThread = 2000;
  auto hammer = [&](const char *site) {
    std::atomic<uint64_t> failures{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (int i = 0; i < callsPerThread; ++i)
          failures += fault::shouldFail(site);
      });
    for (std::thread &t : pool)
      t.join();
    return failures.load();
  };
  ASSERT_TRUE(fault::inject("sim-alloc", 5000).isOk());
  EXPECT_EQ(hammer("sim-alloc"), 1u);
  EXPECT_EQ(fault::calls("sim-alloc"), uint64_t(threads * callsPerThread));
  ASSERT_TRUE(fault::inject("sim-load", 101, 0).isOk());
  EXPECT_EQ(hammer("sim-load"), uint64_t(threads * callsPerThread - 100));
  EXPECT_EQ(fault::fired("sim-load"), uint64_t(threads * callsPerThread - 100));
  fault::clear();
  EXPECT_EQ(hammer("sim-load"), 0u);
}

TEST(FakeCudaConcurrency, CudaSessionsFromManyThreads) {
  const FakeCudaControl *fake = FakeCudaControl::get();
  if (!fake)
    GTEST_SKIP() << "needs $DLC_CUDA_DRIVER_LIB set to libdlc-fakecuda.so "
                    "(ctest -R runtime.fake-cuda)";
  LiveCudaObjects live = liveCudaObjects();
  Package p = withFakeCubin(scenarioPackage());
  std::vector<HostTensor> in = scenarioInputs();
  std::vector<HostTensor> want = simOutputs(p, in);
  ASSERT_FALSE(want.empty());
  const int threads = 3, runs = 4;
  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      Result<std::unique_ptr<Session>> s = createCuda(p);
      if (!s.isOk()) {
        failures[t] = s.message();
        return;
      }
      for (int r = 0; r < runs; ++r) {
        Result<std::vector<HostTensor>> out = (*s)->run(in);
        if (!out.isOk()) {
          failures[t] = out.message();
          return;
        }
        if (!sameOutputs(*out, want)) {
          failures[t] = "run " + std::to_string(r) + " differs";
          return;
        }
      }
    });
  for (std::thread &t : pool)
    t.join();
  for (int t = 0; t < threads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;

  // One session handed from thread to thread: each run makes the session's
  // context current on the thread it runs on.
  Result<std::unique_ptr<Session>> s = createCuda(p);
  ASSERT_TRUE(s.isOk()) << s.message();
  for (int r = 0; r < 4; ++r) {
    std::string failure;
    std::thread([&] {
      Result<std::vector<HostTensor>> out = (*s)->run(in);
      failure = !out.isOk()                ? out.message()
                : !sameOutputs(*out, want) ? "outputs differ"
                                           : "";
    }).join();
    EXPECT_EQ(failure, "") << "run " << r;
  }
  s->reset();
  EXPECT_EQ(liveCudaObjects(), live) << liveCudaObjects().describe();
  FakeCudaStats st = fake->snapshot();
  EXPECT_EQ(st.contextRetains, 0);
  EXPECT_EQ(st.pushedContexts, 0);
  EXPECT_EQ(st.allocations, 0);
}

} // namespace
