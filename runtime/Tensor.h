//===- Tensor.h - Host tensors, element types and .npy files ------*- C++
//-*-===//
#ifndef DLC_RUNTIME_TENSOR_H
#define DLC_RUNTIME_TENSOR_H

#include "runtime/Status.h"

#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace dlc::rt {

/// Element types of dlc tensors. i1 is stored as one byte (0 or 1).
/// F8E4M3 is OCP's FP8 E4M3 (MLIR's f8E4M3FN, CUDA's __nv_fp8_e4m3): 4
/// exponent bits (bias 7), 3 mantissa bits, no infinities, largest finite
/// value 448, NaN 0x7f/0xff.
enum class DType : uint8_t {
  F32 = 0,
  F16 = 1,
  BF16 = 2,
  I32 = 3,
  I64 = 4,
  I1 = 5,
  F8E4M3 = 6
};
/// The last valid DType: a stored byte above it is not an element type.
constexpr DType kLastDType = DType::F8E4M3;

/// Bytes per element.
size_t dtypeSize(DType type);
/// "f32", "f16", "bf16", "i32", "i64", "i1", "f8e4m3".
const char *dtypeName(DType type);
/// Parses a name given by dtypeName.
bool parseDType(const std::string &name, DType &type);

/// Thrown by the HostTensor constructor when the tensor cannot be
/// allocated: a std::bad_alloc (code that handles allocation failures
/// handles it) whose what() names the tensor and its size.
class HostAllocationError : public std::bad_alloc {
public:
  explicit HostAllocationError(std::string message)
      : message_(std::move(message)) {}
  const char *what() const noexcept override { return message_.c_str(); }

private:
  std::string message_;
};

/// A dense row-major tensor in host memory.
struct HostTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  HostTensor() = default;
  /// A zeroed tensor; throws HostAllocationError when its byte size does
  /// not fit in 64 bits or in host memory, or the allocation fails.
  HostTensor(DType dtype, std::vector<int64_t> shape);
  /// The same, as an error naming `what` ("output #0") instead of an
  /// exception: for tensors whose shape comes from a package or a file.
  static Result<HostTensor> allocate(DType dtype, std::vector<int64_t> shape,
                                     const std::string &what);
  /// The element count (saturated at INT64_MAX, 0 for a negative
  /// dimension; never wrapped).
  int64_t numElements() const;
  size_t byteSize() const { return data.size(); }
  /// Element `i` converted to double (f16/bf16 decoded exactly).
  double getAsDouble(int64_t i) const;
  /// Stores `v` at element `i`, rounding to nearest even for f16/bf16.
  void setFromDouble(int64_t i, double v);
};

/// "f32[2, 3]".
std::string describe(DType dtype, const std::vector<int64_t> &shape);

/// IEEE half and bfloat16 conversions with round-to-nearest-even.
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);
uint16_t floatToBFloat16(float f);
float bfloat16ToFloat(uint16_t h);
/// E4M3 conversions: to nearest even, saturating to +-448 (infinities
/// too, as CUDA's __NV_SATFINITE), NaN to 0x7f.
double roundToE4M3(double v);
uint8_t floatToE4M3(double v);
float e4m3ToFloat(uint8_t x);

/// Reads a NumPy .npy file (format versions 1-3, little-endian, C order).
/// f4, f2, i4, i8, b1/u1 map to f32, f16, i32, i64, i1; bf16 is stored by
/// dlc as '<V2' with a `bfloat16` note in the header and read back the same.
/// f8e4m3 likewise as '|V1' (ml_dtypes' float8_e4m3fn as numpy sees it).
Result<HostTensor> readNpy(const std::string &path);
/// Writes a .npy file numpy.load reads.
Status writeNpy(const std::string &path, const HostTensor &tensor);
/// The same from and to bytes in memory (an .npz member); `name` is what
/// errors call them.
Result<HostTensor> parseNpy(const uint8_t *data, uint64_t size,
                            const std::string &name);
Result<std::vector<uint8_t>> encodeNpy(const HostTensor &tensor,
                                       const std::string &name);

/// Relative error by norm: ||a - ref|| / max(||ref||, tiny).
double relativeError(const HostTensor &a, const HostTensor &ref);

} // namespace dlc::rt

#endif // DLC_RUNTIME_TENSOR_H
