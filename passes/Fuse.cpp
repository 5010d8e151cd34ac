//===- Fuse.cpp - Group dlc operations into fused kernels -----------------===//
//
// Greedy producer-to-consumer fusion. Operations are visited from the last to
// the first; an operation joins the group of its consumers when all of them
// are in one group and the grown group still has a good kernel plan
// (KernelAnalysis). A value needed by several groups or by a matrix product
// is materialized, unless its producer can join one consumer group as an
// extra output (multi-output fusion). Groups are then outlined into
// dlc.kernel regions in an order that keeps every use after its definition.
// With fusion-notes, each kernel records why neighbours stayed out
// (dlc.fusion_notes), for the report of `dlc compile --emit=fused`.
//
//===----------------------------------------------------------------------===//
#include "analysis/KernelAnalysis.h"
#include "ir/Attributes.h"
#include "ir/ElementType.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/Debug.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <queue>

#define DEBUG_TYPE "dlc-fuse"

namespace mlir::dlc {
#define GEN_PASS_DEF_FUSE
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

/// Operations that become part of some kernel. Reshapes are handled apart:
/// between kernels they are free views.
bool isFusable(Operation *op) {
  if (isa<ReshapeOp>(op))
    return false;
  return op->hasTrait<trait::Elementwise>() ||
         op->hasTrait<trait::DataMovement>() ||
         op->hasTrait<trait::Reduction>() || op->hasTrait<trait::Window>();
}

/// Whether `p`, joined to `group`, would be read by a window op of the group
/// (directly or through data movement, which only remaps indices). A window
/// op reads each input element several times (a 3x3 convolution nine
/// times), so a computing producer would be recomputed for every read: it
/// is cheaper materialized, unless it is one operation per element (a
/// clamp, an add, a max: relu6 before a depthwise convolution), whose
/// operands the window reads as often as it would read its result, so
/// recomputing it costs a few operations where materializing it costs a
/// write and a read of the tensor. Data movement costs nothing to repeat.
bool feedsWindowOp(Operation *p,
                   const llvm::SmallPtrSetImpl<Operation *> &group) {
  SmallVector<Operation *> worklist{p};
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Operation *user : op->getUsers()) {
      if (!group.contains(user) || !visited.insert(user).second)
        continue;
      if (user->hasTrait<trait::Window>())
        return true;
      if (user->hasTrait<trait::DataMovement>())
        worklist.push_back(user);
    }
  }
  return false;
}

std::optional<ArrayRef<int64_t>> staticShape(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  return type.getShape();
}

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

bool isSplatConstant(Operation *op) {
  auto constant = dyn_cast_or_null<ConstantOp>(op);
  if (!constant)
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  return dense && dense.isSplat();
}

//===--- Cost model ------------------------------------------------------===//
// Fusing a producer into a kernel whose iteration space is larger than the
// producer's result (a bias vector broadcast over a matrix, a per-head mask
// broadcast over the batch) computes it once per element of that space
// instead of once per element of its own. While the kernel stays
// memory-bound the repeated work is free: it hides under the memory traffic.
// A kernel's time is modelled as max(memory, arithmetic) in FP32 operations
// of an H100-class GPU: ~60 TFLOP/s on CUDA cores against ~3.3 TB/s of HBM
// make one byte worth ~18 operations, and a launch inside a CUDA Graph
// (~2 us) ~1.2e8. A producer stays out when the fused kernel would take
// longer than the kernel without it plus a kernel of its own (a launch, and
// writing and reading its result).
constexpr double kOpsPerByte = 18;
constexpr double kLaunchOps = 1.2e8;

/// Operations per element of `op` (its CostOpInterface); data movement,
/// windows and reductions are index arithmetic.
int64_t elementCost(Operation *op) {
  if (auto cost = dyn_cast<CostOpInterface>(op))
    return cost.getOpsPerElement();
  return 0;
}

int64_t elementBytes(Value v) { return mlir::dlc::elementBytes(v.getType()); }

/// Why a neighbour of a group stayed out of it: `op` is a producer that did
/// not join (recorded on the consumer's group) or a producer whose consumer
/// group rejected it (recorded on the producer's group).
struct FusionNote {
  bool isProducer = true;
  Operation *op = nullptr;
  std::string reason;
};

struct Group {
  /// Members in block order (which is a topological order).
  SmallVector<Operation *> ops;
  KernelPlan plan;
  /// Why neighbours were not fused, for `dlc compile --emit=fused`.
  SmallVector<FusionNote> notes;
};

