//===- Tensor.cpp - Host tensors, element types and .npy files ------------===//

#include "runtime/Tensor.h"
#include "runtime/SafeFile.h"
#include "runtime/Support.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

namespace dlc::rt {

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

size_t dtypeSize(DType type) {
  switch (type) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I64:
    return 8;
  case DType::I1:
  case DType::F8E4M3:
    return 1;
  }
  return 0;
}

const char *dtypeName(DType type) {
  switch (type) {
  case DType::F32:
    return "f32";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::I1:
    return "i1";
  case DType::F8E4M3:
    return "f8e4m3";
  }
  return "<invalid dtype>";
}

bool parseDType(const std::string &name, DType &type) {
  static const DType all[] = {DType::F32, DType::F16, DType::BF16,  DType::I32,
                              DType::I64, DType::I1,  DType::F8E4M3};
  for (DType t : all) {
    if (name == dtypeName(t)) {
      type = t;
      return true;
    }
  }
  return false;
}

std::string describe(DType dtype, const std::vector<int64_t> &shape) {
  std::string s = dtypeName(dtype);
  s += "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  s += "]";
  return s;
}

//===----------------------------------------------------------------------===//
// Half and bfloat16
//===----------------------------------------------------------------------===//

/// Rounds a double to a binary format with `mantBits` stored mantissa bits
/// and `expBits` exponent bits (f16: 10/5, bf16: 7/8), to nearest even, with
/// overflow to infinity and gradual underflow. Working from the double
/// directly avoids the double rounding of double -> float -> half.
static uint16_t roundToSmallFloat(double value, int mantBits, int expBits) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  const uint16_t sign = uint16_t((bits >> 63) << (mantBits + expBits));
  const uint64_t absBits = bits & 0x7fffffffffffffffull;
  const uint16_t expAllOnes = uint16_t(((1u << expBits) - 1) << mantBits);
  const uint16_t mantMask = uint16_t((1u << mantBits) - 1);

  if (absBits >= 0x7ff0000000000000ull) {
    if (absBits == 0x7ff0000000000000ull)
      return sign | expAllOnes;
    // NaN: keep the top payload bits and make it quiet.
    uint16_t payload = uint16_t((absBits >> (52 - mantBits)) & mantMask);
    return sign | expAllOnes | uint16_t(1u << (mantBits - 1)) | payload;
  }
  const int bias = (1 << (expBits - 1)) - 1;
  const int emin = 1 - bias;
  const int emax = bias;
  int biasedExp = int(absBits >> 52);
  if (biasedExp == 0) // double subnormals are far below both formats' range
    return sign;
  int e = biasedExp - 1023;
  uint64_t significand = (absBits & 0xfffffffffffffull) | (1ull << 52);

  // Number of low significand bits dropped by the rounding.
  int shift = 52 - mantBits;
  if (e < emin)
    shift += emin - e;
  if (shift > 60) // less than half of the smallest subnormal
    return sign;
  uint64_t q = significand >> shift;
  uint64_t rem = significand & ((1ull << shift) - 1);
  uint64_t half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1)))
    ++q;

  if (e < emin) {
    // Subnormal; a carry into bit mantBits yields the smallest normal, whose
    // encoding is exactly q.
    return sign | uint16_t(q);
  }
  if (q >> (mantBits + 1)) { // the rounding carried into a new binade
    q >>= 1;
    ++e;
  }
  if (e > emax)
    return sign | expAllOnes;
  return sign | uint16_t(uint16_t(e + bias) << mantBits) |
         uint16_t(q & mantMask);
}

static double smallFloatToDouble(uint16_t h, int mantBits, int expBits) {
  const bool negative = (h >> (mantBits + expBits)) & 1;
  const int expField = (h >> mantBits) & ((1 << expBits) - 1);
  const int mant = h & ((1 << mantBits) - 1);
  const int bias = (1 << (expBits - 1)) - 1;
  double v;
  if (expField == (1 << expBits) - 1) {
    v = mant ? std::numeric_limits<double>::quiet_NaN()
             : std::numeric_limits<double>::infinity();
  } else if (expField == 0) {
    v = std::ldexp(double(mant), 1 - bias - mantBits);
  } else {
    v = std::ldexp(double(mant | (1 << mantBits)), expField - bias - mantBits);
  }
  return negative ? -v : v;
}

