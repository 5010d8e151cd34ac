//===- PackageCacheTest.cpp - The compile cache through the C++ API -------===//

#include "TestUtil.h"
#include "dlc/dlc.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <string>
#include <vector>

using dlc::CompileOptions;
using dlc::rt::Package;
using dlc::rt::Result;
using dlc::rt::test::TempDir;

namespace {

const char *kModel = R"(
func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tosa.mul %x, %y {shift = 0 : i8} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = tosa.exp %0 : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}
)";

/// Entries of the cache directory's packages/ folder.
std::vector<std::string> entries(const std::string &cacheDir) {
  std::vector<std::string> names;
  if (DIR *d = opendir((cacheDir + "/packages").c_str())) {
    while (dirent *e = readdir(d))
      if (std::string(e->d_name).size() > 7 &&
          std::string(e->d_name).find(".dlcpkg") != std::string::npos)
        names.push_back(cacheDir + "/packages/" + e->d_name);
    closedir(d);
  }
  return names;
}

class PackageCache : public ::testing::Test {
protected:
  void SetUp() override {
    ::setenv("DLC_CACHE_DIR", dir.path().c_str(), 1);
    options.packageCache = true;
    options.compileCubins = false;
  }
  void TearDown() override {
    ::unsetenv("DLC_CACHE_DIR");
    ::unsetenv("DLC_PACKAGE_CACHE_MAX_MB");
    ::unsetenv("DLC_TEST_VARIABLE");
  }
  Result<Package> compile(const std::string &text = kModel,
                          const std::string &name = "model.mlir") {
    return dlc::compile(text, options, name);
  }
  TempDir dir{"dlc-api-test"};
  CompileOptions options;
};

TEST_F(PackageCache, SecondCompileIsAHitWithTheSamePackage) {
  dlc::PackageCacheStats before = dlc::packageCacheStats();
  Result<Package> first = compile();
  ASSERT_TRUE(first.isOk()) << first.message();
  ASSERT_EQ(entries(dir.path()).size(), 1u);
  Result<Package> second = compile();
  ASSERT_TRUE(second.isOk()) << second.message();
  dlc::PackageCacheStats after = dlc::packageCacheStats();
  EXPECT_EQ(after.misses - before.misses, 1u);
  EXPECT_EQ(after.hits - before.hits, 1u);
  EXPECT_EQ(dlc::rt::serializePackage(*first),
            dlc::rt::serializePackage(*second));
  // The cached package runs like the compiled one.
  std::vector<dlc::rt::HostTensor> inputs = dlc::randomInputs(*second, 5);
  auto session = dlc::rt::Session::create(*second, {dlc::rt::DeviceKind::Sim});
  ASSERT_TRUE(session.isOk()) << session.message();
  auto outputs = (*session)->run(inputs);
  ASSERT_TRUE(outputs.isOk()) << outputs.message();
  auto reference = dlc::runReference(*second, inputs);
  ASSERT_TRUE(reference.isOk()) << reference.message();
  EXPECT_LE(dlc::rt::relativeError((*outputs)[0], (*reference)[0]), 1e-5);
}

TEST_F(PackageCache, KeyCoversTextNameOptionsAndEnvironment) {
  ASSERT_TRUE(compile().isOk());
  dlc::PackageCacheStats before = dlc::packageCacheStats();
  ASSERT_TRUE(compile(std::string(kModel) + "// edited\n").isOk());
  ASSERT_TRUE(compile(kModel, "other.mlir").isOk());
  options.fuse = false;
  ASSERT_TRUE(compile().isOk());
  options.fuse = true;
  options.tf32 = true;
  ASSERT_TRUE(compile().isOk());
  options.tf32 = false;
  options.referenceModel = false;
  ASSERT_TRUE(compile().isOk());
  options.referenceModel = true;
  ::setenv("DLC_TEST_VARIABLE", "1", 1);
  ASSERT_TRUE(compile().isOk());
  dlc::PackageCacheStats after = dlc::packageCacheStats();
  EXPECT_EQ(after.misses - before.misses, 6u);
  EXPECT_EQ(after.hits - before.hits, 0u);
  EXPECT_EQ(entries(dir.path()).size(), 7u);
  // Each of them is a hit now.
  ASSERT_TRUE(compile().isOk());
  ::unsetenv("DLC_TEST_VARIABLE");
  ASSERT_TRUE(compile(kModel, "other.mlir").isOk());
  EXPECT_EQ(dlc::packageCacheStats().hits - after.hits, 2u);
}