/// Why a matmul's consumers do not contain it.
constexpr const char *kMatmulNote =
    "it is a matmul (a cuBLAS call; an epilogue runs as its own kernel)";
/// Why a dlc.conv's consumers do not contain it.
constexpr const char *kConvNote =
    "it is a library convolution (a cuDNN call; what its epilogue does not "
    "take runs as a kernel of its own)";
/// Why a dlc.attention's consumers do not contain it.
constexpr const char *kAttentionNote =
    "it is an attention (a flash-attention kernel of its own)";

class Fuser {
public:
  Fuser(Block &block, unsigned maxOps, unsigned maxOutputs, bool recordNotes)
      : block(block), maxOps(maxOps), maxOutputs(maxOutputs),
        recordNotes(recordNotes) {}

  LogicalResult run();

private:
  /// The operation of `block` that is or contains `op`, or null.
  Operation *topLevel(Operation *op) {
    return block.findAncestorOpInBlock(*op);
  }

  /// Values defined by `ops` and used outside them, in op order.
  SmallVector<Value> outputsOf(ArrayRef<Operation *> ops,
                               const llvm::SmallPtrSetImpl<Operation *> &set);
  /// Whether adding `p` to `group` still gives a plan at least as good;
  /// `whyNot` says why not.
  bool tryJoin(Operation *p, unsigned group, bool asExtraOutput,
               std::string &whyNot);
  /// Whether a path leads from the users of `starts` (other than members
  /// of the groups `notFirst`) through other operations and groups into
  /// group `target`: `p` joined to `target` would then have to run both
  /// before and after that path, and so would two merged groups.
  bool reachesGroup(ArrayRef<Operation *> starts, ArrayRef<unsigned> notFirst,
                    unsigned target);
  void startGroup(Operation *p);
  /// Multi-output fusion across groups: merges into each row group the
  /// groups over the same rows that read its values (see the definition).
  void mergeIntoRowProducers();
  /// Kernels that would only copy a contiguous block of a buffer: the
  /// slice stays a view instead (see the definition).
  void keepSliceViews();
  LogicalResult outline();
  void outlineGroup(Group &group, OpBuilder &builder);
  /// Stores the group's notes on its kernel as `dlc.fusion_notes`.
  void attachNotes(Group &group, KernelOp kernel, ArrayRef<Value> inputs,
                   ArrayRef<Value> outputs);

  Block &block;
  unsigned maxOps;
  unsigned maxOutputs;
  bool recordNotes;
  DenseMap<Operation *, unsigned> groupOf;
  std::vector<Group> groups;
};

SmallVector<Value>
Fuser::outputsOf(ArrayRef<Operation *> ops,
                 const llvm::SmallPtrSetImpl<Operation *> &set) {
  SmallVector<Value> outputs;
  for (Operation *op : ops) {
    for (Value result : op->getResults()) {
      bool usedOutside = llvm::any_of(result.getUsers(), [&](Operation *user) {
        Operation *top = topLevel(user);
        return !top || !set.contains(top);
      });
      if (usedOutside)
        outputs.push_back(result);
    }
  }
  return outputs;
}

bool Fuser::reachesGroup(ArrayRef<Operation *> starts,
                         ArrayRef<unsigned> notFirst, unsigned target) {
  SmallVector<Operation *> worklist;
  llvm::SmallPtrSet<Operation *, 32> visited;
  llvm::SmallDenseSet<unsigned> expandedGroups(notFirst.begin(),
                                               notFirst.end());
  auto push = [&](Operation *op, bool first) {
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (Operation *top = topLevel(user)) {
          auto it = groupOf.find(top);
          if (first && it != groupOf.end() &&
              llvm::is_contained(notFirst, it->second))
            continue;
          if (visited.insert(top).second)
            worklist.push_back(top);
        }
  };
  for (Operation *op : starts)
    push(op, /*first=*/true);
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    auto it = groupOf.find(op);
    if (it == groupOf.end()) {
      push(op, /*first=*/false);
      continue;
    }
    if (it->second == target)
      return true;
    // A group runs as one kernel: everything it produces waits for all of
    // its inputs, so a path entering it leaves through any of its members.
    if (!expandedGroups.insert(it->second).second)
      continue;
    for (Operation *member : groups[it->second].ops) {
      visited.insert(member);
      push(member, /*first=*/false);
    }
  }
  return false;
}

