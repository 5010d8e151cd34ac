//===- Literals.cpp - Element types, checked sizes and host literals ------===//
//
// The host side of the ONNX importer: ONNX element types, the checks every
// size read from a model goes through, arithmetic on literals (host tensors
// the importer folds shape computations with), and TensorProto decoding.
//
//===----------------------------------------------------------------------===//
#include "frontend/onnx/Importer.h"
#include "runtime/SafeFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir;

namespace dlc::onnximport {

//===----------------------------------------------------------------------===//
// Element types and literals
//===----------------------------------------------------------------------===//

std::optional<rt::DType> dtypeOfOnnx(int32_t t) {
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return rt::DType::F32;
  case onnx::TensorProto::FLOAT16:
    return rt::DType::F16;
  case onnx::TensorProto::BFLOAT16:
    return rt::DType::BF16;
  case onnx::TensorProto::INT32:
    return rt::DType::I32;
  case onnx::TensorProto::INT64:
    return rt::DType::I64;
  case onnx::TensorProto::BOOL:
    return rt::DType::I1;
  default:
    return std::nullopt;
  }
}

const char *onnxTypeName(int32_t t) {
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return "float";
  case onnx::TensorProto::UINT8:
    return "uint8";
  case onnx::TensorProto::INT8:
    return "int8";
  case onnx::TensorProto::UINT16:
    return "uint16";
  case onnx::TensorProto::INT16:
    return "int16";
  case onnx::TensorProto::INT32:
    return "int32";
  case onnx::TensorProto::INT64:
    return "int64";
  case onnx::TensorProto::STRING:
    return "string";
  case onnx::TensorProto::BOOL:
    return "bool";
  case onnx::TensorProto::FLOAT16:
    return "float16";
  case onnx::TensorProto::DOUBLE:
    return "double";
  case onnx::TensorProto::UINT32:
    return "uint32";
  case onnx::TensorProto::UINT64:
    return "uint64";
  case onnx::TensorProto::COMPLEX64:
    return "complex64";
  case onnx::TensorProto::COMPLEX128:
    return "complex128";
  case onnx::TensorProto::BFLOAT16:
    return "bfloat16";
  default:
    return "undefined";
  }
}

int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

//===----------------------------------------------------------------------===//
// Sizes read from the model
//===----------------------------------------------------------------------===//

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (llvm::AddOverflow(a, b, r))
    return std::nullopt;
  return r;
}
std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (llvm::MulOverflow(a, b, r))
    return std::nullopt;
  return r;
}

std::optional<int64_t> checkedProduct(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    auto m = checkedMul(n, d);
    if (!m)
      return std::nullopt;
    n = *m;
  }
  return n;
}

std::string checkShape(ArrayRef<int64_t> shape, int64_t elemBytes,
                       int64_t maxElements) {
  if ((int64_t)shape.size() > kMaxRank)
    return "has rank " + std::to_string(shape.size()) + ", more than the " +
           std::to_string(kMaxRank) + " dlc supports";
  for (int64_t d : shape)
    if (d < 0)
      return "has shape " + dlcir::formatShape(shape) +
             ", with a negative dimension";
  int64_t bytes = std::max<int64_t>(elemBytes, 1), count = 1;
  for (int64_t d : shape) {
    if (d > 1 && bytes > mlir::dlc::kMaxTensorBytes / d)
      return "has shape " + dlcir::formatShape(shape) +
             ", larger than the 2^40 bytes (1 TiB) dlc supports for one "
             "tensor";
    bytes *= std::max<int64_t>(d, 1);
    count *= d; // <= bytes: cannot overflow
  }
  if (maxElements >= 0 && count > maxElements)
    return "has shape " + dlcir::formatShape(shape) + ", with " +
           std::to_string(count) + " elements, more than the " +
           std::to_string(maxElements) +
           " the importer computes at import time";
  return "";
}

int64_t saturatingInt(double d) {
  if (std::isnan(d))
    return 0;
  if (d >= 9.2e18)
    return std::numeric_limits<int64_t>::max();
  if (d <= -9.2e18)
    return std::numeric_limits<int64_t>::min();
  return (int64_t)d;
}