TEST_F(PackageCache, DamagedEntryIsCompiledAgain) {
  Result<Package> first = compile();
  ASSERT_TRUE(first.isOk());
  std::vector<std::string> files = entries(dir.path());
  ASSERT_EQ(files.size(), 1u);
  // Flip a byte in the middle: the checksum no longer matches.
  FILE *f = std::fopen(files[0].c_str(), "r+b");
  ASSERT_NE(f, nullptr);
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fseek(f, size / 2, SEEK_SET);
  int c = std::fgetc(f);
  std::fseek(f, size / 2, SEEK_SET);
  std::fputc(c ^ 0x5a, f);
  std::fclose(f);
  dlc::PackageCacheStats before = dlc::packageCacheStats();
  Result<Package> again = compile();
  ASSERT_TRUE(again.isOk()) << again.message();
  dlc::PackageCacheStats after = dlc::packageCacheStats();
  EXPECT_EQ(after.corruptEntries - before.corruptEntries, 1u);
  EXPECT_EQ(after.misses - before.misses, 1u);
  EXPECT_EQ(dlc::rt::serializePackage(*first),
            dlc::rt::serializePackage(*again));
  // Replaced by a good entry.
  ASSERT_TRUE(compile().isOk());
  EXPECT_EQ(dlc::packageCacheStats().hits - after.hits, 1u);
}

/// A model with a 64x1152 f32 weight (288 KiB).
std::string weightModel() {
  std::string hex = "0x04000000";
  for (int i = 0; i < 64 * 1152; ++i) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", 0x3c000000u + unsigned(i % 4096));
    hex += buf;
  }
  return R"(
func.func @main(%x: tensor<8x64xf32>) -> tensor<8x1152xf32> {
  %w = "tosa.const"() <{value = dense_resource<w> : tensor<64x1152xf32>}> : () -> tensor<64x1152xf32>
  %y = dlc.matmul %x, %w : (tensor<8x64xf32>, tensor<64x1152xf32>) -> tensor<8x1152xf32>
  return %y : tensor<8x1152xf32>
}
{-#
  dialect_resources: { builtin: { w: ")" +
         hex + R"(" } }
#-}
)";
}

long fileSize(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return -1;
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fclose(f);
  return size;
}

TEST_F(PackageCache, LimitEvictsTheLeastRecentlyUsed) {
  const std::string model = weightModel();
  ::setenv("DLC_PACKAGE_CACHE_MAX_MB", "1", 1);
  // Three entries of ~0.3 MiB (the weight once: the reference model's copy
  // is a range of the constants) fit in 1 MiB.
  for (const char *name : {"a.mlir", "b.mlir", "c.mlir"})
    ASSERT_TRUE(compile(model, name).isOk());
  std::vector<std::string> files = entries(dir.path());
  ASSERT_EQ(files.size(), 3u);
  long size = fileSize(files[0]);
  EXPECT_GT(size, 288 * 1024);
  EXPECT_LT(size, 320 * 1024);
  // a is used again: now b and c are the least recently used.
  dlc::PackageCacheStats before = dlc::packageCacheStats();
  ASSERT_TRUE(compile(model, "a.mlir").isOk());
  EXPECT_EQ(dlc::packageCacheStats().hits - before.hits, 1u);
  // A fourth exceeds the limit: the cache is trimmed to three quarters of
  // it, oldest first (b, then c).
  ASSERT_TRUE(compile(model, "d.mlir").isOk());
  dlc::PackageCacheStats after = dlc::packageCacheStats();
  EXPECT_EQ(after.evicted - before.evicted, 2u);
  EXPECT_EQ(entries(dir.path()).size(), 2u);
  before = after;
  ASSERT_TRUE(compile(model, "a.mlir").isOk());
  ASSERT_TRUE(compile(model, "d.mlir").isOk());
  after = dlc::packageCacheStats();
  EXPECT_EQ(after.hits - before.hits, 2u) << "a and d should have been kept";
  before = after;
  ASSERT_TRUE(compile(model, "b.mlir").isOk());
  EXPECT_EQ(dlc::packageCacheStats().misses - before.misses, 1u)
      << "b should have been evicted";

  // A limit of 0 keeps nothing.
  ::setenv("DLC_PACKAGE_CACHE_MAX_MB", "0", 1);
  ASSERT_TRUE(compile().isOk());
  EXPECT_TRUE(entries(dir.path()).empty());
}

TEST_F(PackageCache, OffByDefaultAndFailuresAreNotStored) {
  options.packageCache = false;
  ASSERT_TRUE(compile().isOk());
  EXPECT_TRUE(entries(dir.path()).empty());
  options.packageCache = true;
  Result<Package> bad =
      compile("func.func @main(%x: tensor<2xf32>) -> "
              "tensor<3xf32> {\n  return %x : tensor<2xf32>\n}\n");
  ASSERT_FALSE(bad.isOk());
  EXPECT_TRUE(entries(dir.path()).empty());
}

} // namespace