bool Fuser::tryJoin(Operation *p, unsigned groupId, bool asExtraOutput,
                    std::string &whyNot) {
  Group &group = groups[groupId];
  if (group.ops.size() + 1 > maxOps) {
    whyNot = "max-ops-per-kernel (" + std::to_string(maxOps) + ") reached";
    return false;
  }
  if (asExtraOutput) {
    auto shape =
        p->getNumResults() == 1 ? staticShape(p->getResult(0)) : std::nullopt;
    if (!shape) {
      whyNot = "it cannot be an extra output (not one static tensor)";
      return false;
    }
    ArrayRef<int64_t> space = group.plan.space;
    bool fits = *shape == space;
    if (!fits && group.plan.kind == KernelTemplate::Row) {
      SmallVector<int64_t> reduced(space);
      for (size_t d = space.size() - group.plan.numInnerDims; d < space.size();
           ++d)
        reduced[d] = 1;
      fits = *shape == ArrayRef<int64_t>(reduced);
    }
    if (!fits) {
      whyNot = "its value is used by several kernels, and its shape is not "
               "the iteration space of one that could also write it out";
      return false;
    }
    if (reachesGroup({p}, {groupId}, groupId)) {
      whyNot = "its value is used by several kernels, and writing it out of "
               "one would make a cycle through another";
      return false;
    }
  }

  // Every member comes after `p` in the block (they were visited first), so
  // prepending keeps the topological order.
  SmallVector<Operation *> candidate;
  candidate.reserve(group.ops.size() + 1);
  candidate.push_back(p);
  candidate.append(group.ops.begin(), group.ops.end());
  llvm::SmallPtrSet<Operation *, 32> set(candidate.begin(), candidate.end());
  bool cheap = p->hasTrait<trait::DataMovement>() ||
               (p->hasTrait<trait::Elementwise>() && elementCost(p) <= 1);
  if (!cheap && feedsWindowOp(p, set)) {
    whyNot = "as a window op's producer it would be recomputed for every "
             "read of the window (which reads each element several times)";
    return false;
  }
  SmallVector<Value> outputs = outputsOf(candidate, set);
  // Every result is a vector a thread holds in registers until its store;
  // past some dozens per kernel ptxas runs out of them (NVRTC 13: 128 f32
  // results of one kernel spill, test/codegen/register-spills.mlir), so a
  // kernel stops growing its results here. A join that writes no more
  // results than before is fine.
  if (outputs.size() > maxOutputs) {
    llvm::SmallPtrSet<Operation *, 32> groupSet(group.ops.begin(),
                                                group.ops.end());
    if (outputs.size() > outputsOf(group.ops, groupSet).size()) {
      whyNot = "the kernel would write " + std::to_string(outputs.size()) +
               " results (max-outputs-per-kernel " +
               std::to_string(maxOutputs) + ")";
      return false;
    }
  }
  std::string analysis;
  FailureOr<KernelPlan> plan = analyzeKernel(candidate, outputs, &analysis);
  if (failed(plan)) {
    whyNot = "no kernel template covers the group: " + analysis;
    return false;
  }

  // A Row group stays Row: losing it would turn per-row reductions into
  // per-element loops.
  if (group.plan.kind == KernelTemplate::Row &&
      plan->kind != KernelTemplate::Row) {
    whyNot = p->hasTrait<trait::Reduction>()
                 ? "it reduces over other axes than the "
                   "consumer row kernel's rows"
                 : "the consumer row kernel would lose its row "
                   "template";
    return false;
  }
  // In a Pointwise kernel a reduction is a loop run by the thread of each
  // output element that reads it. A reduction smaller than the iteration
  // space would be recomputed for every element it is broadcast to; a larger
  // one (say, feeding a further reduction) would leave few threads doing all
  // of the work. Either is worse than a kernel of its own.
  if (plan->kind == KernelTemplate::Pointwise) {
    int64_t spaceElements = numElements(plan->space);
    for (Operation *op : candidate) {
      if (!op->hasTrait<trait::Reduction>())
        continue;
      auto shape = staticShape(op->getResult(0));
      if (!shape || numElements(*shape) != spaceElements) {
        bool smaller = shape && numElements(*shape) < spaceElements;
        whyNot = smaller ? "a reduction in a pointwise kernel would be "
                           "recomputed for every element it is broadcast to"
                         : "a reduction larger than a pointwise kernel's "
                           "output would leave few threads doing its work";
        return false;
      }
    }
  }

  // Recomputation (see the cost model above): a row kernel computes values
  // of its per-row shape once per row, everything else once per element of
  // the iteration space.
  if (p->getNumResults() == 1 && elementCost(p) > 0) {
    ArrayRef<int64_t> space = plan->space;
    int64_t spaceElements = numElements(space);
    auto evaluations = [&](Operation *op) -> double {
      auto shape = op->getNumResults() == 1 ? staticShape(op->getResult(0))
                                            : std::nullopt;
      if (!shape)
        return double(spaceElements);
      int64_t own = numElements(*shape);
      if (plan->kind == KernelTemplate::Row && shape->size() == space.size()) {
        size_t outer = space.size() - plan->numInnerDims;
        if (shape->take_front(outer) == space.take_front(outer) &&
            llvm::all_of(shape->drop_front(outer),
                         [](int64_t d) { return d == 1; }))
          return double(own);
      }
      return double(std::max(own, spaceElements));
    };
    auto shape = staticShape(p->getResult(0));
    double own = shape ? double(numElements(*shape)) : 0;
    double withP = 0;
    for (Operation *op : candidate)
      withP += double(elementCost(op)) * evaluations(op);
    double pOps = double(elementCost(p)) * evaluations(p);
    double withoutP = withP - pOps;
    double memory = kOpsPerByte * double(plan->bytesRead + plan->bytesWritten);
    double separate =
        kLaunchOps + std::max(kOpsPerByte * 2.0 * own *
                                  double(elementBytes(p->getResult(0))),
                              double(elementCost(p)) * own);
    double fused = std::max(memory, withP);
    double unfused = std::max(memory, withoutP) + separate;
    if (own > 0 && evaluations(p) > own && fused > unfused) {
      whyNot = "it would be recomputed " +
               std::to_string(int64_t(evaluations(p) / own)) +
               " times per element, making the kernel compute-bound (" +
               std::to_string(int64_t(withP)) + " operations against " +
               std::to_string(int64_t(memory)) +
               " for its memory traffic), slower than a kernel of its own";
      return false;
    }
  }

  group.ops = std::move(candidate);
  group.plan = std::move(*plan);
  groupOf[p] = groupId;
  return true;
}

