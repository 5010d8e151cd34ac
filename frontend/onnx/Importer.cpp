//===- Importer.cpp - ONNX models to the dlc dialect: the graph walk ------===//
//
// One pass over the graph's nodes in their (topological) order. Every ONNX
// value is an Entry: an MLIR value, a known constant (a "literal": a host
// tensor), or both. Literals come from initializers, Constant nodes and
// nodes whose inputs are all literals and whose op is cheap to evaluate here
// (shape arithmetic, ShapeFolding.cpp): since dlc shapes are static, Shape →
// Gather → Concat → Reshape chains vanish at import. A literal becomes a
// dlc.constant only when an emitted op uses it. Each node goes to the
// handler the OpRegistry has for its op and the model's opset.
//
//===----------------------------------------------------------------------===//
#include "frontend/onnx/Importer.h"
#include "ir/Attributes.h"
#include "runtime/SafeFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <climits>
#include <cstring>
#include <limits>
#include <optional>

using namespace mlir;

namespace dlc::onnximport {

//===----------------------------------------------------------------------===//
// The node's inputs, attributes and diagnostics
//===----------------------------------------------------------------------===//

FailureOr<std::vector<int64_t>> Importer::constInts(unsigned i,
                                                    StringRef what) {
  if (!has(i))
    return unsupported("the " + what + " input is missing");
  if (!ins[i]->lit)
    return unsupported("the " + what +
                       " input must be a constant (dlc "
                       "compiles static shapes)");
  if (dlcir::isFloat(ins[i]->lit->dtype))
    return unsupported("the " + what + " input must be an integer tensor");
  return litInts(*ins[i]->lit);
}

FailureOr<std::vector<int64_t>> Importer::intsInputOrAttr(unsigned i,
                                                          StringRef name) {
  if (has(i))
    return constInts(i, name);
  return attrInts(name).value_or(std::vector<int64_t>());
}

Value Importer::valueOf(Entry &e) {
  if (!e.value) {
    if (!e.name.empty())
      currentConstName = e.name;
    e.value = constant(e.lit);
    currentConstName = nodeName;
    // A float initializer is a parameter to train (once, however often it
    // is used: tied weights stay tied).
    if (options.markParameters && !e.name.empty() &&
        dlcir::isFloat(e.lit->dtype))
      if (auto c = e.value.getDefiningOp<dlcir::ConstantOp>())
        c->setAttr(mlir::dlc::attr::kParam, b.getStringAttr(e.name));
  }
  return e.value;
}

LogicalResult Importer::markBuffer(unsigned i, Value next) {
  Entry &e = *ins[i];
  auto c = valueOf(e).getDefiningOp<dlcir::ConstantOp>();
  if (e.name.empty() || !c || !c->hasAttr(mlir::dlc::attr::kParam))
    return unsupported("the running statistics of training_mode=1 must be "
                       "float initializers");
  for (const auto &[name, value] : bufferUpdates)
    if (name == e.name)
      return unsupported("initializer '" + e.name +
                         "' is the running statistic of two "
                         "BatchNormalizations");
  c->removeAttr(mlir::dlc::attr::kParam);
  c->setAttr(mlir::dlc::attr::kBuffer, b.getStringAttr(e.name));
  bufferUpdates.push_back({e.name, next});
  return success();
}

LogicalResult Importer::checkType(ArrayRef<int64_t> shape, Type elem,
                                  const Twine &what) {
  std::string bad = checkShape(shape, dlcir::elementBytes(elem));
  if (!bad.empty())
    return unsupported(what + " " + bad);
  return success();
}

LogicalResult Importer::checkLiteral(ArrayRef<int64_t> shape, rt::DType dtype,
                                     const Twine &what) {
  std::string bad =
      checkShape(shape, rt::dtypeSize(dtype), kMaxLiteralElements);
  if (!bad.empty())
    return unsupported(what + " " + bad);
  return success();
}

const onnx::AttributeProto *Importer::attr(StringRef name) const {
  for (const auto &a : node->attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

rt::Result<rt::HostTensor> Importer::decode(const onnx::TensorProto &proto) {
  return decodeTensor(proto, baseDir, options.externalDataFiles);
}

void Importer::checkResultType(Type result, StringRef opName) {
  if (auto t = dyn_cast<RankedTensorType>(result); t && badType.empty()) {
    std::string bad =
        checkShape(t.getShape(), dlcir::elementBytes(t.getElementType()));
    if (!bad.empty())
      badType = "the result of " + opName.str() + " " + bad;
  }
}

//===----------------------------------------------------------------------===//
// Builders
//===----------------------------------------------------------------------===//

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
  return constantOf(t, nullptr);
}

Value Importer::constant(const Lit &lit) { return constantOf(*lit, lit); }

Value Importer::constantOf(const rt::HostTensor &t, const Lit &owner) {
  Type elem = dlcir::elementTypeOf(ctx, t.dtype);
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
      Attribute scalar = dlcir::isFloat(t.dtype)
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
    size_t align = std::max<size_t>(es, 8);
    // A literal's storage is shared (the blob keeps it alive) where it is
    // aligned as the blob must be, rather than copied.
    if (owner && reinterpret_cast<uintptr_t>(raw.data()) % align == 0)
      value = DenseResourceElementsAttr::get(
          type, key,
          AsmResourceBlob(
              raw, align, [keep = owner](void *, size_t, size_t) {},
              /*dataIsMutable=*/false));
    else
      value = DenseResourceElementsAttr::get(
          type, key, HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, align));
  }
  return create<dlcir::ConstantOp>(type, value);
}

