//===- AlignmentTest.cpp - Vectorized kernels on unaligned caller buffers -===//
//
// A pointwise kernel over enough elements moves them in 16-byte vectors when
// every pointer it gets allows that, and element by element otherwise (the
// two versions of its body). Buffers the session allocates are aligned;
// buffers a caller passes to runOnDevice need not be. Both versions must
// give the same bits.
//
//===----------------------------------------------------------------------===//

#include "dlc/dlc.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using dlc::rt::HostTensor;
using dlc::rt::Package;
using dlc::rt::Result;

namespace {

/// f32, f16 and i1 inputs and outputs of one 64x128 iteration space, and a
/// broadcast row: the vector version loads f32 and f16 as 16-byte vectors,
/// i1 in 8-byte ones.
const char *kModel = R"(
func.func @main(%a: tensor<64x128xf32>, %b: tensor<64x128xf16>, %c: tensor<1x128xf32>, %m: tensor<64x128xi1>) -> (tensor<64x128xf32>, tensor<64x128xf16>, tensor<64x128xi1>) {
  %0 = dlc.cast %b : tensor<64x128xf16> -> tensor<64x128xf32>
  %1 = dlc.add %a, %0 : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %2 = dlc.mul %1, %c : (tensor<64x128xf32>, tensor<1x128xf32>) -> tensor<64x128xf32>
  %3 = dlc.exp %2 : tensor<64x128xf32>
  %4 = dlc.cast %3 : tensor<64x128xf32> -> tensor<64x128xf16>
  %5 = dlc.select %m, %2, %1 : (tensor<64x128xi1>, tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %6 = dlc.cmp gt, %5, %a : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xi1>
  return %5, %4, %6 : tensor<64x128xf32>, tensor<64x128xf16>, tensor<64x128xi1>
}
)";

/// Copies of `tensors` placed `shift` bytes past a 16-byte boundary.
struct ShiftedBuffers {
  std::vector<std::vector<uint8_t>> storage;
  std::vector<uint8_t *> pointers;
  ShiftedBuffers(const std::vector<HostTensor> &tensors, size_t shift) {
    for (const HostTensor &t : tensors) {
      storage.emplace_back(t.data.size() + 32 + shift);
      auto raw = reinterpret_cast<uintptr_t>(storage.back().data());
      auto *p = reinterpret_cast<uint8_t *>((raw + 15) / 16 * 16 + shift);
      std::memcpy(p, t.data.data(), t.data.size());
      pointers.push_back(p);
    }
  }
};

TEST(Alignment, UnalignedCallerBuffersTakeTheElementwisePath) {
  dlc::CompileOptions options;
  options.compileCubins = false;
  Result<Package> p = dlc::compile(kModel, options, "model.mlir");
  ASSERT_TRUE(p.isOk()) << p.message();
  // Both versions are in the kernel.
  EXPECT_NE(p->cudaSource.find("dlc_copy16(x0 + 0, in0 + base + 0);"),
            std::string::npos);
  EXPECT_NE(p->cudaSource.find("in0[base + v]"), std::string::npos);

  auto session = dlc::rt::Session::create(*p, {dlc::rt::DeviceKind::Sim});
  ASSERT_TRUE(session.isOk()) << session.message();
  std::vector<HostTensor> inputs = dlc::randomInputs(*p, 11);
  auto expected = (*session)->run(inputs);
  ASSERT_TRUE(expected.isOk()) << expected.message();
  auto reference = dlc::runReference(*p, inputs);
  ASSERT_TRUE(reference.isOk()) << reference.message();
  for (size_t i = 0; i < expected->size(); ++i)
    EXPECT_LE(dlc::rt::relativeError((*expected)[i], (*reference)[i]), 1e-3)
        << "output " << i;

  // Inputs and outputs 0, 1, 2, 4 and 8 bytes past a vector boundary: every
  // shift but 0 fails some pointer's alignment (1 byte even an element's
  // for f32 and f16, which the sim allows).
  for (size_t shift : {0, 1, 2, 4, 8}) {
    ShiftedBuffers in(inputs, shift);
    ShiftedBuffers out(*expected, shift);
    for (size_t i = 0; i < expected->size(); ++i)
      std::memset(out.pointers[i], 0xcd, (*expected)[i].data.size());
    std::vector<const void *> ins(in.pointers.begin(), in.pointers.end());
    std::vector<void *> outs(out.pointers.begin(), out.pointers.end());
    ASSERT_TRUE((*session)->runOnDevice(ins, outs).isOk()) << "shift " << shift;
    for (size_t i = 0; i < expected->size(); ++i)
      EXPECT_EQ(std::memcmp(out.pointers[i], (*expected)[i].data.data(),
                            (*expected)[i].data.size()),
                0)
          << "output " << i << ", shift " << shift;
  }
}

} // namespace