void Fuser::startGroup(Operation *p) {
  Group group;
  group.ops.push_back(p);
  llvm::SmallPtrSet<Operation *, 1> set;
  set.insert(p);
  SmallVector<Value> outputs = outputsOf(group.ops, set);
  FailureOr<KernelPlan> plan = analyzeKernel(group.ops, outputs);
  if (succeeded(plan)) {
    group.plan = std::move(*plan);
  } else if (p->getNumResults() > 0) {
    // A lone op always forms a kernel; the plan only guides later joins.
    if (auto shape = staticShape(p->getResult(0)))
      group.plan.space.assign(shape->begin(), shape->end());
  }
  groupOf[p] = groups.size();
  groups.push_back(std::move(group));
}

void Fuser::outlineGroup(Group &group, OpBuilder &builder) {
  llvm::SmallPtrSet<Operation *, 32> members(group.ops.begin(),
                                             group.ops.end());
  llvm::SetVector<Value> inputs;
  llvm::SetVector<Operation *> clonedConstants;
  SmallVector<Location> locations;
  for (Operation *op : group.ops) {
    locations.push_back(op->getLoc());
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && members.contains(def))
        continue;
      if (def && isSplatConstant(def) && def->getBlock() == &block) {
        clonedConstants.insert(def);
        continue;
      }
      inputs.insert(operand);
    }
  }
  SmallVector<Value> outputs = outputsOf(group.ops, members);
  if (outputs.empty()) {
    // Nothing outside reads the group (dead code is removed up front, so
    // this is only a safeguard): a kernel must have results.
    for (Operation *op : llvm::reverse(group.ops))
      op->erase();
    return;
  }
  SmallVector<Type> resultTypes;
  for (Value v : outputs)
    resultTypes.push_back(v.getType());

  Location loc = builder.getFusedLoc(locations);
  auto kernel =
      builder.create<KernelOp>(loc, resultTypes, inputs.getArrayRef());
  if (recordNotes)
    attachNotes(group, kernel, inputs.getArrayRef(), outputs);
  Block &body = kernel.getBodyBlock();
  OpBuilder bodyBuilder = OpBuilder::atBlockBegin(&body);
  auto insideKernel = [&](OpOperand &use) {
    return kernel->isProperAncestor(use.getOwner());
  };

  // The members in block order, preceded by the cloned constants in
  // first-use order.
  for (Operation *op : group.ops)
    op->moveBefore(&body, body.end());
  bodyBuilder.setInsertionPointToStart(&body);
  for (Operation *constant : clonedConstants) {
    Operation *clone = bodyBuilder.clone(*constant);
    constant->getResult(0).replaceUsesWithIf(clone->getResult(0), insideKernel);
  }
  for (auto [i, input] : llvm::enumerate(inputs)) {
    Value value = input;
    value.replaceUsesWithIf(body.getArgument(i), insideKernel);
  }
  bodyBuilder.setInsertionPointToEnd(&body);
  bodyBuilder.create<YieldOp>(loc, outputs);
  for (auto [i, output] : llvm::enumerate(outputs))
    Value(output).replaceUsesWithIf(kernel->getResult(i), [&](OpOperand &use) {
      return !kernel->isAncestor(use.getOwner());
    });
}

