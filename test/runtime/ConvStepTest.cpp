//===- ConvStepTest.cpp - Convolution steps: format, sim, fake cuDNN ------===//
//
// Library convolution steps (ConvStep): the package format keeps them and
// validatePackage refuses inconsistent ones; the sim device computes them as
// defined (against a direct loop in double); the cuda device runs them on
// cuDNN (here the fake one of FakeCuda.cpp) with the same bytes as sim, and
// fails cleanly at every cuDNN call.
//
//===----------------------------------------------------------------------===//
#include "FaultSweep.h"
#include "runtime/CudaLibs.h"
#include "runtime/FaultInjection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

using namespace dlc::rt;
using namespace dlc::rt::test;
using ::testing::HasSubstr;

namespace {

std::vector<HostTensor> convInputs() { return randomInputs(convPackage(), 7); }

TEST(ConvStep, SimComputesTheDefinition) {
  Package p = convPackage();
  ASSERT_TRUE(validatePackage(p).isOk()) << validatePackage(p).message();
  std::vector<HostTensor> in = convInputs();
  std::vector<HostTensor> want = convReference(in);
  std::vector<HostTensor> got = simOutputs(p, in);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_LT(relativeError(got[0], want[0]), 1e-6);
  EXPECT_LT(relativeError(got[1], want[1]), 1e-6);
  // bf16: rounded once (the reference rounds the exact sum).
  EXPECT_LT(relativeError(got[2], want[2]), 1e-2);
  // The relu zeroed some outputs and kept others.
  int zeros = 0;
  for (int64_t i = 0; i < got[0].numElements(); ++i)
    zeros += got[0].getAsDouble(i) == 0;
  EXPECT_GT(zeros, 0);
  EXPECT_LT(zeros, got[0].numElements());
}

TEST(ConvStep, FormatRoundTripsAndCountsBytesAndFlops) {
  Package p = convPackage();
  std::vector<uint8_t> bytes = serializePackage(p);
  Result<Package> back = deserializePackage(bytes);
  ASSERT_TRUE(back.isOk()) << back.message();
  ASSERT_EQ(back->steps.size(), 3u);
  const ConvStep &a = back->steps[0].conv, &b = back->steps[1].conv;
  EXPECT_EQ(back->steps[0].kind, Step::Kind::Conv);
  EXPECT_EQ(a.groups, 2);
  EXPECT_EQ(a.strideH, 2);
  EXPECT_EQ(a.padW, 1);
  EXPECT_TRUE(a.bias && a.addend);
  EXPECT_EQ(a.epilogue, GemmEpilogue::Relu);
  EXPECT_EQ(b.dilH, 2);
  EXPECT_FALSE(b.bias || b.addend);
  EXPECT_EQ(back->steps[2].conv.dtype, DType::BF16);
  EXPECT_STREQ(stepKindName(Step::Kind::Conv), "conv");
  // x, filter, y, bias, addend; 2 N P Q K R S C/G.
  EXPECT_EQ(stepBytes(p.steps[0]), uint64_t(4 * (2 * 6 * 6 * 4 + 8 * 3 * 3 * 2 +
                                                 8 + 2 * 2 * 3 * 3 * 8)));
  EXPECT_EQ(stepFlops(p.steps[0]), 2.0 * 2 * 3 * 3 * 8 * 3 * 3 * 2);
}

TEST(ConvStep, InconsistentStepsAreRefused) {
  struct Case {
    const char *why;
    std::function<void(ConvStep &)> edit;
    const char *error;
  };
  const Case cases[] = {
      {"output size", [](ConvStep &c) { c.p = 4; },
       "does not follow from its input"},
      {"window larger than the input", [](ConvStep &c) { c.r = 20; },
       "does not follow from its input"},
      {"groups", [](ConvStep &c) { c.groups = 3; }, "groups do not divide"},
      {"zero stride", [](ConvStep &c) { c.strideW = 0; },
       "each must be positive"},
      {"negative padding", [](ConvStep &c) { c.padH = -1; },
       "negative padding"},
      {"epilogue", [](ConvStep &c) { c.epilogue = GemmEpilogue::GeluTanh; },
       "none or relu"},
      {"type", [](ConvStep &c) { c.dtype = DType::I32; }, "not supported"},
      {"small filter buffer", [](ConvStep &c) { c.filter.bytes = 16; },
       "filter needs 576 bytes"},
      {"huge sizes",
       [](ConvStep &c) {
         c.n = int64_t(1) << 40;
         c.h = int64_t(1) << 40;
       },
       "does not follow"},
      {"read-only output",
       [](ConvStep &c) { c.y.kind = BufferRef::Kind::Input; }, "read-only"},
  };
  for (const Case &k : cases) {
    SCOPED_TRACE(k.why);
    Package p = convPackage();
    k.edit(p.steps[0].conv);
    Status st = validatePackage(p);
    ASSERT_FALSE(st.isOk());
    EXPECT_THAT(st.message(), HasSubstr(k.error));
    EXPECT_THAT(st.message(), HasSubstr("step 0"));
  }
}

//===----------------------------------------------------------------------===//
// cuDNN through the fake driver
//===----------------------------------------------------------------------===//

class ConvOnFakeCuda : public CudaFault {
protected:
  void SetUp() override {
    CudaFault::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    std::string why;
    if (!loadCudnn(&why))
      GTEST_SKIP() << "needs $DLC_CUDNN_LIB set to libdlc-fakecuda.so: " << why;
  }
};

TEST_F(ConvOnFakeCuda, SameBytesAsSimWithAndWithoutGraphs) {
  Package p = convPackage();
  std::vector<HostTensor> in = convInputs();
  std::vector<HostTensor> want = simOutputs(p, in);
  ASSERT_EQ(want.size(), 3u);
  for (bool graph : {false, true}) {
    SCOPED_TRACE(graph ? "graph" : "direct");
    uint64_t before = fake_->snapshot().cudnnConvs;
    Result<std::unique_ptr<Session>> s = createCuda(p, graph);
    ASSERT_TRUE(s.isOk()) << s.message();
    for (int run = 0; run < 3; ++run) {
      Result<std::vector<HostTensor>> got = (*s)->run(in);
      ASSERT_TRUE(got.isOk()) << got.message();
      EXPECT_TRUE(sameOutputs(*got, want));
    }
    EXPECT_GE(fake_->snapshot().cudnnConvs - before, 3u);
  }
  FakeCudaStats s = fake_->snapshot();
  EXPECT_EQ(s.cudnnHandles, 0);
  EXPECT_EQ(s.cudnnDescriptors, 0);
}

TEST_F(ConvOnFakeCuda, MissingCudnnIsAClearError) {
  ASSERT_TRUE(fault::inject("libcudnn-missing").isOk());
  Result<std::unique_ptr<Session>> s = createCuda(convPackage());
  ASSERT_FALSE(s.isOk());
  EXPECT_THAT(s.message(),
              HasSubstr("the package has convolution steps but cuDNN is not "
                        "available"));
  EXPECT_THAT(s.message(), HasSubstr("--no-library-conv"));
}

TEST_F(ConvOnFakeCuda, EveryCudnnCallFailsCleanly) {
  Package p = convPackage();
  std::vector<HostTensor> in = convInputs();
  std::vector<HostTensor> want = simOutputs(p, in);
  ASSERT_EQ(want.size(), 3u);
  const std::set<std::string> releases = {
      "cudnnDestroy", "cudnnDestroyTensorDescriptor",
      "cudnnDestroyFilterDescriptor", "cudnnDestroyConvolutionDescriptor",
      "cudnnDestroyActivationDescriptor"};
  // The package has no kernels, so NVRTC has nothing to compile: three of
  // the four ways to use a session.
  std::vector<Sweep> sweeps(3);
  const Mode modes[] = {Mode::Graph, Mode::SyncSteps, Mode::RunOnDevice};
  std::set<std::string> tested;
  size_t lifecycles = 0;
  for (size_t i = 0; i < sweeps.size(); ++i) {
    Sweep &w = sweeps[i];
    w.mode = modes[i];
    w.package = p;
    w.inputs = in;
    w.want = want;
    if (w.mode == Mode::RunOnDevice) {
      std::vector<uint64_t> inBytes, outBytes;
      for (const TensorDesc &d : p.inputs)
        inBytes.push_back(d.byteSize());
      for (const TensorDesc &d : p.outputs)
        outBytes.push_back(d.byteSize());
      w.buffers = std::make_unique<CallerBuffers>(inBytes, outBytes);
      w.buffers->write(in);
    }
    for (const fault::SiteInfo &site : fault::sites()) {
      if (site.name.rfind("cudnn", 0) != 0 ||
          site.name == "cudnnGetErrorString" || site.name == "cudnnGetVersion")
        continue;
      // How often a clean lifecycle reaches the site.
      ASSERT_TRUE(fault::inject(site.name, ~uint64_t(0)).isOk());
      Lifecycle clean = runLifecycle(w, site.name);
      uint64_t calls = fault::calls(site.name);
      fault::clear();
      ASSERT_TRUE(clean.errors.empty())
          << modeName(w.mode) << ": " << clean.errors[0];
      for (uint64_t nth = 1; nth <= calls; ++nth) {
        SCOPED_TRACE(std::string(modeName(w.mode)) + ": " + site.name +
                     ", call " + std::to_string(nth) + " of " +
                     std::to_string(calls));
        LiveCudaObjects live = liveCudaObjects();
        FakeCudaStats start = fake_->snapshot();
        ASSERT_TRUE(fault::inject(site.name, nth).isOk());
        Lifecycle life = runLifecycle(w, site.name);
        EXPECT_EQ(fault::fired(site.name), 1u);
        fault::clear();
        ++lifecycles;
        tested.insert(site.name);
        expectNoLeaks(live, start, w.mode == Mode::RunOnDevice);
        if (releases.count(site.name) || !life.firedInUse) {
          // A failed release, or a fault in the destructor: nothing to
          // report, and the runs were right.
          EXPECT_TRUE(life.errors.empty()) << life.errors[0];
          continue;
        }
        ASSERT_FALSE(life.errors.empty()) << "the failure did not surface";
        EXPECT_THAT(life.errors[0], HasSubstr(site.name + " failed"));
        EXPECT_THAT(life.errors[0], HasSubstr(site.error));
        // Nothing cuDNN reports is sticky: the session, or a new one, works.
        EXPECT_TRUE(life.recovered) << life.recovery;
      }
    }
  }
  // The 23 cuDNN entry points but the error string and the version.
  EXPECT_EQ(tested.size(), 21u);
  std::printf("%zu cuDNN sites, %zu session lifecycles with one failure each\n",
              tested.size(), lifecycles);
}

} // namespace