uint16_t floatToHalf(float f) { return roundToSmallFloat(f, 10, 5); }

float halfToFloat(uint16_t h) {
  // Every half is exactly a float; NaN payloads are carried over bitwise.
  if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff)) {
    uint32_t bits = (uint32_t(h & 0x8000) << 16) | 0x7f800000u |
                    (uint32_t(h & 0x3ff) << 13);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  return float(smallFloatToDouble(h, 10, 5));
}

uint16_t floatToBFloat16(float f) { return roundToSmallFloat(f, 7, 8); }

double roundToE4M3(double v) {
  if (std::isnan(v))
    return v;
  double a = std::fabs(v);
  if (a >= 448.0) // the largest finite value; beyond it saturates
    return std::copysign(448.0, v);
  // Three mantissa bits: the spacing is 2^(e-3) for a in [2^e, 2^(e+1)),
  // and 2^-9 (the subnormals') below 2^-6. a / ulp is exact, and rounding
  // it to nearest even cannot pass 448.
  int exponent = 0;
  (void)std::frexp(a, &exponent); // a = f * 2^exponent, f in [0.5, 1)
  double ulp = std::ldexp(1.0, std::max(exponent - 1, -6) - 3);
  return std::copysign(std::nearbyint(a / ulp) * ulp, v);
}

uint8_t floatToE4M3(double v) {
  double r = roundToE4M3(v);
  if (std::isnan(r))
    return 0x7f;
  uint8_t sign = std::signbit(r) ? 0x80 : 0;
  double a = std::fabs(r);
  if (a < 0x1p-6) // a subnormal: a multiple of 2^-9
    return uint8_t(sign | uint8_t(a * 512.0));
  int exponent = 0;
  double f = std::frexp(a, &exponent); // f in [0.5, 1)
  unsigned mantissa = unsigned((f * 2.0 - 1.0) * 8.0);
  return uint8_t(sign | unsigned((exponent - 1 + 7) << 3) | mantissa);
}

float e4m3ToFloat(uint8_t x) {
  if ((x & 0x7f) == 0x7f)
    return std::numeric_limits<float>::quiet_NaN();
  int e = (x >> 3) & 0xf, m = x & 7;
  float f =
      e == 0 ? std::ldexp(float(m), -9) : std::ldexp(float(8 + m), e - 10);
  return (x & 0x80) ? -f : f;
}

float bfloat16ToFloat(uint16_t h) {
  uint32_t bits = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

static int64_t productOf(const std::vector<int64_t> &shape) {
  for (int64_t d : shape)
    if (d < 0)
      return 0;
  return int64_t(std::min<uint64_t>(checkedProduct(shape).valueOr(INT64_MAX),
                                    uint64_t(INT64_MAX)));
}

/// The bytes of a `dtype` tensor of `shape`, checked against the host's
/// memory before anything is allocated.
static Result<uint64_t> hostTensorBytes(DType dtype,
                                        const std::vector<int64_t> &shape,
                                        const std::string &what) {
  for (int64_t d : shape)
    if (d < 0)
      return Status::error(what + " " + describe(dtype, shape) +
                           " has a negative dimension");
  Checked bytes = checkedProduct(shape) * uint64_t(dtypeSize(dtype));
  DLC_RT_RETURN_IF_ERROR(
      checkHostAllocation(bytes, what + " " + describe(dtype, shape)));
  if (*bytes.value() > SIZE_MAX)
    return Status::error(what + " " + describe(dtype, shape) +
                         " does not fit in this host's address space");
  return *bytes.value();
}

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape)
    : dtype(dtype), shape(std::move(shape)) {
  Result<uint64_t> bytes = hostTensorBytes(dtype, this->shape, "a tensor");
  if (!bytes)
    throw HostAllocationError(bytes.message());
  try {
    data.assign(size_t(*bytes), 0);
  } catch (const std::bad_alloc &) {
    throw HostAllocationError("cannot allocate " +
                              describe(dtype, this->shape) + " (" +
                              formatBytes(*bytes) + ") in host memory");
  }
}

