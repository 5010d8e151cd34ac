//===- Importer.h - The ONNX importer's internal interface -----*- C++ -*-===//
//
// Shared by the files of frontend/onnx/ only (OnnxImporter.h is the public
// API and exposes no protobuf types): host literals and checked sizes, the
// Importer that walks the graph and gives each op handler its node's inputs,
// attributes and builders, and the registry of handlers by op name and
// opset. Handlers live in one file per op family and register themselves
// with OpRegistry::onOp.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_FRONTEND_ONNX_IMPORTER_H
#define DLC_FRONTEND_ONNX_IMPORTER_H

#include "frontend/onnx/OnnxImporter.h"
#include "ir/Dialect.h"
#include "ir/ElementType.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

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

#include <functional>
#include <memory>
#include <optional>

namespace dlc::onnximport {

using mlir::ArrayRef;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::StringRef;
using mlir::Twine;
using mlir::Type;
using mlir::Value;
namespace dlcir = ::mlir::dlc;

//===----------------------------------------------------------------------===//
// Element types, sizes and literals (Literals.cpp)
//===----------------------------------------------------------------------===//

/// A known value: a host tensor, shared by the values that alias it.
using Lit = std::shared_ptr<const rt::HostTensor>;

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
/// The first default-domain opset dlc imports: every handler applies from it
/// on unless it is registered for a later one.
constexpr int64_t kMinOpset = 13;

/// The dlc element type of an ONNX TensorProto data type.
std::optional<rt::DType> dtypeOfOnnx(int32_t t);
/// The ONNX name of a TensorProto data type ("float", "int64", ...).
const char *onnxTypeName(int32_t t);
/// The MLIR element type of a runtime dtype, and back (nullopt for a type
/// dlc has no dtype for).

/// The element count of a shape (unchecked).
int64_t product(ArrayRef<int64_t> shape);

// Every shape, size, count and index in an ONNX file is untrusted: sizes go
// through checkShape before a tensor type or a host tensor is built from them,
// and arithmetic on them goes through the checked helpers below, so that a
// corrupt model gets a diagnostic, never an overflow or a huge allocation.

std::optional<int64_t> checkedAdd(int64_t a, int64_t b);
std::optional<int64_t> checkedMul(int64_t a, int64_t b);
/// The element count of a shape whose dimensions are non-negative, or
/// nullopt if one is negative or the count overflows int64.
std::optional<int64_t> checkedProduct(ArrayRef<int64_t> shape);
/// Checks a shape read from or computed from the model: rank at most
/// kMaxRank, every dimension >= 0, the byte size (zero extents counted as 1,
/// as dlc's strides do) within kMaxTensorBytes, and, when `maxElements` >= 0,
/// at most that many elements. Returns what is wrong, or an empty string:
/// "has shape [...], with a negative dimension" and the like, to follow the
/// name of the tensor.
std::string checkShape(ArrayRef<int64_t> shape, int64_t elemBytes,
                       int64_t maxElements = -1);
/// A double converted to int64, saturating (NaN is 0): plain conversion of
/// an out-of-range double is undefined behavior.
int64_t saturatingInt(double d);
/// Two's complement (wrapping) int64 arithmetic for folded integer ops, as
/// the device computes them.
int64_t wrapAdd(int64_t a, int64_t b);
int64_t wrapSub(int64_t a, int64_t b);
int64_t wrapMul(int64_t a, int64_t b);

/// Integer element `i` of a literal (floats truncated).
int64_t litInt(const rt::HostTensor &t, int64_t i);
double litDouble(const rt::HostTensor &t, int64_t i);
void litSetInt(rt::HostTensor &t, int64_t i, int64_t v);
/// Stores `v` in element `i`; integer elements truncate toward zero, as ONNX
/// Cast does.
void litSetDouble(rt::HostTensor &t, int64_t i, double v);
std::vector<int64_t> litInts(const rt::HostTensor &t);
Lit makeLit(rt::HostTensor t);
Lit intLit(ArrayRef<int64_t> values, std::vector<int64_t> shape,
           rt::DType d = rt::DType::I64);

/// Numpy broadcast of several shapes, or nullopt.
std::optional<std::vector<int64_t>>
numpyBroadcast(ArrayRef<ArrayRef<int64_t>> shapes);
/// Elementwise evaluation of literals with numpy broadcasting (also to
/// `extraShape`): in integer arithmetic when every input is an integer or
/// bool tensor, else in double. Null when the result is too big to fold.
Lit foldMap(ArrayRef<const rt::HostTensor *> ins, rt::DType outType,
            ArrayRef<int64_t> extraShape,
            const std::function<int64_t(ArrayRef<int64_t>)> &fi,
            const std::function<double(ArrayRef<double>)> &fd);

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
                                   ArrayRef<int64_t> steps, std::string &err);