Value Importer::constant(const rt::HostTensor &t, StringRef nameHint) {
  currentConstName = nameHint.str();
  Value v = constant(t);
  currentConstName = nodeName;
  return v;
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
  return create<dlcir::ConstantOp>(
      type, cast<ElementsAttr>(DenseElementsAttr::get(type, scalar)));
}

Value Importer::reshape(Value v, ArrayRef<int64_t> shape) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getShape() == shape)
    return v;
  return create<dlcir::ReshapeOp>(tensorType(shape, t.getElementType()), v);
}

Value Importer::transpose(Value v, ArrayRef<int64_t> perm) {
  auto t = cast<RankedTensorType>(v.getType());
  if (llvm::equal(perm, llvm::seq<int64_t>(0, t.getRank())))
    return v;
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  return create<dlcir::TransposeOp>(tensorType(shape, t.getElementType()), v,
                                    b.getDenseI64ArrayAttr(perm));
}

std::optional<llvm::SmallVector<int64_t>>
Importer::transposePerm(int64_t rank) {
  SmallVector<int64_t> perm;
  if (auto p = attrInts("perm"))
    perm.assign(p->begin(), p->end());
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  if ((int64_t)perm.size() != rank)
    return std::nullopt;
  SmallVector<bool> seen(rank, false);
  for (int64_t &p : perm) {
    if (p < 0)
      p += rank;
    if (p < 0 || p >= rank || seen[p])
      return std::nullopt;
    seen[p] = true;
  }
  return perm;
}

Value Importer::toRank(Value v, int64_t rank) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getRank() >= rank)
    return v;
  SmallVector<int64_t> shape(rank - t.getRank(), 1);
  llvm::append_range(shape, t.getShape());
  return reshape(v, shape);
}

FailureOr<SmallVector<int64_t>> Importer::broadcastShape(Value x, Value y) {
  auto tx = cast<RankedTensorType>(x.getType());
  auto ty = cast<RankedTensorType>(y.getType());
  if (tx.getElementType() != ty.getElementType())
    return unsupported(
        "operand element types differ: " +
        Twine(rt::dtypeName(*dlcir::dtypeOf(tx.getElementType()))) + " and " +
        rt::dtypeName(*dlcir::dtypeOf(ty.getElementType())));
  auto shape = numpyBroadcast({tx.getShape(), ty.getShape()});
  if (!shape)
    return unsupported("operand shapes " + dlcir::formatShape(tx.getShape()) +
                       " and " + dlcir::formatShape(ty.getShape()) +
                       " do not broadcast");
  return SmallVector<int64_t>(shape->begin(), shape->end());
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
  Value lhs = toRank(x, r);
  Value rhs = toRank(y, r);
  return create<dlcir::CmpOp>(tensorType(*shape, b.getI1Type()),
                              dlcir::CmpPredicateAttr::get(ctx, pred), lhs,
                              rhs);
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
  Value cond = toRank(c, r);
  Value onTrue = toRank(x, r);
  Value onFalse = toRank(y, r);
  return create<dlcir::SelectOp>(tensorType(*shape, tx.getElementType()), cond,
                                 onTrue, onFalse);
}