Result<HostTensor> HostTensor::allocate(DType dtype, std::vector<int64_t> shape,
                                        const std::string &what) {
  Result<uint64_t> bytes = hostTensorBytes(dtype, shape, what);
  if (!bytes)
    return bytes.status();
  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  try {
    t.data.assign(size_t(*bytes), 0);
  } catch (const std::bad_alloc &) {
    return Status::error("cannot allocate " + what + " " +
                         describe(dtype, t.shape) + " (" + formatBytes(*bytes) +
                         ") in host memory");
  }
  return t;
}

int64_t HostTensor::numElements() const { return productOf(shape); }

double HostTensor::getAsDouble(int64_t i) const {
  const uint8_t *p = data.data() + size_t(i) * dtypeSize(dtype);
  switch (dtype) {
  case DType::F32: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::F16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return halfToFloat(v);
  }
  case DType::BF16: {
    uint16_t v;
    std::memcpy(&v, p, 2);
    return bfloat16ToFloat(v);
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
  case DType::I1:
    return *p ? 1.0 : 0.0;
  case DType::F8E4M3:
    return e4m3ToFloat(*p);
  }
  return 0.0;
}

/// Converts to an integer type the way a C cast would, but saturating and
/// mapping NaN to 0 instead of invoking undefined behavior.
template <typename T> static T saturatingCast(double v) {
  if (std::isnan(v))
    return 0;
  if (v <= double(std::numeric_limits<T>::min()))
    return std::numeric_limits<T>::min();
  if (v >= double(std::numeric_limits<T>::max()))
    return std::numeric_limits<T>::max();
  return T(v);
}

void HostTensor::setFromDouble(int64_t i, double v) {
  uint8_t *p = data.data() + size_t(i) * dtypeSize(dtype);
  switch (dtype) {
  case DType::F32: {
    float f = float(v);
    std::memcpy(p, &f, 4);
    return;
  }
  case DType::F16: {
    uint16_t h = roundToSmallFloat(v, 10, 5);
    std::memcpy(p, &h, 2);
    return;
  }
  case DType::BF16: {
    uint16_t h = roundToSmallFloat(v, 7, 8);
    std::memcpy(p, &h, 2);
    return;
  }
  case DType::I32: {
    int32_t x = saturatingCast<int32_t>(v);
    std::memcpy(p, &x, 4);
    return;
  }
  case DType::I64: {
    int64_t x = saturatingCast<int64_t>(v);
    std::memcpy(p, &x, 8);
    return;
  }
  case DType::I1:
    *p = v != 0.0 ? 1 : 0;
    return;
  case DType::F8E4M3:
    *p = floatToE4M3(v);
    return;
  }
}

//===----------------------------------------------------------------------===//
// .npy files
//===----------------------------------------------------------------------===//

namespace {

/// The dict literal of a .npy header: {'descr': '<f4', 'fortran_order':
/// False, 'shape': (2, 3), }. A small recursive-descent parser for exactly
/// the Python literal forms numpy writes.
class NpyHeaderParser {
public:
  explicit NpyHeaderParser(const std::string &text) : s_(text) {}