/// Whether `input` (a value outside a kernel) is `p`'s result, directly or
/// as the result of the kernel `p` was outlined into.
static bool isResultOf(Value input, Operation *p) {
  if (input.getDefiningOp() == p)
    return true;
  auto kernel = input.getDefiningOp<KernelOp>();
  if (!kernel)
    return false;
  auto yield = cast<YieldOp>(kernel.getBodyBlock().getTerminator());
  Value inner = yield->getOperand(cast<OpResult>(input).getResultNumber());
  return inner.getDefiningOp() == p;
}

void Fuser::attachNotes(Group &group, KernelOp kernel, ArrayRef<Value> inputs,
                        ArrayRef<Value> outputs) {
  MLIRContext *context = kernel->getContext();
  SmallVector<Attribute> notes;
  for (const FusionNote &note : group.notes) {
    int64_t index = -1;
    if (note.isProducer) {
      for (auto [i, input] : llvm::enumerate(inputs))
        if (isResultOf(input, note.op)) {
          index = i;
          break;
        }
    } else {
      for (auto [i, output] : llvm::enumerate(outputs))
        if (output.getDefiningOp() == note.op) {
          index = i;
          break;
        }
    }
    if (index < 0)
      continue;
    NamedAttribute fields[] = {
        NamedAttribute(
            StringAttr::get(context, note.isProducer ? "operand" : "result"),
            IntegerAttr::get(IntegerType::get(context, 64), index)),
        NamedAttribute(StringAttr::get(context, "reason"),
                       StringAttr::get(context, note.reason))};
    Attribute dict = DictionaryAttr::get(context, fields);
    if (!llvm::is_contained(notes, dict))
      notes.push_back(dict);
  }
  if (!notes.empty())
    setFusionNotes(kernel, ArrayAttr::get(context, notes));
}

