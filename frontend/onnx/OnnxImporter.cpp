//===- OnnxImporter.cpp - ONNX models to the dlc dialect ------------------===//
//
// One pass over the graph's nodes in their (topological) order. Every ONNX
// value is an Entry: an MLIR value, a known constant (a "literal": a host
// tensor), or both. Literals come from initializers, Constant nodes and
// nodes whose inputs are all literals and whose op is cheap to evaluate here
// (shape arithmetic): since dlc shapes are static, Shape → Gather → Concat →
// Reshape chains vanish at import. A literal becomes a dlc.constant only when
// an emitted op uses it.
//
//===----------------------------------------------------------------------===//
#include "frontend/onnx/OnnxImporter.h"
#include "ir/Dialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

// Debian's libonnx_proto is built from onnx-ml.proto in namespace `onnx`:
// onnx_pb.h picks the matching generated header from these (the onnx_proto
// CMake target sets them too, but not on add_mlir_library's object library).
#ifndef ONNX_ML
#define ONNX_ML 1
#endif
#ifndef ONNX_NAMESPACE
#define ONNX_NAMESPACE onnx
#endif
#include <onnx/onnx_pb.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

using namespace mlir;
namespace rt = ::dlc::rt;
namespace dlcir = ::mlir::dlc;

namespace dlc {
namespace {

//===----------------------------------------------------------------------===//
// Element types and literals
//===----------------------------------------------------------------------===//

using Lit = std::shared_ptr<const rt::HostTensor>;

/// The dlc element type of an ONNX TensorProto data type.
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

Type elemTypeOf(MLIRContext *ctx, rt::DType d) {
  switch (d) {
  case rt::DType::F32:
    return Float32Type::get(ctx);
  case rt::DType::F16:
    return Float16Type::get(ctx);
  case rt::DType::BF16:
    return BFloat16Type::get(ctx);
  case rt::DType::I32:
    return IntegerType::get(ctx, 32);
  case rt::DType::I64:
    return IntegerType::get(ctx, 64);
  case rt::DType::I1:
    return IntegerType::get(ctx, 1);
  }
  return {};
}

std::optional<rt::DType> dtypeOfElem(Type t) {
  if (t.isF32())
    return rt::DType::F32;
  if (t.isF16())
    return rt::DType::F16;
  if (t.isBF16())
    return rt::DType::BF16;
  if (t.isInteger(32))
    return rt::DType::I32;
  if (t.isInteger(64))
    return rt::DType::I64;
  if (t.isInteger(1))
    return rt::DType::I1;
  return std::nullopt;
}

bool isFloatDType(rt::DType d) {
  return d == rt::DType::F32 || d == rt::DType::F16 || d == rt::DType::BF16;
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
//
// Every shape, size, count and index in an ONNX file is untrusted: sizes go
// through checkShape before a tensor type or a host tensor is built from them,
// and arithmetic on them goes through the checked helpers below, so that a
// corrupt model gets a diagnostic, never an overflow or a huge allocation.

/// The most elements of a tensor the importer materializes on the host:
/// literals it folds or builds (Range, Trilu masks, index tables, ...).
/// Initializers are not limited by this: their data is in the file.
constexpr int64_t kMaxLiteralElements = int64_t(1) << 26;
/// The most elements an import-time fold of a constant subgraph produces;
/// a larger result is computed by the device instead (or, for
/// ConstantOfShape, becomes a splat dlc.constant).
constexpr int64_t kMaxFoldElements = int64_t(1) << 20;
/// The highest tensor rank the importer accepts.
constexpr int64_t kMaxRank = 64;

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

/// The element count of a shape whose dimensions are non-negative, or
/// nullopt if one is negative or the count overflows int64.
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

/// Checks a shape read from or computed from the model: rank at most
/// kMaxRank, every dimension >= 0, the byte size (zero extents counted as 1,
/// as dlc's strides do) within kMaxTensorBytes, and, when `maxElements` >= 0,
/// at most that many elements. Returns what is wrong, or an empty string:
/// "has shape [...], with a negative dimension" and the like, to follow the
/// name of the tensor.
std::string checkShape(ArrayRef<int64_t> shape, int64_t elemBytes,
                       int64_t maxElements = -1) {
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

/// A double converted to int64, saturating (NaN is 0): plain conversion of
/// an out-of-range double is undefined behavior.
int64_t saturatingInt(double d) {
  if (std::isnan(d))
    return 0;
  if (d >= 9.2e18)
    return std::numeric_limits<int64_t>::max();
  if (d <= -9.2e18)
    return std::numeric_limits<int64_t>::min();
  return (int64_t)d;
}

/// Two's complement (wrapping) int64 arithmetic for folded integer ops, as
/// the device computes them.
int64_t wrapAdd(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a + (uint64_t)b);
}
int64_t wrapSub(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a - (uint64_t)b);
}
int64_t wrapMul(int64_t a, int64_t b) {
  return (int64_t)((uint64_t)a * (uint64_t)b);
}

/// Integer element `i` of a literal (floats truncated).
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

Lit intLit(ArrayRef<int64_t> values, std::vector<int64_t> shape,
           rt::DType d = rt::DType::I64) {
  rt::HostTensor t(d, std::move(shape));
  for (size_t i = 0; i < values.size(); ++i)
    litSetInt(t, i, values[i]);
  return makeLit(std::move(t));
}

/// Row-major strides of a shape, with 0 for dimensions of size 1 that are
/// broadcast to `out` (right-aligned).
std::vector<int64_t> broadcastStrides(ArrayRef<int64_t> shape,
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

/// Numpy broadcast of several shapes, or nullopt.
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

/// Elementwise evaluation of literals with numpy broadcasting: in integer
/// arithmetic when every input is an integer or bool tensor, else in double.
Lit foldMap(ArrayRef<const rt::HostTensor *> ins, rt::DType outType,
            ArrayRef<int64_t> extraShape,
            const std::function<int64_t(ArrayRef<int64_t>)> &fi,
            const std::function<double(ArrayRef<double>)> &fd) {
  SmallVector<ArrayRef<int64_t>> shapes;
  bool allInt = true;
  for (const rt::HostTensor *t : ins) {
    shapes.push_back(t->shape);
    allInt &= !isFloatDType(t->dtype);
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
      if (isFloatDType(outType))
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

/// Per-dimension start, step and size of an ONNX Slice.
struct SliceDims {
  std::vector<int64_t> start, step, size;
};

/// Normalizes ONNX Slice parameters (negative indices, clamping) against
/// `shape`; error text on bad axes.
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

/// Decodes `proto` into a host tensor; `baseDir` locates external data,
/// whose file is added to `externalFiles` (when given) before it is read.
rt::Result<rt::HostTensor>
decodeTensor(const onnx::TensorProto &proto, llvm::StringRef baseDir,
             std::vector<std::string> *externalFiles = nullptr) {
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
    for (const auto &kv : proto.external_data()) {
      if (kv.key() == "location")
        location = kv.value();
      else if (kv.key() == "offset")
        offset = std::strtoull(kv.value().c_str(), nullptr, 10);
      else if (kv.key() == "length")
        length = std::strtoll(kv.value().c_str(), nullptr, 10);
    }
    // As the ONNX checker requires: a relative path inside the model's
    // directory.
    if (location.empty() || llvm::sys::path::is_absolute(location) ||
        llvm::is_contained(llvm::make_range(llvm::sys::path::begin(location),
                                            llvm::sys::path::end(location)),
                           ".."))
      return rt::Status::error("the external data location '" + location +
                               "' of tensor '" + proto.name() +
                               "' is not a relative path inside the model's "
                               "directory");
    if (length >= 0 && (uint64_t)length != bytes)
      return rt::Status::error("the external data of tensor '" + proto.name() +
                               "' has length " + std::to_string(length) +
                               ", but its shape " +
                               rt::describe(*dtype, shape) + " needs " +
                               std::to_string(bytes) + " bytes");
    if (offset > (uint64_t)std::numeric_limits<int64_t>::max())
      return rt::Status::error("the external data offset of tensor '" +
                               proto.name() + "' is out of range");
    llvm::SmallString<256> path(baseDir);
    llvm::sys::path::append(path, location);
    if (externalFiles && !llvm::is_contained(*externalFiles, path.str()))
      externalFiles->push_back(std::string(path));
    auto buffer = llvm::MemoryBuffer::getFileSlice(path, bytes, offset);
    if (!buffer)
      return rt::Status::error("cannot read the external data of tensor '" +
                               proto.name() + "' from '" + std::string(path) +
                               "': " + buffer.getError().message());
    if ((*buffer)->getBufferSize() != bytes)
      return rt::Status::error(
          "the external data of tensor '" + proto.name() + "' has " +
          std::to_string((*buffer)->getBufferSize()) + " bytes, but " +
          std::to_string(bytes) + " are needed");
    rt::HostTensor t(*dtype, shape);
    if (bytes)
      std::memcpy(t.data.data(), (*buffer)->getBufferStart(), bytes);
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

//===----------------------------------------------------------------------===//
// The importer
//===----------------------------------------------------------------------===//

class Importer {
public:
  Importer(MLIRContext &context, const onnx::ModelProto &model, StringRef name,
           StringRef baseDir, const OnnxImportOptions &options)
      : ctx(&context), b(&context), model(model), fileName(name.str()),
        baseDir(baseDir.str()), options(options),
        loc(FileLineColLoc::get(&context, name, 0, 0)) {}

  OwningOpRef<ModuleOp> run();

private:
  struct Entry {
    Value value;
    Lit lit;
    /// The initializer's name: the key of its resource blob.
    std::string name;
  };

  // Graph-level steps.
  LogicalResult checkOpsets();
  LogicalResult addInputs(SmallVectorImpl<Type> &types,
                          SmallVectorImpl<std::string> &names);
  LogicalResult convertNode(int index);
  LogicalResult dispatch(StringRef op);
  bool tryFold(StringRef op);

  // Diagnostics.
  InFlightDiagnostic nodeError() {
    return emitError(loc) << "ONNX node '" << nodeName << "' (" << opType
                          << "): ";
  }
  LogicalResult unsupported(const Twine &why) { return nodeError() << why; }

  /// Checks a shape computed from the model before a tensor type of it is
  /// built (see checkShape); `what` names it in the diagnostic.
  LogicalResult checkType(ArrayRef<int64_t> shape, Type elem,
                          const Twine &what) {
    std::string bad = checkShape(shape, dtypeSize(elem));
    if (!bad.empty())
      return unsupported(what + " " + bad);
    return success();
  }
  /// Checks the shape of a tensor the importer is about to materialize on
  /// the host: also at most kMaxLiteralElements elements.
  LogicalResult checkLiteral(ArrayRef<int64_t> shape, rt::DType dtype,
                             const Twine &what) {
    std::string bad =
        checkShape(shape, rt::dtypeSize(dtype), kMaxLiteralElements);
    if (!bad.empty())
      return unsupported(what + " " + bad);
    return success();
  }
  static int64_t dtypeSize(Type elem) {
    if (auto d = dtypeOfElem(elem))
      return rt::dtypeSize(*d);
    return 8;
  }

  // Attributes of the current node.
  const onnx::AttributeProto *attr(StringRef name) const {
    for (const auto &a : node->attribute())
      if (a.name() == name)
        return &a;
    return nullptr;
  }
  int64_t attrInt(StringRef name, int64_t def) const {
    const auto *a = attr(name);
    return a ? a->i() : def;
  }
  double attrFloat(StringRef name, double def) const {
    const auto *a = attr(name);
    return a ? a->f() : def;
  }
  std::string attrStr(StringRef name, StringRef def) const {
    const auto *a = attr(name);
    return a ? a->s() : def.str();
  }
  std::optional<std::vector<int64_t>> attrInts(StringRef name) const {
    const auto *a = attr(name);
    if (!a)
      return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
  }

  // Values.
  bool has(unsigned i) const { return i < ins.size() && ins[i]; }
  RankedTensorType typeOf(const Entry &e) {
    if (e.value)
      return cast<RankedTensorType>(e.value.getType());
    return RankedTensorType::get(e.lit->shape, elemTypeOf(ctx, e.lit->dtype));
  }
  RankedTensorType inType(unsigned i) { return typeOf(*ins[i]); }
  ArrayRef<int64_t> inShape(unsigned i) { return inType(i).getShape(); }
  Value in(unsigned i) { return valueOf(*ins[i]); }
  const rt::HostTensor *lit(unsigned i) {
    return has(i) ? ins[i]->lit.get() : nullptr;
  }
  /// The integers of a constant input, or an error naming the input.
  FailureOr<std::vector<int64_t>> constInts(unsigned i, StringRef what);
  Value valueOf(Entry &e) {
    if (!e.value) {
      if (!e.name.empty())
        currentConstName = e.name;
      e.value = constant(*e.lit);
      currentConstName = nodeName;
    }
    return e.value;
  }
  void setOut(unsigned i, Value v) {
    if (i < outs.size())
      outs[i].value = v;
  }
  void setOutLit(unsigned i, Lit l) {
    if (i < outs.size())
      outs[i].lit = std::move(l);
  }

  // Emission helpers.
  RankedTensorType tensorType(ArrayRef<int64_t> shape, Type elem) {
    return RankedTensorType::get(shape, elem);
  }
  Value create(StringRef name, ValueRange operands, Type result,
               ArrayRef<NamedAttribute> attrs = {});
  Value constant(const rt::HostTensor &t);
  /// A splat dlc.constant of any shape: nothing is materialized.
  Value splatConstant(ArrayRef<int64_t> shape, Type elem, double v);
  Value splat(double v, Type elem, int64_t rank);
  Value reshape(Value v, ArrayRef<int64_t> shape);
  Value toRank(Value v, int64_t rank);
  FailureOr<Value> binary(StringRef name, Value a, Value b);
  FailureOr<Value> cmp(dlcir::CmpPredicate pred, Value a, Value b);
  FailureOr<Value> select(Value c, Value a, Value b);
  Value unary(StringRef name, Value v) { return create(name, v, v.getType()); }
  Value castTo(Value v, Type elem);
  Value reduce(dlcir::ReduceKind kind, Value v, ArrayRef<int64_t> axes);
  Value scale(Value v, double s) {
    if (s == 1.0)
      return v;
    auto t = cast<RankedTensorType>(v.getType());
    return create("dlc.mul", {v, splat(s, t.getElementType(), t.getRank())}, t);
  }
  Value addScalar(Value v, double s) {
    auto t = cast<RankedTensorType>(v.getType());
    return create("dlc.add", {v, splat(s, t.getElementType(), t.getRank())}, t);
  }
  Value clamp(Value v, double lo, double hi) {
    return create("dlc.clamp", v, v.getType(),
                  {b.getNamedAttr("min", b.getF64FloatAttr(lo)),
                   b.getNamedAttr("max", b.getF64FloatAttr(hi))});
  }
  Value slice(Value v, ArrayRef<int64_t> start, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> strides = {});

  // Op groups.
  LogicalResult convertElementwise(StringRef op);
  LogicalResult convertActivation(StringRef op);
  LogicalResult convertMatMul();
  LogicalResult convertGemm();
  LogicalResult convertConv();
  LogicalResult convertConvTranspose();
  LogicalResult convertPool(StringRef op);
  LogicalResult convertBatchNorm();
  LogicalResult convertShapeOp(StringRef op);
  LogicalResult convertSlice();
  LogicalResult convertGather();
  LogicalResult convertSplit();
  LogicalResult convertReduce(StringRef op);
  LogicalResult convertSoftmax(bool log);
  LogicalResult convertLayerNorm();
  LogicalResult convertResize();
  LogicalResult convertPad();
  LogicalResult convertCast();
  LogicalResult convertMisc(StringRef op);
  LogicalResult convertArgExtreme(bool isMax);

  /// Normalizes a possibly negative axis against `rank`.
  FailureOr<int64_t> axis(int64_t a, int64_t rank) {
    if (a < -rank || a >= rank)
      return unsupported("axis " + Twine(a) + " is out of range for rank " +
                         Twine(rank));
    return a < 0 ? a + rank : a;
  }
  /// Reads ONNX 2-D window attributes (kernel from `kernel`), resolving
  /// auto_pad; fills pads as top, left, bottom, right and the output size.
  LogicalResult windowAttrs(ArrayRef<int64_t> in, ArrayRef<int64_t> kernel,
                            bool ceilMode, SmallVectorImpl<int64_t> &strides,
                            SmallVectorImpl<int64_t> &pads,
                            SmallVectorImpl<int64_t> &dilations,
                            SmallVectorImpl<int64_t> &out);
  /// Whether the Conv node's output feeds only a foldable inference
  /// BatchNormalization; returns that node.
  const onnx::NodeProto *foldableBatchNorm(const onnx::NodeProto &conv);

  MLIRContext *ctx;
  OpBuilder b;
  const onnx::ModelProto &model;
  std::string fileName, baseDir;
  const OnnxImportOptions &options;
  Location loc;
  int64_t opset = 0;

  llvm::StringMap<Entry> env;
  /// Number of uses of each value by nodes and graph outputs.
  llvm::StringMap<int> useCount;
  /// The nodes that use each value.
  llvm::StringMap<SmallVector<int>> consumers;
  /// Nodes already handled by an earlier node (a BatchNormalization folded
  /// into its Conv).
  llvm::DenseSet<int> absorbed;
  int resourceCounter = 0;
  /// Name hint for the resource blob of the next constant.
  std::string currentConstName;
  /// The first result type of the current node that create() found out of
  /// dlc's limits (a shape computed from the model that no explicit check
  /// caught): convertNode reports it.
  std::string badType;

  // The node being converted.
  const onnx::NodeProto *node = nullptr;
  std::string nodeName, opType;
  SmallVector<Entry *> ins;
  SmallVector<Entry> outs;
};

FailureOr<std::vector<int64_t>> Importer::constInts(unsigned i,
                                                    StringRef what) {
  if (!has(i))
    return unsupported("the " + what + " input is missing");
  if (!ins[i]->lit)
    return unsupported("the " + what +
                       " input must be a constant (dlc "
                       "compiles static shapes)");
  if (isFloatDType(ins[i]->lit->dtype))
    return unsupported("the " + what + " input must be an integer tensor");
  return litInts(*ins[i]->lit);
}

Value Importer::create(StringRef name, ValueRange operands, Type result,
                       ArrayRef<NamedAttribute> attrs) {
  // The last line of defense for shapes computed from the model: every op
  // the importer builds passes here.
  if (auto t = dyn_cast<RankedTensorType>(result); t && badType.empty()) {
    std::string bad = checkShape(t.getShape(), dtypeSize(t.getElementType()));
    if (!bad.empty())
      badType = "the result of " + name.str() + " " + bad;
  }
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(result);
  state.addAttributes(attrs);
  return b.create(state)->getResult(0);
}

/// Sanitizes an initializer name into a resource key: the MLIR parser reads
/// keys as bare identifiers.
static std::string resourceKey(StringRef name, int counter) {
  std::string key;
  for (char c : name)
    key += (std::isalnum((unsigned char)c) || c == '_' || c == '.') ? c : '_';
  if (key.empty() || !(std::isalpha((unsigned char)key[0]) || key[0] == '_'))
    key = "w_" + key;
  if (key.empty() || key == "w_")
    key = "w" + std::to_string(counter);
  return key;
}

Value Importer::constant(const rt::HostTensor &t) {
  Type elem = elemTypeOf(ctx, t.dtype);
  auto type = tensorType(t.shape, elem);
  int64_t n = t.numElements();
  size_t es = rt::dtypeSize(t.dtype);
  bool isSplat = n > 0;
  for (int64_t i = 1; i < n && isSplat; ++i)
    isSplat = std::memcmp(t.data.data(), t.data.data() + i * es, es) == 0;
  ElementsAttr value;
  if (t.dtype == rt::DType::I1) {
    SmallVector<bool> bits(t.data.begin(), t.data.end());
    value = DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  } else if (isSplat || n <= 16 ||
             (t.dtype == rt::DType::I64 && t.shape.size() <= 1)) {
    ArrayRef<char> raw(reinterpret_cast<const char *>(t.data.data()),
                       isSplat ? es : t.data.size());
    if (isSplat) {
      Attribute scalar = isFloatDType(t.dtype)
                             ? Attribute(FloatAttr::get(elem, t.getAsDouble(0)))
                             : Attribute(IntegerAttr::get(elem, litInt(t, 0)));
      value = DenseElementsAttr::get(type, scalar);
    } else {
      value = DenseElementsAttr::getFromRawBuffer(type, raw);
    }
  } else {
    // Weights stay out of the IR text: the blob goes to the resource section.
    std::string key =
        resourceKey(currentConstName.empty() ? "const" : currentConstName,
                    resourceCounter++);
    ArrayRef<char> raw(reinterpret_cast<const char *>(t.data.data()),
                       t.data.size());
    value = DenseResourceElementsAttr::get(
        type, key,
        HeapAsmResourceBlob::allocateAndCopyWithAlign(raw,
                                                      std::max<size_t>(es, 8)));
  }
  return create("dlc.constant", {}, type, {b.getNamedAttr("value", value)});
}

Value Importer::splat(double v, Type elem, int64_t rank) {
  return splatConstant(SmallVector<int64_t>(rank, 1), elem, v);
}

Value Importer::splatConstant(ArrayRef<int64_t> shape, Type elem, double v) {
  auto type = tensorType(shape, elem);
  Attribute scalar;
  if (isa<FloatType>(elem))
    scalar = FloatAttr::get(elem, v);
  else if (elem.isInteger(1))
    scalar = IntegerAttr::get(elem, v != 0 ? 1 : 0);
  else
    scalar = IntegerAttr::get(elem, saturatingInt(v));
  return create(
      "dlc.constant", {}, type,
      {b.getNamedAttr("value", DenseElementsAttr::get(type, scalar))});
}

Value Importer::reshape(Value v, ArrayRef<int64_t> shape) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getShape() == shape)
    return v;
  return create("dlc.reshape", v, tensorType(shape, t.getElementType()));
}

Value Importer::toRank(Value v, int64_t rank) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() >= rank)
    return v;
  SmallVector<int64_t> shape(rank - t.getRank(), 1);
  llvm::append_range(shape, t.getShape());
  return reshape(v, shape);
}

FailureOr<Value> Importer::binary(StringRef name, Value x, Value y) {
  auto tx = cast<RankedTensorType>(x.getType());
  auto ty = cast<RankedTensorType>(y.getType());
  if (tx.getElementType() != ty.getElementType())
    return unsupported("operand element types differ: " +
                       Twine(rt::dtypeName(*dtypeOfElem(tx.getElementType()))) +
                       " and " +
                       rt::dtypeName(*dtypeOfElem(ty.getElementType())));
  auto shape = numpyBroadcast({tx.getShape(), ty.getShape()});
  if (!shape)
    return unsupported("operand shapes " + dlcir::formatShape(tx.getShape()) +
                       " and " + dlcir::formatShape(ty.getShape()) +
                       " do not broadcast");
  int64_t r = shape->size();
  return create(name, {toRank(x, r), toRank(y, r)},
                tensorType(*shape, tx.getElementType()));
}

FailureOr<Value> Importer::cmp(dlcir::CmpPredicate pred, Value x, Value y) {
  auto tx = cast<RankedTensorType>(x.getType());
  auto ty = cast<RankedTensorType>(y.getType());
  auto shape = numpyBroadcast({tx.getShape(), ty.getShape()});
  if (!shape || tx.getElementType() != ty.getElementType())
    return unsupported("comparison operands " +
                       dlcir::formatShape(tx.getShape()) + " and " +
                       dlcir::formatShape(ty.getShape()) +
                       " do not broadcast or differ in element type");
  int64_t r = shape->size();
  return create(
      "dlc.cmp", {toRank(x, r), toRank(y, r)},
      tensorType(*shape, b.getI1Type()),
      {b.getNamedAttr("predicate", dlcir::CmpPredicateAttr::get(ctx, pred))});
}

FailureOr<Value> Importer::select(Value c, Value x, Value y) {
  auto tc = cast<RankedTensorType>(c.getType());
  auto tx = cast<RankedTensorType>(x.getType());
  auto ty = cast<RankedTensorType>(y.getType());
  auto shape = numpyBroadcast({tc.getShape(), tx.getShape(), ty.getShape()});
  if (!shape || tx.getElementType() != ty.getElementType())
    return unsupported("select operands do not broadcast or differ in "
                       "element type");
  int64_t r = shape->size();
  return create("dlc.select", {toRank(c, r), toRank(x, r), toRank(y, r)},
                tensorType(*shape, tx.getElementType()));
}

Value Importer::castTo(Value v, Type elem) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getElementType() == elem)
    return v;
  return create("dlc.cast", v, tensorType(t.getShape(), elem));
}