/// Decodes `proto` into a host tensor; `baseDir` locates external data,
/// whose file is added to `externalFiles` (when given) before it is read.
/// External data must be a regular file whose real path (links followed)
/// lies inside baseDir's, which messages call `folder`.
rt::Result<rt::HostTensor>
decodeTensor(const onnx::TensorProto &proto, StringRef baseDir,
             std::vector<std::string> *externalFiles = nullptr,
             StringRef folder = "the model's folder");

//===----------------------------------------------------------------------===//
// The importer (Importer.cpp)
//===----------------------------------------------------------------------===//

struct OpRegistryEntry;

/// Imports one model: one pass over the graph's nodes in their (topological)
/// order. Every ONNX value is an Entry: an MLIR value, a known constant (a
/// "literal": a host tensor), or both. For each node the importer looks up
/// the op's handler, fills `ins` and `outs`, and the handler reads inputs and
/// attributes through it, builds dlc ops with its builders and sets outputs.
class Importer {
public:
  Importer(mlir::MLIRContext &context, onnx::ModelProto &model, StringRef name,
           StringRef baseDir, const OnnxImportOptions &options)
      : ctx(&context), b(&context),
        loc(mlir::FileLineColLoc::get(&context, name, 0, 0)), model(model),
        fileName(name.str()), baseDir(baseDir.str()), options(options) {}

  mlir::OwningOpRef<mlir::ModuleOp> run();

  struct Entry {
    Value value;
    Lit lit;
    /// The initializer's name: the key of its resource blob.
    std::string name;
  };

  mlir::MLIRContext *ctx;
  mlir::OpBuilder b;
  /// The current node's location (the file's before and after the nodes).
  mlir::Location loc;
  /// The model's default-domain opset.
  int64_t opset = 0;
  /// Dropouts imported so far: each gets its own random stream.
  int64_t dropoutStreams = 0;

  //===--------------------------------------------------------------------===//
  // The node being converted
  //===--------------------------------------------------------------------===//

  const onnx::NodeProto *node = nullptr;
  std::string nodeName, opType;
  /// The node's inputs, null for an omitted optional one.
  llvm::SmallVector<Entry *> ins;
  llvm::SmallVector<Entry> outs;

  // Diagnostics, located at the node.
  mlir::InFlightDiagnostic nodeError() {
    return emitError(loc) << "ONNX node '" << nodeName << "' (" << opType
                          << "): ";
  }
  LogicalResult unsupported(const Twine &why) { return nodeError() << why; }

  /// Checks a shape computed from the model before a tensor type of it is
  /// built (see checkShape); `what` names it in the diagnostic.
  LogicalResult checkType(ArrayRef<int64_t> shape, Type elem,
                          const Twine &what);
  /// Checks the shape of a tensor the importer is about to materialize on
  /// the host: also at most kMaxLiteralElements elements.
  LogicalResult checkLiteral(ArrayRef<int64_t> shape, rt::DType dtype,
                             const Twine &what);
  /// The byte size of an element type (8 for one dlc has no dtype for).

  // Attributes of the current node.
  const onnx::AttributeProto *attr(StringRef name) const;
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

  // Inputs and outputs.
  bool has(unsigned i) const { return i < ins.size() && ins[i]; }
  mlir::RankedTensorType typeOf(const Entry &e) {
    if (e.value)
      return mlir::cast<mlir::RankedTensorType>(e.value.getType());
    return mlir::RankedTensorType::get(e.lit->shape,
                                       dlcir::elementTypeOf(ctx, e.lit->dtype));
  }
  mlir::RankedTensorType inType(unsigned i) { return typeOf(*ins[i]); }
  ArrayRef<int64_t> inShape(unsigned i) { return inType(i).getShape(); }
  /// Input `i` as an MLIR value: a literal becomes a dlc.constant here.
  Value in(unsigned i) { return valueOf(*ins[i]); }
  const rt::HostTensor *lit(unsigned i) {
    return has(i) ? ins[i]->lit.get() : nullptr;
  }
  /// The integers of a constant input, or an error naming the input.
  FailureOr<std::vector<int64_t>> constInts(unsigned i, StringRef what);
  /// The integers of constant input `i`, or when it is absent those of the
  /// attribute `name` (the form older opsets give), or none.
  FailureOr<std::vector<int64_t>> intsInputOrAttr(unsigned i, StringRef name);
  Value valueOf(Entry &e);
  /// Whether a handler may compute with the values of float initializers
  /// at import (not when they are parameters to train).
  bool foldsWeights() const { return !options.markParameters; }
  /// Whether PyTorch exported the model (its producer_name), whose
  /// semantics it was trained with where they differ from ONNX's.
  bool fromPyTorch() const { return model.producer_name() == "pytorch"; }
  /// When training: input `i`, an initializer, is a buffer of the model
  /// (state a training step updates but does not train: a running
  /// statistic), not a parameter, and `next` its value after the step (a
  /// result of the function, `dlc.buffer_update`).
  LogicalResult markBuffer(unsigned i, Value next);
  void setOut(unsigned i, Value v) {
    if (i < outs.size())
      outs[i].value = v;
  }
  void setOutLit(unsigned i, Lit l) {
    if (i < outs.size())
      outs[i].lit = std::move(l);
  }
  /// A TensorProto of an attribute, decoded (its external data relative to
  /// the model).
  rt::Result<rt::HostTensor> decode(const onnx::TensorProto &proto);

