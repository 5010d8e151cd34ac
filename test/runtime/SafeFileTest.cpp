//===- SafeFileTest.cpp - Regular files, checked ranges, real paths -------===//
//
// runtime/SafeFile.h: what every reader of a user's files (models, external
// weights, .npy and .pb inputs, packages) goes through. The end-to-end
// cases are lit tests: test/tools/input-files.test and
// test/onnx/external-files.test.
//
//===----------------------------------------------------------------------===//

#include "runtime/SafeFile.h"
#include "TestUtil.h"
#include "runtime/Package.h"
#include "runtime/Tensor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <sys/stat.h>
#include <unistd.h>

using namespace dlc::rt;
using dlc::rt::test::TempDir;
using ::testing::HasSubstr;

namespace {

std::vector<uint8_t> iota(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = uint8_t(i);
  return v;
}

} // namespace

TEST(SafeFile, ReadsRangesOfARegularFile) {
  TempDir dir("dlc-safefile");
  const std::string path = dir.file("data.bin");
  ASSERT_TRUE(test::writeBytes(path, iota(100)));
  Result<RegularFile> file = RegularFile::open(path);
  ASSERT_TRUE(file.isOk()) << file.message();
  EXPECT_EQ(file->size(), 100u);
  uint8_t buf[10];
  ASSERT_TRUE(file->read(90, buf, 10).isOk());
  EXPECT_EQ(buf[0], 90);
  EXPECT_EQ(buf[9], 99);
  // Empty ranges, the end included.
  EXPECT_TRUE(file->read(100, nullptr, 0).isOk());
  EXPECT_TRUE(file->read(0, nullptr, 0).isOk());

  Result<std::vector<uint8_t>> all = readRegularFile(path);
  ASSERT_TRUE(all.isOk()) << all.message();
  EXPECT_EQ(*all, iota(100));
  Result<std::vector<uint8_t>> range = readFileRange(path, 10, 5);
  ASSERT_TRUE(range.isOk()) << range.message();
  EXPECT_EQ(*range, std::vector<uint8_t>({10, 11, 12, 13, 14}));
}

TEST(SafeFile, RangesOutsideTheFileAreErrorsNamingFileSizeAndRange) {
  TempDir dir("dlc-safefile");
  const std::string path = dir.file("data.bin");
  ASSERT_TRUE(test::writeBytes(path, iota(100)));
  Result<RegularFile> file = RegularFile::open(path, "the weights");
  ASSERT_TRUE(file.isOk()) << file.message();
  uint8_t buf[16] = {};
  Status st = file->read(90, buf, 16);
  ASSERT_FALSE(st.isOk());
  EXPECT_EQ(st.message(), "cannot read the weights from '" + path +
                              "': the file holds 100 bytes, too few for 16 "
                              "bytes at offset 90");
  st = file->read(101, buf, 0);
  ASSERT_FALSE(st.isOk());
  EXPECT_THAT(st.message(), HasSubstr("0 bytes at offset 101 (past its end)"));
  // offset + length overflows: still refused, and nothing is written.
  buf[0] = 7;
  EXPECT_FALSE(file->read(UINT64_MAX, buf, 2).isOk());
  EXPECT_FALSE(file->read(2, buf, UINT64_MAX).isOk());
  EXPECT_FALSE(file->read(UINT64_MAX - 1, buf, UINT64_MAX - 1).isOk());
  EXPECT_EQ(buf[0], 7);
  // readFileRange checks before it allocates: a huge length is an error,
  // not a bad_alloc.
  Result<std::vector<uint8_t>> huge = readFileRange(path, 0, UINT64_MAX / 2);
  ASSERT_FALSE(huge.isOk());
  EXPECT_THAT(huge.message(), HasSubstr("the file holds 100 bytes"));
  Result<std::vector<uint8_t>> limited = readRegularFile(path, "", 99);
  ASSERT_FALSE(limited.isOk());
  EXPECT_THAT(limited.message(),
              HasSubstr("the file holds 100 bytes, more than the 99 allowed"));
}

TEST(SafeFile, AFileThatShrinksWhileReadIsAnErrorNotZeros) {
  TempDir dir("dlc-safefile");
  const std::string path = dir.file("data.bin");
  ASSERT_TRUE(test::writeBytes(path, iota(100)));
  Result<RegularFile> file = RegularFile::open(path);
  ASSERT_TRUE(file.isOk()) << file.message();
  ASSERT_EQ(::truncate(path.c_str(), 40), 0);
  std::vector<uint8_t> buf(100, 0xAA);
  Status st = file->read(0, buf.data(), 100);
  ASSERT_FALSE(st.isOk());
  EXPECT_THAT(st.message(),
              HasSubstr("the file ended at byte 40 of the 100 it held when "
                        "opened"));
}