Value Importer::castTo(Value v, Type elem) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getElementType() == elem)
    return v;
  return create<dlcir::CastOp>(tensorType(t.getShape(), elem), v);
}

Value Importer::reduce(dlcir::ReduceKind kind, Value v,
                       ArrayRef<int64_t> axes) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(t.getShape());
  for (int64_t a : axes)
    shape[a] = 1;
  SmallVector<int64_t> sorted(axes);
  llvm::sort(sorted);
  return create<dlcir::ReduceOp>(tensorType(shape, t.getElementType()),
                                 dlcir::ReduceKindAttr::get(ctx, kind), v,
                                 b.getDenseI64ArrayAttr(sorted));
}

Value Importer::slice(Value v, ArrayRef<int64_t> start, ArrayRef<int64_t> sizes,
                      ArrayRef<int64_t> strides) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getShape() == sizes &&
      llvm::all_of(start, [](int64_t s) { return s == 0; }))
    return v;
  DenseI64ArrayAttr stridesAttr;
  if (llvm::any_of(strides, [](int64_t s) { return s != 1; }))
    stridesAttr = b.getDenseI64ArrayAttr(strides);
  return create<dlcir::SliceOp>(tensorType(sizes, t.getElementType()), v,
                                b.getDenseI64ArrayAttr(start), stridesAttr);
}

Value Importer::scale(Value v, double s) {
  if (s == 1.0)
    return v;
  auto t = cast<RankedTensorType>(v.getType());
  Value factor = splat(s, t.getElementType(), t.getRank());
  return create<dlcir::MulOp>(t, v, factor);
}

Value Importer::addScalar(Value v, double s) {
  auto t = cast<RankedTensorType>(v.getType());
  Value term = splat(s, t.getElementType(), t.getRank());
  return create<dlcir::AddOp>(t, v, term);
}

Value Importer::clamp(Value v, double lo, double hi) {
  return create<dlcir::ClampOp>(v.getType(), v, b.getF64FloatAttr(lo),
                                b.getF64FloatAttr(hi));
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
    types.push_back(tensorType(shape, dlcir::elementTypeOf(ctx, *dtype)));
    names.push_back(input.name());
  }
  return success();
}

/// Every name in the graph is defined once: initializers and graph inputs
/// each have distinct names, and a node output names no initializer, graph
/// input or other node output (ONNX's SSA rule). A graph input that names an
/// initializer is the one exception ONNX allows (IR < 4: the initializer is
/// the input's default value); dlc imports it as that constant.
LogicalResult Importer::checkNames() {
  const onnx::GraphProto &graph = model.graph();
  // Name -> what defines it, for the message.
  llvm::StringMap<std::string> defined;
  llvm::StringSet<> initializers;
  for (const auto &init : graph.initializer())
    if (!initializers.insert(init.name()).second)
      return emitError(loc)
             << "ONNX initializer '" << init.name() << "' is defined twice";
  llvm::StringSet<> inputs;
  for (const auto &input : graph.input())
    if (!inputs.insert(input.name()).second)
      return emitError(loc)
             << "ONNX graph input '" << input.name() << "' is listed twice";
  for (const auto &init : graph.initializer())
    defined[init.name()] = "an initializer";
  for (const auto &input : graph.input())
    defined.try_emplace(input.name(), "a graph input");
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto &n = graph.node(i);
    for (const std::string &out : n.output()) {
      if (out.empty())
        continue;
      std::string by = "node '" + n.name() + "' (" + n.op_type() + ")";
      auto [it, inserted] = defined.try_emplace(out, by);
      if (!inserted)
        return emitError(loc)
               << "ONNX node '" << n.name() << "' (" << n.op_type()
               << "): output '" << out << "' is already defined by "
               << it->second << "; every name must be defined once";
    }
  }
  return success();
}