Value Importer::reduce(dlcir::ReduceKind kind, Value v,
                       ArrayRef<int64_t> axes) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(t.getShape());
  for (int64_t a : axes)
    shape[a] = 1;
  SmallVector<int64_t> sorted(axes);
  llvm::sort(sorted);
  return create("dlc.reduce", v, tensorType(shape, t.getElementType()),
                {b.getNamedAttr("kind", dlcir::ReduceKindAttr::get(ctx, kind)),
                 b.getNamedAttr("axes", b.getDenseI64ArrayAttr(sorted))});
}

Value Importer::slice(Value v, ArrayRef<int64_t> start, ArrayRef<int64_t> sizes,
                      ArrayRef<int64_t> strides) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getShape() == sizes &&
      llvm::all_of(start, [](int64_t s) { return s == 0; }))
    return v;
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr("start", b.getDenseI64ArrayAttr(start))};
  if (llvm::any_of(strides, [](int64_t s) { return s != 1; }))
    attrs.push_back(b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides)));
  return create("dlc.slice", v, tensorType(sizes, t.getElementType()), attrs);
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

LogicalResult Importer::checkOpsets() {
  bool found = false;
  for (const auto &imp : model.opset_import()) {
    if (imp.domain().empty() || imp.domain() == "ai.onnx") {
      opset = imp.version();
      found = true;
    }
  }
  if (!found)
    return emitError(loc) << "the ONNX model imports no default-domain opset";
  if (opset < 13 || opset > 17)
    return emitError(loc) << "the ONNX model uses opset " << opset
                          << " of the default domain; dlc supports opsets 13 "
                             "to 17 (convert the model with "
                             "onnx.version_converter)";
  return success();
}

LogicalResult Importer::addInputs(SmallVectorImpl<Type> &types,
                                  SmallVectorImpl<std::string> &names) {
  const onnx::GraphProto &graph = model.graph();
  llvm::StringSet<> initializers;
  for (const auto &init : graph.initializer())
    initializers.insert(init.name());
  for (const auto &kv : options.inputShapes) {
    bool found = false;
    for (const auto &input : graph.input())
      found |= input.name() == kv.first && !initializers.contains(kv.first);
    if (!found)
      return emitError(loc) << "--input-shape names '" << kv.first
                            << "', which is not an input of the ONNX graph";
  }
  for (const auto &input : graph.input()) {
    // An initializer listed as an input is a constant with a default value.
    if (initializers.contains(input.name()))
      continue;
    if (!input.type().has_tensor_type())
      return emitError(loc)
             << "ONNX graph input '" << input.name() << "' is not a tensor";
    const auto &tt = input.type().tensor_type();
    auto dtype = dtypeOfOnnx(tt.elem_type());
    if (!dtype)
      return emitError(loc)
             << "ONNX graph input '" << input.name() << "' has element type "
             << onnxTypeName(tt.elem_type())
             << ", which dlc does not support (f32, f16, bf16, "
                "int32, int64 and bool only)";
    SmallVector<int64_t> shape;
    auto given = options.inputShapes.find(input.name());
    if (given != options.inputShapes.end()) {
      shape.assign(given->second.begin(), given->second.end());
      if (tt.has_shape() && tt.shape().dim_size() != (int)shape.size())
        return emitError(loc)
               << "--input-shape gives " << shape.size()
               << " dimensions for ONNX graph input '" << input.name()
               << "', which has rank " << tt.shape().dim_size();
      for (int i = 0; tt.has_shape() && i < tt.shape().dim_size(); ++i) {
        const auto &dim = tt.shape().dim(i);
        if (dim.has_dim_value() && dim.dim_value() != shape[i])
          return emitError(loc)
                 << "--input-shape gives size " << shape[i] << " for dimension "
                 << i << " of ONNX graph input '" << input.name()
                 << "', which the model fixes at " << dim.dim_value();
      }
    } else {
      if (!tt.has_shape())
        return emitError(loc) << "ONNX graph input '" << input.name()
                              << "' has no shape; give one with "
                                 "--input-shape "
                              << input.name() << "=DxDx...";
      for (int i = 0; i < tt.shape().dim_size(); ++i) {
        const auto &dim = tt.shape().dim(i);
        if (!dim.has_dim_value() || dim.dim_value() < 0) {
          std::string what = dim.has_dim_param() ? "'" + dim.dim_param() + "'"
                                                 : std::string("unknown");
          return emitError(loc)
                 << "ONNX graph input '" << input.name()
                 << "' has a dynamic dimension " << what << " at position " << i
                 << "; dlc compiles static shapes: give them with "
                 << "--input-shape " << input.name() << "=1x3x224x224 (the "
                 << "input's full shape)";
        }
        shape.push_back(dim.dim_value());
      }
    }
    std::string bad = checkShape(shape, rt::dtypeSize(*dtype));
    if (!bad.empty())
      return emitError(loc)
             << "ONNX graph input '" << input.name() << "' " << bad;
    types.push_back(tensorType(shape, elemTypeOf(ctx, *dtype)));
    names.push_back(input.name());
  }
  return success();
}