  //===--------------------------------------------------------------------===//
  // Builders
  //===--------------------------------------------------------------------===//

  mlir::RankedTensorType tensorType(ArrayRef<int64_t> shape, Type elem) {
    return mlir::RankedTensorType::get(shape, elem);
  }
  /// Builds a dlc op at the node's location and returns its result. The
  /// last line of defense for shapes computed from the model: every op the
  /// importer builds passes here, and a result type out of dlc's limits is
  /// reported for the node.
  template <typename OpT, typename... Args> Value create(Args &&...args) {
    auto op = b.create<OpT>(loc, std::forward<Args>(args)...);
    Value result = op->getResult(0);
    checkResultType(result.getType(), OpT::getOperationName());
    return result;
  }
  Value constant(const rt::HostTensor &t);
  /// The same for a literal `lit`: a weight's resource blob shares (and
  /// keeps alive) the literal's storage instead of copying it.
  Value constant(const Lit &lit);
  /// A constant whose resource blob is named after `nameHint` (a weight the
  /// importer rewrote) instead of the node.
  Value constant(const rt::HostTensor &t, StringRef nameHint);
  /// A splat dlc.constant of any shape: nothing is materialized.
  Value splatConstant(ArrayRef<int64_t> shape, Type elem, double v);
  /// A splat of rank `rank` with every dimension 1 (broadcast by its user).
  Value splat(double v, Type elem, int64_t rank);
  Value reshape(Value v, ArrayRef<int64_t> shape);
  /// `v` with its dimensions permuted by `perm` (itself where that is the
  /// identity).
  Value transpose(Value v, ArrayRef<int64_t> perm);
  /// The node's `perm` attribute for a tensor of rank `rank` (negative
  /// entries counted from the end; absent: the dimensions reversed), or
  /// nothing when it is not a permutation of the dimensions.
  std::optional<llvm::SmallVector<int64_t>> transposePerm(int64_t rank);
  /// `v` with leading dimensions of size 1 up to `rank`.
  Value toRank(Value v, int64_t rank);
  template <typename OpT> Value unary(Value v) {
    return create<OpT>(v.getType(), v);
  }
  /// An elementwise binary op with numpy broadcasting of its operands.
  template <typename OpT> FailureOr<Value> binary(Value x, Value y) {
    auto shape = broadcastShape(x, y);
    if (failed(shape))
      return mlir::failure();
    int64_t r = shape->size();
    Value lhs = toRank(x, r);
    Value rhs = toRank(y, r);
    return create<OpT>(tensorType(*shape, elementType(x)), lhs, rhs);
  }
  FailureOr<Value> cmp(dlcir::CmpPredicate pred, Value x, Value y);
  FailureOr<Value> select(Value c, Value x, Value y);
  Value castTo(Value v, Type elem);
  Value reduce(dlcir::ReduceKind kind, Value v, ArrayRef<int64_t> axes);
  Value scale(Value v, double s);
  Value addScalar(Value v, double s);
  Value clamp(Value v, double lo, double hi);
  Value slice(Value v, ArrayRef<int64_t> start, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> strides = {});
  /// Normalizes a possibly negative axis against `rank`.
  FailureOr<int64_t> axis(int64_t a, int64_t rank) {
    if (a < -rank || a >= rank)
      return unsupported("axis " + Twine(a) + " is out of range for rank " +
                         Twine(rank));
    return a < 0 ? a + rank : a;
  }

  //===--------------------------------------------------------------------===//
  // The graph around the node
  //===--------------------------------------------------------------------===//