OwningOpRef<ModuleOp> Importer::run() {
  ctx->loadDialect<dlcir::DlcDialect, func::FuncDialect>();
  if (failed(checkOpsets()) || failed(checkNames()))
    return nullptr;
  const onnx::GraphProto &graph = model.graph();

  // Initializers are literals; the proto's copy of their data is released
  // (names and shapes stay).
  for (int i = 0; i < graph.initializer_size(); ++i) {
    const onnx::TensorProto &init = graph.initializer(i);
    auto t = decodeTensor(init, baseDir, options.externalDataFiles);
    if (!t) {
      emitError(loc) << "ONNX initializer: " << t.message();
      return nullptr;
    }
    Entry &e = env[init.name()];
    e.lit = makeLit(t.take());
    e.name = init.name();
    onnx::TensorProto *released = model.mutable_graph()->mutable_initializer(i);
    std::string().swap(*released->mutable_raw_data());
    google::protobuf::RepeatedField<float>().Swap(
        released->mutable_float_data());
    google::protobuf::RepeatedField<double>().Swap(
        released->mutable_double_data());
    google::protobuf::RepeatedField<int32_t>().Swap(
        released->mutable_int32_data());
    google::protobuf::RepeatedField<int64_t>().Swap(
        released->mutable_int64_data());
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
    func.setArgAttr(i, mlir::dlc::attr::kOnnxName, b.getStringAttr(name));
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
          *declared != *dlcir::dtypeOf(type.getElementType())) {
        emitError(loc) << "ONNX graph output '" << out.name()
                       << "' is declared as " << onnxTypeName(tt.elem_type())
                       << " but computes "
                       << rt::dtypeName(*dlcir::dtypeOf(type.getElementType()));
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
  // The buffers' new values follow the graph's outputs.
  for (auto &[name, value] : bufferUpdates) {
    results.push_back(value);
    resultTypes.push_back(value.getType());
  }
  b.create<func::ReturnOp>(loc, results);
  func.setFunctionType(b.getFunctionType(argTypes, resultTypes));
  for (auto [i, out] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, mlir::dlc::attr::kOnnxName,
                       b.getStringAttr(out.name()));
  for (auto [k, update] : llvm::enumerate(bufferUpdates))
    func.setResultAttr(unsigned(graph.output_size() + k),
                       mlir::dlc::attr::kBufferUpdate,
                       b.getStringAttr(update.first));
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
  // Every ONNX operator has at least one output; converters write the
  // first one.
  if (node->output_size() == 0)
    return nodeError() << "has no outputs (every ONNX operator has at least "
                          "one)";
  outs.assign(node->output_size(), Entry{});
  badType.clear();
  const OpRegistryEntry *entry =
      OpRegistry::defaultDomain().lookup(opType, opset);
  if (!(entry && tryFold(*entry)) && failed(dispatch(entry)))
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

bool Importer::tryFold(const OpRegistryEntry &entry) {
  if (!entry.fold)
    return false;
  int64_t total = 0;
  for (Entry *e : ins) {
    if (!e)
      continue;
    if (!e->lit)
      return false;
    // A parameter to train is not folded into another literal.
    if (!foldsWeights() && !e->name.empty() && dlcir::isFloat(e->lit->dtype))
      return false;
    total += e->lit->numElements();
  }
  // Folding copies the data: leave big weights to the device.
  if (ins.empty() || !ins[0] || total > (1 << 20))
    return false;
  SmallVector<const rt::HostTensor *> literals;
  for (Entry *e : ins)
    literals.push_back(e ? e->lit.get() : nullptr);
  Lit r = entry.fold(*this, literals);
  if (!r)
    return false;
  setOutLit(0, r);
  return true;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

LogicalResult Importer::dispatch(const OpRegistryEntry *entry) {
  if (!entry || !entry->convert)
    return emitError(loc) << "ONNX node '" << nodeName << "' (" << opType
                          << ", opset " << opset << ") is not supported by dlc";
  unsigned need = entry->requiredInputs;
  for (unsigned i = 0; i < need; ++i)
    if (!has(i))
      return unsupported("input " + Twine(i) + " is missing (" + opType +
                         " needs " + Twine(need) + ")");
  return entry->convert(*this);
}

//===----------------------------------------------------------------------===//
// The registry
//===----------------------------------------------------------------------===//

void OpRegistry::onOp(StringRef name, int64_t sinceOpset, OpHandler handler,
                      unsigned requiredInputs) {
  OpRegistryEntry &entry = version(name, sinceOpset);
  entry.convert = std::move(handler);
  entry.requiredInputs = requiredInputs;
}

void OpRegistry::onFold(StringRef name, int64_t sinceOpset, OpFolder folder) {
  version(name, sinceOpset).fold = std::move(folder);
}

OpRegistryEntry &OpRegistry::version(StringRef name, int64_t sinceOpset) {
  SmallVector<OpRegistryEntry, 1> &versions = ops[name];
  for (OpRegistryEntry &entry : versions)
    if (entry.sinceOpset == sinceOpset)
      return entry;
  // Kept sorted by opset, for lookup.
  auto *at = llvm::upper_bound(versions, sinceOpset,
                               [](int64_t v, const OpRegistryEntry &entry) {
                                 return v < entry.sinceOpset;
                               });
  OpRegistryEntry &entry = *versions.insert(at, OpRegistryEntry());
  entry.sinceOpset = sinceOpset;
  return entry;
}

const OpRegistryEntry *OpRegistry::lookup(StringRef name, int64_t opset) const {
  auto it = ops.find(name);
  if (it == ops.end())
    return nullptr;
  const OpRegistryEntry *found = nullptr;
  for (const OpRegistryEntry &entry : it->second)
    if (entry.sinceOpset <= opset)
      found = &entry;
  return found;
}

const OpRegistry &OpRegistry::defaultDomain() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    registerShapeFolding(r);
    registerElementwiseOps(r);
    registerNNOps(r);
    registerReduceOps(r);
    registerDataMovementOps(r);
    return r;
  }();
  return registry;
}

//===----------------------------------------------------------------------===//
// The graph around the node
//===----------------------------------------------------------------------===//

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
    if (e == env.end() || !e->second.lit ||
        !dlcir::isFloat(e->second.lit->dtype))
      return nullptr;
  }
  return &bn;
}