/// Greedy fusion grows groups from consumers to producers, so a producer
/// whose value also leaves the kernel (returned, or read by another kernel)
/// must fit the consumer group's plan as it is then: the statistics of a
/// layer norm ([rows, 1]) cannot be an extra output of the pointwise kernel
/// that normalizes, and the normalization ends up in a kernel of its own,
/// reading back the centred rows the statistics kernel wrote. Here, after
/// the greedy pass, a group over the same rows that reads values of a row
/// group joins it when the union still has a row plan that moves no more
/// bytes than the two kernels: the layer norm with its statistics is one
/// kernel again. A group of transposes that only move the row group's rows
/// joins it too: the row kernel writes each row also at its moved place.
void Fuser::mergeIntoRowProducers() {
  for (unsigned a = 0; a < groups.size(); ++a) {
    // A merge gives the group the consumers of the merged one: look again
    // until none joins.
    for (bool merged = true; merged;) {
      merged = false;
      if (groups[a].ops.empty() || groups[a].plan.kind != KernelTemplate::Row)
        break;
      llvm::SetVector<unsigned> consumers;
      for (Operation *op : groups[a].ops)
        for (Operation *user : op->getUsers())
          if (Operation *top = topLevel(user)) {
            auto it = groupOf.find(top);
            if (it != groupOf.end() && it->second != a)
              consumers.insert(it->second);
          }
      for (unsigned b : consumers) {
        Group &pa = groups[a], &pb = groups[b];
        // A group of transposes that only move pa's rows (a batch-first
        // layer norm's output viewed sequence-first) is written by pa.
        bool movesRows =
            !pb.ops.empty() && llvm::all_of(pb.ops, [&](Operation *op) {
              return isa<TransposeOp>(op) &&
                     rowOutputPerm(op->getResult(0), pa.plan.space,
                                   pa.plan.numInnerDims);
            });
        if (pb.ops.empty() || (pb.plan.space != pa.plan.space && !movesRows) ||
            (pb.plan.kind == KernelTemplate::Row &&
             pb.plan.numInnerDims != pa.plan.numInnerDims) ||
            pa.ops.size() + pb.ops.size() > maxOps ||
            reachesGroup(pa.ops, {a, b}, b))
          continue;
        SmallVector<Operation *> candidate;
        std::merge(
            pa.ops.begin(), pa.ops.end(), pb.ops.begin(), pb.ops.end(),
            std::back_inserter(candidate),
            [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
        llvm::SmallPtrSet<Operation *, 32> set(candidate.begin(),
                                               candidate.end());
        SmallVector<Value> outputs = outputsOf(candidate, set);
        if (outputs.size() > maxOutputs)
          continue;
        FailureOr<KernelPlan> plan = analyzeKernel(candidate, outputs);
        if (failed(plan) || plan->kind != KernelTemplate::Row ||
            plan->bytesRead + plan->bytesWritten >
                pa.plan.bytesRead + pa.plan.bytesWritten + pb.plan.bytesRead +
                    pb.plan.bytesWritten)
          continue;
        pa.ops = std::move(candidate);
        pa.plan = std::move(*plan);
        pa.notes.append(pb.notes.begin(), pb.notes.end());
        for (Operation *op : pb.ops)
          groupOf[op] = a;
        pb.ops.clear();
        pb.notes.clear();
        merged = true;
        break;
      }
    }
  }
}

/// A kernel of one slice that selects a contiguous block of its operand
/// (SliceOp::contiguousOffset: one channel range of an NCHW tensor at batch
/// 1, rows of a matrix) would only copy bytes that are already in memory
/// (its operand comes from outside the kernel: a library call, another
/// kernel, an argument or a constant). The slice stays a view of that
/// buffer instead, read in place by its consumers (attr::kView): no launch
/// and no copy. Its offset must keep the alignment of a buffer (256 bytes,
/// what vector loads, cuBLASLt's and cuDNN's fast paths expect), and a
/// returned value is written into its output, so it is no view.
void Fuser::keepSliceViews() {
  for (Group &group : groups) {
    if (group.ops.size() != 1)
      continue;
    auto slice = dyn_cast<SliceOp>(group.ops.front());
    if (!slice || !staticShape(slice.getInput()))
      continue;
    std::optional<int64_t> offset = slice.contiguousOffset();
    std::optional<int64_t> bytes =
        offset ? llvm::checkedMul(*offset, elementBytes(slice.getResult()))
               : std::nullopt;
    if (!bytes || *bytes % attr::kViewAlignment != 0)
      continue;
    SmallVector<Value> values{slice.getResult()};
    bool returned = false;
    while (!values.empty() && !returned)
      for (Operation *user : values.pop_back_val().getUsers()) {
        if (isa<func::ReturnOp>(user))
          returned = true;
        else if (isa<ReshapeOp>(user))
          values.push_back(user->getResult(0));
      }
    if (returned)
      continue;
    slice->setAttr(attr::kView, UnitAttr::get(slice.getContext()));
    groupOf.erase(slice);
    group.ops.clear();
  }
}

LogicalResult Fuser::outline() {
  // Nodes of the schedule: one per group, one per other top-level op.
  SmallVector<Operation *> topOps;
  Operation *terminator = nullptr;
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>() && &op == &block.back()) {
      terminator = &op;
      continue;
    }
    topOps.push_back(&op);
  }
  unsigned numGroups = groups.size();
  DenseMap<Operation *, unsigned> nodeOf;
  SmallVector<unsigned> firstPosition(numGroups, ~0u);
  SmallVector<Operation *> singleOp(numGroups, nullptr);
  for (auto [i, op] : llvm::enumerate(topOps)) {
    auto it = groupOf.find(op);
    unsigned node;
    if (it != groupOf.end()) {
      node = it->second;
    } else {
      node = firstPosition.size();
      firstPosition.push_back(~0u);
      singleOp.push_back(op);
    }
    nodeOf[op] = node;
    firstPosition[node] = std::min<unsigned>(firstPosition[node], i);
  }
  unsigned numNodes = firstPosition.size();

  // Edges from definitions to uses, including uses nested in regions.
  SmallVector<SmallVector<unsigned>> successors(numNodes);
  SmallVector<unsigned> inDegree(numNodes, 0);
  llvm::DenseSet<std::pair<unsigned, unsigned>> edges;
  for (Operation *op : topOps) {
    unsigned to = nodeOf[op];
    op->walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || def->getBlock() != &block)
          continue;
        auto it = nodeOf.find(def);
        if (it == nodeOf.end() || it->second == to)
          continue;
        if (edges.insert({it->second, to}).second) {
          successors[it->second].push_back(to);
          ++inDegree[to];
        }
      }
    });
  }

  // Kahn's algorithm, earliest original position first, so the schedule
  // stays close to the input order.
  using Entry = std::pair<unsigned, unsigned>; // (first position, node)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready;
  for (unsigned n = 0; n < numNodes; ++n)
    if (inDegree[n] == 0)
      ready.push({firstPosition[n], n});
  SmallVector<unsigned> order;
  while (!ready.empty()) {
    unsigned n = ready.top().second;
    ready.pop();
    order.push_back(n);
    for (unsigned s : successors[n])
      if (--inDegree[s] == 0)
        ready.push({firstPosition[s], s});
  }
  if (order.size() != numNodes)
    return failure();

  OpBuilder builder(block.getParentOp()->getContext());
  for (unsigned n : order) {
    if (terminator)
      builder.setInsertionPoint(terminator);
    else
      builder.setInsertionPointToEnd(&block);
    if (n < numGroups) {
      outlineGroup(groups[n], builder);
      continue;
    }
    Operation *op = singleOp[n];
    if (terminator)
      op->moveBefore(terminator);
    else
      op->moveBefore(&block, block.end());
  }
  return success();
}