  bool parse(std::string &error) {
    skipSpace();
    if (!eat('{'))
      return fail("expected '{'", error);
    while (true) {
      skipSpace();
      if (eat('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail("expected a quoted key", error);
      skipSpace();
      if (!eat(':'))
        return fail("expected ':' after '" + key + "'", error);
      skipSpace();
      if (key == "descr") {
        if (!parseString(descr))
          return fail("'descr' is not a string (structured dtypes are not "
                      "supported)",
                      error);
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (matchWord("True"))
          fortranOrder = true;
        else if (matchWord("False"))
          fortranOrder = false;
        else
          return fail("'fortran_order' is not True or False", error);
        haveFortran = true;
      } else if (key == "shape") {
        if (!parseShape(error))
          return false;
        haveShape = true;
      } else {
        return fail("unexpected key '" + key + "'", error);
      }
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat('}'))
        break;
      return fail("expected ',' or '}'", error);
    }
    // What follows the dict is padding, possibly with a '#' comment (dlc
    // notes bfloat16 there).
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == '#') {
      comment = s_.substr(pos_ + 1);
      pos_ = s_.size();
    }
    skipSpace();
    if (pos_ != s_.size())
      return fail("unexpected text after the header dict", error);
    if (!haveDescr || !haveFortran || !haveShape)
      return fail("the header lacks 'descr', 'fortran_order' or 'shape'",
                  error);
    return true;
  }

  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
  std::string comment;

private:
  bool fail(const std::string &what, std::string &error) {
    error = "malformed header: " + what;
    return false;
  }
  void skipSpace() {
    while (pos_ < s_.size() &&
           std::isspace(static_cast<unsigned char>(s_[pos_])))
      ++pos_;
  }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool matchWord(const char *word) {
    size_t n = std::strlen(word);
    if (s_.compare(pos_, n, word) != 0)
      return false;
    pos_ += n;
    return true;
  }
  bool parseString(std::string &out) {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"'))
      return false;
    char quote = s_[pos_++];
    size_t end = s_.find(quote, pos_);
    if (end == std::string::npos)
      return false;
    out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return true;
  }
  bool parseShape(std::string &error) {
    if (!eat('('))
      return fail("'shape' is not a tuple", error);
    while (true) {
      skipSpace();
      if (eat(')'))
        return true;
      size_t start = pos_;
      while (pos_ < s_.size() &&
             std::isdigit(static_cast<unsigned char>(s_[pos_])))
        ++pos_;
      if (start == pos_)
        return fail("'shape' holds something other than non-negative integers",
                    error);
      std::string digits = s_.substr(start, pos_ - start);
      if (digits.size() > 18)
        return fail("dimension " + digits + " is too large", error);
      shape.push_back(std::stoll(digits));
      eat('L'); // Python 2 longs
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat(')'))
        return true;
      return fail("expected ',' or ')' in 'shape'", error);
    }
  }

  const std::string &s_;
  size_t pos_ = 0;
  bool haveDescr = false, haveFortran = false, haveShape = false;
};

} // namespace

static bool descrToDType(const std::string &descr, const std::string &comment,
                         DType &type) {
  (void)comment;
  if (descr == "<f4" || descr == "=f4")
    type = DType::F32;
  else if (descr == "<f2" || descr == "=f2")
    type = DType::F16;
  else if (descr == "<i4" || descr == "=i4")
    type = DType::I32;
  else if (descr == "<i8" || descr == "=i8")
    type = DType::I64;
  else if (descr == "|b1" || descr == "|u1" || descr == "<u1" ||
           descr == "=u1" || descr == "<b1" || descr == "=b1")
    type = DType::I1;
  // A two-byte void is how bfloat16 arrays (dlc's, and ml_dtypes') appear to
  // numpy; it has no other meaning for dlc.
  else if (descr == "<V2" || descr == "|V2")
    type = DType::BF16;
  // And a one-byte void float8_e4m3fn (dlc's and ml_dtypes').
  else if (descr == "|V1" || descr == "<V1")
    type = DType::F8E4M3;
  else
    return false;
  return true;
}

namespace {
/// .npy bytes held in memory, read as RegularFile reads a file.
struct MemorySource {
  const uint8_t *data;
  uint64_t bytes;
  std::string name;
  uint64_t size() const { return bytes; }
  Status read(uint64_t offset, void *dst, uint64_t length) const {
    if (offset > bytes || length > bytes - offset)
      return Status::error(name + ": a read past its " + std::to_string(bytes) +
                           " bytes");
    if (length)
      std::memcpy(dst, data + offset, length);
    return Status();
  }
};
} // namespace