Lit Importer::literalNamed(StringRef value) const {
  auto it = env.find(value);
  return it == env.end() ? nullptr : it->second.lit;
}

void Importer::absorb(const onnx::NodeProto &later, Value output) {
  for (int i = 0; i < model.graph().node_size(); ++i)
    if (&model.graph().node(i) == &later)
      absorbed.insert(i);
  env[later.output(0)] = Entry{output, nullptr, ""};
}

} // namespace dlc::onnximport

namespace dlc {

using namespace onnximport;

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

/// How a ModelProto nests messages past protobuf's recursion limit.
struct TooDeep {
  /// The deepest nesting of subgraphs (GraphProto below the main graph).
  int subgraphs = 0;
  /// The first message past the limit ("onnx.TypeProto").
  std::string message;
  /// The scan stopped at its own depth limit: `subgraphs` is a lower bound.
  bool atLeast = false;
};

/// When `bytes` fail to parse as a ModelProto because they nest messages
/// deeper than protobuf's recursion limit (100: a guard against stack
/// overflow), how; nullopt when the nesting is within the limit or the
/// bytes are malformed before it. A scan of the wire format guided by the
/// message descriptors, with a stack of its own (no recursion, whatever the
/// depth), on the failure path only.
static std::optional<TooDeep> pastRecursionLimit(StringRef bytes) {
  namespace pb = google::protobuf;
  using Wire = pb::internal::WireFormatLite;
  const int limit = pb::io::CodedInputStream::GetDefaultRecursionLimit();
  const pb::Descriptor *graphType = onnx::GraphProto::descriptor();
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t *>(bytes.data()),
                              (int)bytes.size());
  struct Frame {
    pb::io::CodedInputStream::Limit limit;
    const pb::Descriptor *outer;
  };
  std::vector<Frame> stack;
  const pb::Descriptor *type = onnx::ModelProto::descriptor();
  int graphs = 0;
  std::optional<TooDeep> deep;
  // The rest of the bytes do not parse: what was found so far.
  auto malformed = [&] { return deep; };
  // Its own stack is bounded too (a 2 GB file could nest 10^9 levels).
  const size_t maxDepth = size_t(1) << 16;
  while (true) {
    uint32_t tag = in.ReadTag();
    if (tag == 0) {
      // The end of the enclosing message, of the buffer, or malformed.
      if (stack.empty() || in.BytesUntilLimit() != 0)
        return malformed();
      if (type == graphType)
        --graphs;
      in.PopLimit(stack.back().limit);
      type = stack.back().outer;
      stack.pop_back();
      continue;
    }
    uint32_t length = 0;
    uint64_t varint = 0;
    switch (Wire::GetTagWireType(tag)) {
    case Wire::WIRETYPE_VARINT:
      if (!in.ReadVarint64(&varint))
        return malformed();
      break;
    case Wire::WIRETYPE_FIXED64:
      if (!in.Skip(8))
        return malformed();
      break;
    case Wire::WIRETYPE_FIXED32:
      if (!in.Skip(4))
        return malformed();
      break;
    case Wire::WIRETYPE_LENGTH_DELIMITED: {
      if (!in.ReadVarint32(&length) || length > (uint32_t)INT_MAX)
        return malformed();
      const pb::FieldDescriptor *field =
          type->FindFieldByNumber(Wire::GetTagFieldNumber(tag));
      if (!field || field->type() != pb::FieldDescriptor::TYPE_MESSAGE) {
        if (!in.Skip((int)length))
          return malformed();
        break;
      }
      const pb::Descriptor *inner = field->message_type();
      if ((int)stack.size() + 1 > limit && !deep)
        deep = TooDeep{0, inner->full_name()};
      if (stack.size() == maxDepth) {
        deep->atLeast = true;
        return deep;
      }
      stack.push_back({in.PushLimit((int)length), type});
      type = inner;
      if (type == graphType)
        ++graphs;
      if (deep)
        deep->subgraphs = std::max(deep->subgraphs, graphs - 1);
      break;
    }
    default:
      // Groups: ONNX has none.
      return malformed();
    }
  }
}

