//===- ReferenceModelTest.cpp - A package's reference model, weights once -===//

#include "dlc/dlc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

using dlc::rt::Package;
using dlc::rt::Result;
using ::testing::HasSubstr;

namespace {

/// A model with a 32x8 f32 weight (1 KiB) used as it is, and an 8-element
/// scale (32 bytes, under the 64-byte probe).
std::string model() {
  std::string w = "0x04000000", s = "0x04000000";
  char buf[9];
  for (int i = 0; i < 32 * 8; ++i) {
    std::snprintf(buf, sizeof buf, "%08x",
                  0x3c000000u + unsigned(i * 7919 % 8192));
    w += buf;
  }
  for (int i = 0; i < 8; ++i) {
    std::snprintf(buf, sizeof buf, "%08x",
                  0x3f800000u + unsigned(i) * 0x40000u);
    s += buf;
  }
  return R"(
func.func @main(%x: tensor<4x32xf32>) -> tensor<4x8xf32> {
  %w = "tosa.const"() <{value = dense_resource<w> : tensor<32x8xf32>}> : () -> tensor<32x8xf32>
  %s = "tosa.const"() <{value = dense_resource<s> : tensor<1x8xf32>}> : () -> tensor<1x8xf32>
  %y = dlc.matmul %x, %w : (tensor<4x32xf32>, tensor<32x8xf32>) -> tensor<4x8xf32>
  %z = tosa.mul %y, %s {shift = 0 : i8} : (tensor<4x8xf32>, tensor<1x8xf32>) -> tensor<4x8xf32>
  return %z : tensor<4x8xf32>
}
{-#
  dialect_resources: { builtin: { w: ")" +
         w + R"(", s: ")" + s + R"(" } }
#-}
)";
}

Result<Package> compileModel() {
  dlc::CompileOptions options;
  options.compileCubins = false;
  return dlc::compile(model(), options, "model.mlir");
}

const dlc::rt::ReferenceBlob *findBlob(const Package &p,
                                       const std::string &key) {
  for (const dlc::rt::ReferenceBlob &b : p.referenceBlobs)
    if (b.key == key)
      return &b;
  return nullptr;
}

TEST(ReferenceModel, WeightsAreStoredOnce) {
  Result<Package> p = compileModel();
  ASSERT_TRUE(p.isOk()) << p.message();
  ASSERT_EQ(p->referenceBlobs.size(), 2u);
  // The weight is a range of the constants; the bytecode does not hold it.
  const dlc::rt::ReferenceBlob *w = findBlob(*p, "w");
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->inConstants);
  EXPECT_EQ(w->size, 32u * 8u * 4u);
  EXPECT_TRUE(w->data.empty());
  EXPECT_EQ(w->offset % dlc::rt::kConstantAlignment, 0u);
  EXPECT_LT(p->referenceIR.size(), 2048u);
  // The scale is under the probe's 64 bytes: its own bytes.
  const dlc::rt::ReferenceBlob *s = findBlob(*p, "s");
  ASSERT_NE(s, nullptr);
  EXPECT_FALSE(s->inConstants);
  EXPECT_EQ(s->data.size(), 32u);

  // The reference interpreter sees the weights: it agrees with the sim, and
  // through a serialized package too.
  Result<Package> q =
      dlc::rt::deserializePackage(dlc::rt::serializePackage(*p));
  ASSERT_TRUE(q.isOk()) << q.message();
  std::vector<dlc::rt::HostTensor> inputs = dlc::randomInputs(*q, 3);
  auto reference = dlc::runReference(*q, inputs);
  ASSERT_TRUE(reference.isOk()) << reference.message();
  auto session = dlc::rt::Session::create(*q, {dlc::rt::DeviceKind::Sim});
  ASSERT_TRUE(session.isOk()) << session.message();
  auto outputs = (*session)->run(inputs);
  ASSERT_TRUE(outputs.isOk()) << outputs.message();
  EXPECT_LE(dlc::rt::relativeError((*outputs)[0], (*reference)[0]), 1e-5);

  // Another range of the constants gives other reference results: the data
  // really comes from the blob.
  Package shifted = *q;
  for (dlc::rt::ReferenceBlob &b : shifted.referenceBlobs)
    if (b.key == "w")
      b.offset += 4;
  auto other = dlc::runReference(shifted, inputs);
  ASSERT_TRUE(other.isOk()) << other.message();
  EXPECT_GT(dlc::rt::relativeError((*other)[0], (*reference)[0]), 1e-3);
}

TEST(ReferenceModel, UnknownWeightNameIsAnError) {
  Result<Package> p = compileModel();
  ASSERT_TRUE(p.isOk()) << p.message();
  Package renamed = *p;
  renamed.referenceBlobs[0].key = "not_in_the_model";
  auto r = dlc::runReference(renamed, dlc::randomInputs(renamed, 1));
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("the package's reference model has no "
                                     "weight named 'not_in_the_model'"));
}

} // namespace

namespace {

TEST(ReferenceModel, Bf16PackageStoresTheRoundedWeightOnce) {
  dlc::CompileOptions options;
  options.compileCubins = false;
  options.precision = "bf16";
  Result<Package> p = dlc::compile(model(), options, "model.mlir");
  ASSERT_TRUE(p.isOk()) << p.message();
  // The 1 KiB f32 weight is in the package as 512 bytes of bf16, and the
  // reference model's copy (the rounded weight widened by a cast) is that
  // range of the constants: no f32 copy beside it.
  bool shared = false;
  for (const dlc::rt::ReferenceBlob &b : p->referenceBlobs) {
    shared |= b.inConstants && b.size == 32 * 8 * 2;
    EXPECT_LT(b.inConstants ? 0 : b.data.size(), 64u) << b.key;
  }
  EXPECT_TRUE(shared);
  EXPECT_EQ(p->precision, "bf16");
}

TEST(ReferenceModel, PrecisionOptionsAreChecked) {
  dlc::CompileOptions options;
  options.compileCubins = false;
  options.precision = "int8";
  EXPECT_THAT(dlc::compile(model(), options, "model.mlir").message(),
              HasSubstr("unknown precision 'int8'; expected f32, tf32, bf16, "
                        "fp16 or fp8"));
  options.precision = "bf16";
  options.ioPrecision = "half";
  EXPECT_THAT(dlc::compile(model(), options, "model.mlir").message(),
              HasSubstr("unknown io-precision 'half'; expected declared or "
                        "low"));
  options.precision = "f32";
  options.ioPrecision = "low";
  EXPECT_THAT(dlc::compile(model(), options, "model.mlir").message(),
              HasSubstr("--io-precision=low needs a low precision "
                        "(--precision=bf16, fp16 or fp8), not 'f32'"));
}

TEST(ReferenceModel, LayoutOptionIsChecked) {
  dlc::CompileOptions options;
  options.compileCubins = false;
  options.layout = "nwhc";
  EXPECT_THAT(dlc::compile(model(), options, "model.mlir").message(),
              HasSubstr("unknown layout 'nwhc'; expected auto, nchw or nhwc"));
  options.layout = "nhwc";
  auto p = dlc::compile(model(), options, "model.mlir");
  EXPECT_TRUE(p.isOk()) << p.message();
}

} // namespace