namespace {

std::vector<uint8_t> readAll(const std::string &path) {
  std::vector<uint8_t> bytes;
  if (FILE *f = std::fopen(path.c_str(), "rb")) {
    int c;
    while ((c = std::fgetc(f)) != EOF)
      bytes.push_back(uint8_t(c));
    std::fclose(f);
  }
  return bytes;
}

void writeAll(const std::string &path, const std::vector<uint8_t> &bytes) {
  FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

std::string withExtension(std::string path, const std::string &ext) {
  return path.substr(0, path.rfind('.')) + ext;
}

TEST_F(PackageCache, EntrySwappedForAnotherModelsIsCompiledAgain) {
  Result<Package> a = compile(kModel, "a.mlir");
  ASSERT_TRUE(a.isOk());
  std::vector<std::string> files = entries(dir.path());
  ASSERT_EQ(files.size(), 1u);
  const std::string entryA = files[0];
  Result<Package> b = compile(kModel, "b.mlir");
  ASSERT_TRUE(b.isOk());
  files = entries(dir.path());
  ASSERT_EQ(files.size(), 2u);
  const std::string entryB = files[0] == entryA ? files[1] : files[0];
  // B's valid package and record put in A's place.
  writeAll(entryA, readAll(entryB));
  writeAll(withExtension(entryA, ".deps"),
           readAll(withExtension(entryB, ".deps")));
  dlc::PackageCacheStats before = dlc::packageCacheStats();
  ::testing::internal::CaptureStderr();
  Result<Package> again = compile(kModel, "a.mlir");
  std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(again.isOk()) << again.message();
  EXPECT_NE(err.find("dlc: note: dropped a damaged compile-cache entry"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("(it was stored for another key); compiling again"),
            std::string::npos)
      << err;
  EXPECT_EQ(dlc::packageCacheStats().corruptEntries - before.corruptEntries,
            1u);
  EXPECT_EQ(dlc::rt::serializePackage(*a), dlc::rt::serializePackage(*again));

  // Only the package swapped (the record still A's): not A's package, so a
  // miss, and the store puts A's back.
  writeAll(entryA, readAll(entryB));
  before = dlc::packageCacheStats();
  again = compile(kModel, "a.mlir");
  ASSERT_TRUE(again.isOk());
  EXPECT_EQ(dlc::packageCacheStats().hits, before.hits);
  EXPECT_EQ(dlc::rt::serializePackage(*a), dlc::rt::serializePackage(*again));
  EXPECT_EQ(readAll(entryA), dlc::rt::serializePackage(*a));
}

TEST_F(PackageCache, EntryThatDoesNotValidateIsDropped) {
  Result<Package> first = compile();
  ASSERT_TRUE(first.isOk());
  std::vector<std::string> files = entries(dir.path());
  ASSERT_EQ(files.size(), 1u);
  // A whole package (its checksum holds) that the runtime refuses.
  Package bad = *first;
  ASSERT_FALSE(bad.kernels.empty());
  bad.kernels[0].name = "not an identifier";
  std::vector<uint8_t> bytes = dlc::rt::serializePackage(bad);
  ASSERT_TRUE(dlc::rt::deserializePackage(bytes.data(), bytes.size()).isOk());
  writeAll(files[0], bytes);
  // Its record names it, as a store would have written it.
  std::vector<uint8_t> record = readAll(withExtension(files[0], ".deps"));
  std::string text(record.begin(), record.end());
  uint64_t sum = 0;
  for (int i = 0; i < 8; ++i)
    sum |= uint64_t(bytes[24 + i]) << (8 * i);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)sum);
  size_t space = text.rfind(' ', text.find('\n'));
  text = text.substr(0, space + 1) + hex + text.substr(text.find('\n'));
  writeAll(withExtension(files[0], ".deps"),
           std::vector<uint8_t>(text.begin(), text.end()));

  dlc::PackageCacheStats before = dlc::packageCacheStats();
  ::testing::internal::CaptureStderr();
  Result<Package> again = compile();
  std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(again.isOk()) << again.message();
  EXPECT_NE(err.find("dlc: note: dropped a damaged compile-cache entry"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("which is not a C identifier"), std::string::npos) << err;
  EXPECT_EQ(dlc::packageCacheStats().corruptEntries - before.corruptEntries,
            1u);
  EXPECT_EQ(dlc::rt::serializePackage(*first),
            dlc::rt::serializePackage(*again));
  // Replaced by a good entry.
  before = dlc::packageCacheStats();
  ASSERT_TRUE(compile().isOk());
  EXPECT_EQ(dlc::packageCacheStats().hits - before.hits, 1u);
}

} // namespace