/// Parses `bytes` as a ModelProto; on failure, an error that says why
/// where it can tell.
static rt::Status parseModelProto(StringRef bytes, onnx::ModelProto &model) {
  if (model.ParseFromArray(bytes.data(), (int)bytes.size()))
    return rt::Status::ok();
  if (std::optional<TooDeep> deep = pastRecursionLimit(bytes)) {
    std::string limit = std::to_string(
        google::protobuf::io::CodedInputStream::GetDefaultRecursionLimit());
    if (deep->subgraphs > 0)
      return rt::Status::error(
          std::string("cannot parse the ONNX model: it nests subgraphs (the "
                      "bodies of If, Loop and Scan nodes) ") +
          (deep->atLeast ? "at least " : "") + std::to_string(deep->subgraphs) +
          " levels deep, past the " + limit +
          " levels of nested messages protobuf reads");
    return rt::Status::error("cannot parse the ONNX model: it nests " +
                             deep->message + " messages past the " + limit +
                             " levels of nested messages protobuf reads");
  }
  return rt::Status::error("cannot parse the file as an ONNX model (not ONNX, "
                           "or truncated or corrupt)");
}

bool isOnnxModelFile(const std::string &path) {
  StringRef p(path);
  if (p.ends_with(".onnx"))
    return true;
  if (p.ends_with(".mlir") || p.ends_with(".dlcpkg"))
    return false;
  // Only a regular file is looked into (a FIFO or a device is not a model;
  // reading it is then refused with a message).
  rt::Result<rt::RegularFile> file = rt::RegularFile::open(path);
  if (!file || file->size() == 0 ||
      file->size() > (uint64_t)std::numeric_limits<int>::max())
    return false;
  // A ModelProto starts with field 1 (ir_version, varint): byte 0x08.
  uint8_t first = 0;
  if (!file->read(0, &first, 1).isOk() || first != 0x08)
    return false;
  rt::Result<std::vector<uint8_t>> bytes = file->readAll();
  if (!bytes)
    return false;
  onnx::ModelProto model;
  if (model.ParseFromArray(bytes->data(), (int)bytes->size()))
    return model.has_graph();
  // A model nested too deep for protobuf is still ONNX: its import then
  // says why it cannot be read.
  return pastRecursionLimit(
             StringRef(reinterpret_cast<const char *>(bytes->data()),
                       bytes->size()))
      .has_value();
}

