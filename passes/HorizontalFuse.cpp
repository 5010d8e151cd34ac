//===- HorizontalFuse.cpp - One GEMM for sibling matrix products ----------===//
//
// A transformer layer computes its Q, K and V projections as three matrix
// products of the same activations with three weight matrices, each followed
// by a bias add. One product with the weights side by side reads the
// activations once and gives cuBLAS (or the sim's GEMM) one large problem
// instead of three small ones:
//
//   x * [Wq | Wk | Wv] + [bq | bk | bv]  -> sliced into Q, K and V
//
// The pass groups dlc.matmul ops of a block that share their lhs value (and
// transpose_a, acc_type and batch shapes) and whose rhs are constants, builds
// one constant with the weights concatenated along N, one dlc.matmul and one
// dlc.slice per original result. Slices are data movement: fusion turns each
// into index arithmetic of the kernel that consumes it. When every product's
// only user adds a constant bias broadcast along N, the biases are
// concatenated too and one add precedes the slices, so that it can become the
// GEMM's epilogue.
//
// A model that already computes its projections as one product and slices
// the result (GPT-2's c_attn, PyTorch's packed in_proj) has a single product
// per lhs: there is nothing to merge and it is left as it is.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "passes/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include <cstring>
#include <optional>
#include <vector>

#define DEBUG_TYPE "dlc-horizontal-fuse"

namespace mlir::dlc {
#define GEN_PASS_DEF_HORIZONTALFUSE
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// Merged constants with more elements than this become dense_resource blobs
/// (the ONNX importer's rule): large dense<...> attributes are uniqued in the
/// context for its whole life and make the printed IR unreadable.
constexpr int64_t kMaxDenseElements = 16;

/// The stored bytes of a constant.
struct ConstantData {
  /// Every element row-major in its storage size, or one element (splat).
  ArrayRef<char> bytes;
  bool splat = false;
  bool resource = false;
};

/// Bytes per element of the numeric element types of dlc tensors (i1, which
/// is bit-packed in dense attributes and never multiplied, is excluded).
std::optional<size_t> elementSize(Type element) {
  std::optional<rt::DType> dtype = dtypeOf(element);
  if (!dtype || *dtype == rt::DType::I1)
    return std::nullopt;
  return rt::dtypeSize(*dtype);
}

/// The data of `constant` as stored in its dense or dense_resource value, or
/// nullopt when it cannot be read here (a resource whose blob is not loaded
/// or has the wrong size: later stages report that).
std::optional<ConstantData> readConstant(ConstantOp constant) {
  RankedTensorType type = constant.getType();
  std::optional<size_t> size = elementSize(type.getElementType());
  if (!size)
    return std::nullopt;
  size_t bytes = size_t(type.getNumElements()) * *size;
  Attribute value = constant.getValue();
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    ConstantData data;
    data.bytes = dense.getRawData();
    data.splat = dense.isSplat();
    if (data.bytes.size() != (data.splat ? *size : bytes))
      return std::nullopt;
    return data;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || blob->getData().size() != bytes)
      return std::nullopt;
    ConstantData data;
    data.bytes = blob->getData();
    data.resource = true;
    return data;
  }
  return std::nullopt;
}

/// All elements of `data` (of `shape`) row-major; with `swapLastTwo`, those
/// of the tensor whose last two dimensions are swapped.
std::vector<char> materialize(const ConstantData &data, ArrayRef<int64_t> shape,
                              size_t elementBytes, bool swapLastTwo) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  std::vector<char> out(size_t(n) * elementBytes);
  if (data.splat) {
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(out.data() + i * elementBytes, data.bytes.data(),
                  elementBytes);
    return out;
  }
  if (!swapLastTwo) {
    if (!out.empty())
      std::memcpy(out.data(), data.bytes.data(), out.size());
    return out;
  }
  int64_t r = shape.size();
  int64_t rows = shape[r - 2], cols = shape[r - 1];
  int64_t matrices = rows * cols == 0 ? 0 : n / (rows * cols);
  for (int64_t b = 0; b < matrices; ++b)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        std::memcpy(out.data() + ((b * cols + j) * rows + i) * elementBytes,
                    data.bytes.data() +
                        ((b * rows + i) * cols + j) * elementBytes,
                    elementBytes);
  return out;
}

/// One member's share of a merged constant.
struct Part {
  ConstantData data;
  /// The shape as stored.
  ArrayRef<int64_t> shape;
  /// Whether its last two dimensions are swapped in the merged layout.
  bool swapLastTwo = false;
  /// Its extent along the concatenation axis (in the merged layout).
  int64_t width = 0;
};