LogicalResult Fuser::run() {
  // Views are this pass's decision (keepSliceViews), not the input's.
  block.walk([](SliceOp slice) { slice->removeAttr(attr::kView); });
  // Dead fusable ops would form kernels without results.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if ((isFusable(&op) || isa<ReshapeOp>(op)) && op.use_empty())
      op.erase();

  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);

  for (Operation *p : llvm::reverse(ops)) {
    bool reshape = isa<ReshapeOp>(p);
    bool allInGroups = true;
    Operation *outsideUser = nullptr;
    SmallVector<unsigned> userGroups;
    for (Operation *user : p->getUsers()) {
      Operation *top = topLevel(user);
      auto it = top ? groupOf.find(top) : groupOf.end();
      if (it == groupOf.end()) {
        allInGroups = false;
        if (!outsideUser)
          outsideUser = top ? top : user;
        continue;
      }
      if (!llvm::is_contained(userGroups, it->second))
        userGroups.push_back(it->second);
    }
    auto noteOnUsers = [&](const std::string &reason, unsigned except) {
      for (unsigned g : userGroups)
        if (g != except)
          groups[g].notes.push_back({/*isProducer=*/true, p, reason});
    };
    if (!reshape && !isFusable(p)) {
      // Constants are kernel operands (or literals when splat) by design:
      // only a matmul is a neighbour worth explaining.
      if (isa<MatmulOp>(p))
        noteOnUsers(kMatmulNote, ~0u);
      else if (isa<ConvOp>(p))
        noteOnUsers(kConvNote, ~0u);
      else if (isa<AttentionOp>(p))
        noteOnUsers(kAttentionNote, ~0u);
      continue;
    }
    std::string why;
    if (allInGroups && userGroups.size() == 1) {
      if (tryJoin(p, userGroups.front(), /*asExtraOutput=*/false, why))
        continue;
    } else if (!allInGroups) {
      // Reshapes between kernels are views: name what reads through them.
      Operation *reader = outsideUser;
      while (isa<ReshapeOp>(reader) && reader->hasOneUse()) {
        Operation *next = topLevel(*reader->getUsers().begin());
        if (!next)
          break;
        reader = next;
      }
      if (isa<func::ReturnOp>(reader))
        why = "its value is also returned by the function";
      else if (isa<MatmulOp>(reader))
        why = "its value is also read by a matmul (a cuBLAS call), so it is "
              "written to memory";
      else if (isa<ConvOp>(reader))
        why = "its value is also read by a library convolution (a cuDNN "
              "call), so it is written to memory";
      else
        why = "its value is also used outside kernels (by '" +
              reader->getName().getStringRef().str() + "')";
      outsideUser = reader;
    } else {
      why = "its value is used by " + std::to_string(userGroups.size()) +
            " kernels";
    }
    // A reshape that cannot be folded into its one consumer stays a view.
    if (reshape) {
      noteOnUsers("it is a reshape kept as a free view: " + why, ~0u);
      continue;
    }
    unsigned joined = ~0u;
    std::string limitWhy;
    for (unsigned g : userGroups) {
      std::string extraWhy;
      if (tryJoin(p, g, /*asExtraOutput=*/true, extraWhy)) {
        joined = g;
        break;
      }
      // A kernel that could write it out but is full says so.
      if (limitWhy.empty() &&
          StringRef(extraWhy).contains("max-outputs-per-kernel"))
        limitWhy = extraWhy;
    }
    if (joined != ~0u) {
      noteOnUsers(why + "; another of them computes it and writes it out",
                  joined);
      continue;
    }
    if (userGroups.size() > 1)
      why += ", none of which can also write it out";
    if (!limitWhy.empty())
      why += "; " + limitWhy;
    startGroup(p);
    noteOnUsers(why, ~0u);
    // The consumers that rejected it, and a matmul reading it, explain why
    // the new kernel ends at `p`; a return does not.
    if (!userGroups.empty() || isa_and_nonnull<MatmulOp, ConvOp>(outsideUser))
      groups[groupOf[p]].notes.push_back({/*isProducer=*/false, p, why});
  }

  mergeIntoRowProducers();
  keepSliceViews();
  if (failed(outline()))
    return failure();

  // Splat constants now live inside the kernels that use them.
  for (Operation &op : llvm::make_early_inc_range(block))
    if (isa<ConstantOp>(op) && op.use_empty())
      op.erase();
  return success();
}