int64_t wrapAdd(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
int64_t wrapSub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
int64_t wrapMul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

int64_t litInt(const rt::HostTensor &t, int64_t i) {
  const uint8_t *p = t.data.data() + i * rt::dtypeSize(t.dtype);
  switch (t.dtype) {
  case rt::DType::I64: {
    int64_t v;
    std::memcpy(&v, p, 8);
    return v;
  }
  case rt::DType::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  case rt::DType::I1:
    return *p ? 1 : 0;
  default:
    return saturatingInt(t.getAsDouble(i));
  }
}

double litDouble(const rt::HostTensor &t, int64_t i) {
  if (t.dtype == rt::DType::I64)
    return (double)litInt(t, i);
  return t.getAsDouble(i);
}

void litSetInt(rt::HostTensor &t, int64_t i, int64_t v) {
  uint8_t *p = t.data.data() + i * rt::dtypeSize(t.dtype);
  switch (t.dtype) {
  case rt::DType::I64:
    std::memcpy(p, &v, 8);
    return;
  case rt::DType::I32: {
    int32_t x = (int32_t)v;
    std::memcpy(p, &x, 4);
    return;
  }
  case rt::DType::I1:
    *p = v ? 1 : 0;
    return;
  default:
    t.setFromDouble(i, (double)v);
  }
}

void litSetDouble(rt::HostTensor &t, int64_t i, double v) {
  if (t.dtype == rt::DType::I1) {
    t.data[i] = v != 0 ? 1 : 0;
    return;
  }
  if (t.dtype == rt::DType::I64 || t.dtype == rt::DType::I32) {
    // ONNX Cast from float to integer truncates toward zero.
    litSetInt(t, i, saturatingInt(std::trunc(v)));
    return;
  }
  t.setFromDouble(i, v);
}

std::vector<int64_t> litInts(const rt::HostTensor &t) {
  std::vector<int64_t> v(t.numElements());
  for (int64_t i = 0; i < (int64_t)v.size(); ++i)
    v[i] = litInt(t, i);
  return v;
}

Lit makeLit(rt::HostTensor t) {
  return std::make_shared<const rt::HostTensor>(std::move(t));
}

Lit intLit(ArrayRef<int64_t> values, std::vector<int64_t> shape, rt::DType d) {
  rt::HostTensor t(d, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    litSetInt(t, i, values[i]);
  return makeLit(std::move(t));
}

/// Row-major strides of a shape, with 0 for dimensions of size 1 that are
/// broadcast to `out` (right-aligned).
static std::vector<int64_t> broadcastStrides(ArrayRef<int64_t> shape,
                                             ArrayRef<int64_t> out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t s = 1;
  for (int64_t i = (int64_t)shape.size() - 1; i >= 0; --i) {
    int64_t o = i + (int64_t)out.size() - (int64_t)shape.size();
    strides[o] = shape[i] == 1 && out[o] != 1 ? 0 : s;
    s *= shape[i];
  }
  return strides;
}

std::optional<std::vector<int64_t>>
numpyBroadcast(ArrayRef<ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  std::vector<int64_t> out(rank, 1);
  for (ArrayRef<int64_t> s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      if (s[i] == o || s[i] == 1)
        continue;
      if (o != 1)
        return std::nullopt;
      o = s[i];
    }
  }
  return out;
}

Lit foldMap(ArrayRef<const rt::HostTensor *> ins, rt::DType outType,
            ArrayRef<int64_t> extraShape,
            const std::function<int64_t(ArrayRef<int64_t>)> &fi,
            const std::function<double(ArrayRef<double>)> &fd) {
  SmallVector<ArrayRef<int64_t>> shapes;
  bool allInt = true;
  for (const rt::HostTensor *t : ins) {
    shapes.push_back(t->shape);
    allInt &= !dlcir::isFloat(t->dtype);
  }
  shapes.push_back(extraShape);
  auto out = numpyBroadcast(shapes);
  // Too big to fold (broadcasting multiplies sizes): left to the device.
  if (!out ||
      !checkShape(*out, rt::dtypeSize(outType), kMaxFoldElements).empty())
    return nullptr;
  rt::HostTensor r(outType, *out);
  std::vector<std::vector<int64_t>> strides;
  for (const rt::HostTensor *t : ins)
    strides.push_back(broadcastStrides(t->shape, *out));
  int64_t n = r.numElements(), rank = out->size();
  std::vector<int64_t> idx(rank, 0);
  SmallVector<int64_t> iv(ins.size());
  SmallVector<double> dv(ins.size());
  for (int64_t e = 0; e < n; ++e) {
    for (size_t k = 0; k < ins.size(); ++k) {
      int64_t off = 0;
      for (int64_t d = 0; d < rank; ++d)
        off += idx[d] * strides[k][d];
      if (allInt)
        iv[k] = litInt(*ins[k], off);
      else
        dv[k] = litDouble(*ins[k], off);
    }
    if (allInt) {
      if (dlcir::isFloat(outType))
        r.setFromDouble(e, (double)fi(iv));
      else
        litSetInt(r, e, fi(iv));
    } else {
      litSetDouble(r, e, fd(dv));
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < (*out)[d])
        break;
      idx[d] = 0;
    }
  }
  return makeLit(std::move(r));
}

