//===- AssignLayout.cpp - Channels-last where it pays ---------------------===//
//
// Layout selection: every 4-D activation connected to a convolution,
// pooling or resize is NCHW (the model's layout) or NHWC. The rule for each
// op lives with the op (LayoutOpInterface: its class, and the permuted form
// of Agnostic and Axes ops in ir/Policies.cpp); this pass finds the clusters
// of connected values, chooses a layout per cluster and rebuilds the NHWC
// ones. See Passes.td and docs/fusion.md.
//
//===----------------------------------------------------------------------===//
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/Debug.h"

#include <map>
#include <string>

#define DEBUG_TYPE "dlc-assign-layout"

namespace mlir::dlc {
#define GEN_PASS_DEF_ASSIGNLAYOUT
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// Inductor's rule: a graph with at least this many ops per convolution is
/// not worth a layout change.
constexpr int64_t kOpsPerConvolution = 300;

bool isRank4(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getRank() == 4 && type.hasStaticShape();
}

bool isConstant(Value v) { return v.getDefiningOp<ConstantOp>() != nullptr; }

LayoutClass layoutClass(Operation *op) {
  auto layout = dyn_cast<LayoutOpInterface>(op);
  return layout ? layout.getLayoutClass() : LayoutClass::Fixed;
}

/// An Agnostic or Axes op that takes part in a layout: every operand and
/// result is 4-D.
bool isPermutable(Operation *op) {
  LayoutClass c = layoutClass(op);
  if (c != LayoutClass::Agnostic && c != LayoutClass::Axes)
    return false;
  if (op->getNumResults() == 0 || op->getNumRegions() != 0)
    return false;
  return llvm::all_of(op->getOperands(), isRank4) &&
         llvm::all_of(op->getResults(), isRank4);
}

/// A Spatial op: its first operand and its result are NCHW images.
bool isSpatial(Operation *op) {
  return layoutClass(op) == LayoutClass::Spatial && op->getNumOperands() > 0 &&
         op->getNumResults() == 1 && isRank4(op->getOperand(0)) &&
         isRank4(op->getResult(0));
}

/// 2 x N x OC x OH x OW x C/G x KH x KW.
int64_t convFlops(Conv2DOp conv) {
  auto filter = cast<RankedTensorType>(conv.getFilter().getType());
  int64_t perOutput = 1;
  for (int64_t d : filter.getShape().drop_front())
    perOutput *= d;
  return 2 * conv.getType().getNumElements() * perOutput;
}

/// Connected values, by union-find over their ids.
class Clusters {
public:
  int64_t id(Value v) {
    auto [it, inserted] = ids.try_emplace(v, parent.size());
    if (inserted)
      parent.push_back(parent.size());
    return find(it->second);
  }
  void join(Value a, Value b) { parent[id(a)] = id(b); }
  std::optional<int64_t> lookup(Value v) {
    auto it = ids.find(v);
    if (it == ids.end())
      return std::nullopt;
    return find(it->second);
  }

private:
  int64_t find(int64_t i) {
    while (parent[i] != i)
      i = parent[i] = parent[parent[i]];
    return i;
  }
  llvm::DenseMap<Value, int64_t> ids;
  SmallVector<int64_t> parent;
};

/// What the choice of one cluster rests on.
struct Cluster {
  SmallVector<Operation *> spatial;
  SmallVector<Conv2DOp> gemmConvs;
  int64_t convFlops = 0, groupedFlops = 0;
  /// Epilogue kernels NHWC saves: the read and write of each GEMM
  /// convolution's result that an elementwise op follows.
  int64_t epilogueBytes = 0;
  /// Transposes NHWC adds at the cluster's boundary (reads and writes).
  int64_t boundaryBytes = 0;
  bool lowPrecision = false, channelsAligned = true;
  bool nhwc = false;
  std::string reason;
};

struct AssignLayoutPass
    : public ::mlir::dlc::impl::AssignLayoutBase<AssignLayoutPass> {
  using AssignLayoutBase::AssignLayoutBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (layout != "auto" && layout != "nchw" && layout != "nhwc") {
      func.emitError() << "unknown layout '" << layout
                       << "'; expected auto, nchw or nhwc";
      return signalPassFailure();
    }
    Block &body = func.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body)
      ops.push_back(&op);