TEST(SafeFile, OnlyRegularFilesOpen) {
  TempDir dir("dlc-safefile");
  // A FIFO with no writer: the open must not block, and nothing is read.
  const std::string fifo = dir.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  Result<RegularFile> r = RegularFile::open(fifo, "the input");
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.message(), "cannot read the input from '" + fifo +
                             "': not a regular file (a FIFO); dlc reads "
                             "regular files only");
  // /dev/zero, directly and through a link, never ends: refused.
  r = RegularFile::open("/dev/zero");
  ASSERT_FALSE(r.isOk());
  EXPECT_THAT(r.message(), HasSubstr("not a regular file (a character "
                                     "device)"));
  const std::string zero = dir.file("zero.npy");
  ASSERT_EQ(::symlink("/dev/zero", zero.c_str()), 0);
  EXPECT_THAT(readRegularFile(zero).message(),
              HasSubstr("not a regular file (a character device)"));
  EXPECT_THAT(RegularFile::open(dir.path()).message(),
              HasSubstr("not a regular file (a directory)"));
  Result<RegularFile> missing = RegularFile::open(dir.file("missing"));
  ASSERT_FALSE(missing.isOk());
  EXPECT_EQ(missing.message(), "cannot read '" + dir.file("missing") +
                                   "': No such file or directory");
  // A link to a regular file is followed.
  ASSERT_TRUE(test::writeBytes(dir.file("data.bin"), iota(3)));
  ASSERT_EQ(::symlink("data.bin", dir.file("link.bin").c_str()), 0);
  Result<std::vector<uint8_t>> linked = readRegularFile(dir.file("link.bin"));
  ASSERT_TRUE(linked.isOk()) << linked.message();
  EXPECT_EQ(*linked, iota(3));
}

TEST(SafeFile, NpyAndPackageReadersRefuseFifosAndDevices) {
  TempDir dir("dlc-safefile");
  const std::string fifo = dir.file("fifo.npy");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(readNpy(fifo).message(),
              HasSubstr("not a regular file (a FIFO)"));
  EXPECT_THAT(readNpy("/dev/zero").message(),
              HasSubstr("not a regular file (a character device)"));
  const std::string pkg = dir.file("fifo.dlcpkg");
  ASSERT_EQ(::mkfifo(pkg.c_str(), 0600), 0);
  EXPECT_THAT(readPackageFile(pkg).message(),
              HasSubstr("not a regular file (a FIFO)"));
  EXPECT_THAT(readPackageFile("/dev/zero").message(),
              HasSubstr("not a regular file (a character device)"));
}

TEST(SafeFile, NpyDataSizeIsCheckedAgainstTheHeaderBeforeReading) {
  TempDir dir("dlc-safefile");
  // A header announcing 2^40 floats, and 8 bytes of data.
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(1099511627776,), }";
  while ((10 + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::vector<uint8_t> bytes = {0x93,
                                'N',
                                'U',
                                'M',
                                'P',
                                'Y',
                                1,
                                0,
                                uint8_t(header.size()),
                                uint8_t(header.size() >> 8)};
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.resize(bytes.size() + 8);
  const std::string path = dir.file("big.npy");
  ASSERT_TRUE(test::writeBytes(path, bytes));
  Result<HostTensor> t = readNpy(path);
  ASSERT_FALSE(t.isOk());
  EXPECT_THAT(t.message(), HasSubstr("truncated data: f32[1099511627776] "
                                     "needs 4398046511104 bytes, the file "
                                     "has 8"));
}

TEST(SafeFile, RealPathsAndContainment) {
  TempDir dir("dlc-safefile");
  Result<std::string> root = realPath(dir.path());
  ASSERT_TRUE(root.isOk()) << root.message();
  ASSERT_EQ(::mkdir(dir.file("sub").c_str(), 0700), 0);
  ASSERT_TRUE(test::writeBytes(dir.file("sub/w.bin"), iota(4)));
  ASSERT_EQ(::symlink("sub/w.bin", dir.file("in.bin").c_str()), 0);
  ASSERT_EQ(::symlink("/etc", dir.file("out").c_str()), 0);
  Result<std::string> in = realPath(dir.file("in.bin"));
  ASSERT_TRUE(in.isOk()) << in.message();
  EXPECT_EQ(*in, *root + "/sub/w.bin");
  EXPECT_TRUE(isPathInside(*in, *root));
  Result<std::string> out = realPath(dir.file("out"));
  ASSERT_TRUE(out.isOk()) << out.message();
  EXPECT_EQ(*out, "/etc");
  EXPECT_FALSE(isPathInside(*out, *root));
  EXPECT_THAT(realPath(dir.file("missing"), "the weights").message(),
              HasSubstr("cannot read the weights from '"));
  Result<std::string> cwd = realPath("");
  ASSERT_TRUE(cwd.isOk()) << cwd.message();
  EXPECT_EQ(cwd->front(), '/');

  EXPECT_TRUE(isPathInside("/a/b", "/a"));
  EXPECT_TRUE(isPathInside("/a/b/c", "/a"));
  EXPECT_TRUE(isPathInside("/a", "/a"));
  EXPECT_FALSE(isPathInside("/ab", "/a"));
  EXPECT_FALSE(isPathInside("/a", "/a/b"));
  EXPECT_FALSE(isPathInside("/", "/a"));
  EXPECT_TRUE(isPathInside("/x", "/"));
}