/// The merged constant of `type`: the parts concatenated along `axis`. A
/// dense attribute for small data; otherwise, or when a part was one, a
/// dense_resource blob named after `hint` (made unique by the context),
/// written in place so that large weights are copied once.
ElementsAttr mergeParts(RankedTensorType type, ArrayRef<Part> parts,
                        int64_t axis, size_t elementBytes, StringRef hint) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  size_t inner = elementBytes;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= shape[d];
  size_t bytes = size_t(type.getNumElements()) * elementBytes;

  // Each part's bytes in the merged layout: its stored data where that is
  // the layout already, else a copy.
  SmallVector<std::vector<char>> copies(parts.size());
  SmallVector<ArrayRef<char>> views;
  for (auto [part, copy] : llvm::zip_equal(parts, copies)) {
    if (!part.data.splat && !part.swapLastTwo) {
      views.push_back(part.data.bytes);
      continue;
    }
    copy = materialize(part.data, part.shape, elementBytes, part.swapLastTwo);
    views.push_back(copy);
  }
  auto fill = [&](MutableArrayRef<char> out) {
    char *dst = out.data();
    for (int64_t o = 0; o < outer; ++o)
      for (auto [part, view] : llvm::zip_equal(parts, views)) {
        size_t chunk = size_t(part.width) * inner;
        if (chunk == 0)
          continue;
        std::memcpy(dst, view.data() + o * chunk, chunk);
        dst += chunk;
      }
  };

  bool anyResource =
      llvm::any_of(parts, [](const Part &p) { return p.data.resource; });
  if (!anyResource && type.getNumElements() <= kMaxDenseElements) {
    std::vector<char> out(bytes);
    fill(out);
    return DenseElementsAttr::getFromRawBuffer(type, out);
  }
  AsmResourceBlob blob =
      HeapAsmResourceBlob::allocate(bytes, std::max<size_t>(elementBytes, 8));
  fill(blob.getMutableData());
  return DenseResourceElementsAttr::get(type, hint, std::move(blob));
}

/// One product of a candidate group.
struct Member {
  MatmulOp matmul;
  ConstantOp weights;
  ConstantData weightData;
  /// Its N: the width of its slice of the merged product.
  int64_t n = 0;
  /// The add of a constant bias broadcast along N that is the product's only
  /// user, or null.
  AddOp biasAdd;
  ConstantOp bias;
  ConstantData biasData;
};

/// What members of one group must agree on besides the lhs value.
struct GroupKey {
  bool transposeA;
  Attribute accType;
  SmallVector<int64_t> resultBatch, weightBatch;
  /// K, from the rhs (the lhs fixes it, but the rhs layouts differ).
  int64_t k;

  bool operator==(const GroupKey &o) const {
    return transposeA == o.transposeA && accType == o.accType &&
           resultBatch == o.resultBatch && weightBatch == o.weightBatch &&
           k == o.k;
  }
};

GroupKey keyOf(MatmulOp matmul) {
  auto result = cast<RankedTensorType>(matmul.getType());
  auto rhs = cast<RankedTensorType>(matmul.getRhs().getType());
  int64_t r = rhs.getRank();
  GroupKey key;
  key.transposeA = matmul.getTransposeA();
  key.accType = matmul.getAccTypeAttr();
  key.resultBatch.assign(result.getShape().begin(),
                         result.getShape().end() - 2);
  key.weightBatch.assign(rhs.getShape().begin(), rhs.getShape().end() - 2);
  key.k = rhs.getDimSize(matmul.getTransposeB() ? r - 1 : r - 2);
  return key;
}

/// The bias add of `matmul`: its only user, an add of a constant of shape
/// [1, ..., 1, N] (broadcast along N) with the product's type as result.
void findBias(Member &member) {
  MatmulOp matmul = member.matmul;
  if (!matmul->hasOneUse())
    return;
  auto add = dyn_cast<AddOp>(*matmul->getUsers().begin());
  if (!add || add->getBlock() != matmul->getBlock() ||
      add.getType() != matmul.getType())
    return;
  Value other =
      add.getLhs() == matmul.getResult() ? add.getRhs() : add.getLhs();
  auto bias = other.getDefiningOp<ConstantOp>();
  if (!bias)
    return;
  ArrayRef<int64_t> shape = bias.getType().getShape();
  if (shape.back() != member.n ||
      !llvm::all_of(shape.drop_back(), [](int64_t d) { return d == 1; }))
    return;
  std::optional<ConstantData> data = readConstant(bias);
  if (!data)
    return;
  member.biasAdd = add;
  member.bias = bias;
  member.biasData = *data;
}