OwningOpRef<ModuleOp> Importer::run() {
  ctx->loadDialect<dlcir::DlcDialect, func::FuncDialect>();
  if (failed(checkOpsets()))
    return nullptr;
  const onnx::GraphProto &graph = model.graph();

  // Initializers are literals.
  for (const auto &init : graph.initializer()) {
    auto t = decodeTensor(init, baseDir, options.externalDataFiles);
    if (!t) {
      emitError(loc) << "ONNX initializer: " << t.message();
      return nullptr;
    }
    Entry &e = env[init.name()];
    e.lit = makeLit(t.take());
    e.name = init.name();
  }

  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  if (failed(addInputs(argTypes, argNames)))
    return nullptr;

  for (int i = 0; i < graph.node_size(); ++i) {
    for (const std::string &n : graph.node(i).input()) {
      if (n.empty())
        continue;
      ++useCount[n];
      consumers[n].push_back(i);
    }
  }
  for (const auto &out : graph.output())
    ++useCount[out.name()];

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func = b.create<func::FuncOp>(loc, options.entry,
                                     b.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    func.setArgAttr(i, "onnx.name", b.getStringAttr(name));
    env[name] = Entry{body->getArgument(i), nullptr, ""};
  }
  b.setInsertionPointToEnd(body);

  for (int i = 0; i < graph.node_size(); ++i)
    if (!absorbed.contains(i) && failed(convertNode(i)))
      return nullptr;

  loc = FileLineColLoc::get(ctx, fileName, 0, 0);
  SmallVector<Value> results;
  SmallVector<Type> resultTypes;
  for (const auto &out : graph.output()) {
    auto it = env.find(out.name());
    if (it == env.end()) {
      emitError(loc) << "ONNX graph output '" << out.name()
                     << "' is not produced by any node";
      return nullptr;
    }
    currentConstName = out.name();
    Value v = valueOf(it->second);
    auto type = cast<RankedTensorType>(v.getType());
    if (out.type().has_tensor_type()) {
      const auto &tt = out.type().tensor_type();
      auto declared = dtypeOfOnnx(tt.elem_type());
      if (tt.elem_type() != 0 && declared &&
          *declared != *dtypeOfElem(type.getElementType())) {
        emitError(loc) << "ONNX graph output '" << out.name()
                       << "' is declared as " << onnxTypeName(tt.elem_type())
                       << " but computes "
                       << rt::dtypeName(*dtypeOfElem(type.getElementType()));
        return nullptr;
      }
      // With --input-shape the declared output sizes may be stale.
      if (options.inputShapes.empty() && tt.has_shape() &&
          tt.shape().dim_size() == type.getRank()) {
        for (int d = 0; d < type.getRank(); ++d) {
          const auto &dim = tt.shape().dim(d);
          if (dim.has_dim_value() && dim.dim_value() != type.getDimSize(d)) {
            emitError(loc) << "ONNX graph output '" << out.name()
                           << "' is declared with size " << dim.dim_value()
                           << " in dimension " << d << " but computes shape "
                           << dlcir::formatShape(type.getShape());
            return nullptr;
          }
        }
      }
    }
    results.push_back(v);
    resultTypes.push_back(v.getType());
  }
  b.create<func::ReturnOp>(loc, results);
  func.setFunctionType(b.getFunctionType(argTypes, resultTypes));
  for (auto [i, out] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, "onnx.name", b.getStringAttr(out.name()));
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

LogicalResult Importer::convertNode(int index) {
  node = &model.graph().node(index);
  opType = node->op_type();
  nodeName = node->name().empty() ? opType + "_" + std::to_string(index)
                                  : node->name();
  loc = NameLoc::get(StringAttr::get(ctx, nodeName + " (" + opType + ")"),
                     FileLineColLoc::get(ctx, fileName, 0, 0));
  currentConstName = nodeName;
  if (!node->domain().empty() && node->domain() != "ai.onnx") {
    int64_t v = 0;
    for (const auto &imp : model.opset_import())
      if (imp.domain() == node->domain())
        v = imp.version();
    return emitError(loc) << "ONNX node '" << nodeName << "' (" << opType
                          << ", " << node->domain() << " opset " << v
                          << ") is not supported by dlc";
  }
  ins.clear();
  for (const std::string &n : node->input()) {
    if (n.empty()) {
      ins.push_back(nullptr);
      continue;
    }
    auto it = env.find(n);
    if (it == env.end())
      return nodeError() << "input '" << n
                         << "' is not defined before this node (the graph "
                            "must be topologically sorted)";
    ins.push_back(&it->second);
  }
  outs.assign(node->output_size(), Entry{});
  badType.clear();
  if (!tryFold(opType) && failed(dispatch(opType)))
    return failure();
  if (!badType.empty())
    return unsupported(badType);
  for (int i = 0; i < node->output_size(); ++i) {
    if (node->output(i).empty())
      continue;
    if (!outs[i].value && !outs[i].lit) {
      if (useCount.lookup(node->output(i)) == 0)
        continue;
      return nodeError() << "output " << i << " ('" << node->output(i)
                         << "') is not supported by dlc";
    }
    env[node->output(i)] = outs[i];
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Import-time evaluation of constant subgraphs
//===----------------------------------------------------------------------===//

bool Importer::tryFold(StringRef op) {
  static const llvm::StringSet<> foldable = {"Identity",    "Cast",
                                             "Neg",         "Abs",
                                             "Not",         "Add",
                                             "Sub",         "Mul",
                                             "Div",         "Equal",
                                             "Less",        "Greater",
                                             "LessOrEqual", "GreaterOrEqual",
                                             "And",         "Or",
                                             "Where",       "Min",
                                             "Max",         "Concat",
                                             "Gather",      "Slice",
                                             "Expand",      "Sqrt",
                                             "Floor",       "Ceil"};
  // (Reshape, Flatten, Squeeze and Unsqueeze keep literals literal in their
  // ordinary conversion.)
  if (!foldable.contains(op))
    return false;
  int64_t total = 0;
  for (Entry *e : ins) {
    if (!e)
      continue;
    if (!e->lit)
      return false;
    total += e->lit->numElements();
  }
  // Folding copies the data: leave big weights to the device.
  if (ins.empty() || !ins[0] || total > (1 << 20))
    return false;
  SmallVector<const rt::HostTensor *> L;
  for (Entry *e : ins)
    L.push_back(e ? e->lit.get() : nullptr);
  const rt::HostTensor &x = *L[0];
  Lit r;
  auto map = [&](ArrayRef<const rt::HostTensor *> args, rt::DType out,
                 std::function<int64_t(ArrayRef<int64_t>)> fi,
                 std::function<double(ArrayRef<double>)> fd) {
    return foldMap(args, out, {}, fi, fd);
  };
  using AI = ArrayRef<int64_t>;
  using AD = ArrayRef<double>;
  if (op == "Identity") {
    r = ins[0]->lit;
  } else if (op == "Cast") {
    auto to = dtypeOfOnnx(attrInt("to", 0));
    if (!to)
      return false;
    r = map(
        {&x}, *to, [](AI v) { return v[0]; }, [](AD v) { return v[0]; });
  } else if (op == "Neg") {
    r = map(
        {&x}, x.dtype, [](AI v) { return wrapSub(0, v[0]); },
        [](AD v) { return -v[0]; });
  } else if (op == "Abs") {
    r = map(
        {&x}, x.dtype, [](AI v) { return v[0] < 0 ? wrapSub(0, v[0]) : v[0]; },
        [](AD v) { return std::fabs(v[0]); });
  } else if (op == "Sqrt" || op == "Floor" || op == "Ceil") {
    if (!isFloatDType(x.dtype))
      return false;
    std::function<double(double)> f =
        op == "Sqrt"    ? [](double v) { return std::sqrt(v); }
        : op == "Floor" ? [](double v) { return std::floor(v); }
                        : [](double v) { return std::ceil(v); };
    r = map(
        {&x}, x.dtype, [](AI v) { return v[0]; },
        [f](AD v) { return f(v[0]); });
  } else if (op == "Not") {
    r = map(
        {&x}, rt::DType::I1, [](AI v) { return (int64_t)!v[0]; },
        [](AD v) { return (double)(v[0] == 0); });
  } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div" ||
             op == "Min" || op == "Max") {
    if (L.size() != 2 || !L[1] || L[1]->dtype != x.dtype)
      return false;
    char k = op == "Add"   ? '+'
             : op == "Sub" ? '-'
             : op == "Mul" ? '*'
             : op == "Div" ? '/'
             : op == "Min" ? 'm'
                           : 'M';
    r = map(
        {&x, L[1]}, x.dtype,
        [k](AI v) -> int64_t {
          switch (k) {
          case '+':
            return wrapAdd(v[0], v[1]);
          case '-':
            return wrapSub(v[0], v[1]);
          case '*':
            return wrapMul(v[0], v[1]);
          case '/':
            // INT64_MIN / -1 wraps to INT64_MIN.
            if (v[1] == -1)
              return wrapSub(0, v[0]);
            return v[1] ? v[0] / v[1] : 0;
          case 'm':
            return std::min(v[0], v[1]);
          default:
            return std::max(v[0], v[1]);
          }
        },
        [k](AD v) -> double {
          switch (k) {
          case '+':
            return v[0] + v[1];
          case '-':
            return v[0] - v[1];
          case '*':
            return v[0] * v[1];
          case '/':
            return v[0] / v[1];
          case 'm':
            return std::min(v[0], v[1]);
          default:
            return std::max(v[0], v[1]);
          }
        });
  } else if (op == "Equal" || op == "Less" || op == "Greater" ||
             op == "LessOrEqual" || op == "GreaterOrEqual" || op == "And" ||
             op == "Or") {
    if (L.size() != 2 || !L[1] || L[1]->dtype != x.dtype)
      return false;
    std::string k = op.str();
    // One predicate for integer and floating-point operands.
    auto holds = [k](auto a, auto b) -> bool {
      if (k == "Equal")
        return a == b;
      if (k == "Less")
        return a < b;
      if (k == "Greater")
        return a > b;
      if (k == "LessOrEqual")
        return a <= b;
      if (k == "GreaterOrEqual")
        return a >= b;
      if (k == "And")
        return a != 0 && b != 0;
      return a != 0 || b != 0;
    };
    auto cmpI = [&](AI v) -> int64_t { return holds(v[0], v[1]); };
    auto cmpD = [&](AD v) -> double { return holds(v[0], v[1]); };
    r = map({&x, L[1]}, rt::DType::I1, cmpI, cmpD);
  } else if (op == "Where") {
    if (L.size() != 3 || !L[1] || !L[2] || L[1]->dtype != L[2]->dtype)
      return false;
    r = map(
        {&x, L[1], L[2]}, L[1]->dtype, [](AI v) { return v[0] ? v[1] : v[2]; },
        [](AD v) { return v[0] != 0 ? v[1] : v[2]; });
  } else if (op == "Expand") {
    if (L.size() != 2 || !L[1] || isFloatDType(L[1]->dtype))
      return false;
    std::vector<int64_t> shape = litInts(*L[1]);
    // (foldMap checks the broadcast shape.)
    auto n = checkedProduct(shape);
    if (!n || *n > (1 << 16))
      return false;
    r = foldMap(
        {&x}, x.dtype, shape, [](AI v) { return v[0]; },
        [](AD v) { return v[0]; });
  } else if (op == "Concat") {
    int64_t rank = x.shape.size();
    int64_t a = attrInt("axis", 0);
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank)
      return false;
    std::vector<int64_t> shape = x.shape;
    shape[a] = 0;
    for (const rt::HostTensor *t : L) {
      if (!t || t->dtype != x.dtype || t->shape.size() != x.shape.size())
        return false;
      for (int64_t d = 0; d < rank; ++d)
        if (d != a && t->shape[d] != x.shape[d])
          return false;
      auto sum = checkedAdd(shape[a], t->shape[a]);
      if (!sum)
        return false;
      shape[a] = *sum;
    }
    if (!checkShape(shape, rt::dtypeSize(x.dtype), kMaxFoldElements).empty())
      return false;
    rt::HostTensor out(x.dtype, shape);
    int64_t outer = product(ArrayRef<int64_t>(shape).take_front(a));
    int64_t inner = product(ArrayRef<int64_t>(shape).drop_front(a + 1)) *
                    rt::dtypeSize(x.dtype);
    size_t pos = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (const rt::HostTensor *t : L) {
        size_t chunk = t->shape[a] * inner;
        if (chunk)
          std::memcpy(out.data.data() + pos, t->data.data() + o * chunk, chunk);
        pos += chunk;
      }
    r = makeLit(std::move(out));
  } else if (op == "Gather") {
    if (L.size() != 2 || !L[1] || isFloatDType(L[1]->dtype))
      return false;
    int64_t rank = x.shape.size();
    int64_t a = attrInt("axis", 0);
    if (a < 0)
      a += rank;
    if (a < 0 || a >= rank)
      return false;
    std::vector<int64_t> idx = litInts(*L[1]);
    std::vector<int64_t> shape(x.shape.begin(), x.shape.begin() + a);
    shape.insert(shape.end(), L[1]->shape.begin(), L[1]->shape.end());
    shape.insert(shape.end(), x.shape.begin() + a + 1, x.shape.end());
    if (!checkShape(shape, rt::dtypeSize(x.dtype), kMaxFoldElements).empty())
      return false;
    rt::HostTensor out(x.dtype, shape);
    int64_t outer = product(ArrayRef<int64_t>(x.shape).take_front(a));
    int64_t inner = product(ArrayRef<int64_t>(x.shape).drop_front(a + 1)) *
                    rt::dtypeSize(x.dtype);
    int64_t d = x.shape[a];
    size_t pos = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i : idx) {
        if (i < 0)
          i += d;
        if (i < 0 || i >= d)
          return false;
        if (inner)
          std::memcpy(out.data.data() + pos,
                      x.data.data() + (o * d + i) * inner, inner);
        pos += inner;
      }
    r = makeLit(std::move(out));
  } else if (op == "Slice") {
    if (L.size() < 3 || !L[1] || !L[2])
      return false;
    std::vector<int64_t> axes, steps;
    if (L.size() > 3 && L[3])
      axes = litInts(*L[3]);
    if (L.size() > 4 && L[4])
      steps = litInts(*L[4]);
    std::string err;
    auto s =
        sliceDims(x.shape, litInts(*L[1]), litInts(*L[2]), axes, steps, err);
    if (!s)
      return false;
    rt::HostTensor out(x.dtype, s->size);
    int64_t rank = x.shape.size(), n = out.numElements();
    size_t es = rt::dtypeSize(x.dtype);
    std::vector<int64_t> strides(rank, 1);
    for (int64_t d = rank - 2; d >= 0; --d)
      strides[d] = strides[d + 1] * x.shape[d + 1];
    std::vector<int64_t> idx(rank, 0);
    for (int64_t e = 0; e < n; ++e) {
      int64_t off = 0;
      for (int64_t d = 0; d < rank; ++d)
        off += (s->start[d] + idx[d] * s->step[d]) * strides[d];
      std::memcpy(out.data.data() + e * es, x.data.data() + off * es, es);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (++idx[d] < s->size[d])
          break;
        idx[d] = 0;
      }
    }
    r = makeLit(std::move(out));
  }
  if (!r)
    return false;
  setOutLit(0, r);
  return true;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult Importer::dispatch(StringRef op) {
  static const llvm::StringSet<> elementwise = {"Add",         "Sub",
                                                "Mul",         "Div",
                                                "Pow",         "Min",
                                                "Max",         "Sum",
                                                "Mean",        "Equal",
                                                "Less",        "Greater",
                                                "LessOrEqual", "GreaterOrEqual",
                                                "And",         "Or",
                                                "Xor",         "Not",
                                                "Where",       "Sqrt",
                                                "Exp",         "Log",
                                                "Neg",         "Abs",
                                                "Reciprocal",  "Erf",
                                                "Tanh",        "Sigmoid"};
  static const llvm::StringSet<> activations = {
      "Relu",     "LeakyRelu", "PRelu",       "Elu",       "Selu",
      "Celu",     "Clip",      "HardSigmoid", "HardSwish", "Softplus",
      "Softsign", "Gelu",      "Mish",        "Sign",      "ThresholdedRelu"};
  static const llvm::StringSet<> shapeOps = {
      "Identity",     "Dropout",     "Reshape",  "Flatten",         "Squeeze",
      "Unsqueeze",    "Transpose",   "Concat",   "Expand",          "Tile",
      "Shape",        "Size",        "Constant", "ConstantOfShape", "Range",
      "DepthToSpace", "SpaceToDepth"};
  static const llvm::StringSet<> reductions = {
      "ReduceMean",   "ReduceSum",       "ReduceMax", "ReduceMin",
      "ReduceProd",   "ReduceSumSquare", "ReduceL1",  "ReduceL2",
      "ReduceLogSum", "ReduceLogSumExp"};
  // Inputs every conversion reads without checking (optional inputs are
  // checked where they are read).
  static const llvm::StringMap<unsigned> requiredInputs = {
      {"Add", 2},
      {"Sub", 2},
      {"Mul", 2},
      {"Div", 2},
      {"Pow", 2},
      {"Equal", 2},
      {"Less", 2},
      {"Greater", 2},
      {"And", 2},
      {"Or", 2},
      {"Xor", 2},
      {"Where", 3},
      {"MatMul", 2},
      {"Gemm", 2},
      {"Gather", 2},
      {"PRelu", 2},
      {"CastLike", 2},
      {"LessOrEqual", 2},
      {"GreaterOrEqual", 2},
      {"Constant", 0},
      {"Range", 3},
      {"BatchNormalization", 5}};
  static const llvm::StringSet<> others = {"MatMul",
                                           "Gemm",
                                           "Conv",
                                           "ConvTranspose",
                                           "MaxPool",
                                           "AveragePool",
                                           "GlobalAveragePool",
                                           "GlobalMaxPool",
                                           "BatchNormalization",
                                           "Slice",
                                           "Gather",
                                           "Split",
                                           "Softmax",
                                           "LogSoftmax",
                                           "LayerNormalization",
                                           "Resize",
                                           "Pad",
                                           "Cast",
                                           "CastLike",
                                           "Trilu",
                                           "Hardmax",
                                           "IsNaN",
                                           "MeanVarianceNormalization",
                                           "InstanceNormalization",
                                           "ArgMax",
                                           "ArgMin"};
  if (!elementwise.contains(op) && !activations.contains(op) &&
      !shapeOps.contains(op) && !reductions.contains(op) &&
      !others.contains(op))
    return emitError(loc) << "ONNX node '" << nodeName << "' (" << opType
                          << ", opset " << opset << ") is not supported by dlc";
  auto required = requiredInputs.find(op);
  unsigned need = required == requiredInputs.end() ? 1 : required->second;
  for (unsigned i = 0; i < need; ++i)
    if (!has(i))
      return unsupported("input " + Twine(i) + " is missing (" + op +
                         " needs " + Twine(need) + ")");
  if (elementwise.contains(op))
    return convertElementwise(op);
  if (activations.contains(op))
    return convertActivation(op);
  if (shapeOps.contains(op))
    return convertShapeOp(op);
  if (reductions.contains(op))
    return convertReduce(op);
  if (op == "MatMul")
    return convertMatMul();
  if (op == "Gemm")
    return convertGemm();
  if (op == "Conv")
    return convertConv();
  if (op == "ConvTranspose")
    return convertConvTranspose();
  if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool" ||
      op == "GlobalMaxPool")
    return convertPool(op);
  if (op == "BatchNormalization")
    return convertBatchNorm();
  if (op == "Slice")
    return convertSlice();
  if (op == "Gather")
    return convertGather();
  if (op == "Split")
    return convertSplit();
  if (op == "Softmax" || op == "LogSoftmax")
    return convertSoftmax(op == "LogSoftmax");
  if (op == "LayerNormalization")
    return convertLayerNorm();
  if (op == "Resize")
    return convertResize();
  if (op == "Pad")
    return convertPad();
  if (op == "Cast" || op == "CastLike")
    return convertCast();
  if (op == "Trilu" || op == "Hardmax" || op == "IsNaN" ||
      op == "MeanVarianceNormalization" || op == "InstanceNormalization")
    return convertMisc(op);
  if (op == "ArgMax" || op == "ArgMin")
    return convertArgExtreme(op == "ArgMax");
  return emitError(loc) << "ONNX node '" << nodeName << "' (" << opType
                        << ", opset " << opset << ") is not supported by dlc";
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult Importer::convertElementwise(StringRef op) {
  for (unsigned i = 0; i < ins.size(); ++i)
    if (!has(i))
      return unsupported("an input is missing");
  if (ins.empty())
    return unsupported("the node has no inputs");
  Type elem = inType(0).getElementType();
  bool isFloat = isa<FloatType>(elem);
  static const llvm::StringMap<StringRef> unaryNames = {
      {"Sqrt", "dlc.sqrt"},       {"Exp", "dlc.exp"},
      {"Log", "dlc.log"},         {"Neg", "dlc.neg"},
      {"Abs", "dlc.abs"},         {"Reciprocal", "dlc.reciprocal"},
      {"Erf", "dlc.erf"},         {"Tanh", "dlc.tanh"},
      {"Sigmoid", "dlc.sigmoid"}, {"Not", "dlc.not"}};
  if (auto it = unaryNames.find(op); it != unaryNames.end()) {
    bool needsFloat = op != "Neg" && op != "Abs" && op != "Not";
    if (needsFloat && !isFloat)
      return unsupported("dlc computes " + op + " on float tensors only");
    setOut(0, unary(it->second, in(0)));
    return success();
  }
  static const llvm::StringMap<StringRef> binaryNames = {
      {"Add", "dlc.add"}, {"Sub", "dlc.sub"}, {"Mul", "dlc.mul"},
      {"Div", "dlc.div"}, {"Pow", "dlc.pow"}, {"Min", "dlc.min"},
      {"Max", "dlc.max"}, {"Sum", "dlc.add"}, {"Mean", "dlc.add"},
      {"And", "dlc.and"}, {"Or", "dlc.or"}};
  if (auto it = binaryNames.find(op); it != binaryNames.end()) {
    if (op == "Pow" && !isFloat) {
      // Integer powers in f32 (exact for the values an int32 result
      // holds up to 2^24), rounded back.
      Type f32 = b.getF32Type();
      auto r = binary("dlc.pow", castTo(in(0), f32), castTo(in(1), f32));
      if (failed(r))
        return failure();
      setOut(0, castTo(*r, elem));
      return success();
    }
    if (op == "Pow") {
      // The exponent may have another type (an integer or wider float).
      Value e = in(1);
      if (auto l = lit(1); l && l->numElements() == 1) {
        double p = litDouble(*l, 0);
        Value x = in(0);
        auto t = inType(0);
        auto shape = numpyBroadcast({t.getShape(), inShape(1)});
        if (p == 2.0 && shape && ArrayRef<int64_t>(*shape) == t.getShape()) {
          setOut(0, create("dlc.mul", {x, x}, t));
          return success();
        }
        e = splat(p, elem, l->shape.size());
      } else {
        e = castTo(e, elem);
      }
      auto r = binary("dlc.pow", in(0), e);
      if (failed(r))
        return failure();
      setOut(0, *r);
      return success();
    }
    Value acc = in(0);
    for (unsigned i = 1; i < ins.size(); ++i) {
      auto r = binary(it->second, acc, in(i));
      if (failed(r))
        return failure();
      acc = *r;
    }
    if (op == "Mean") {
      if (!isFloat)
        return unsupported("dlc computes Mean on float tensors only");
      acc = scale(acc, 1.0 / ins.size());
    }
    setOut(0, acc);
    return success();
  }
  if (op == "Where") {
    auto r = select(in(0), in(1), in(2));
    if (failed(r))
      return failure();
    setOut(0, *r);
    return success();
  }
  using P = dlcir::CmpPredicate;
  P pred = op == "Equal"            ? P::eq
           : op == "Less"           ? P::lt
           : op == "Greater"        ? P::gt
           : op == "LessOrEqual"    ? P::le
           : op == "GreaterOrEqual" ? P::ge
                                    : P::ne; // Xor of booleans
  auto r = cmp(pred, in(0), in(1));
  if (failed(r))
    return failure();
  setOut(0, *r);
  return success();
}