    // Clusters: Spatial ops join their input and result, permutable ops
    // all their (non-constant) operands and results.
    Clusters clusters;
    for (Operation *op : ops) {
      if (isSpatial(op)) {
        clusters.join(op->getOperand(0), op->getResult(0));
      } else if (isPermutable(op)) {
        for (Value v : op->getOperands())
          if (!isConstant(v))
            clusters.join(v, op->getResult(0));
        for (Value r : op->getResults())
          clusters.join(r, op->getResult(0));
      }
    }
    std::map<int64_t, Cluster> byId;
    for (Operation *op : ops)
      if (isSpatial(op))
        byId[*clusters.lookup(op->getResult(0))].spatial.push_back(op);
    if (byId.empty())
      return;
    measure(ops, clusters, byId);
    int64_t convCount = 0;
    for (auto &[id, c] : byId)
      convCount += c.gemmConvs.size();
    for (auto &[id, c] : byId)
      choose(c, int64_t(ops.size()), convCount);
    rewrite(body, ops, clusters, byId);
    record(func, byId);
  }

  /// Fills in each cluster's costs.
  void measure(ArrayRef<Operation *> ops, Clusters &clusters,
               std::map<int64_t, Cluster> &byId) {
    auto clusterOf = [&](Value v) -> Cluster * {
      std::optional<int64_t> id = clusters.lookup(v);
      auto it = id ? byId.find(*id) : byId.end();
      return it == byId.end() ? nullptr : &it->second;
    };
    for (auto &[id, c] : byId)
      for (Operation *op : c.spatial) {
        auto conv = dyn_cast<Conv2DOp>(op);
        if (!conv || conv.isDirect())
          continue;
        int64_t flops = convFlops(conv);
        c.convFlops += flops;
        if (conv.isGrouped()) {
          c.groupedFlops += flops;
          continue;
        }
        c.gemmConvs.push_back(conv);
        Type element = conv.getType().getElementType();
        auto filter = cast<RankedTensorType>(conv.getFilter().getType());
        if (element.isF16() || element.isBF16()) {
          c.lowPrecision = true;
          c.channelsAligned &=
              filter.getDimSize(0) % 8 == 0 && filter.getDimSize(1) % 8 == 0;
        }
        Value result = conv.getResult();
        if (result.hasOneUse() &&
            (*result.getUsers().begin())->hasTrait<trait::Elementwise>())
          c.epilogueBytes +=
              2 * tensorBytes(cast<ShapedType>(result.getType()));
      }
    // The boundary: a value made outside the cluster's permutable ops (a
    // model input, an op of fixed layout) that a permutable op of the
    // cluster reads is transposed in; a value a permutable op makes that an
    // op outside reads (or the function returns) is transposed back; either
    // unless the move is free (isFreeTranspose). Spatial ops read and write
    // through their own indexing.
    llvm::DenseSet<Value> transposedIn, transposedOut;
    for (Operation *op : ops) {
      bool permutable = isPermutable(op);
      for (Value operand : op->getOperands()) {
        if (!isRank4(operand) || isConstant(operand))
          continue;
        Operation *def = operand.getDefiningOp();
        bool madePermuted = def && isPermutable(def);
        int64_t bytes = 2 * tensorBytes(cast<ShapedType>(operand.getType()));
        bool madeSpatial = def && isSpatial(def);
        bool free = isFreeTranspose(operand, op);
        // A transpose in the cluster composes with the one it would need.
        if (permutable && !isa<TransposeOp>(op) && !madePermuted &&
            !madeSpatial && !free && transposedIn.insert(operand).second)
          if (Cluster *c = clusterOf(op->getResult(0)))
            c->boundaryBytes += bytes;
        if (madePermuted && !isa_and_nonnull<TransposeOp>(def) && !permutable &&
            !isSpatial(op) && !free && transposedOut.insert(operand).second)
          if (Cluster *c = clusterOf(operand))
            c->boundaryBytes += bytes;
      }
    }
  }

  /// Whether moving `operand` (read by `reader`) between the layouts costs
  /// nothing: the move only shifts size-1 dimensions (a view), or TOSA's own
  /// transpose already made it from a channels-last value, or `reader` is a
  /// transpose to channels-last.
  static bool isFreeTranspose(Value operand, Operation *reader) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (type.getDimSize(2) * type.getDimSize(3) == 1 || type.getDimSize(1) == 1)
      return true;
    auto made = operand.getDefiningOp<TransposeOp>();
    if (made && made.getPerm() == ArrayRef<int64_t>(kToNCHW))
      return true;
    auto read = dyn_cast<TransposeOp>(reader);
    return read && read.getPerm() == ArrayRef<int64_t>(kToNHWC);
  }

  void choose(Cluster &c, int64_t opCount, int64_t convCount) {
    if (layout == "nchw") {
      c.reason = "--layout=nchw";
      return;
    }
    if (layout == "nhwc") {
      c.nhwc = true;
      c.reason = "--layout=nhwc";
      return;
    }
    if (c.gemmConvs.empty() && c.groupedFlops == 0) {
      c.reason = "no convolution computed as a GEMM (pooling and depthwise "
                 "convolutions read either layout)";
      return;
    }
    if (2 * c.groupedFlops > c.convFlops) {
      c.reason = "grouped convolutions carry most of the work, and their "
                 "per-group products want the channels of a group together "
                 "(Inductor refuses channels-last for them too)";
      return;
    }
    if (opCount >= kOpsPerConvolution * convCount) {
      c.reason = "few convolutions in a large graph (" +
                 std::to_string(opCount) + " ops for " +
                 std::to_string(convCount) + ")";
      return;
    }
    if (c.epilogueBytes <= c.boundaryBytes) {
      c.reason = "the transposes at its boundary would move more bytes than "
                 "channels-last saves";
      return;
    }
    c.nhwc = true;
    c.reason = "bias, activation and residual adds fuse into the "
               "convolutions' GEMMs (channels on the product's columns)";
    if (c.lowPrecision && c.channelsAligned)
      c.reason += "; f16/bf16 channels in multiples of 8 (tensor cores)";
  }

  void rewrite(Block &block, ArrayRef<Operation *> ops, Clusters &clusters,
               std::map<int64_t, Cluster> &byId) {
    auto isNhwc = [&](Value v) {
      std::optional<int64_t> id = clusters.lookup(v);
      auto it = id ? byId.find(*id) : byId.end();
      return it != byId.end() && it->second.nhwc;
    };
    // One channels-last copy of each value, made right after the value.
    llvm::DenseMap<Value, Value> nhwcOf;
    auto toNHWC = [&](Value v) -> Value {
      if (auto it = nhwcOf.find(v); it != nhwcOf.end())
        return it->second;
      OpBuilder b(v.getContext());
      if (Operation *def = v.getDefiningOp())
        b.setInsertionPointAfter(def);
      else
        b.setInsertionPointToStart(&block);
      return nhwcOf[v] = transposeOf(b, v.getLoc(), v, kToNHWC);
    };
    for (auto &[id, c] : byId) {
      if (!c.nhwc)
        continue;
      for (Operation *op : c.spatial) {
        auto conv = dyn_cast<Conv2DOp>(op);
        if (conv && llvm::is_contained(c.gemmConvs, conv)) {
          // dlc-lower-conv makes its product channels-last.
          setChannelsLast(conv);
          continue;
        }
        // Another Spatial op writes channels-last through a transpose its
        // kernel absorbs; its users read that (NCHW ones through a
        // transpose back, which theirs absorb).
        OpBuilder b(op->getContext());
        b.setInsertionPointAfter(op);
        Value result = op->getResult(0);
        auto nhwc = b.create<TransposeOp>(
            op->getLoc(), permuteType(result.getType(), kToNHWC), result,
            kToNHWC);
        auto nchw = b.create<TransposeOp>(op->getLoc(), result.getType(),
                                          nhwc.getResult(), kToNCHW);
        result.replaceAllUsesExcept(nchw.getResult(), nhwc);
        nhwcOf[nchw.getResult()] = nhwc.getResult();
      }
    }
    for (Operation *op : ops) {
      if (!isPermutable(op) || !isNhwc(op->getResult(0)))
        continue;
      SmallVector<Value> operands;
      for (Value v : op->getOperands())
        operands.push_back(toNHWC(v));
      OpBuilder b(op);
      Operation *permuted =
          cast<LayoutOpInterface>(op).permuteLayout(b, kToNHWC, operands);
      if (!permuted)
        continue;
      LLVM_DEBUG(llvm::dbgs() << DEBUG_TYPE ": " << op->getName() << " at "
                              << op->getLoc() << " becomes channels-last\n");
      for (auto [old, now] :
           llvm::zip(op->getResults(), permuted->getResults())) {
        Value back = transposeOf(b, op->getLoc(), now, kToNCHW);
        old.replaceAllUsesWith(back);
        nhwcOf[back] = now;
      }
      op->erase();
    }
    // Transposes (and constants of the model's layout) that nothing reads
    // any more, users before producers.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
      if (isa<TransposeOp, ConstantOp>(op) && op.use_empty())
        op.erase();
  }

  void record(func::FuncOp func, std::map<int64_t, Cluster> &byId) {
    Builder b(func.getContext());
    SmallVector<Attribute> choices;
    for (auto &[id, c] : byId)
      choices.push_back(b.getDictionaryAttr({
          b.getNamedAttr("layout", b.getStringAttr(c.nhwc ? "nhwc" : "nchw")),
          b.getNamedAttr("convolutions",
                         b.getI64IntegerAttr(c.gemmConvs.size())),
          b.getNamedAttr("bytes_saved",
                         b.getI64IntegerAttr(
                             c.nhwc ? std::max<int64_t>(0, c.epilogueBytes -
                                                               c.boundaryBytes)
                                    : 0)),
          b.getNamedAttr("reason", b.getStringAttr(c.reason)),
      }));
    setLayoutChoices(func, b.getArrayAttr(choices));
  }
};

} // namespace
