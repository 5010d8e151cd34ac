//===- Generator.h - Random well-typed dlc/TOSA programs ----------*- C++
//-*-===//
//
// The program generator of dlc-fuzz. A seed determines a program completely:
// the random numbers come from std::mt19937_64 (whose output sequence the C++
// standard fixes) through distributions implemented here, so a seed names the
// same program on every platform and standard library.
//
// Programs are kept as a small graph (Program) rather than as text so that
// the shrinker can remove operations and re-print; the printer renders each
// operation either as a TOSA operation (where TOSA has one) or as a dlc
// operation.
//
// Every value carries an interval that bounds its elements and a flag saying
// whether the device computes it bit-exactly like the reference interpreter.
// The generator uses the intervals to keep log/rsqrt/sqrt/reciprocal/pow/div
// inputs away from zero and growth bounded (no NaN or Inf in the reference),
// and the exactness flag to apply discontinuous operations (comparisons,
// float-to-integer casts, argmax) only where device and reference see the
// same numbers, so that their results can be compared exactly.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TOOLS_FUZZ_GENERATOR_H
#define DLC_TOOLS_FUZZ_GENERATOR_H

#include "runtime/Tensor.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace dlc::fuzz {

/// Uniform random numbers from std::mt19937_64 with distributions written
/// out here (the standard library's distributions differ between
/// implementations).
class Rng {
public:
  explicit Rng(uint64_t seed) : engine(seed) {}
  uint64_t next() { return engine(); }
  /// Uniform in [lo, hi] (inclusive), without modulo bias.
  int64_t range(int64_t lo, int64_t hi);
  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return double(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }
  /// An index drawn with probability proportional to `weights[i]`.
  size_t weighted(const std::vector<double> &weights);
  template <typename T> const T &pick(const std::vector<T> &items) {
    return items[range(0, int64_t(items.size()) - 1)];
  }

private:
  std::mt19937_64 engine;
};

using Shape = std::vector<int64_t>;

struct TensorType {
  rt::DType dtype = rt::DType::F32;
  Shape shape;
  int64_t numElements() const;
  bool operator==(const TensorType &o) const {
    return dtype == o.dtype && shape == o.shape;
  }
};

enum class OpKind {
  Constant,
  Unary,
  Not,
  Clamp,
  Binary,
  Cmp,
  Select,
  Cast,
  Reduce,
  ArgMax,
  Matmul,
  Transpose,
  Reshape,
  Slice,
  Concat,
  Pad,
  Tile,
  /// dlc.conv2d (sub 0) or dlc.conv_transpose2d (sub 1); operand 1 is the
  /// filter.
  Conv,
  /// dlc.pool2d: sub 0 max, 1 avg.
  Pool,
  /// dlc.gather; operand 1 is the indices.
  Gather,
  Resize,
  /// dlc.dropout: operand 1 is the offset; `value` the ratio, `ints` the
  /// seed and the stream.
  Dropout,
};

enum class UnaryKind {
  Exp,
  Log,
  Tanh,
  Sigmoid,
  Erf,
  Rsqrt,
  Sqrt,
  Reciprocal,
  Abs,
  Neg
};
enum class BinaryKind { Add, Sub, Mul, Div, Max, Min, Pow, And, Or };
enum class CmpKind { Eq, Ne, Lt, Le, Gt, Ge };
enum class ReduceKind { Sum, Max, Min, Prod };

/// A value of the program: a function argument or an operation's result.
struct Value {
  TensorType type;
  /// Every element lies in [lo, hi] (booleans: [0, 1]).
  double lo = 0, hi = 0;
  /// Whether the device must compute the value bit-exactly like the
  /// reference interpreter (see the file comment).
  bool exact = false;
};

struct Op {
  OpKind kind = OpKind::Constant;
  /// UnaryKind, BinaryKind, CmpKind or ReduceKind.
  int sub = 0;
  std::vector<int> operands;
  int result = -1;
  /// axes (Reduce), perm (Transpose), start (Slice), low (Pad),
  /// multiples (Tile).
  std::vector<int64_t> ints;
  /// high (Pad).
  std::vector<int64_t> ints2;
  /// axis (ArgMax, Concat).
  int64_t axis = 0;
  /// Clamp bounds; pad value.
  double min = 0, max = 0, value = 0;
  bool transposeA = false, transposeB = false;
  /// Convolution and pooling attributes; `strides` also of a strided Slice
  /// (empty: unit strides).
  std::vector<int64_t> strides, pads, dilations, kernel, outputPadding;
  int64_t groups = 1;
  bool countIncludePad = false;
  /// Resize: mode, coordinate_mode, nearest_mode.
  std::string mode, coordinateMode, nearestMode;
  /// Constant elements, row-major; a single element means a splat.
  std::vector<double> data;
  /// Printed as a TOSA operation (only where tosaForm() allows).
  bool tosa = false;
};

struct Program {
  uint64_t seed = 0;
  std::vector<Value> values;
  /// Function arguments, in order (value ids).
  std::vector<int> inputs;
  /// In definition order.
  std::vector<Op> ops;
  /// Returned values, in order (value ids; may repeat, may be inputs).
  std::vector<int> outputs;
};

struct GeneratorOptions {
  /// The generator aims at a number of operations drawn from [minOps,
  /// maxOps] (helper operations count; dead ones are removed afterwards).
  int minOps = 3, maxOps = 25;
};

/// The program of `seed`.
Program generateProgram(uint64_t seed, const GeneratorOptions &options = {});

/// Whether `op` of `program` can be printed as TOSA.
bool hasTosaForm(const Program &program, const Op &op);

enum class Flavor {
  /// Each operation as the generator chose (TOSA or dlc).
  AsGenerated,
  /// Every operation as dlc: the lowering of the other form must agree.
  DlcOnly,
};

/// MLIR text of a module with `func.func @main`.
std::string printProgram(const Program &program, Flavor flavor);

/// Removes operations whose results no output needs (arguments stay).
void eliminateDeadOps(Program &program);

/// Number of operations (constants included).
size_t countOps(const Program &program);

} // namespace dlc::fuzz

#endif // DLC_TOOLS_FUZZ_GENERATOR_H