/// A .npy file's tensor from `file` (a RegularFile or a MemorySource): the
/// header first, then the data the header announces, which must be all the
/// rest. Nothing is allocated before the sizes are checked.
template <typename Source>
static Result<HostTensor> decodeNpy(const Source &file,
                                    const std::string &path) {
  const uint64_t fileSize = file.size();
  static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  uint8_t prefix[12] = {};
  const uint64_t prefixSize = std::min<uint64_t>(fileSize, sizeof(prefix));
  DLC_RT_RETURN_IF_ERROR(file.read(0, prefix, prefixSize));
  if (prefixSize < 8 || std::memcmp(prefix, magic, 6) != 0)
    return Status::error(path + ": not a .npy file (bad magic)");
  int major = prefix[6];
  size_t headerLenSize;
  if (major == 1)
    headerLenSize = 2;
  else if (major == 2 || major == 3)
    headerLenSize = 4;
  else
    return Status::error(path + ": unsupported .npy format version " +
                         std::to_string(major) + "." +
                         std::to_string(prefix[7]));
  if (prefixSize < 8 + headerLenSize)
    return Status::error(path + ": truncated .npy header");
  uint64_t headerLen = 0;
  for (size_t i = 0; i < headerLenSize; ++i)
    headerLen |= uint64_t(prefix[8 + i]) << (8 * i);
  uint64_t dataStart = 8 + headerLenSize + headerLen;
  if (fileSize < dataStart)
    return Status::error(
        path + ": truncated .npy header (" + std::to_string(headerLen) +
        " header bytes announced, " +
        std::to_string(fileSize - 8 - headerLenSize) + " present)");
  std::string header(size_t(headerLen), '\0');
  DLC_RT_RETURN_IF_ERROR(
      file.read(8 + headerLenSize, header.data(), headerLen));
  NpyHeaderParser parser(header);
  std::string error;
  if (!parser.parse(error))
    return Status::error(path + ": " + error);
  if (parser.fortranOrder)
    return Status::error(path + ": fortran_order True is not supported "
                                "(save a C-contiguous array)");
  DType type;
  if (!descrToDType(parser.descr, parser.comment, type)) {
    std::string msg = path + ": unsupported dtype '" + parser.descr + "'";
    if (!parser.descr.empty() && parser.descr[0] == '>')
      msg += " (big-endian)";
    return Status::error(msg + " (dlc reads <f4, <f2, <i4, <i8, |b1, |u1, "
                               "bfloat16 as <V2 and float8_e4m3fn as |V1)");
  }
  // Guard the byte count against overflow before comparing or allocating.
  std::optional<uint64_t> checkedBytes =
      (checkedProduct(parser.shape) * uint64_t(dtypeSize(type))).value();
  if (!checkedBytes)
    return Status::error(path + ": shape " + describe(type, parser.shape) +
                         " is too large (2^64 bytes or more)");
  uint64_t dataBytes = *checkedBytes;
  uint64_t present = fileSize - dataStart;
  if (present < dataBytes)
    return Status::error(path +
                         ": truncated data: " + describe(type, parser.shape) +
                         " needs " + std::to_string(dataBytes) +
                         " bytes, the file has " + std::to_string(present));
  if (present > dataBytes)
    return Status::error(path + ": " + std::to_string(present - dataBytes) +
                         " unexpected bytes after the data of " +
                         describe(type, parser.shape));
  Result<HostTensor> allocated =
      HostTensor::allocate(type, parser.shape, path + ": the data of");
  if (!allocated)
    return allocated.status();
  HostTensor t = allocated.take();
  DLC_RT_RETURN_IF_ERROR(file.read(dataStart, t.data.data(), dataBytes));
  if (type == DType::I1)
    for (uint8_t &b : t.data)
      b = b ? 1 : 0;
  return t;
}

Result<HostTensor> readNpy(const std::string &path) {
  Result<RegularFile> opened = RegularFile::open(path);
  if (!opened)
    return opened.status();
  return decodeNpy(*opened, path);
}

Result<HostTensor> parseNpy(const uint8_t *data, uint64_t size,
                            const std::string &name) {
  return decodeNpy(MemorySource{data, size, name}, name);
}