LogicalResult Importer::convertActivation(StringRef op) {
  if (!has(0))
    return unsupported("the input is missing");
  Value x = in(0);
  auto t = inType(0);
  Type elem = t.getElementType();
  int64_t r = t.getRank();
  if (!isa<FloatType>(elem) && op != "Relu" && op != "Clip" && op != "Sign")
    return unsupported("dlc computes " + op + " on float tensors only");
  auto zero = [&] { return splat(0.0, elem, r); };
  auto lessThanZero = [&](Value v) {
    return cmp(dlcir::CmpPredicate::lt, v, zero());
  };
  auto softplus = [&](Value v) {
    // max(x, 0) + log(1 + exp(-|x|)): no overflow for large |x|.
    Value pos = create("dlc.max", {v, zero()}, t);
    Value e = unary("dlc.exp", unary("dlc.neg", unary("dlc.abs", v)));
    Value l = unary("dlc.log", addScalar(e, 1.0));
    return create("dlc.add", {pos, l}, t);
  };
  Value y;
  if (op == "Relu") {
    y = create("dlc.max", {x, zero()}, t);
  } else if (op == "LeakyRelu" || op == "Elu" || op == "Selu" || op == "Celu") {
    double alpha = attrFloat("alpha", op == "LeakyRelu" ? 0.01
                                      : op == "Selu" ? 1.67326319217681884765625
                                                     : 1.0);
    Value neg;
    if (op == "LeakyRelu") {
      neg = scale(x, alpha);
    } else if (op == "Celu") {
      neg = scale(addScalar(unary("dlc.exp", scale(x, 1.0 / alpha)), -1.0),
                  alpha);
    } else {
      neg = scale(addScalar(unary("dlc.exp", x), -1.0), alpha);
    }
    auto c = lessThanZero(x);
    if (failed(c))
      return failure();
    auto s = select(*c, neg, x);
    if (failed(s))
      return failure();
    y = *s;
    if (op == "Selu")
      y = scale(y, attrFloat("gamma", 1.05070102214813232421875));
  } else if (op == "PRelu") {
    if (!has(1))
      return unsupported("the slope input is missing");
    auto c = lessThanZero(x);
    auto neg = binary("dlc.mul", x, in(1));
    if (failed(c) || failed(neg))
      return failure();
    auto s = select(*c, *neg, x);
    if (failed(s))
      return failure();
    y = *s;
  } else if (op == "ThresholdedRelu") {
    auto c = cmp(dlcir::CmpPredicate::gt, x,
                 splat(attrFloat("alpha", 1.0), elem, r));
    if (failed(c))
      return failure();
    auto s = select(*c, x, zero());
    if (failed(s))
      return failure();
    y = *s;
  } else if (op == "Clip") {
    double lo = -std::numeric_limits<double>::infinity(), hi = -lo;
    for (unsigned i = 1; i < 3; ++i) {
      if (!has(i))
        continue;
      const rt::HostTensor *l = lit(i);
      if (!l || l->numElements() != 1)
        return unsupported("the min and max inputs must be a constant "
                           "(scalars)");
      (i == 1 ? lo : hi) = litDouble(*l, 0);
    }
    y = x;
    if (!std::isinf(lo))
      y = create("dlc.max", {y, splat(lo, elem, r)}, t);
    if (!std::isinf(hi))
      y = create("dlc.min", {y, splat(hi, elem, r)}, t);
  } else if (op == "HardSigmoid") {
    y = clamp(
        addScalar(scale(x, attrFloat("alpha", 0.2)), attrFloat("beta", 0.5)),
        0.0, 1.0);
  } else if (op == "HardSwish") {
    Value h = clamp(addScalar(scale(x, 1.0 / 6.0), 0.5), 0.0, 1.0);
    y = create("dlc.mul", {x, h}, t);
  } else if (op == "Softplus") {
    y = softplus(x);
  } else if (op == "Softsign") {
    y = create("dlc.div", {x, addScalar(unary("dlc.abs", x), 1.0)}, t);
  } else if (op == "Mish") {
    y = create("dlc.mul", {x, unary("dlc.tanh", softplus(x))}, t);
  } else if (op == "Gelu") {
    if (attrStr("approximate", "none") == "tanh") {
      // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      Value x3 = create("dlc.mul", {create("dlc.mul", {x, x}, t), x}, t);
      Value inner = create("dlc.add", {x, scale(x3, 0.044715)}, t);
      Value th = unary("dlc.tanh", scale(inner, std::sqrt(2.0 / M_PI)));
      y = create("dlc.mul", {scale(x, 0.5), addScalar(th, 1.0)}, t);
    } else {
      Value e = unary("dlc.erf", scale(x, M_SQRT1_2));
      y = create("dlc.mul", {scale(x, 0.5), addScalar(e, 1.0)}, t);
    }
  } else if (op == "Sign") {
    auto gt = cmp(dlcir::CmpPredicate::gt, x, zero());
    auto lt = cmp(dlcir::CmpPredicate::lt, x, zero());
    if (failed(gt) || failed(lt))
      return failure();
    auto inner = select(*lt, splat(-1.0, elem, r), zero());
    if (failed(inner))
      return failure();
    auto s = select(*gt, splat(1.0, elem, r), *inner);
    if (failed(s))
      return failure();
    y = *s;
  }
  setOut(0, y);
  return success();
}

LogicalResult Importer::convertCast() {
  std::optional<rt::DType> to;
  if (opType == "CastLike") {
    if (!has(1))
      return unsupported("the target_type input is missing");
    to = dtypeOfElem(inType(1).getElementType());
  } else {
    to = dtypeOfOnnx(attrInt("to", 0));
  }
  if (!to)
    return unsupported("Cast to " + Twine(onnxTypeName(attrInt("to", 0))) +
                       " is not supported (f32, f16, bf16, int32, int64 and "
                       "bool only)");
  Value x = in(0);
  auto t = inType(0);
  Type target = elemTypeOf(ctx, *to);
  if (isa<FloatType>(t.getElementType()) && isa<IntegerType>(target) &&
      !target.isInteger(1)) {
    // dlc.cast rounds to nearest; ONNX truncates toward zero: correct the
    // rounded value by one where rounding went away from zero.
    Type f32 = b.getF32Type();
    Value xf = castTo(x, f32);
    Value r = castTo(xf, target);
    Value rf = castTo(r, f32);
    int64_t rank = t.getRank();
    auto tooHigh = cmp(dlcir::CmpPredicate::gt, rf, xf);
    auto tooLow = cmp(dlcir::CmpPredicate::lt, rf, xf);
    auto nonNeg = cmp(dlcir::CmpPredicate::ge, xf, splat(0.0, f32, rank));
    if (failed(tooHigh) || failed(tooLow) || failed(nonNeg))
      return failure();
    auto rt_ = cast<RankedTensorType>(r.getType());
    Value down = create("dlc.sub", {r, splat(1, target, rank)}, rt_);
    Value up = create("dlc.add", {r, splat(1, target, rank)}, rt_);
    auto fixPos = select(*tooHigh, down, r);
    auto fixNeg = select(*tooLow, up, r);
    if (failed(fixPos) || failed(fixNeg))
      return failure();
    auto y = select(*nonNeg, *fixPos, *fixNeg);
    if (failed(y))
      return failure();
    setOut(0, *y);
    return success();
  }
  setOut(0, castTo(x, target));
  return success();
}