std::optional<SliceDims> sliceDims(ArrayRef<int64_t> shape,
                                   ArrayRef<int64_t> starts,
                                   ArrayRef<int64_t> ends,
                                   ArrayRef<int64_t> axes,
                                   ArrayRef<int64_t> steps, std::string &err) {
  int64_t rank = shape.size();
  SliceDims s;
  s.start.assign(rank, 0);
  s.step.assign(rank, 1);
  s.size.assign(shape.begin(), shape.end());
  if (starts.size() != ends.size() ||
      (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size())) {
    err = "starts, ends, axes and steps must have the same length";
    return std::nullopt;
  }
  std::vector<bool> seen(rank, false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t a = axes.empty() ? (int64_t)i : axes[i];
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank || seen[a]) {
      err = "slice axis " + std::to_string(axes.empty() ? i : axes[i]) +
            " is out of range or repeated for rank " + std::to_string(rank);
      return std::nullopt;
    }
    seen[a] = true;
    int64_t d = shape[a];
    int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0) {
      err = "slice step must not be 0";
      return std::nullopt;
    }
    int64_t st = starts[i], en = ends[i];
    if (st < 0)
      st = st < -d ? (step > 0 ? 0 : -1) + (st < -d ? 0 : d) : st + d;
    if (en < 0)
      en = en < -d ? -1 : en + d;
    if (step > 0) {
      st = std::clamp<int64_t>(st, 0, d);
      en = std::clamp<int64_t>(en, 0, d);
    } else {
      st = std::clamp<int64_t>(st, -1, d - 1);
      en = std::clamp<int64_t>(en, -1, d - 1);
    }
    // st and en lie in [-1, d]; the step may be anything (INT64_MIN too).
    int64_t n = 0;
    if (step > 0 && en > st)
      n = (en - st - 1) / step + 1;
    else if (step < 0 && st > en)
      n = (int64_t)((uint64_t)(st - en - 1) / (0 - (uint64_t)step)) + 1;
    s.start[a] = st;
    // With one element the step does not matter: keep it small, so that no
    // later stage computes start + size * step out of range.
    s.step[a] = n <= 1 ? (step > 0 ? 1 : -1) : step;
    s.size[a] = n;
  }
  return s;
}

//===----------------------------------------------------------------------===//
// TensorProto decoding
//===----------------------------------------------------------------------===//