/// The member for `matmul`, or nullopt when its rhs is not a readable
/// constant or it has an epilogue.
std::optional<Member> makeMember(MatmulOp matmul) {
  // A product that already has an epilogue (bias, addend, activation) is
  // not a plain product of its operands.
  if (matmul.hasEpilogue())
    return std::nullopt;
  // FP8 weights are quantized each with its own scale: concatenated, they
  // would share one.
  if (matmul.getLhsScaleAttr() || matmul.getRhsScaleAttr() ||
      cast<RankedTensorType>(matmul.getLhs().getType())
          .getElementType()
          .isFloat8E4M3FN())
    return std::nullopt;
  auto weights = matmul.getRhs().getDefiningOp<ConstantOp>();
  if (!weights)
    return std::nullopt;
  std::optional<ConstantData> data = readConstant(weights);
  if (!data)
    return std::nullopt;
  Member member;
  member.matmul = matmul;
  member.weights = weights;
  member.weightData = *data;
  member.n = cast<RankedTensorType>(matmul.getType()).getShape().back();
  findBias(member);
  return member;
}

Location fusedLoc(ArrayRef<Location> locs) {
  return FusedLoc::get(locs.front().getContext(), locs);
}

/// Replaces the products of `group` (at least two, in block order) by one
/// product with the concatenated weights, an optional add of the
/// concatenated biases and one slice per member.
void mergeGroup(MutableArrayRef<Member> group) {
  MatmulOp first = group.front().matmul;
  auto firstType = cast<RankedTensorType>(first.getType());
  Type element = firstType.getElementType();
  size_t elementBytes = *elementSize(element);
  int64_t r = firstType.getRank();
  // The first member's layout wins; the others' weights are transposed at
  // compile time where theirs differs.
  bool transposeB = first.getTransposeB();
  int64_t axis = transposeB ? r - 2 : r - 1;

  SmallVector<Part> weightParts;
  SmallVector<Location> matmulLocs, weightLocs;
  int64_t totalN = 0;
  for (Member &m : group) {
    Part part;
    part.data = m.weightData;
    part.shape = m.weights.getType().getShape();
    part.swapLastTwo = m.matmul.getTransposeB() != transposeB;
    part.width = m.n;
    weightParts.push_back(part);
    totalN += m.n;
    matmulLocs.push_back(m.matmul.getLoc());
    weightLocs.push_back(m.weights.getLoc());
  }
  const GroupKey key = keyOf(first);
  SmallVector<int64_t> weightShape(key.weightBatch);
  if (transposeB) {
    weightShape.push_back(totalN);
    weightShape.push_back(key.k);
  } else {
    weightShape.push_back(key.k);
    weightShape.push_back(totalN);
  }

  OpBuilder b(first);
  auto weightType = RankedTensorType::get(weightShape, element);
  auto weights =
      b.create<ConstantOp>(fusedLoc(weightLocs), weightType,
                           mergeParts(weightType, weightParts, axis,
                                      elementBytes, "merged_weights"));
  SmallVector<int64_t> resultShape(firstType.getShape());
  resultShape.back() = totalN;
  auto resultType = RankedTensorType::get(resultShape, element);
  Value merged = b.create<MatmulOp>(
      fusedLoc(matmulLocs), resultType, first.getLhs(), weights.getResult(),
      first.getTransposeA(), transposeB, first.getAccTypeAttr());
  // A product pinned to f32 (dlc.precision) pins the merged one.
  if (llvm::any_of(group, [](Member &m) { return keepsF32(m.matmul); }))
    setKeepF32(merged.getDefiningOp());

  bool withBias = llvm::all_of(
      group, [](Member &m) { return static_cast<bool>(m.biasAdd); });
  if (withBias) {
    SmallVector<Part> biasParts;
    SmallVector<Location> addLocs, biasLocs;
    for (Member &m : group) {
      Part part;
      part.data = m.biasData;
      part.shape = m.bias.getType().getShape();
      part.width = m.n;
      biasParts.push_back(part);
      addLocs.push_back(m.biasAdd.getLoc());
      biasLocs.push_back(m.bias.getLoc());
    }
    SmallVector<int64_t> biasShape(r, 1);
    biasShape.back() = totalN;
    auto biasType = RankedTensorType::get(biasShape, element);
    auto bias = b.create<ConstantOp>(
        fusedLoc(biasLocs), biasType,
        mergeParts(biasType, biasParts, r - 1, elementBytes, "merged_bias"));
    merged = b.create<AddOp>(fusedLoc(addLocs), resultType, merged,
                             bias.getResult());
  }

  int64_t offset = 0;
  for (Member &m : group) {
    SmallVector<int64_t> start(r, 0);
    start.back() = offset;
    offset += m.n;
    Operation *replaced =
        withBias ? m.biasAdd.getOperation() : m.matmul.getOperation();
    auto slice = b.create<SliceOp>(replaced->getLoc(), m.matmul.getType(),
                                   merged, start, DenseI64ArrayAttr());
    replaced->getResult(0).replaceAllUsesWith(slice.getResult());
  }
  // Only now: the builder inserts before the first member.
  for (Member &m : group) {
    if (withBias)
      m.biasAdd->erase();
    m.matmul->erase();
  }
}