LogicalResult Importer::convertMisc(StringRef op) {
  auto tx = inType(0);
  Type elem = tx.getElementType();
  int64_t rank = tx.getRank();
  ArrayRef<int64_t> xs = tx.getShape();
  using K = dlcir::ReduceKind;
  if (op == "IsNaN") {
    if (!isa<FloatType>(elem))
      return unsupported("IsNaN needs a float input");
    // NaN is the only value that differs from itself.
    auto r = cmp(dlcir::CmpPredicate::ne, in(0), in(0));
    if (failed(r))
      return failure();
    setOut(0, *r);
    return success();
  }
  if (op == "Trilu") {
    if (rank < 2)
      return unsupported("Trilu needs a rank-2 or higher input");
    int64_t k = 0;
    if (has(1)) {
      auto v = constInts(1, "k");
      if (failed(v))
        return failure();
      k = v->empty() ? 0 : (*v)[0];
    }
    bool upper = attrInt("upper", 1);
    // A constant mask over the last two dimensions selects the triangle.
    int64_t m = xs[rank - 2], n = xs[rank - 1];
    SmallVector<int64_t> mshape(rank, 1);
    mshape[rank - 2] = m;
    mshape[rank - 1] = n;
    if (failed(checkLiteral(mshape, rt::DType::I1, "the triangle mask")))
      return failure();
    rt::HostTensor mask(rt::DType::I1,
                        std::vector<int64_t>(mshape.begin(), mshape.end()));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        mask.data[i * n + j] = upper ? (j - i >= k) : (j - i <= k);
    Value zero = splat(0.0, elem, rank);
    auto y = select(constant(mask), in(0), zero);
    if (failed(y))
      return failure();
    setOut(0, *y);
    return success();
  }
  if (op == "Hardmax") {
    auto a = axis(attrInt("axis", -1), rank);
    if (failed(a))
      return failure();
    SmallVector<int64_t> ishape(rank, 1);
    ishape[*a] = xs[*a];
    if (failed(checkLiteral(ishape, rt::DType::I64, "the index table")))
      return failure();
    rt::HostTensor iota(rt::DType::I64,
                        std::vector<int64_t>(ishape.begin(), ishape.end()));
    for (int64_t i = 0; i < xs[*a]; ++i)
      litSetInt(iota, i, i);
    SmallVector<int64_t> shape(xs);
    shape[*a] = 1;
    Value idx = create("dlc.argmax", in(0), tensorType(shape, b.getI64Type()),
                       {b.getNamedAttr("axis", b.getI64IntegerAttr(*a))});
    auto eq = cmp(dlcir::CmpPredicate::eq, idx, constant(iota));
    if (failed(eq))
      return failure();
    setOut(0, castTo(*eq, elem));
    return success();
  }
  // Normalizations over axes: (x - mean) / sqrt(var + eps).
  if (!isa<FloatType>(elem))
    return unsupported(op + " needs a float input");
  SmallVector<int64_t> axes;
  double eps = 0;
  if (op == "MeanVarianceNormalization") {
    auto v = attrInts("axes");
    std::vector<int64_t> a = v ? *v : std::vector<int64_t>{0, 2, 3};
    for (int64_t d : a) {
      auto n = axis(d, rank);
      if (failed(n))
        return failure();
      axes.push_back(*n);
    }
  } else {
    if (rank < 3)
      return unsupported("InstanceNormalization needs a rank-3 or higher "
                         "input");
    for (int64_t d = 2; d < rank; ++d)
      axes.push_back(d);
    eps = attrFloat("epsilon", 1e-5);
  }
  int64_t count = 1;
  for (int64_t a : axes)
    count *= xs[a];
  Value x = in(0);
  Value mean = scale(reduce(K::sum, x, axes), 1.0 / count);
  auto d = binary("dlc.sub", x, mean);
  if (failed(d))
    return failure();
  Value var =
      scale(reduce(K::sum, create("dlc.mul", {*d, *d}, tx), axes), 1.0 / count);
  Value inv = unary("dlc.rsqrt", eps != 0 ? addScalar(var, eps) : var);
  if (op == "MeanVarianceNormalization")
    inv = unary("dlc.reciprocal", unary("dlc.sqrt", var));
  auto y = binary("dlc.mul", *d, inv);
  if (failed(y))
    return failure();
  if (op == "InstanceNormalization") {
    if (!has(1) || !has(2) || inType(1).getNumElements() != xs[1] ||
        inType(2).getNumElements() != xs[1])
      return unsupported("scale and B must have one value per channel");
    SmallVector<int64_t> pshape(rank, 1);
    pshape[1] = xs[1];
    y = binary("dlc.mul", *y, reshape(in(1), pshape));
    if (failed(y))
      return failure();
    y = binary("dlc.add", *y, reshape(in(2), pshape));
    if (failed(y))
      return failure();
  }
  setOut(0, *y);
  return success();
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

LogicalResult Importer::convertMatMul() {
  Value a = in(0), bv = in(1);
  auto ta = inType(0), tb = inType(1);
  if (ta.getElementType() != tb.getElementType())
    return unsupported("operand element types differ");
  if (ta.getRank() == 0 || tb.getRank() == 0)
    return unsupported("MatMul operands must have rank 1 or more");
  bool dropM = false, dropN = false;
  if (ta.getRank() == 1) {
    a = reshape(a, {1, ta.getDimSize(0)});
    dropM = true;
  }
  if (tb.getRank() == 1) {
    bv = reshape(bv, {tb.getDimSize(0), 1});
    dropN = true;
  }
  auto sa = cast<RankedTensorType>(a.getType()).getShape();
  auto sb = cast<RankedTensorType>(bv.getType()).getShape();
  int64_t rank = std::max(sa.size(), sb.size());
  if (sa[sa.size() - 1] != sb[sb.size() - 2])
    return unsupported("contraction sizes differ: " + dlcir::formatShape(sa) +
                       " x " + dlcir::formatShape(sb));
  auto batch = numpyBroadcast({sa.drop_back(2), sb.drop_back(2)});
  if (!batch)
    return unsupported("batch dimensions do not broadcast");
  a = toRank(a, rank);
  bv = toRank(bv, rank);
  SmallVector<int64_t> shape(batch->begin(), batch->end());
  int64_t m = sa[sa.size() - 2], n = sb[sb.size() - 1];
  shape.push_back(m);
  shape.push_back(n);
  // Without a bias or an addend (dlc-fuse-epilogue may add them later).
  Value y =
      create("dlc.matmul", {a, bv}, tensorType(shape, ta.getElementType()),
             {b.getNamedAttr("operandSegmentSizes",
                             b.getDenseI32ArrayAttr({1, 1, 0, 0}))});
  SmallVector<int64_t> outShape(batch->begin(), batch->end());
  if (!dropM)
    outShape.push_back(m);
  if (!dropN)
    outShape.push_back(n);
  setOut(0, reshape(y, outShape));
  return success();
}

LogicalResult Importer::convertGemm() {
  auto ta = inType(0), tb = inType(1);
  if (ta.getRank() != 2 || tb.getRank() != 2)
    return unsupported("Gemm operands must be matrices");
  bool transA = attrInt("transA", 0), transB = attrInt("transB", 0);
  int64_t m = ta.getDimSize(transA ? 1 : 0), k = ta.getDimSize(transA ? 0 : 1);
  int64_t kb = tb.getDimSize(transB ? 1 : 0), n = tb.getDimSize(transB ? 0 : 1);
  if (k != kb)
    return unsupported("contraction sizes differ: " + Twine(k) + " and " +
                       Twine(kb));
  // Without a bias or an addend: the bias add below is a separate op, which
  // dlc-fuse-epilogue may fold into the product later.
  SmallVector<NamedAttribute> attrs = {b.getNamedAttr(
      "operandSegmentSizes", b.getDenseI32ArrayAttr({1, 1, 0, 0}))};
  if (transA)
    attrs.push_back(b.getNamedAttr("transpose_a", b.getUnitAttr()));
  if (transB)
    attrs.push_back(b.getNamedAttr("transpose_b", b.getUnitAttr()));
  Type elem = ta.getElementType();
  Value y =
      create("dlc.matmul", {in(0), in(1)}, tensorType({m, n}, elem), attrs);
  y = scale(y, attrFloat("alpha", 1.0));
  double beta = attrFloat("beta", 1.0);
  if (has(2) && beta != 0.0) {
    Value c = scale(in(2), beta);
    auto sum = binary("dlc.add", y, c);
    if (failed(sum))
      return failure();
    if (cast<RankedTensorType>((*sum).getType()).getShape() !=
        ArrayRef<int64_t>{m, n})
      return unsupported("C does not broadcast to the product's shape");
    y = *sum;
  }
  setOut(0, y);
  return success();
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

LogicalResult Importer::windowAttrs(ArrayRef<int64_t> in,
                                    ArrayRef<int64_t> kernel, bool ceilMode,
                                    SmallVectorImpl<int64_t> &strides,
                                    SmallVectorImpl<int64_t> &pads,
                                    SmallVectorImpl<int64_t> &dilations,
                                    SmallVectorImpl<int64_t> &out) {
  size_t nd = kernel.size();
  auto get = [&](StringRef name, size_t n, int64_t def,
                 SmallVectorImpl<int64_t> &dst) -> LogicalResult {
    auto v = attrInts(name);
    dst.assign(n, def);
    if (!v)
      return success();
    if (v->size() != n)
      return unsupported("attribute '" + name + "' has " + Twine(v->size()) +
                         " values, expected " + Twine(n));
    dst.assign(v->begin(), v->end());
    return success();
  };
  if (failed(get("strides", nd, 1, strides)) ||
      failed(get("dilations", nd, 1, dilations)) ||
      failed(get("pads", 2 * nd, 0, pads)))
    return failure();
  std::string autoPad = attrStr("auto_pad", "NOTSET");
  out.assign(nd, 0);
  // Window sizes beyond a tensor's extent limit (2^40) are errors below; up
  // to it, none of the arithmetic can overflow.
  constexpr int64_t kMaxWindow = int64_t(1) << 40;
  for (size_t i = 0; i < nd; ++i) {
    if (strides[i] <= 0 || dilations[i] <= 0 || strides[i] > kMaxWindow ||
        dilations[i] > kMaxWindow)
      return unsupported("strides and dilations must be positive and at most "
                         "2^40");
    if (kernel[i] <= 0 || kernel[i] > kMaxWindow)
      return unsupported("kernel sizes must be positive and at most 2^40");
    if (pads[i] < 0 || pads[i + nd] < 0 || pads[i] > kMaxWindow ||
        pads[i + nd] > kMaxWindow)
      return unsupported("pads must be non-negative and at most 2^40");
    auto effective = checkedMul(kernel[i] - 1, dilations[i]);
    if (!effective || *effective >= kMaxWindow)
      return unsupported("the dilated kernel is larger than 2^40");
    int64_t eff = *effective + 1;
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      int64_t o = (in[i] + strides[i] - 1) / strides[i];
      int64_t total = std::max<int64_t>(0, (o - 1) * strides[i] + eff - in[i]);
      int64_t small = total / 2;
      pads[i] = autoPad == "SAME_UPPER" ? small : total - small;
      pads[i + nd] = total - pads[i];
      out[i] = o;
      continue;
    }
    if (autoPad == "VALID") {
      pads[i] = pads[i + nd] = 0;
    } else if (autoPad != "NOTSET") {
      return unsupported("auto_pad '" + autoPad + "' is not supported");
    }
    int64_t span = in[i] + pads[i] + pads[i + nd] - eff;
    if (span < 0)
      return unsupported("the window is larger than the padded input");
    int64_t o = ceilMode ? (span + strides[i] - 1) / strides[i] + 1
                         : span / strides[i] + 1;
    // As in PyTorch: the last window must start inside the input or the
    // leading padding.
    if (ceilMode && (o - 1) * strides[i] >= in[i] + pads[i])
      --o;
    out[i] = o;
  }
  return success();
}

const onnx::NodeProto *
Importer::foldableBatchNorm(const onnx::NodeProto &conv) {
  if (conv.output_size() != 1)
    return nullptr;
  const std::string &y = conv.output(0);
  if (useCount.lookup(y) != 1)
    return nullptr;
  auto it = consumers.find(y);
  if (it == consumers.end() || it->second.size() != 1)
    return nullptr;
  const onnx::NodeProto &bn = model.graph().node(it->second[0]);
  if (bn.op_type() != "BatchNormalization" || bn.input_size() != 5 ||
      bn.input(0) != y)
    return nullptr;
  for (int i = 1; i < bn.output_size(); ++i)
    if (!bn.output(i).empty())
      return nullptr;
  for (const auto &a : bn.attribute())
    if (a.name() == "training_mode" && a.i() != 0)
      return nullptr;
  for (int i = 1; i < 5; ++i) {
    auto e = env.find(bn.input(i));
    if (e == env.end() || !e->second.lit || !isFloatDType(e->second.lit->dtype))
      return nullptr;
  }
  return &bn;
}

LogicalResult Importer::convertConv() {
  if (!has(0) || !has(1))
    return unsupported("Conv needs an input and weights");
  auto tx = inType(0), tw = inType(1);
  Type elem = tx.getElementType();
  if (!isa<FloatType>(elem) || tw.getElementType() != elem)
    return unsupported("Conv needs float input and weights of one type");
  int64_t rank = tx.getRank();
  if (rank != 3 && rank != 4)
    return unsupported("only 1-D and 2-D convolutions are supported, not " +
                       Twine(rank - 2) + "-D");
  if (tw.getRank() != rank)
    return unsupported("the weights' rank differs from the input's");
  bool is1d = rank == 3;
  SmallVector<int64_t> xs(tx.getShape()), ws(tw.getShape());
  int64_t group = attrInt("group", 1);
  auto groupChannels = checkedMul(ws[1], group);
  if (group <= 0 || !groupChannels || xs[1] != *groupChannels ||
      ws[0] % group != 0)
    return unsupported("input channels " + Twine(xs[1]) + ", weight shape " +
                       dlcir::formatShape(ws) + " and group " + Twine(group) +
                       " do not match");
  SmallVector<int64_t> kernel(ArrayRef<int64_t>(ws).drop_front(2));
  SmallVector<int64_t> strides, pads, dil, out;
  if (failed(windowAttrs(ArrayRef<int64_t>(xs).drop_front(2), kernel, false,
                         strides, pads, dil, out)))
    return failure();
  if (is1d) {
    // A 1-D convolution is a 2-D one over a height of 1.
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
    out.insert(out.begin(), 1);
    xs.insert(xs.begin() + 2, 1);
    ws.insert(ws.begin() + 2, 1);
  }
  int64_t oc = ws[0];

  // Weights and bias, with a following BatchNormalization folded in.
  Value w, bias;
  const onnx::NodeProto *bn =
      lit(1) && (!has(2) || lit(2)) ? foldableBatchNorm(*node) : nullptr;
  if (bn) {
    auto L = [&](int i) { return env.find(bn->input(i))->second.lit; };
    Lit gamma = L(1), beta = L(2), mean = L(3), var = L(4);
    if (oc == 0 || gamma->numElements() != oc || beta->numElements() != oc ||
        mean->numElements() != oc || var->numElements() != oc)
      bn = nullptr;
    else {
      double eps = 1e-5;
      for (const auto &a : bn->attribute())
        if (a.name() == "epsilon")
          eps = a.f();
      rt::HostTensor nw = *lit(1);
      nw.shape.assign(ws.begin(), ws.end());
      rt::HostTensor nb(*dtypeOfElem(elem), {1, oc, 1, 1});
      int64_t per = nw.numElements() / oc;
      for (int64_t o = 0; o < oc; ++o) {
        double a = litDouble(*gamma, o) / std::sqrt(litDouble(*var, o) + eps);
        for (int64_t j = 0; j < per; ++j)
          nw.setFromDouble(o * per + j, nw.getAsDouble(o * per + j) * a);
        double b0 = has(2) ? litDouble(*lit(2), o) : 0.0;
        nb.setFromDouble(o,
                         (b0 - litDouble(*mean, o)) * a + litDouble(*beta, o));
      }
      currentConstName = node->input(1);
      w = constant(nw);
      bias = constant(nb);
      currentConstName = nodeName;
      // The BatchNormalization's output is this node's.
      for (int i = 0; i < model.graph().node_size(); ++i)
        if (&model.graph().node(i) == bn)
          absorbed.insert(i);
    }
  }
  if (!bn) {
    w = reshape(in(1), ws);
    if (has(2)) {
      if (inType(2).getNumElements() != oc)
        return unsupported("the bias has " + Twine(inType(2).getNumElements()) +
                           " elements for " + Twine(oc) + " output channels");
      bias = reshape(in(2), {1, oc, 1, 1});
    }
  }
  Value x = reshape(in(0), xs);
  Value y = create("dlc.conv2d", {x, w},
                   tensorType({xs[0], oc, out[0], out[1]}, elem),
                   {b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides)),
                    b.getNamedAttr("pads", b.getDenseI64ArrayAttr(pads)),
                    b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(dil)),
                    b.getNamedAttr("groups", b.getI64IntegerAttr(group))});
  if (bias)
    y = create("dlc.add", {y, bias}, y.getType());
  if (is1d)
    y = reshape(y, {xs[0], oc, out[1]});
  setOut(0, y);
  if (bn)
    env[bn->output(0)] = Entry{y, nullptr, ""};
  return success();
}