struct FusePass : public ::mlir::dlc::impl::FuseBase<FusePass> {
  using FuseBase::FuseBase;

  /// Transposes that only move dimensions of size 1 become reshapes (free
  /// views).
  static void reshapeUnitDimTransposes(func::FuncOp func) {
    SmallVector<TransposeOp> transposes;
    func.walk([&](TransposeOp op) { transposes.push_back(op); });
    for (TransposeOp op : transposes) {
      if (!op.movesOnlyUnitDims())
        continue;
      OpBuilder b(op);
      Value view =
          b.create<ReshapeOp>(op.getLoc(), op.getType(), op.getInput());
      op.getResult().replaceAllUsesWith(view);
      op->erase();
    }
  }

  /// A transpose of a value that is in memory anyway (a model input, a
  /// product, a view of one, a value returned or read by a product) read by
  /// several ops gets a copy per reader: each copy joins its reader's
  /// kernel as index arithmetic, where one shared transpose would be a
  /// kernel of its own (a value several kernels read is written out),
  /// writing and reading the data once more. A transpose of a value only
  /// kernels read stays one, for the kernel that makes the value to write.
  static void copySharedTransposes(func::FuncOp func) {
    SmallVector<TransposeOp> transposes;
    func.walk([&](TransposeOp op) { transposes.push_back(op); });
    for (TransposeOp op : transposes) {
      Value source = op.getInput();
      while (auto view = source.getDefiningOp<ReshapeOp>())
        source = view.getInput();
      Operation *def = source.getDefiningOp();
      bool inMemory = !def || !isFusable(def) ||
                      llvm::any_of(source.getUsers(), [](Operation *user) {
                        return !isFusable(user) && !isa<ReshapeOp>(user);
                      });
      if (!inMemory)
        continue;
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getUses())
        uses.push_back(&use);
      if (uses.size() < 2)
        continue;
      for (OpOperand *use : ArrayRef<OpOperand *>(uses).drop_front()) {
        OpBuilder b(use->getOwner());
        use->set(b.clone(*op)->getResult(0));
      }
    }
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(checkTensorSizes(func)))
      return signalPassFailure();
    reshapeUnitDimTransposes(func);
    copySharedTransposes(func);
    for (Block &block : func.getBody()) {
      Fuser fuser(block, maxOpsPerKernel,
                  std::max(1u, unsigned(maxOutputsPerKernel)), fusionNotes);
      if (failed(fuser.run())) {
        func.emitError() << "dlc-fuse found a cyclic dependence between "
                            "kernels (internal error)";
        return signalPassFailure();
      }
      LLVM_DEBUG(llvm::dbgs()
                 << DEBUG_TYPE ": " << func.getSymName() << ": "
                 << llvm::count_if(
                        block, [](Operation &op) { return isa<KernelOp>(op); })
                 << " kernels\n");
    }
  }
};

} // namespace