  /// Whether a node or a graph output uses the value named `value`.
  bool isUsed(StringRef value) const { return useCount.lookup(value) != 0; }
  /// Whether the Conv node's output feeds only a foldable inference
  /// BatchNormalization; returns that node.
  const onnx::NodeProto *foldableBatchNorm(const onnx::NodeProto &conv);
  /// The literal of the value named `value` (null when it has none).
  Lit literalNamed(StringRef value) const;
  /// Marks a later node as converted by the current one, which computed its
  /// first output `output` (a BatchNormalization folded into a Conv).
  void absorb(const onnx::NodeProto &later, Value output);

private:
  /// constant()'s work; `owner`, when given, is the literal `t` is (its
  /// storage is shared with a weight's blob).
  Value constantOf(const rt::HostTensor &t, const Lit &owner);
  LogicalResult checkOpsets();
  LogicalResult checkNames();
  LogicalResult addInputs(llvm::SmallVectorImpl<Type> &types,
                          llvm::SmallVectorImpl<std::string> &names);
  LogicalResult convertNode(int index);
  bool tryFold(const OpRegistryEntry &entry);
  LogicalResult dispatch(const OpRegistryEntry *entry);
  void checkResultType(Type result, StringRef opName);
  Type elementType(Value v) {
    return mlir::cast<mlir::RankedTensorType>(v.getType()).getElementType();
  }
  /// The broadcast shape of a binary op's operands, or an error.
  FailureOr<llvm::SmallVector<int64_t>> broadcastShape(Value x, Value y);

  /// Mutable: run() releases each initializer's data once decoded.
  onnx::ModelProto &model;
  std::string fileName, baseDir;
  const OnnxImportOptions &options;
  /// The constant of each parameter (markParameters), by initializer name,
  /// with the literal it holds.
  llvm::StringMap<std::pair<const rt::HostTensor *, Value>> parameters;
  /// The new value of each buffer (markBuffer), by initializer name, in
  /// order.
  llvm::SmallVector<std::pair<std::string, Value>> bufferUpdates;

  llvm::StringMap<Entry> env;
  /// Number of uses of each value by nodes and graph outputs.
  llvm::StringMap<int> useCount;
  /// The nodes that use each value.
  llvm::StringMap<llvm::SmallVector<int>> consumers;
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
};

//===----------------------------------------------------------------------===//
// Op handlers by name and opset (Importer.cpp; handlers by family)
//===----------------------------------------------------------------------===//

/// Converts the importer's current node: reads its inputs and attributes,
/// builds dlc ops, sets its outputs; reports errors at the node.
using OpHandler = std::function<LogicalResult(Importer &)>;
/// Evaluates the current node at import time when all its inputs are
/// literals (given in input order, null for an omitted one); returns null
/// when it cannot, and the handler converts the node.
using OpFolder =
    std::function<Lit(Importer &, ArrayRef<const rt::HostTensor *>)>;

/// What the importer does for one op from one opset on.
struct OpRegistryEntry {
  int64_t sinceOpset = 0;
  /// Null for an op dlc imports only when it folds.
  OpHandler convert;
  OpFolder fold;
  /// Inputs 0 to requiredInputs-1 must be present (optional ones are
  /// checked where the handler reads them).
  unsigned requiredInputs = 1;
};

/// The ops dlc imports, the one list of them: lookup picks, for a model's
/// opset, the entry with the largest sinceOpset at or below it.
class OpRegistry {
public:
  /// Registers `handler` for the default-domain op `name` from opset
  /// `sinceOpset` on; it reads inputs 0 to requiredInputs-1 unchecked.
  void onOp(StringRef name, int64_t sinceOpset, OpHandler handler,
            unsigned requiredInputs = 1);
  /// Registers an import-time fold of `name` from opset `sinceOpset` on,
  /// tried before the handler.
  void onFold(StringRef name, int64_t sinceOpset, OpFolder folder);

  const OpRegistryEntry *lookup(StringRef name, int64_t opset) const;

  /// The default domain's handlers, registered once.
  static const OpRegistry &defaultDomain();

private:
  OpRegistryEntry &version(StringRef name, int64_t sinceOpset);

  llvm::StringMap<llvm::SmallVector<OpRegistryEntry, 1>> ops;
};

// The op families, one file each.
void registerShapeFolding(OpRegistry &registry);
void registerElementwiseOps(OpRegistry &registry);
void registerNNOps(OpRegistry &registry);
void registerReduceOps(OpRegistry &registry);
void registerDataMovementOps(OpRegistry &registry);

} // namespace dlc::onnximport

#endif // DLC_FRONTEND_ONNX_IMPORTER_H