LogicalResult Importer::convertConvTranspose() {
  if (!has(0) || !has(1))
    return unsupported("ConvTranspose needs an input and weights");
  auto tx = inType(0), tw = inType(1);
  Type elem = tx.getElementType();
  if (!isa<FloatType>(elem) || tw.getElementType() != elem)
    return unsupported("ConvTranspose needs float input and weights of one "
                       "type");
  int64_t rank = tx.getRank();
  if ((rank != 3 && rank != 4) || tw.getRank() != rank)
    return unsupported("only 1-D and 2-D transposed convolutions are "
                       "supported");
  size_t nd = rank - 2;
  SmallVector<int64_t> xs(tx.getShape()), ws(tw.getShape());
  int64_t group = attrInt("group", 1);
  if (group <= 0 || ws[0] != xs[1] || xs[1] % group != 0)
    return unsupported("the weights' first dimension must equal the input "
                       "channels, a multiple of group");
  auto outChannels = checkedMul(ws[1], group);
  if (!outChannels)
    return unsupported("the output channels overflow int64");
  int64_t oc = *outChannels;
  auto ints = [&](StringRef name, size_t n, int64_t def) {
    auto v = attrInts(name);
    return v && v->size() == n ? SmallVector<int64_t>(v->begin(), v->end())
                               : SmallVector<int64_t>(n, def);
  };
  // Every size is at most 2^40 (checked below or a tensor extent): the
  // arithmetic after this cannot overflow.
  constexpr int64_t kMaxWindow = int64_t(1) << 40;
  auto inRange = [&](ArrayRef<int64_t> v, int64_t lo) {
    return llvm::all_of(v,
                        [&](int64_t x) { return x >= lo && x <= kMaxWindow; });
  };
  SmallVector<int64_t> strides = ints("strides", nd, 1),
                       dil = ints("dilations", nd, 1),
                       pads = ints("pads", 2 * nd, 0),
                       outPad = ints("output_padding", nd, 0);
  std::string autoPad = attrStr("auto_pad", "NOTSET");
  auto outputShape = attrInts("output_shape");
  if (!inRange(strides, 1) || !inRange(dil, 1))
    return unsupported("strides and dilations must be positive and at most "
                       "2^40");
  if (!inRange(pads, 0) || !inRange(outPad, 0))
    return unsupported("pads and output_padding must be non-negative and at "
                       "most 2^40");
  if (outputShape && !outputShape->empty() &&
      (outputShape->size() < nd || !inRange(*outputShape, 0)))
    return unsupported("output_shape must give the " + Twine(nd) +
                       " spatial sizes, each between 0 and 2^40");
  if (!inRange(ArrayRef<int64_t>(ws).drop_front(2), 1))
    return unsupported("kernel sizes must be positive");
  SmallVector<int64_t> out(nd);
  for (size_t i = 0; i < nd; ++i) {
    int64_t in = xs[2 + i], k = ws[2 + i];
    auto stretched = checkedMul(strides[i], in - 1);
    auto dilated = checkedMul(k - 1, dil[i]);
    // Both products below 2^61: the sum fits (the result type is checked).
    constexpr int64_t kMaxTerm = int64_t(1) << 61;
    if (in == 0 || !stretched || !dilated || *stretched > kMaxTerm ||
        *dilated > kMaxTerm)
      return unsupported("the output size overflows int64");
    int64_t full = *stretched + outPad[i] + *dilated + 1;
    int64_t target = -1;
    if (outputShape && !outputShape->empty())
      target = (*outputShape)[outputShape->size() - nd + i];
    else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER")
      target = *stretched + strides[i]; // in * stride, below 2^62
    if (target >= 0) {
      int64_t total = full - target;
      if (total < 0) {
        // A larger output_shape extends the end, as output_padding does.
        outPad[i] += -total;
        full = target;
        total = 0;
      }
      if (autoPad == "SAME_UPPER") {
        pads[i] = total / 2;
        pads[i + nd] = total - total / 2;
      } else {
        pads[i] = total - total / 2;
        pads[i + nd] = total / 2;
      }
    } else if (autoPad == "VALID") {
      pads[i] = pads[i + nd] = 0;
    }
    out[i] = full - pads[i] - pads[i + nd];
    if (out[i] <= 0)
      return unsupported("the output would be empty");
  }
  if (nd == 1) {
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    outPad.insert(outPad.begin(), 0);
    pads = {0, pads[0], 0, pads[1]};
    out.insert(out.begin(), 1);
    xs.insert(xs.begin() + 2, 1);
    ws.insert(ws.begin() + 2, 1);
  }
  Value y =
      create("dlc.conv_transpose2d", {reshape(in(0), xs), reshape(in(1), ws)},
             tensorType({xs[0], oc, out[0], out[1]}, elem),
             {b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides)),
              b.getNamedAttr("pads", b.getDenseI64ArrayAttr(pads)),
              b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(dil)),
              b.getNamedAttr("output_padding", b.getDenseI64ArrayAttr(outPad)),
              b.getNamedAttr("groups", b.getI64IntegerAttr(group))});
  if (has(2))
    y = create("dlc.add", {y, reshape(in(2), {1, oc, 1, 1})}, y.getType());
  if (nd == 1)
    y = reshape(y, {xs[0], oc, out[1]});
  setOut(0, y);
  return success();
}

LogicalResult Importer::convertPool(StringRef op) {
  auto tx = inType(0);
  Type elem = tx.getElementType();
  int64_t rank = tx.getRank();
  if (rank < 3)
    return unsupported("pooling needs an input of rank 3 or more");
  if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
    SmallVector<int64_t> axes;
    for (int64_t d = 2; d < rank; ++d)
      axes.push_back(d);
    if (op == "GlobalMaxPool") {
      setOut(0, reduce(dlcir::ReduceKind::max, in(0), axes));
      return success();
    }
    if (!isa<FloatType>(elem))
      return unsupported("GlobalAveragePool needs a float input");
    int64_t n = product(tx.getShape().drop_front(2));
    setOut(0, scale(reduce(dlcir::ReduceKind::sum, in(0), axes), 1.0 / n));
    return success();
  }
  if (rank != 3 && rank != 4)
    return unsupported("only 1-D and 2-D pooling is supported");
  if (op == "MaxPool" && attrInt("storage_order", 0) != 0)
    return unsupported("storage_order 1 is not supported");
  if (node->output_size() > 1 && !node->output(1).empty() &&
      useCount.lookup(node->output(1)))
    return unsupported("the Indices output of MaxPool is not supported");
  auto kernelAttr = attrInts("kernel_shape");
  if (!kernelAttr || (int64_t)kernelAttr->size() != rank - 2)
    return unsupported("kernel_shape must give " + Twine(rank - 2) + " sizes");
  SmallVector<int64_t> kernel(kernelAttr->begin(), kernelAttr->end());
  SmallVector<int64_t> strides, pads, dil, out;
  SmallVector<int64_t> xs(tx.getShape());
  if (failed(windowAttrs(ArrayRef<int64_t>(xs).drop_front(2), kernel,
                         attrInt("ceil_mode", 0) != 0, strides, pads, dil,
                         out)))
    return failure();
  bool is1d = rank == 3;
  if (is1d) {
    kernel.insert(kernel.begin(), 1);
    strides.insert(strides.begin(), 1);
    dil.insert(dil.begin(), 1);
    pads = {0, pads[0], 0, pads[1]};
    out.insert(out.begin(), 1);
    xs.insert(xs.begin() + 2, 1);
  }
  bool isMax = op == "MaxPool";
  SmallVector<NamedAttribute> attrs = {
      b.getNamedAttr(
          "kind", dlcir::PoolKindAttr::get(ctx, isMax ? dlcir::PoolKind::max
                                                      : dlcir::PoolKind::avg)),
      b.getNamedAttr("kernel", b.getDenseI64ArrayAttr(kernel)),
      b.getNamedAttr("strides", b.getDenseI64ArrayAttr(strides)),
      b.getNamedAttr("pads", b.getDenseI64ArrayAttr(pads)),
      b.getNamedAttr("dilations", b.getDenseI64ArrayAttr(dil))};
  if (!isMax && attrInt("count_include_pad", 0))
    attrs.push_back(b.getNamedAttr("count_include_pad", b.getUnitAttr()));
  Value y = create("dlc.pool2d", reshape(in(0), xs),
                   tensorType({xs[0], xs[1], out[0], out[1]}, elem), attrs);
  if (is1d)
    y = reshape(y, {xs[0], xs[1], out[1]});
  setOut(0, y);
  return success();
}

LogicalResult Importer::convertBatchNorm() {
  if (attrInt("training_mode", 0))
    return unsupported("training_mode=1 is not supported (inference only)");
  for (int i = 1; i < node->output_size(); ++i)
    if (!node->output(i).empty() && useCount.lookup(node->output(i)))
      return unsupported("only the first output is supported (inference)");
  auto tx = inType(0);
  Type elem = tx.getElementType();
  if (!isa<FloatType>(elem) || tx.getRank() < 2)
    return unsupported("BatchNormalization needs a float input of rank >= 2");
  int64_t c = tx.getDimSize(1);
  SmallVector<int64_t> pshape(tx.getRank(), 1);
  pshape[1] = c;
  double eps = attrFloat("epsilon", 1e-5);
  for (int i = 1; i < 5; ++i)
    if (!has(i) || inType(i).getNumElements() != c)
      return unsupported("scale, bias, mean and variance must have " +
                         Twine(c) + " elements");
  if (lit(1) && lit(2) && lit(3) && lit(4)) {
    // y = x * a + s with a = scale / sqrt(var + eps), s = bias - mean * a.
    rt::HostTensor a(*dtypeOfElem(elem), {pshape.begin(), pshape.end()});
    rt::HostTensor s = a;
    for (int64_t i = 0; i < c; ++i) {
      double ai =
          litDouble(*lit(1), i) / std::sqrt(litDouble(*lit(4), i) + eps);
      a.setFromDouble(i, ai);
      s.setFromDouble(i, litDouble(*lit(2), i) - litDouble(*lit(3), i) * ai);
    }
    Value y = create("dlc.mul", {in(0), constant(a)}, tx);
    setOut(0, create("dlc.add", {y, constant(s)}, tx));
    return success();
  }
  auto p = [&](int i) { return castTo(reshape(in(i), pshape), elem); };
  auto pt = tensorType(pshape, elem);
  Value inv = unary("dlc.rsqrt", addScalar(p(4), eps));
  Value a = create("dlc.mul", {p(1), inv}, pt);
  Value y = create("dlc.mul", {create("dlc.sub", {in(0), p(3)}, tx), a}, tx);
  setOut(0, create("dlc.add", {y, p(2)}, tx));
  return success();
}

//===----------------------------------------------------------------------===//
// Shapes and data movement
//===----------------------------------------------------------------------===//