Status writeNpy(const std::string &path, const HostTensor &tensor) {
  Result<std::vector<uint8_t>> bytes = encodeNpy(tensor, path);
  if (!bytes)
    return bytes.status();
  return writeFileAtomic(path, bytes->data(), bytes->size());
}

Result<std::vector<uint8_t>> encodeNpy(const HostTensor &tensor,
                                       const std::string &path) {
  const char *descr = nullptr;
  switch (tensor.dtype) {
  case DType::F32:
    descr = "<f4";
    break;
  case DType::F16:
    descr = "<f2";
    break;
  case DType::BF16:
    descr = "<V2";
    break;
  case DType::I32:
    descr = "<i4";
    break;
  case DType::I64:
    descr = "<i8";
    break;
  case DType::I1:
    descr = "|b1";
    break;
  case DType::F8E4M3:
    descr = "|V1";
    break;
  }
  if (!descr)
    return Status::error(path + ": invalid dtype");
  if ((checkedProduct(tensor.shape) * uint64_t(dtypeSize(tensor.dtype)))
          .value() != std::optional<uint64_t>(tensor.data.size()))
    return Status::error(path + ": tensor " +
                         describe(tensor.dtype, tensor.shape) + " holds " +
                         std::to_string(tensor.data.size()) +
                         " bytes, inconsistent with its shape");
  std::string dict = std::string("{'descr': '") + descr +
                     "', 'fortran_order': False, 'shape': (";
  // numpy's tuple syntax: (), (3,), (2, 3).
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    if (i)
      dict += ", ";
    dict += std::to_string(tensor.shape[i]);
  }
  if (tensor.shape.size() == 1)
    dict += ",";
  dict += "), }";
  if (tensor.dtype == DType::BF16)
    dict += " # bfloat16"; // a Python comment: numpy's literal_eval skips it
  else if (tensor.dtype == DType::F8E4M3)
    dict += " # float8_e4m3fn";
  // Pad with spaces so the data starts at a multiple of 64 bytes, and end
  // with a newline, as numpy does.
  size_t prefix = 10;
  size_t total = prefix + dict.size() + 1;
  int major = 1;
  if (total + (64 - total % 64) % 64 - prefix > 65535) {
    major = 2;
    prefix = 12;
    total = prefix + dict.size() + 1;
  }
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';

  std::vector<uint8_t> out;
  out.reserve(prefix + dict.size() + tensor.data.size());
  const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  out.insert(out.end(), magic, magic + 6);
  out.push_back(uint8_t(major));
  out.push_back(0);
  ByteWriter w(out);
  if (major == 1) {
    out.push_back(uint8_t(dict.size() & 0xff));
    out.push_back(uint8_t(dict.size() >> 8));
  } else {
    w.u32(uint32_t(dict.size()));
  }
  w.bytes(dict.data(), dict.size());
  w.bytes(tensor.data.data(), tensor.data.size());
  return out;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

double relativeError(const HostTensor &a, const HostTensor &ref) {
  int64_t n = ref.numElements();
  // Tensors whose data do not hold their shape's elements compare as far
  // apart, never read past their data.
  auto consistent = [](const HostTensor &t) {
    return (checkedProduct(t.shape) * uint64_t(dtypeSize(t.dtype))).value() ==
           std::optional<uint64_t>(t.data.size());
  };
  if (a.numElements() != n || !consistent(a) || !consistent(ref))
    return std::numeric_limits<double>::infinity();
  double diff2 = 0.0, ref2 = 0.0;
  for (int64_t i = 0; i < n; ++i) {
    double x = a.getAsDouble(i), r = ref.getAsDouble(i);
    if (std::isfinite(r))
      ref2 += r * r;
    // Identical values, including matching infinities, and NaN where the
    // reference has NaN, count as exact.
    if (x == r || (std::isnan(x) && std::isnan(r)))
      continue;
    double d = x - r;
    diff2 += d * d;
  }
  if (diff2 == 0.0)
    return 0.0;
  const double tiny = 1e-30;
  return std::sqrt(diff2) / std::max(std::sqrt(ref2), tiny);
}

} // namespace dlc::rt