/// Parses `bytes` (a model's file) into `model`; false, with the error
/// at `loc`, when it is not one.
static bool parseModel(StringRef bytes, Location loc, onnx::ModelProto &model) {
  if (bytes.size() > (size_t)std::numeric_limits<int>::max()) {
    emitError(loc) << "the ONNX file is larger than 2 GiB; store its weights "
                      "as external data";
    return false;
  }
  if (rt::Status parsed = parseModelProto(bytes, model); !parsed) {
    emitError(loc) << parsed.message();
    return false;
  }
  return true;
}

/// Imports a parsed model. Its initializers' data is released as they
/// become literals (the import's peak memory is then about one copy of the
/// weights, not two).
static OwningOpRef<ModuleOp> importModel(onnx::ModelProto &model,
                                         StringRef name, StringRef baseDir,
                                         MLIRContext &context,
                                         const OnnxImportOptions &options) {
  Location loc = FileLineColLoc::get(&context, name, 0, 0);
  if (!model.has_graph()) {
    emitError(loc) << "the ONNX model has no graph";
    return nullptr;
  }
  Importer importer(context, model, name, baseDir, options);
  return importer.run();
}

OwningOpRef<ModuleOp> importOnnxBuffer(StringRef bytes, StringRef name,
                                       StringRef baseDir, MLIRContext &context,
                                       const OnnxImportOptions &options) {
  onnx::ModelProto model;
  if (!parseModel(bytes, FileLineColLoc::get(&context, name, 0, 0), model))
    return nullptr;
  return importModel(model, name, baseDir, context, options);
}

/// Reads an ONNX model or TensorProto file: a regular file, its size
/// checked against protobuf's 2 GiB limit before anything is read (an
/// error `tooLarge` above it).
static rt::Result<std::vector<uint8_t>>
readProtoFile(const std::string &path, const std::string &tooLarge) {
  rt::Result<rt::RegularFile> file = rt::RegularFile::open(path);
  if (!file)
    return file.status();
  if (file->size() > (uint64_t)std::numeric_limits<int>::max())
    return rt::Status::error(tooLarge);
  return file->readAll();
}

OwningOpRef<ModuleOp> importOnnxFile(const std::string &path,
                                     MLIRContext &context,
                                     const OnnxImportOptions &options) {
  rt::Result<std::vector<uint8_t>> bytes = readProtoFile(
      path, "the ONNX file is larger than 2 GiB; store its weights as "
            "external data");
  if (!bytes) {
    emitError(FileLineColLoc::get(&context, path, 0, 0)) << bytes.message();
    return nullptr;
  }
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  onnx::ModelProto model;
  if (!parseModel(StringRef(reinterpret_cast<const char *>(bytes->data()),
                            bytes->size()),
                  FileLineColLoc::get(&context, path, 0, 0), model))
    return nullptr;
  // The file's bytes are not needed once parsed: freed before the import.
  std::vector<uint8_t>().swap(*bytes);
  return importModel(model, path, dir, context, options);
}

rt::Result<rt::HostTensor> readTensorProtoFile(const std::string &path) {
  rt::Result<std::vector<uint8_t>> bytes = readProtoFile(
      path, "'" + path + "' is larger than protobuf's 2 GiB limit");
  if (!bytes)
    return bytes.status();
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(bytes->data(), (int)bytes->size()))
    return rt::Status::error("'" + path + "' is not an ONNX TensorProto");
  SmallString<256> dir(path);
  llvm::sys::path::remove_filename(dir);
  auto t = decodeTensor(proto, dir, nullptr, "the .pb file's folder");
  if (!t)
    return rt::Status::error("'" + path + "': " + t.message());
  return t;
}

} // namespace dlc
