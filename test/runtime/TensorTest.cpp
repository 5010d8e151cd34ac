//===- TensorTest.cpp - dtypes, f16/bf16 conversions, .npy files ----------===//

#include "runtime/Tensor.h"
#include "TestUtil.h"
#include "runtime/Support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace dlc::rt;
using dlc::rt::test::Rng;
using dlc::rt::test::TempDir;
using ::testing::HasSubstr;

namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

TEST(DType, NamesSizesAndParsing) {
  const DType all[] = {DType::F32, DType::F16, DType::BF16,
                       DType::I32, DType::I64, DType::I1};
  const size_t sizes[] = {4, 2, 2, 4, 8, 1};
  const char *names[] = {"f32", "f16", "bf16", "i32", "i64", "i1"};
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(dtypeSize(all[i]), sizes[i]);
    EXPECT_STREQ(dtypeName(all[i]), names[i]);
    DType parsed;
    ASSERT_TRUE(parseDType(names[i], parsed));
    EXPECT_EQ(parsed, all[i]);
  }
  DType t;
  EXPECT_FALSE(parseDType("f64", t));
  EXPECT_FALSE(parseDType("", t));
  EXPECT_EQ(describe(DType::F32, {2, 3}), "f32[2, 3]");
  EXPECT_EQ(describe(DType::BF16, {}), "bf16[]");
}

TEST(HostTensor, ElementsAndConversions) {
  HostTensor t(DType::F32, {2, 3});
  EXPECT_EQ(t.numElements(), 6);
  EXPECT_EQ(t.byteSize(), 24u);
  t.setFromDouble(4, 2.5);
  EXPECT_EQ(t.getAsDouble(4), 2.5);
  EXPECT_EQ(t.getAsDouble(0), 0.0);

  HostTensor scalar(DType::I64, {});
  EXPECT_EQ(scalar.numElements(), 1);
  scalar.setFromDouble(0, -1234567890123.0);
  EXPECT_EQ(scalar.getAsDouble(0), -1234567890123.0);

  HostTensor ints(DType::I32, {3});
  ints.setFromDouble(0, 1e20); // saturates instead of overflowing
  ints.setFromDouble(1, std::nan(""));
  ints.setFromDouble(2, -7.9); // truncates like a C cast
  EXPECT_EQ(ints.getAsDouble(0), 2147483647.0);
  EXPECT_EQ(ints.getAsDouble(1), 0.0);
  EXPECT_EQ(ints.getAsDouble(2), -7.0);

  HostTensor bools(DType::I1, {2});
  bools.setFromDouble(0, 0.25);
  EXPECT_EQ(bools.data[0], 1);
  EXPECT_EQ(bools.data[1], 0);

  HostTensor empty(DType::F16, {0, 4});
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_EQ(empty.byteSize(), 0u);
}

//===----------------------------------------------------------------------===//
// f16
//===----------------------------------------------------------------------===//

TEST(Half, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(uint16_t(h));
    bool isNan = (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
    if (isNan) {
      ASSERT_TRUE(std::isnan(f)) << h;
      uint16_t back = floatToHalf(f);
      // Quiet NaN with the sign and payload preserved.
      EXPECT_EQ(back, uint16_t(h | 0x200)) << h;
      continue;
    }
    ASSERT_EQ(floatToHalf(f), h) << "half 0x" << std::hex << h;
  }
}

TEST(E4M3, EveryValueRoundTripsAndDecodesExactly) {
  for (uint32_t x = 0; x < 0x100; ++x) {
    float f = e4m3ToFloat(uint8_t(x));
    if ((x & 0x7f) == 0x7f) {
      ASSERT_TRUE(std::isnan(f)) << x;
      EXPECT_EQ(floatToE4M3(f), 0x7f);
      continue;
    }
    // The value from the format's definition: bias 7, 3 mantissa bits.
    int e = (x >> 3) & 0xf, m = x & 7;
    double expected = e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10);
    ASSERT_EQ(double(std::fabs(f)), expected) << x;
    ASSERT_EQ(std::signbit(f), (x & 0x80) != 0) << x;
    ASSERT_EQ(floatToE4M3(f), x) << "e4m3 0x" << std::hex << x;
  }
}