rt::Result<rt::HostTensor> decodeTensor(const onnx::TensorProto &proto,
                                        StringRef baseDir,
                                        std::vector<std::string> *externalFiles,
                                        StringRef folder) {
  auto dtype = dtypeOfOnnx(proto.data_type());
  if (!dtype)
    return rt::Status::error(std::string("tensor '") + proto.name() +
                             "' has element type " +
                             onnxTypeName(proto.data_type()) +
                             ", which dlc does not support (f32, f16, bf16, "
                             "int32, int64 and bool only)");
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  // The shape is checked before anything is allocated for it; the data it
  // needs must then be in the file, which bounds the allocation.
  std::string bad = checkShape(shape, rt::dtypeSize(*dtype));
  if (!bad.empty())
    return rt::Status::error("tensor '" + proto.name() + "' " + bad);
  size_t n = *checkedProduct(shape);
  size_t bytes = n * rt::dtypeSize(*dtype);
  auto sizeError = [&](size_t got) {
    return rt::Status::error("tensor '" + proto.name() + "' holds " +
                             std::to_string(got) + " elements, but its shape " +
                             rt::describe(*dtype, shape) + " needs " +
                             std::to_string(n));
  };
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string location;
    uint64_t offset = 0;
    int64_t length = -1;
    // Offsets and lengths are decimal integers from 0 to 2^63 - 1: a sign,
    // another character or a larger value is an error, never a
    // reinterpretation (strtoull would wrap "-1" to 2^64 - 1, strtoll
    // would make "-5" "no length").
    auto number = [&](const std::string &key, const std::string &text,
                      uint64_t &value) -> rt::Status {
      value = 0;
      bool ok = !text.empty() && text.size() <= 19;
      for (char c : text) {
        ok &= c >= '0' && c <= '9';
        if (ok)
          value = value * 10 + uint64_t(c - '0');
      }
      if (ok && value <= (uint64_t)std::numeric_limits<int64_t>::max())
        return rt::Status::ok();
      return rt::Status::error("the external data " + key + " '" + text +
                               "' of tensor '" + proto.name() +
                               "' is not an integer from 0 to 2^63 - 1");
    };
    for (const auto &kv : proto.external_data()) {
      if (kv.key() == "location") {
        location = kv.value();
      } else if (kv.key() == "offset") {
        if (rt::Status st = number("offset", kv.value(), offset); !st)
          return st;
      } else if (kv.key() == "length") {
        uint64_t value = 0;
        if (rt::Status st = number("length", kv.value(), value); !st)
          return st;
        length = (int64_t)value;
      }
    }
    // As the ONNX checker requires: a relative path inside the model's
    // directory.
    if (location.empty() || llvm::sys::path::is_absolute(location) ||
        llvm::is_contained(llvm::make_range(llvm::sys::path::begin(location),
                                            llvm::sys::path::end(location)),
                           ".."))
      return rt::Status::error(
          "the external data location '" + location + "' of tensor '" +
          proto.name() + "' is not a relative path inside " + folder.str());
    if (length >= 0 && (uint64_t)length != bytes)
      return rt::Status::error("the external data of tensor '" + proto.name() +
                               "' has length " + std::to_string(length) +
                               ", but its shape " +
                               rt::describe(*dtype, shape) + " needs " +
                               std::to_string(bytes) + " bytes");
    llvm::SmallString<256> path(baseDir);
    llvm::sys::path::append(path, location);
    if (externalFiles && !llvm::is_contained(*externalFiles, path.str()))
      externalFiles->push_back(std::string(path));
    // The check above is lexical; a symbolic link beside the model can
    // still point anywhere. As ONNX Runtime does: the real path of the
    // data (every link followed) must lie inside the real path of the
    // model's folder. The file is then opened by that real path.
    const std::string what =
        "the external data of tensor '" + proto.name() + "'";
    rt::Result<std::string> realFolder = rt::realPath(baseDir.str(), what);
    if (!realFolder)
      return realFolder.status();
    rt::Result<std::string> real = rt::realPath(std::string(path), what);
    if (!real)
      return real.status();
    if (!rt::isPathInside(*real, *realFolder))
      return rt::Status::error("the external data '" + location +
                               "' of tensor '" + proto.name() +
                               "' resolves to '" + *real + "', outside " +
                               folder.str() + " '" + *realFolder + "'");
    // A regular file (no FIFO, device or /dev/zero), with the tensor's
    // bytes inside it: a short file is an error, never zeros.
    rt::Result<rt::RegularFile> file = rt::RegularFile::open(*real, what);
    if (!file)
      return file.status();
    rt::Status range = file->checkRange(offset, bytes);
    if (!range.isOk())
      return range;
    rt::HostTensor t(*dtype, shape);
    rt::Status read = file->read(offset, t.data.data(), bytes);
    if (!read.isOk())
      return read;
    // One byte per bool, any non-zero byte true (as for raw data).
    if (*dtype == rt::DType::I1)
      for (uint8_t &b : t.data)
        b = b ? 1 : 0;
    return t;
  }
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    if (raw.size() != bytes)
      return rt::Status::error(
          "tensor '" + proto.name() + "' has " + std::to_string(raw.size()) +
          " bytes of raw data, but its shape " + rt::describe(*dtype, shape) +
          " needs " + std::to_string(bytes));
    rt::HostTensor t(*dtype, shape);
    if (bytes)
      std::memcpy(t.data.data(), raw.data(), bytes);
    if (*dtype == rt::DType::I1)
      for (uint8_t &b : t.data)
        b = b ? 1 : 0;
    return t;
  }
  // Typed data: its length is checked first in every case below.
  rt::HostTensor t;
  auto alloc = [&] { t = rt::HostTensor(*dtype, shape); };
  switch (*dtype) {
  case rt::DType::F32:
    if ((size_t)proto.float_data_size() != n)
      return sizeError(proto.float_data_size());
    alloc();
    if (bytes)
      std::memcpy(t.data.data(), proto.float_data().data(), bytes);
    break;
  case rt::DType::I64:
    if ((size_t)proto.int64_data_size() != n)
      return sizeError(proto.int64_data_size());
    alloc();
    if (bytes)
      std::memcpy(t.data.data(), proto.int64_data().data(), bytes);
    break;
  case rt::DType::I32:
  case rt::DType::I1:
  case rt::DType::F16:
  case rt::DType::BF16:
    // Narrow types are stored one per int32 (f16/bf16 as their bits).
    if ((size_t)proto.int32_data_size() != n)
      return sizeError(proto.int32_data_size());
    alloc();
    for (size_t i = 0; i < n; ++i) {
      int32_t v = proto.int32_data(i);
      if (*dtype == rt::DType::I32)
        std::memcpy(t.data.data() + 4 * i, &v, 4);
      else if (*dtype == rt::DType::I1)
        t.data[i] = v ? 1 : 0;
      else {
        uint16_t h = (uint16_t)v;
        std::memcpy(t.data.data() + 2 * i, &h, 2);
      }
    }
    break;
  }
  return t;
}

} // namespace dlc::onnximport