LogicalResult Importer::convertShapeOp(StringRef op) {
  if (op == "Constant") {
    if (const auto *a = attr("value")) {
      auto t = decodeTensor(a->t(), baseDir, options.externalDataFiles);
      if (!t)
        return unsupported(t.message());
      setOutLit(0, makeLit(t.take()));
    } else if (const auto *a = attr("value_float")) {
      rt::HostTensor t(rt::DType::F32, {});
      t.setFromDouble(0, a->f());
      setOutLit(0, makeLit(std::move(t)));
    } else if (const auto *a = attr("value_floats")) {
      rt::HostTensor t(rt::DType::F32, {(int64_t)a->floats_size()});
      for (int i = 0; i < a->floats_size(); ++i)
        t.setFromDouble(i, a->floats(i));
      setOutLit(0, makeLit(std::move(t)));
    } else if (const auto *a = attr("value_int")) {
      setOutLit(0, intLit({a->i()}, {}));
    } else if (const auto *a = attr("value_ints")) {
      std::vector<int64_t> v(a->ints().begin(), a->ints().end());
      setOutLit(0, intLit(v, {(int64_t)v.size()}));
    } else {
      return unsupported("only tensor, float(s) and int(s) constants are "
                         "supported");
    }
    return success();
  }
  if (op == "ConstantOfShape") {
    auto shape = constInts(0, "shape");
    if (failed(shape))
      return failure();
    rt::HostTensor value(rt::DType::F32, {1});
    if (const auto *a = attr("value")) {
      auto t = decodeTensor(a->t(), baseDir, options.externalDataFiles);
      if (!t)
        return unsupported(t.message());
      if (t->numElements() != 1)
        return unsupported("the value must have one element");
      value = t.take();
    }
    Type elem = elemTypeOf(ctx, value.dtype);
    if (failed(checkType(*shape, elem, "the output")))
      return failure();
    if (*checkedProduct(*shape) > kMaxFoldElements) {
      // Too big for a literal: a splat constant, never materialized.
      setOut(0, splatConstant(*shape, elem, litDouble(value, 0)));
      return success();
    }
    rt::HostTensor out(value.dtype, *shape);
    size_t es = rt::dtypeSize(value.dtype);
    for (int64_t i = 0; i < out.numElements(); ++i)
      std::memcpy(out.data.data() + i * es, value.data.data(), es);
    setOutLit(0, makeLit(std::move(out)));
    return success();
  }
  if (op == "Range") {
    const rt::HostTensor *s = lit(0), *l = lit(1), *d = lit(2);
    if (!s || !l || !d || s->numElements() != 1 || l->numElements() != 1 ||
        d->numElements() != 1)
      return unsupported("start, limit and delta must be constant scalars");
    rt::DType dt = s->dtype;
    double start = litDouble(*s, 0), limit = litDouble(*l, 0),
           delta = litDouble(*d, 0);
    if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta))
      return unsupported("start, limit and delta must be finite");
    if (delta == 0)
      return unsupported("delta must not be 0");
    double count = std::ceil((limit - start) / delta);
    if (!(count <= (double)kMaxLiteralElements))
      return unsupported("the range from " + Twine(std::to_string(start)) +
                         " to " + std::to_string(limit) + " by " +
                         std::to_string(delta) + " has more than the " +
                         Twine(kMaxLiteralElements) +
                         " elements the importer computes at import time");
    int64_t n = std::max<int64_t>(0, (int64_t)count);
    rt::HostTensor out(dt, {n});
    if (isFloatDType(dt)) {
      for (int64_t i = 0; i < n; ++i)
        out.setFromDouble(i, start + i * delta);
    } else {
      int64_t s0 = litInt(*s, 0), d0 = litInt(*d, 0);
      for (int64_t i = 0; i < n; ++i)
        litSetInt(out, i, wrapAdd(s0, wrapMul(i, d0)));
    }
    setOutLit(0, makeLit(std::move(out)));
    return success();
  }
  if (!has(0))
    return unsupported("the input is missing");
  auto tx = inType(0);
  ArrayRef<int64_t> xs = tx.getShape();
  int64_t rank = tx.getRank();
  if (op == "Shape") {
    int64_t start = attrInt("start", 0), end = attrInt("end", rank);
    if (start < 0)
      start += rank;
    if (end < 0)
      end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    std::vector<int64_t> v(xs.begin() + start, xs.begin() + end);
    setOutLit(0, intLit(v, {(int64_t)v.size()}));
    return success();
  }
  if (op == "Size") {
    setOutLit(0, intLit({tx.getNumElements()}, {}));
    return success();
  }
  if (op == "Identity" || op == "Dropout") {
    if (op == "Dropout" && has(2)) {
      if (!lit(2))
        return unsupported("the training_mode input must be a constant "
                           "(false: inference)");
      // Training with ratio 0 drops nothing.
      bool zeroRatio = has(1) && lit(1) && lit(1)->numElements() == 1 &&
                       litDouble(*lit(1), 0) == 0.0;
      if (lit(2)->numElements() != 1)
        return unsupported("training_mode must be a scalar");
      if (litInt(*lit(2), 0) && !zeroRatio)
        return unsupported("training_mode=true is not supported (inference "
                           "only)");
    }
    outs[0] = *ins[0];
    if (outs.size() > 1 && !node->output(1).empty() &&
        useCount.lookup(node->output(1)))
      setOut(1, splatConstant(xs, b.getI1Type(), 1.0));
    return success();
  }

  // Ops that only change the shape: a literal stays a literal.
  auto reshapeTo = [&](ArrayRef<int64_t> shape) {
    if (failed(checkType(shape, tx.getElementType(), "the output")))
      return failure();
    if (*checkedProduct(shape) != tx.getNumElements())
      return unsupported("cannot reshape " + dlcir::formatShape(xs) + " to " +
                         dlcir::formatShape(shape));
    if (ins[0]->lit) {
      rt::HostTensor t = *ins[0]->lit;
      t.shape.assign(shape.begin(), shape.end());
      setOutLit(0, makeLit(std::move(t)));
    } else {
      setOut(0, reshape(in(0), shape));
    }
    return success();
  };
  if (op == "Reshape") {
    auto target = constInts(1, "shape");
    if (failed(target))
      return failure();
    bool allowZero = attrInt("allowzero", 0);
    SmallVector<int64_t> shape;
    int64_t inferred = -1, known = 1;
    for (auto [i, d] : llvm::enumerate(*target)) {
      if (d == 0 && !allowZero) {
        if ((int64_t)i >= rank)
          return unsupported("shape copies dimension " + Twine(i) +
                             " of a rank-" + Twine(rank) + " input");
        d = xs[i];
      }
      if (d == -1) {
        if (inferred >= 0)
          return unsupported("shape has more than one -1");
        inferred = i;
        shape.push_back(1);
        continue;
      }
      if (d < 0)
        return unsupported("shape has a negative size " + Twine(d));
      auto k = checkedMul(known, d);
      if (!k)
        return unsupported("shape " + dlcir::formatShape(*target) +
                           " has more elements than int64 can count");
      known = *k;
      shape.push_back(d);
    }
    if (inferred >= 0) {
      if (known == 0 || tx.getNumElements() % known)
        return unsupported("cannot infer the -1 in shape " +
                           dlcir::formatShape(*target) + " for " +
                           dlcir::formatShape(xs));
      shape[inferred] = tx.getNumElements() / known;
    }
    return reshapeTo(shape);
  }
  if (op == "Flatten") {
    int64_t a = attrInt("axis", 1);
    if (a < 0)
      a += rank;
    if (a < 0 || a > rank)
      return unsupported("axis is out of range");
    return reshapeTo({product(xs.take_front(a)), product(xs.drop_front(a))});
  }
  if (op == "Squeeze" || op == "Unsqueeze") {
    std::vector<int64_t> axes;
    if (has(1)) {
      auto v = constInts(1, "axes");
      if (failed(v))
        return failure();
      axes = *v;
    } else if (auto a = attrInts("axes")) {
      axes = *a;
    }
    if (op == "Squeeze") {
      SmallVector<int64_t> shape;
      SmallVector<bool> drop(rank, axes.empty());
      for (int64_t a : axes) {
        auto n = axis(a, rank);
        if (failed(n))
          return failure();
        if (xs[*n] != 1)
          return unsupported("cannot squeeze dimension " + Twine(a) +
                             " of size " + Twine(xs[*n]));
        drop[*n] = true;
      }
      for (int64_t d = 0; d < rank; ++d)
        if (!(drop[d] && xs[d] == 1))
          shape.push_back(xs[d]);
      return reshapeTo(shape);
    }
    int64_t outRank = rank + axes.size();
    SmallVector<bool> inserted(outRank, false);
    for (int64_t a : axes) {
      auto n = axis(a, outRank);
      if (failed(n))
        return failure();
      if (inserted[*n])
        return unsupported("axes repeat");
      inserted[*n] = true;
    }
    SmallVector<int64_t> shape;
    size_t j = 0;
    for (int64_t d = 0; d < outRank; ++d)
      shape.push_back(inserted[d] ? 1 : xs[j++]);
    return reshapeTo(shape);
  }
  if (op == "Transpose") {
    SmallVector<int64_t> perm;
    if (auto p = attrInts("perm"))
      perm.assign(p->begin(), p->end());
    else
      for (int64_t d = rank - 1; d >= 0; --d)
        perm.push_back(d);
    if ((int64_t)perm.size() != rank)
      return unsupported("perm has the wrong length");
    SmallVector<int64_t> shape;
    SmallVector<bool> seen(rank, false);
    for (int64_t &p : perm) {
      if (p < 0)
        p += rank;
      if (p < 0 || p >= rank || seen[p])
        return unsupported("perm is not a permutation of the dimensions");
      seen[p] = true;
      shape.push_back(xs[p]);
    }
    if (llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
      outs[0] = *ins[0];
    else
      setOut(0, create("dlc.transpose", in(0),
                       tensorType(shape, tx.getElementType()),
                       {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(perm))}));
    return success();
  }
  if (op == "Concat") {
    auto a = axis(attrInt("axis", 0), rank);
    if (failed(a))
      return failure();
    SmallVector<Value> values;
    SmallVector<int64_t> shape(xs);
    shape[*a] = 0;
    for (unsigned i = 0; i < ins.size(); ++i) {
      if (!has(i))
        continue;
      auto t = inType(i);
      if (t.getRank() != rank || t.getElementType() != tx.getElementType())
        return unsupported("inputs differ in rank or element type");
      for (int64_t d = 0; d < rank; ++d)
        if (d != *a && t.getDimSize(d) != xs[d])
          return unsupported("input shapes differ outside the axis");
      shape[*a] += t.getDimSize(*a);
      if (t.getDimSize(*a) != 0)
        values.push_back(in(i));
    }
    if (values.size() == 1) {
      setOut(0, values[0]);
      return success();
    }
    setOut(0,
           create("dlc.concat", values, tensorType(shape, tx.getElementType()),
                  {b.getNamedAttr("axis", b.getI64IntegerAttr(*a))}));
    return success();
  }
  if (op == "Expand" || op == "Tile") {
    auto v = constInts(1, op == "Expand" ? "shape" : "repeats");
    if (failed(v))
      return failure();
    SmallVector<int64_t> multiples;
    Value x = in(0);
    SmallVector<int64_t> shape;
    if (op == "Expand") {
      if (failed(checkType(*v, tx.getElementType(), "the shape input")))
        return failure();
      auto out = numpyBroadcast({xs, *v});
      if (!out)
        return unsupported("cannot expand " + dlcir::formatShape(xs) + " to " +
                           dlcir::formatShape(*v));
      x = toRank(x, out->size());
      auto s = cast<RankedTensorType>(x.getType()).getShape();
      for (size_t d = 0; d < out->size(); ++d)
        multiples.push_back(s[d] == (*out)[d] ? 1 : (*out)[d]);
      shape.assign(out->begin(), out->end());
    } else {
      if ((int64_t)v->size() != rank)
        return unsupported("repeats must have one entry per dimension");
      multiples.assign(v->begin(), v->end());
      for (int64_t d = 0; d < rank; ++d) {
        if (multiples[d] < 0)
          return unsupported("repeats must not be negative");
        auto m = checkedMul(xs[d], multiples[d]);
        if (!m)
          return unsupported("the tiled size of dimension " + Twine(d) +
                             " overflows int64");
        shape.push_back(*m);
      }
    }
    if (failed(checkType(shape, tx.getElementType(), "the output")))
      return failure();
    if (llvm::is_contained(multiples, 0))
      return unsupported("the output would be empty (dlc tensors have no "
                         "zero-size dimensions here)");
    if (llvm::all_of(multiples, [](int64_t m) { return m == 1; })) {
      setOut(0, x);
      return success();
    }
    setOut(0, create("dlc.tile", x, tensorType(shape, tx.getElementType()),
                     {b.getNamedAttr("multiples",
                                     b.getDenseI64ArrayAttr(multiples))}));
    return success();
  }
  if (op == "DepthToSpace" || op == "SpaceToDepth") {
    if (rank != 4)
      return unsupported("the input must have rank 4");
    int64_t bs = attrInt("blocksize", 0);
    int64_t n = xs[0], c = xs[1], h = xs[2], w = xs[3];
    if (bs <= 0 || bs > (int64_t(1) << 20))
      return unsupported("blocksize must be positive and at most 2^20");
    // Output sizes below are products of input sizes and bs (< 2^20 each):
    // they are checked like every result type.
    Type elem = tx.getElementType();
    auto transpose = [&](Value v, ArrayRef<int64_t> perm) {
      auto s = cast<RankedTensorType>(v.getType()).getShape();
      SmallVector<int64_t> shape;
      for (int64_t p : perm)
        shape.push_back(s[p]);
      return create("dlc.transpose", v, tensorType(shape, elem),
                    {b.getNamedAttr("perm", b.getDenseI64ArrayAttr(perm))});
    };
    Value y;
    if (op == "DepthToSpace") {
      if (c == 0 || c % (bs * bs))
        return unsupported("channels are not divisible by blocksize^2");
      int64_t oc = c / (bs * bs);
      bool crd = attrStr("mode", "DCR") == "CRD";
      Value t = crd ? reshape(in(0), {n, oc, bs, bs, h, w})
                    : reshape(in(0), {n, bs, bs, oc, h, w});
      t = crd ? transpose(t, {0, 1, 4, 2, 5, 3})
              : transpose(t, {0, 3, 4, 1, 5, 2});
      y = reshape(t, {n, oc, h * bs, w * bs});
    } else {
      if (h == 0 || w == 0 || h % bs || w % bs)
        return unsupported("height and width are not divisible by blocksize");
      Value t = reshape(in(0), {n, c, h / bs, bs, w / bs, bs});
      t = transpose(t, {0, 3, 5, 1, 2, 4});
      y = reshape(t, {n, c * bs * bs, h / bs, w / bs});
    }
    setOut(0, y);
    return success();
  }
  return unsupported("internal error: unhandled shape op");
}