TEST(E4M3, RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(floatToE4M3(448.0), 0x7e);
  EXPECT_EQ(floatToE4M3(460.0), 0x7e); // rounds down to 448
  EXPECT_EQ(floatToE4M3(1.0e6), 0x7e); // saturates
  EXPECT_EQ(floatToE4M3(-HUGE_VAL), 0xfe);
  EXPECT_EQ(floatToE4M3(std::nan("")), 0x7f);
  EXPECT_EQ(floatToE4M3(std::ldexp(1.0, -10)), 0x00); // tie to even: 0
  EXPECT_EQ(floatToE4M3(std::ldexp(3.0, -10)), 0x02); // tie to even: 2^-8
  EXPECT_EQ(floatToE4M3(1.0625), 0x38);               // tie to even: 1
  EXPECT_EQ(floatToE4M3(1.1875), 0x3a);               // tie to even: 1.25
  EXPECT_EQ(floatToE4M3(1.07), 0x38 + 1);             // nearest: 1.125
  EXPECT_EQ(roundToE4M3(-300.0), -288.0);
  HostTensor t(DType::F8E4M3, {2});
  t.setFromDouble(0, 3.3);
  t.setFromDouble(1, -0.001);
  EXPECT_EQ(t.getAsDouble(0), 3.25);
  EXPECT_EQ(t.getAsDouble(1), -0.001953125); // the nearest subnormal, -2^-9
}

TEST(Half, DecodesExactly) {
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0xc000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0400), std::ldexp(1.0f, -14)); // smallest normal
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // smallest subnormal
  EXPECT_EQ(halfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(halfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
  EXPECT_EQ(bitsOf(halfToFloat(0x8000)), 0x80000000u); // -0
}

TEST(Half, RoundsEdgeCasesToNearestEven) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65519.996f), 0x7bff); // below the midpoint to 65536
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);   // the midpoint ties to "even" inf
  EXPECT_EQ(floatToHalf(1e6f), 0x7c00);
  EXPECT_EQ(floatToHalf(-1e6f), 0xfc00);
  EXPECT_EQ(floatToHalf(inf), 0x7c00);
  EXPECT_EQ(floatToHalf(-inf), 0xfc00);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  // Subnormals: 2^-25 is half the smallest subnormal and ties to 0; a bit
  // more rounds up; 3 * 2^-25 ties to 2 (even).
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(floatToHalf(std::nextafter(std::ldexp(1.0f, -25), 1.0f)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -30)), 0x0000);
  EXPECT_EQ(floatToHalf(-std::ldexp(1.0f, -30)), 0x8000);
  // The largest subnormal plus half an ulp rounds up into the normals.
  EXPECT_EQ(floatToHalf(std::ldexp(2047.0f, -25)), 0x0400);
  // 1 + 2^-11 is the midpoint between 1 and 1 + 2^-10: ties to even (1).
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(3.0f, -11)), 0x3c02);
  EXPECT_EQ(floatToHalf(floatOf(0x7fc00000)), 0x7e00);
  EXPECT_EQ(floatToHalf(floatOf(0xff800001)) & 0xfe00, 0xfe00); // -sNaN quiet
}

TEST(Half, MidpointsTieToEvenAndNeighboursRoundToNearest) {
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    float lo = halfToFloat(uint16_t(h)), hi = halfToFloat(uint16_t(h + 1));
    float mid = float((double(lo) + double(hi)) / 2); // exact in float
    uint16_t even = (h & 1) ? uint16_t(h + 1) : uint16_t(h);
    ASSERT_EQ(floatToHalf(mid), even) << h;
    ASSERT_EQ(floatToHalf(-mid), uint16_t(even | 0x8000)) << h;
    ASSERT_EQ(floatToHalf(std::nextafter(mid, 0.0f)), h) << h;
    ASSERT_EQ(floatToHalf(std::nextafter(mid, 1e9f)), h + 1) << h;
  }
}

#ifdef __FLT16_MAX__
TEST(Half, AgreesWithTheCompilersFloat16) {
  Rng rng(7);
  for (int i = 0; i < 2000000; ++i) {
    float f = floatOf(rng.bits32());
    if (std::isnan(f))
      continue;
    _Float16 h = static_cast<_Float16>(f);
    uint16_t bits;
    std::memcpy(&bits, &h, 2);
    ASSERT_EQ(floatToHalf(f), bits) << f;
  }
}
#endif

TEST(Half, SetFromDoubleRoundsOnceNotTwice) {
  // d lies just above the midpoint between two halves but rounds to the
  // midpoint exactly as a float; double -> float -> half would tie to even
  // (down), correct rounding goes up.
  const double lo = 1.0, ulp = std::ldexp(1.0, -10);
  const double d = lo + ulp / 2 + std::ldexp(1.0, -40);
  ASSERT_EQ(double(float(d)), lo + ulp / 2);
  HostTensor t(DType::F16, {1});
  t.setFromDouble(0, d);
  EXPECT_EQ(t.getAsDouble(0), lo + ulp);
  HostTensor b(DType::BF16, {1});
  const double bulp = std::ldexp(1.0, -7);
  b.setFromDouble(0, 1.0 + bulp / 2 + std::ldexp(1.0, -40));
  EXPECT_EQ(b.getAsDouble(0), 1.0 + bulp);
}