struct HorizontalFusePass
    : public ::mlir::dlc::impl::HorizontalFuseBase<HorizontalFusePass> {
  using HorizontalFuseBase::HorizontalFuseBase;

  /// The groups to merge in `block`, each in block order, ordered by their
  /// first member.
  SmallVector<SmallVector<Member>> findGroups(Block &block) {
    // Candidates by lhs, then by everything else they must share, each list
    // in block order. A member's only operands are the shared lhs, which
    // dominates all of them, and a constant, so no member can depend on
    // another: merging never creates a cycle.
    llvm::MapVector<Value,
                    SmallVector<std::pair<GroupKey, SmallVector<Member>>>>
        byLhs;
    for (Operation &op : block) {
      auto matmul = dyn_cast<MatmulOp>(op);
      if (!matmul)
        continue;
      std::optional<Member> member = makeMember(matmul);
      if (!member)
        continue;
      auto &classes = byLhs[matmul.getLhs()];
      GroupKey key = keyOf(matmul);
      auto it =
          llvm::find_if(classes, [&](const auto &c) { return c.first == key; });
      if (it == classes.end()) {
        classes.push_back({key, {}});
        it = std::prev(classes.end());
      }
      it->second.push_back(*member);
    }

    // Consecutive members while the merged weights stay within max-bytes
    // and the merged product within the largest tensor dlc supports.
    SmallVector<SmallVector<Member>> groups;
    for (auto &entry : byLhs) {
      for (auto &cls : entry.second) {
        // Not a structured binding: the lambdas below capture it.
        const GroupKey &key = cls.first;
        SmallVector<Member> current;
        int64_t bytes = 0, totalN = 0;
        auto flush = [&] {
          if (current.size() >= 2) {
            groups.emplace_back();
            std::swap(groups.back(), current);
          }
          current.clear();
          bytes = 0;
          totalN = 0;
        };
        for (Member &m : cls.second) {
          RankedTensorType weightType = m.weights.getType();
          int64_t memberBytes =
              weightType.getNumElements() *
              int64_t(*elementSize(weightType.getElementType()));
          auto fits = [&] {
            if (bytes + memberBytes > maxBytes)
              return false;
            Type element = weightType.getElementType();
            SmallVector<int64_t> shape(
                cast<RankedTensorType>(m.matmul.getType()).getShape());
            shape.back() = totalN + m.n;
            SmallVector<int64_t> weightShape(key.weightBatch);
            weightShape.append({key.k, totalN + m.n});
            return isWithinTensorSizeLimit(
                       RankedTensorType::get(shape, element)) &&
                   isWithinTensorSizeLimit(
                       RankedTensorType::get(weightShape, element));
          };
          if (!current.empty() && !fits())
            flush();
          current.push_back(m);
          bytes += memberBytes;
          totalN += m.n;
        }
        flush();
      }
    }
    llvm::stable_sort(groups, [](const auto &a, const auto &b) {
      return a.front().matmul->isBeforeInBlock(b.front().matmul);
    });
    return groups;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    llvm::SetVector<Operation *> oldConstants;
    for (Block &block : func.getBody()) {
      for (SmallVector<Member> &group : findGroups(block)) {
        for (Member &m : group) {
          oldConstants.insert(m.weights);
          if (m.bias)
            oldConstants.insert(m.bias);
        }
        LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE ": " << group.size()
                                << " sibling products merged\n");
        mergeGroup(group);
      }
    }
    for (Operation *constant : oldConstants)
      if (constant->use_empty())
        constant->erase();
  }
};

} // namespace