LogicalResult Importer::convertSlice() {
  auto tx = inType(0);
  auto starts = constInts(1, "starts");
  auto ends = constInts(2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  std::vector<int64_t> axes, steps;
  if (has(3)) {
    auto v = constInts(3, "axes");
    if (failed(v))
      return failure();
    axes = *v;
  }
  if (has(4)) {
    auto v = constInts(4, "steps");
    if (failed(v))
      return failure();
    steps = *v;
  }
  std::string err;
  auto s = sliceDims(tx.getShape(), *starts, *ends, axes, steps, err);
  if (!s)
    return unsupported(err);
  if (llvm::is_contained(s->size, 0))
    return unsupported("the slice is empty (dlc tensors have no zero-size "
                       "dimensions here)");
  // Positive steps are one dlc.slice; a dimension read backwards is then a
  // dlc.gather of constant indices.
  SmallVector<int64_t> first(s->start.begin(), s->start.end());
  SmallVector<int64_t> sizes(s->size.begin(), s->size.end());
  SmallVector<int64_t> strides(s->step.begin(), s->step.end());
  SmallVector<int64_t> reversed;
  for (size_t d = 0; d < strides.size(); ++d) {
    if (strides[d] > 0)
      continue;
    reversed.push_back(d);
    first[d] = 0;
    sizes[d] = tx.getDimSize(d);
    strides[d] = 1;
  }
  Value y = slice(in(0), first, sizes, strides);
  for (int64_t d : reversed) {
    if (failed(checkLiteral({s->size[d]}, rt::DType::I64,
                            "the index table of a reversed dimension")))
      return failure();
    rt::HostTensor idx(rt::DType::I64, {s->size[d]});
    for (int64_t i = 0; i < s->size[d]; ++i)
      litSetInt(idx, i, s->start[d] + i * s->step[d]);
    SmallVector<int64_t> shape(cast<RankedTensorType>(y.getType()).getShape());
    shape[d] = s->size[d];
    y = create("dlc.gather", {y, constant(idx)},
               tensorType(shape, tx.getElementType()),
               {b.getNamedAttr("axis", b.getI64IntegerAttr(d))});
  }
  setOut(0, y);
  return success();
}

LogicalResult Importer::convertGather() {
  auto tx = inType(0), ti = inType(1);
  auto a = axis(attrInt("axis", 0), tx.getRank());
  if (failed(a))
    return failure();
  if (!isa<IntegerType>(ti.getElementType()) ||
      ti.getElementType().isInteger(1))
    return unsupported("indices must be int32 or int64");
  SmallVector<int64_t> shape(tx.getShape().take_front(*a));
  llvm::append_range(shape, ti.getShape());
  llvm::append_range(shape, tx.getShape().drop_front(*a + 1));
  // A constant scalar index is a slice.
  if (const rt::HostTensor *l = lit(1); l && l->numElements() == 1) {
    int64_t i = litInt(*l, 0), d = tx.getDimSize(*a);
    if (i < -d || i >= d)
      return unsupported("index " + Twine(i) + " is out of range for size " +
                         Twine(d));
    if (i < 0)
      i += d;
    SmallVector<int64_t> start(tx.getRank(), 0), sizes(tx.getShape());
    start[*a] = i;
    sizes[*a] = 1;
    setOut(0, reshape(slice(in(0), start, sizes), shape));
    return success();
  }
  // Constant indices are checked here: on the device an index out of range
  // would be clamped silently.
  if (const rt::HostTensor *l = lit(1)) {
    int64_t d = tx.getDimSize(*a);
    for (int64_t k = 0, n = l->numElements(); k < n; ++k) {
      int64_t i = litInt(*l, k);
      if (i < -d || i >= d)
        return unsupported("index " + Twine(i) + " is out of range for size " +
                           Twine(d));
    }
  }
  setOut(0, create("dlc.gather", {in(0), in(1)},
                   tensorType(shape, tx.getElementType()),
                   {b.getNamedAttr("axis", b.getI64IntegerAttr(*a))}));
  return success();
}

LogicalResult Importer::convertSplit() {
  auto tx = inType(0);
  auto a = axis(attrInt("axis", 0), tx.getRank());
  if (failed(a))
    return failure();
  int64_t d = tx.getDimSize(*a);
  std::vector<int64_t> sizes;
  if (has(1)) {
    auto v = constInts(1, "split");
    if (failed(v))
      return failure();
    sizes = *v;
  } else if (auto v = attrInts("split")) {
    sizes = *v;
  } else {
    int64_t n = attrInt("num_outputs", node->output_size());
    if (n <= 0 || n != node->output_size())
      return unsupported("num_outputs must be the number of outputs (" +
                         Twine(node->output_size()) + ")");
    int64_t chunk = (d + n - 1) / n;
    for (int64_t i = 0; i < n; ++i)
      sizes.push_back(std::max<int64_t>(0, std::min(chunk, d - i * chunk)));
  }
  if ((int)sizes.size() != node->output_size())
    return unsupported("split gives " + Twine(sizes.size()) + " sizes for " +
                       Twine(node->output_size()) + " outputs");
  int64_t sum = 0;
  for (int64_t s : sizes) {
    auto next = s < 0 ? std::nullopt : checkedAdd(sum, s);
    if (!next)
      return unsupported("split sizes must be non-negative and add up to " +
                         Twine(d));
    sum = *next;
  }
  if (sum != d)
    return unsupported("split sizes add up to " + Twine(sum) + ", not " +
                       Twine(d));
  int64_t offset = 0;
  for (auto [i, s] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> start(tx.getRank(), 0), shape(tx.getShape());
    start[*a] = offset;
    shape[*a] = s;
    offset += s;
    if (s == 0) {
      if (useCount.lookup(node->output(i)))
        return unsupported("an empty split output is used");
      continue;
    }
    setOut(i, slice(in(0), start, shape));
  }
  return success();
}

LogicalResult Importer::convertPad() {
  std::string mode = attrStr("mode", "constant");
  if (mode != "constant")
    return unsupported("Pad mode '" + mode +
                       "' is not supported (constant "
                       "only)");
  auto tx = inType(0);
  int64_t rank = tx.getRank();
  auto pads = constInts(1, "pads");
  if (failed(pads))
    return failure();
  std::vector<int64_t> axes;
  if (has(3)) {
    auto v = constInts(3, "axes");
    if (failed(v))
      return failure();
    axes = *v;
  } else {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
  }
  if (pads->size() != 2 * axes.size())
    return unsupported("pads must have two entries per padded axis");
  SmallVector<int64_t> low(rank, 0), high(rank, 0), shape(tx.getShape());
  for (auto [i, a] : llvm::enumerate(axes)) {
    auto n = axis(a, rank);
    if (failed(n))
      return failure();
    low[*n] = (*pads)[i];
    high[*n] = (*pads)[i + axes.size()];
    if (low[*n] < 0 || high[*n] < 0)
      return unsupported("negative pads are not supported");
    auto padded = checkedAdd(shape[*n], low[*n]);
    if (padded)
      padded = checkedAdd(*padded, high[*n]);
    if (!padded)
      return unsupported("the padded size of dimension " + Twine(*n) +
                         " overflows int64");
    shape[*n] = *padded;
  }
  if (failed(checkType(shape, tx.getElementType(), "the output")))
    return failure();
  double value = 0;
  if (has(2)) {
    const rt::HostTensor *l = lit(2);
    if (!l || l->numElements() != 1)
      return unsupported("constant_value must be a constant scalar");
    value = litDouble(*l, 0);
  }
  if (llvm::all_of(low, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(high, [](int64_t v) { return v == 0; })) {
    outs[0] = *ins[0];
    return success();
  }
  setOut(0, create("dlc.pad", in(0), tensorType(shape, tx.getElementType()),
                   {b.getNamedAttr("low", b.getDenseI64ArrayAttr(low)),
                    b.getNamedAttr("high", b.getDenseI64ArrayAttr(high)),
                    b.getNamedAttr("value", b.getF64FloatAttr(value))}));
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

LogicalResult Importer::convertReduce(StringRef op) {
  auto tx = inType(0);
  int64_t rank = tx.getRank();
  Type elem = tx.getElementType();
  std::vector<int64_t> axes;
  if (has(1)) {
    auto v = constInts(1, "axes");
    if (failed(v))
      return failure();
    axes = *v;
  } else if (auto v = attrInts("axes")) {
    axes = *v;
  }
  if (axes.empty() && attrInt("noop_with_empty_axes", 0)) {
    outs[0] = *ins[0];
    return success();
  }
  SmallVector<int64_t> norm;
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      norm.push_back(d);
  for (int64_t a : axes) {
    auto n = axis(a, rank);
    if (failed(n))
      return failure();
    if (!llvm::is_contained(norm, *n))
      norm.push_back(*n);
  }
  bool isFloat = isa<FloatType>(elem);
  if (!isFloat && op != "ReduceSum" && op != "ReduceMax" && op != "ReduceMin" &&
      op != "ReduceProd")
    return unsupported("dlc computes " + op + " on float tensors only");
  int64_t count = 1;
  for (int64_t a : norm)
    count *= tx.getDimSize(a);
  using K = dlcir::ReduceKind;
  Value x = in(0), y;
  if (op == "ReduceMean")
    y = scale(reduce(K::sum, x, norm), 1.0 / count);
  else if (op == "ReduceSum")
    y = reduce(K::sum, x, norm);
  else if (op == "ReduceMax")
    y = reduce(K::max, x, norm);
  else if (op == "ReduceMin")
    y = reduce(K::min, x, norm);
  else if (op == "ReduceProd")
    y = reduce(K::prod, x, norm);
  else if (op == "ReduceSumSquare")
    y = reduce(K::sum, create("dlc.mul", {x, x}, tx), norm);
  else if (op == "ReduceL1")
    y = reduce(K::sum, unary("dlc.abs", x), norm);
  else if (op == "ReduceL2")
    y = unary("dlc.sqrt", reduce(K::sum, create("dlc.mul", {x, x}, tx), norm));
  else if (op == "ReduceLogSum")
    y = unary("dlc.log", reduce(K::sum, x, norm));
  else {
    // log(sum(exp(x - max))) + max: no overflow.
    Value m = reduce(K::max, x, norm);
    auto d = binary("dlc.sub", x, m);
    if (failed(d))
      return failure();
    Value s = unary("dlc.log", reduce(K::sum, unary("dlc.exp", *d), norm));
    y = create("dlc.add", {s, m}, s.getType());
  }
  if (!attrInt("keepdims", 1)) {
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(norm, d))
        shape.push_back(tx.getDimSize(d));
    y = reshape(y, shape);
  }
  setOut(0, y);
  return success();
}

LogicalResult Importer::convertArgExtreme(bool isMax) {
  auto tx = inType(0);
  auto a = axis(attrInt("axis", 0), tx.getRank());
  if (failed(a))
    return failure();
  Value x = in(0);
  int64_t d = tx.getDimSize(*a);
  bool last = attrInt("select_last_index", 0);
  if (last) {
    // The last extreme is the first one of the reversed axis.
    if (failed(checkLiteral({d}, rt::DType::I64, "the index table")))
      return failure();
    rt::HostTensor idx(rt::DType::I64, {d});
    for (int64_t i = 0; i < d; ++i)
      litSetInt(idx, i, d - 1 - i);
    x = create("dlc.gather", {x, constant(idx)}, tx,
               {b.getNamedAttr("axis", b.getI64IntegerAttr(*a))});
  }
  if (!isMax) {
    if (!isa<FloatType>(tx.getElementType()) &&
        !tx.getElementType().isInteger(32) &&
        !tx.getElementType().isInteger(64))
      return unsupported("ArgMin needs a numeric input");
    x = unary("dlc.neg", x);
  }
  SmallVector<int64_t> shape(tx.getShape());
  shape[*a] = 1;
  Value y = create("dlc.argmax", x, tensorType(shape, b.getI64Type()),
                   {b.getNamedAttr("axis", b.getI64IntegerAttr(*a))});
  if (last) {
    auto t = cast<RankedTensorType>(y.getType());
    y = create("dlc.sub", {splat(d - 1, b.getI64Type(), t.getRank()), y}, t);
  }
  if (!attrInt("keepdims", 1)) {
    shape.erase(shape.begin() + *a);
    y = reshape(y, shape);
  }
  setOut(0, y);
  return success();
}

LogicalResult Importer::convertSoftmax(bool log) {
  auto tx = inType(0);
  if (!isa<FloatType>(tx.getElementType()))
    return unsupported("Softmax needs a float input");
  auto a = axis(attrInt("axis", -1), tx.getRank());
  if (failed(a))
    return failure();
  using K = dlcir::ReduceKind;
  Value x = in(0);
  Value m = reduce(K::max, x, {*a});
  auto d = binary("dlc.sub", x, m);
  if (failed(d))
    return failure();
  Value e = unary("dlc.exp", *d);
  Value s = reduce(K::sum, e, {*a});
  FailureOr<Value> y = log ? binary("dlc.sub", *d, unary("dlc.log", s))
                           : binary("dlc.div", e, s);
  if (failed(y))
    return failure();
  setOut(0, *y);
  return success();
}

LogicalResult Importer::convertLayerNorm() {
  auto tx = inType(0);
  Type elem = tx.getElementType();
  if (!isa<FloatType>(elem))
    return unsupported("LayerNormalization needs a float input");
  int64_t rank = tx.getRank();
  auto a = axis(attrInt("axis", -1), rank);
  if (failed(a))
    return failure();
  double eps = attrFloat("epsilon", 1e-5);
  SmallVector<int64_t> axes;
  int64_t count = 1;
  for (int64_t d = *a; d < rank; ++d) {
    axes.push_back(d);
    count *= tx.getDimSize(d);
  }
  using K = dlcir::ReduceKind;
  Value x = in(0);
  Value mean = scale(reduce(K::sum, x, axes), 1.0 / count);
  auto d = binary("dlc.sub", x, mean);
  if (failed(d))
    return failure();
  Value var =
      scale(reduce(K::sum, create("dlc.mul", {*d, *d}, tx), axes), 1.0 / count);
  Value inv = unary("dlc.rsqrt", addScalar(var, eps));
  auto y = binary("dlc.mul", *d, inv);
  if (failed(y))
    return failure();
  if (has(1)) {
    y = binary("dlc.mul", *y, in(1));
    if (failed(y))
      return failure();
  }
  if (has(2)) {
    y = binary("dlc.add", *y, in(2));
    if (failed(y))
      return failure();
  }
  setOut(0, *y);
  setOut(1, mean);
  setOut(2, inv);
  return success();
}

LogicalResult Importer::convertResize() {
  auto tx = inType(0);
  int64_t rank = tx.getRank();
  std::string mode = attrStr("mode", "nearest");
  std::string coord = attrStr("coordinate_transformation_mode", "half_pixel");
  std::string nearest = attrStr("nearest_mode", "round_prefer_floor");
  if (mode != "nearest" && mode != "linear")
    return unsupported("Resize mode '" + mode +
                       "' is not supported (nearest "
                       "and linear only)");
  if (coord != "half_pixel" && coord != "asymmetric" &&
      coord != "align_corners" && coord != "pytorch_half_pixel")
    return unsupported("coordinate_transformation_mode '" + coord +
                       "' is not supported");
  if (attrInt("exclude_outside", 0))
    return unsupported("exclude_outside=1 is not supported");
  SmallVector<int64_t> shape;
  if (has(3) && inType(3).getNumElements() > 0) {
    auto v = constInts(3, "sizes");
    if (failed(v))
      return failure();
    shape.assign(v->begin(), v->end());
  } else if (has(2) && inType(2).getNumElements() > 0) {
    const rt::HostTensor *l = lit(2);
    if (!l)
      return unsupported("the scales input must be a constant");
    for (int64_t d = 0; d < rank && d < l->numElements(); ++d) {
      double s = litDouble(*l, d);
      if (!(s > 0) || !std::isfinite(s) || tx.getDimSize(d) == 0)
        return unsupported("scale " + Twine(std::to_string(s)) +
                           " of dimension " + Twine(d) +
                           " must be positive and finite, of a non-empty "
                           "dimension");
      double scaled = std::floor(tx.getDimSize(d) * s);
      if (scaled > (double)mlir::dlc::kMaxTensorBytes)
        return unsupported("scale " + Twine(std::to_string(s)) +
                           " of dimension " + Twine(d) +
                           " gives a size larger than 2^40");
      int64_t o = (int64_t)scaled;
      // dlc.resize scales by out/in: a scale that floors to another ratio
      // would sample elsewhere.
      if (std::fabs((double)o / tx.getDimSize(d) - s) > 1e-6 * s)
        return unsupported("scale " + Twine(std::to_string(s)) +
                           " of dimension " + Twine(d) +
                           " is not output/input size (" + Twine(o) + "/" +
                           Twine(tx.getDimSize(d)) + "); give sizes instead");
      shape.push_back(o);
    }
  } else {
    return unsupported("Resize needs scales or sizes");
  }
  if ((int64_t)shape.size() != rank)
    return unsupported("scales/sizes must have one entry per dimension");
  if (failed(checkType(shape, tx.getElementType(), "the output")))
    return failure();
  if (llvm::is_contained(shape, 0))
    return unsupported("the output would be empty");
  setOut(0, create("dlc.resize", in(0), tensorType(shape, tx.getElementType()),
                   {b.getNamedAttr("mode", b.getStringAttr(mode)),
                    b.getNamedAttr("coordinate_mode", b.getStringAttr(coord)),
                    b.getNamedAttr("nearest_mode", b.getStringAttr(nearest))}));
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

bool parseOnnxInputShape(llvm::StringRef spec, OnnxImportOptions &options,
                         std::string &error) {
  auto [name, dims] = spec.rsplit('=');
  if (name.empty() || !spec.contains('=')) {
    error = "--input-shape expects NAME=DxDx... (e.g. input=1x3x224x224), "
            "got '" +
            spec.str() + "'";
    return false;
  }
  std::vector<int64_t> shape;
  if (!dims.empty()) {
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    for (StringRef p : parts) {
      int64_t d;
      if (p.trim().getAsInteger(10, d) || d < 0) {
        error = "--input-shape: '" + p.str() + "' in '" + spec.str() +
                "' is not a size";
        return false;
      }
      shape.push_back(d);
    }
  }
  options.inputShapes[name.str()] = shape;
  return true;
}

bool isOnnxModelFile(const std::string &path) {
  StringRef p(path);
  if (p.ends_with(".onnx"))
    return true;
  if (p.ends_with(".mlir") || p.ends_with(".dlcpkg"))
    return false;
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer || (*buffer)->getBufferSize() == 0)
    return false;
  // A ModelProto starts with field 1 (ir_version, varint): byte 0x08.
  if ((unsigned char)(*buffer)->getBufferStart()[0] != 0x08)
    return false;
  onnx::ModelProto model;
  return model.ParseFromArray((*buffer)->getBufferStart(),
                              (int)(*buffer)->getBufferSize()) &&
         model.has_graph();
}

OwningOpRef<ModuleOp> importOnnxBuffer(StringRef bytes, StringRef name,
                                       StringRef baseDir, MLIRContext &context,
                                       const OnnxImportOptions &options) {
  Location loc = FileLineColLoc::get(&context, name, 0, 0);
  onnx::ModelProto model;
  if (bytes.size() > (size_t)std::numeric_limits<int>::max()) {
    emitError(loc) << "the ONNX file is larger than 2 GiB; store its weights "
                      "as external data";
    return nullptr;
  }
  if (!model.ParseFromArray(bytes.data(), (int)bytes.size())) {
    emitError(loc) << "cannot parse the file as an ONNX model (not ONNX, or "
                      "truncated or corrupt)";
    return nullptr;
  }
  if (!model.has_graph()) {
    emitError(loc) << "the ONNX model has no graph";
    return nullptr;
  }
  Importer importer(context, model, name, baseDir, options);
  return importer.run();
}

OwningOpRef<ModuleOp> importOnnxFile(const std::string &path,
                                     MLIRContext &context,
                                     const OnnxImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    emitError(FileLineColLoc::get(&context, path, 0, 0))
        << "cannot read '" << path << "': " << buffer.getError().message();
    return nullptr;
  }
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  return importOnnxBuffer((*buffer)->getBuffer(), path, dir, context, options);
}

rt::Result<rt::HostTensor> readTensorProtoFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return rt::Status::error("cannot read '" + path +
                             "': " + buffer.getError().message());
  onnx::TensorProto proto;
  if (!proto.ParseFromArray((*buffer)->getBufferStart(),
                            (int)(*buffer)->getBufferSize()))
    return rt::Status::error("'" + path + "' is not an ONNX TensorProto");
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  auto t = decodeTensor(proto, dir);
  if (!t)
    return rt::Status::error("'" + path + "': " + t.message());
  return t;
}

} // namespace dlc