//===----------------------------------------------------------------------===//
// bf16
//===----------------------------------------------------------------------===//

TEST(BFloat16, EveryValueRoundTripsThroughFloat) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = bfloat16ToFloat(uint16_t(h));
    EXPECT_EQ(bitsOf(f), h << 16);
    if (std::isnan(f))
      EXPECT_EQ(floatToBFloat16(f), uint16_t(h | 0x40));
    else
      ASSERT_EQ(floatToBFloat16(f), h) << h;
  }
}

TEST(BFloat16, RoundsToNearestEven) {
  for (uint32_t h = 0; h < 0x7f7f; h += 3) {
    uint32_t lo = h << 16;
    uint32_t mid = lo | 0x8000;
    uint16_t even = (h & 1) ? uint16_t(h + 1) : uint16_t(h);
    ASSERT_EQ(floatToBFloat16(floatOf(mid)), even) << h;
    ASSERT_EQ(floatToBFloat16(floatOf(mid - 1)), h) << h;
    ASSERT_EQ(floatToBFloat16(floatOf(mid + 1)), h + 1) << h;
    ASSERT_EQ(floatToBFloat16(floatOf(mid | 0x80000000u)),
              uint16_t(even | 0x8000));
  }
  // Overflow: the largest finite bf16 is 0x7f7f; halfway above rounds to inf.
  EXPECT_EQ(floatToBFloat16(floatOf(0x7f7f7fffu)), 0x7f7f);
  EXPECT_EQ(floatToBFloat16(floatOf(0x7f7f8000u)), 0x7f80);
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(floatToBFloat16(floatOf(0x7fc00000u)), 0x7fc0);
  EXPECT_EQ(floatToBFloat16(floatOf(0x7f800001u)), 0x7fc0); // sNaN -> quiet
  EXPECT_EQ(floatToBFloat16(floatOf(0x00008000u)), 0x0000); // subnormal tie
  EXPECT_EQ(floatToBFloat16(floatOf(0x00018000u)), 0x0002);
  EXPECT_EQ(floatToBFloat16(-0.0f), 0x8000);
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

HostTensor makeTensor(DType t, std::vector<int64_t> shape, uint64_t seed) {
  HostTensor x(t, std::move(shape));
  Rng rng(seed);
  for (int64_t i = 0; i < x.numElements(); ++i) {
    double v = double(int(rng.bits32() % 2001) - 1000) / 8.0;
    if (t == DType::I1)
      v = rng.bits32() & 1;
    if (t == DType::I64)
      v *= 1e9;
    x.setFromDouble(i, v);
  }
  return x;
}

TEST(Npy, RoundTripsEveryDTypeAndShape) {
  TempDir dir;
  const DType types[] = {DType::F32, DType::F16, DType::BF16,
                         DType::I32, DType::I64, DType::I1};
  const std::vector<std::vector<int64_t>> shapes = {
      {}, {0}, {5}, {2, 3}, {2, 1, 4}, {3, 0, 2}, {1, 1, 1, 1, 7}};
  int n = 0;
  for (DType t : types) {
    for (const auto &shape : shapes) {
      HostTensor x = makeTensor(t, shape, uint64_t(++n));
      std::string path = dir.file("t" + std::to_string(n) + ".npy");
      ASSERT_TRUE(writeNpy(path, x).isOk());
      std::vector<uint8_t> file = test::readBytes(path);
      ASSERT_GE(file.size(), 10u);
      EXPECT_EQ(std::memcmp(file.data(), "\x93NUMPY\x01\x00", 8), 0);
      size_t headerLen = file[8] | (size_t(file[9]) << 8);
      EXPECT_EQ((10 + headerLen) % 64, 0u) << "data is not 64-byte aligned";
      EXPECT_EQ(file[10 + headerLen - 1], '\n');
      Result<HostTensor> y = readNpy(path);
      ASSERT_TRUE(y.isOk()) << y.message();
      EXPECT_EQ(y->dtype, t);
      EXPECT_EQ(y->shape, x.shape);
      EXPECT_EQ(y->data, x.data);
    }
  }
}

TEST(Npy, WritesNumpyCompatibleHeaders) {
  TempDir dir;
  auto header = [&](const HostTensor &t) {
    std::string path = dir.file("h.npy");
    EXPECT_TRUE(writeNpy(path, t).isOk());
    std::vector<uint8_t> file = test::readBytes(path);
    size_t len = file[8] | (size_t(file[9]) << 8);
    std::string h(file.begin() + 10, file.begin() + 10 + long(len));
    return h.substr(0, h.find_last_not_of(" \n") + 1);
  };
  EXPECT_EQ(header(HostTensor(DType::F32, {2, 3})),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(header(HostTensor(DType::I64, {7})),
            "{'descr': '<i8', 'fortran_order': False, 'shape': (7,), }");
  EXPECT_EQ(header(HostTensor(DType::I1, {})),
            "{'descr': '|b1', 'fortran_order': False, 'shape': (), }");
  EXPECT_EQ(header(HostTensor(DType::BF16, {4})),
            "{'descr': '<V2', 'fortran_order': False, 'shape': (4,), } # "
            "bfloat16");
}

/// Builds a .npy file by hand.
std::vector<uint8_t> npyBytes(const std::string &dict, int major,
                              const std::vector<uint8_t> &data) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  std::string header = dict + "\n";
  if (major == 1) {
    out.push_back(uint8_t(header.size()));
    out.push_back(uint8_t(header.size() >> 8));
  } else {
    for (int i = 0; i < 4; ++i)
      out.push_back(uint8_t(header.size() >> (8 * i)));
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

TEST(Npy, ReadsVersions2And3AndNumpyVariants) {
  TempDir dir;
  std::vector<uint8_t> data(12);
  float v[3] = {1.5f, -2.0f, 3.25f};
  std::memcpy(data.data(), v, 12);
  for (int major : {2, 3}) {
    std::string path = dir.file("v" + std::to_string(major) + ".npy");
    ASSERT_TRUE(
        test::writeBytes(path, npyBytes("{\"descr\": \"<f4\", \"shape\": (3,), "
                                        "\"fortran_order\": False}",
                                        major, data)));
    Result<HostTensor> t = readNpy(path);
    ASSERT_TRUE(t.isOk()) << t.message();
    EXPECT_EQ(t->shape, std::vector<int64_t>{3});
    EXPECT_EQ(t->getAsDouble(2), 3.25);
  }
  // '|u1' reads as i1 (normalized to 0/1); Python 2 longs in the shape.
  std::string path = dir.file("u1.npy");
  ASSERT_TRUE(test::writeBytes(
      path, npyBytes("{'descr': '|u1', 'fortran_order': False, 'shape': "
                     "(2L, 2L), }",
                     1, {0, 1, 7, 0})));
  Result<HostTensor> b = readNpy(path);
  ASSERT_TRUE(b.isOk()) << b.message();
  EXPECT_EQ(b->dtype, DType::I1);
  EXPECT_EQ(b->data, (std::vector<uint8_t>{0, 1, 1, 0}));
}

TEST(Npy, RejectsMalformedFilesWithClearErrors) {
  TempDir dir;
  auto error = [&](const std::string &name, const std::vector<uint8_t> &bytes) {
    std::string path = dir.file(name);
    EXPECT_TRUE(test::writeBytes(path, bytes));
    Result<HostTensor> t = readNpy(path);
    EXPECT_FALSE(t.isOk()) << name;
    return t.isOk() ? std::string() : t.message();
  };
  std::vector<uint8_t> eight(8, 0);
  const std::string f4 =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";

  EXPECT_EQ(error("x.npy", npyBytes("{'descr': '<c8', 'fortran_order': "
                                    "False, 'shape': (1,), }",
                                    1, eight))
                .rfind(dir.file("x.npy") + ": unsupported dtype '<c8'", 0),
            0u);
  EXPECT_THAT(error("be.npy", npyBytes("{'descr': '>f4', 'fortran_order': "
                                       "False, 'shape': (2,), }",
                                       1, eight)),
              HasSubstr("unsupported dtype '>f4' (big-endian)"));
  EXPECT_THAT(error("f64.npy", npyBytes("{'descr': '<f8', 'fortran_order': "
                                        "False, 'shape': (1,), }",
                                        1, eight)),
              HasSubstr("unsupported dtype '<f8'"));
  EXPECT_THAT(error("fortran.npy", npyBytes("{'descr': '<f4', 'fortran_order': "
                                            "True, 'shape': (2,), }",
                                            1, eight)),
              HasSubstr("fortran_order True is not supported"));
  EXPECT_THAT(
      error("short.npy", npyBytes(f4, 1, {1, 2, 3})),
      HasSubstr("truncated data: f32[2] needs 8 bytes, the file has 3"));
  EXPECT_THAT(error("long.npy", npyBytes(f4, 1, std::vector<uint8_t>(9))),
              HasSubstr("1 unexpected bytes after the data"));
  std::vector<uint8_t> cut = npyBytes(f4, 1, eight);
  cut.resize(30);
  EXPECT_THAT(error("cut.npy", cut), HasSubstr("truncated .npy header"));
  EXPECT_THAT(error("magic.npy", {'N', 'U', 'M', 'P', 'Y', 0, 0, 0, 0, 0}),
              HasSubstr("magic.npy: not a .npy file (bad magic)"));
  EXPECT_THAT(error("empty.npy", {}), HasSubstr("bad magic"));
  EXPECT_THAT(error("v9.npy", npyBytes(f4, 9, eight)),
              HasSubstr("unsupported .npy format version 9.0"));
  EXPECT_THAT(
      error("syntax.npy", npyBytes("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (2, x), }",
                                   1, eight)),
      HasSubstr("malformed header"));
  EXPECT_THAT(error("keys.npy",
                    npyBytes("{'descr': '<f4', 'shape': (2,), }", 1, eight)),
              HasSubstr("malformed header"));
  EXPECT_THAT(
      error("struct.npy", npyBytes("{'descr': [('a', '<f4')], 'fortran_order': "
                                   "False, 'shape': (2,), }",
                                   1, eight)),
      HasSubstr("structured dtypes are not supported"));
  // Byte counts that wrap in 64 bits: 2^61 i64 elements are 2^64 bytes,
  // which once read as 0 and matched an empty data section.
  EXPECT_THAT(error("wrap.npy", npyBytes("{'descr': '<i8', 'fortran_order': "
                                         "False, 'shape': "
                                         "(576460752303423488, 4), }",
                                         1, {})),
              HasSubstr("shape i64[576460752303423488, 4] is too large (2^64 "
                        "bytes or more)"));
  EXPECT_THAT(error("wrap2.npy", npyBytes("{'descr': '<f4', 'fortran_order': "
                                          "False, 'shape': (4294967296, "
                                          "1073741824), }",
                                          1, {})),
              HasSubstr("is too large (2^64 bytes or more)"));
  Result<HostTensor> missing = readNpy(dir.file("missing.npy"));
  ASSERT_FALSE(missing.isOk());
  EXPECT_THAT(missing.message(),
              HasSubstr("missing.npy': No such file or directory"));
}

TEST(Npy, WriteRejectsInconsistentTensors) {
  TempDir dir;
  HostTensor t(DType::F32, {2, 2});
  t.data.resize(3);
  Status st = writeNpy(dir.file("bad.npy"), t);
  ASSERT_FALSE(st.isOk());
  EXPECT_THAT(st.message(), HasSubstr("inconsistent with its shape"));
}

TEST(RelativeError, NormsAndSpecialValues) {
  HostTensor ref(DType::F32, {4}), a(DType::F32, {4});
  for (int i = 0; i < 4; ++i) {
    ref.setFromDouble(i, i + 1.0);
    a.setFromDouble(i, i + 1.0);
  }
  EXPECT_EQ(relativeError(a, ref), 0.0);
  a.setFromDouble(3, 4.5);
  // ||(0,0,0,0.5)|| / ||(1,2,3,4)|| = 0.5 / sqrt(30)
  EXPECT_NEAR(relativeError(a, ref), 0.5 / std::sqrt(30.0), 1e-12);
  a.setFromDouble(3, std::nan(""));
  EXPECT_TRUE(std::isnan(relativeError(a, ref)));
  // NaN where the reference has NaN, and equal infinities, are exact.
  ref.setFromDouble(3, std::nan(""));
  ref.setFromDouble(2, INFINITY);
  a.setFromDouble(2, INFINITY);
  EXPECT_EQ(relativeError(a, ref), 0.0);
  HostTensor other(DType::F32, {5});
  EXPECT_TRUE(std::isinf(relativeError(other, ref)));
  // Mixed types compare by value.
  HostTensor h(DType::F16, {4});
  for (int i = 0; i < 4; ++i)
    h.setFromDouble(i, i + 1.0);
  HostTensor r(DType::F32, {4});
  for (int i = 0; i < 4; ++i)
    r.setFromDouble(i, i + 1.0);
  EXPECT_EQ(relativeError(h, r), 0.0);
  // A zero reference uses a tiny floor instead of dividing by zero.
  HostTensor z(DType::F32, {2}), e(DType::F32, {2});
  e.setFromDouble(0, 1e-3);
  EXPECT_GT(relativeError(e, z), 1e20);
}

} // namespace
