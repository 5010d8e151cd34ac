//===- Fuse.cpp - Group dlc operations into fused kernels -----------------===//
//
// Greedy producer-to-consumer fusion. Operations are visited from the last to
// the first; an operation joins the group of its consumers when all of them
// are in one group and the grown group still has a good kernel plan
// (KernelAnalysis). A value needed by several groups or by a matrix product
// is materialized, unless its producer can join one consumer group as an
// extra output (multi-output fusion). Groups are then outlined into
// dlc.kernel regions in an order that keeps every use after its definition.
//
//===----------------------------------------------------------------------===//
#include "passes/KernelAnalysis.h"
#include "passes/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <optional>
#include <queue>

namespace mlir::dlc {
#define GEN_PASS_DEF_FUSE
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

bool isReduction(Operation *op) { return isa<ReduceOp, ArgMaxOp>(op); }

/// Operations that become part of some kernel. Reshapes are handled apart:
/// between kernels they are free views.
bool isFusable(Operation *op) {
  if (isa<ReshapeOp>(op))
    return false;
  return isElementwise(op) || isDataMovement(op) || isReduction(op) ||
         isWindowOp(op);
}

/// Whether `p`, joined to `group`, would be read by a window op of the group
/// (directly or through data movement, which only remaps indices). A window
/// op reads each input element several times (a 3x3 convolution nine
/// times), so a computing producer would be recomputed for every read: it
/// is cheaper materialized. Data movement itself costs nothing to repeat.
bool feedsWindowOp(Operation *p,
                   const llvm::SmallPtrSetImpl<Operation *> &group) {
  SmallVector<Operation *> worklist{p};
  llvm::SmallPtrSet<Operation *, 8> visited;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Operation *user : op->getUsers()) {
      if (!group.contains(user) || !visited.insert(user).second)
        continue;
      if (isWindowOp(user))
        return true;
      if (isDataMovement(user))
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

struct Group {
  /// Members in block order (which is a topological order).
  SmallVector<Operation *> ops;
  KernelPlan plan;
};

class Fuser {
public:
  Fuser(Block &block, unsigned maxOps) : block(block), maxOps(maxOps) {}

  LogicalResult run();

private:
  /// The operation of `block` that is or contains `op`, or null.
  Operation *topLevel(Operation *op) { return block.findAncestorOpInBlock(*op); }

  /// Values defined by `ops` and used outside them, in op order.
  SmallVector<Value> outputsOf(ArrayRef<Operation *> ops,
                               const llvm::SmallPtrSetImpl<Operation *> &set);
  /// Whether adding `p` to `group` still gives a plan at least as good.
  bool tryJoin(Operation *p, unsigned group, bool asExtraOutput);
  /// Whether a path leads from `p` through operations outside `group` back
  /// into `group` (the group would then have to run both before and after
  /// that path).
  bool reachesGroupFromOutside(Operation *p, unsigned group);
  void startGroup(Operation *p);
  LogicalResult outline();
  void outlineGroup(Group &group, OpBuilder &builder);

  Block &block;
  unsigned maxOps;
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

bool Fuser::reachesGroupFromOutside(Operation *p, unsigned group) {
  SmallVector<Operation *> worklist;
  llvm::SmallPtrSet<Operation *, 32> visited;
  llvm::SmallDenseSet<unsigned> expandedGroups;
  auto push = [&](Operation *op) {
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (Operation *top = topLevel(user))
          if (visited.insert(top).second)
            worklist.push_back(top);
  };
  for (Value result : p->getResults())
    for (Operation *user : result.getUsers())
      if (Operation *top = topLevel(user)) {
        auto it = groupOf.find(top);
        if (it != groupOf.end() && it->second == group)
          continue;
        if (visited.insert(top).second)
          worklist.push_back(top);
      }
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    auto it = groupOf.find(op);
    if (it == groupOf.end()) {
      push(op);
      continue;
    }
    if (it->second == group)
      return true;
    // A group runs as one kernel: everything it produces waits for all of
    // its inputs, so a path entering it leaves through any of its members.
    if (!expandedGroups.insert(it->second).second)
      continue;
    for (Operation *member : groups[it->second].ops) {
      visited.insert(member);
      push(member);
    }
  }
  return false;
}

bool Fuser::tryJoin(Operation *p, unsigned groupId, bool asExtraOutput) {
  Group &group = groups[groupId];
  if (group.ops.size() + 1 > maxOps)
    return false;
  if (asExtraOutput) {
    if (p->getNumResults() != 1)
      return false;
    auto shape = staticShape(p->getResult(0));
    if (!shape)
      return false;
    ArrayRef<int64_t> space = group.plan.space;
    bool fits = *shape == space;
    if (!fits && group.plan.kind == KernelTemplate::Row) {
      SmallVector<int64_t> reduced(space);
      for (size_t d = space.size() - group.plan.numInnerDims; d < space.size();
           ++d)
        reduced[d] = 1;
      fits = *shape == ArrayRef<int64_t>(reduced);
    }
    if (!fits || reachesGroupFromOutside(p, groupId))
      return false;
  }

  // Every member comes after `p` in the block (they were visited first), so
  // prepending keeps the topological order.
  SmallVector<Operation *> candidate;
  candidate.reserve(group.ops.size() + 1);
  candidate.push_back(p);
  candidate.append(group.ops.begin(), group.ops.end());
  llvm::SmallPtrSet<Operation *, 32> set(candidate.begin(), candidate.end());
  if (!isDataMovement(p) && feedsWindowOp(p, set))
    return false;
  SmallVector<Value> outputs = outputsOf(candidate, set);
  FailureOr<KernelPlan> plan = analyzeKernel(candidate, outputs);
  if (failed(plan))
    return false;

  // A Row group stays Row: losing it would turn per-row reductions into
  // per-element loops.
  if (group.plan.kind == KernelTemplate::Row &&
      plan->kind != KernelTemplate::Row)
    return false;
  // In a Pointwise kernel a reduction is a loop run by the thread of each
  // output element that reads it. A reduction smaller than the iteration
  // space would be recomputed for every element it is broadcast to; a larger
  // one (say, feeding a further reduction) would leave few threads doing all
  // of the work. Either is worse than a kernel of its own.
  if (plan->kind == KernelTemplate::Pointwise) {
    int64_t spaceElements = numElements(plan->space);
    for (Operation *op : candidate) {
      if (!isReduction(op))
        continue;
      auto shape = staticShape(op->getResult(0));
      if (!shape || numElements(*shape) != spaceElements)
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
    constant->getResult(0).replaceUsesWithIf(clone->getResult(0),
                                             insideKernel);
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
  // Dead fusable ops would form kernels without results.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(block)))
    if ((isFusable(&op) || isa<ReshapeOp>(op)) && op.use_empty())
      op.erase();

  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);

  for (Operation *p : llvm::reverse(ops)) {
    bool reshape = isa<ReshapeOp>(p);
    if (!reshape && !isFusable(p))
      continue;
    bool allInGroups = true;
    SmallVector<unsigned> userGroups;
    for (Operation *user : p->getUsers()) {
      Operation *top = topLevel(user);
      auto it = top ? groupOf.find(top) : groupOf.end();
      if (it == groupOf.end()) {
        allInGroups = false;
        continue;
      }
      if (!llvm::is_contained(userGroups, it->second))
        userGroups.push_back(it->second);
    }
    if (allInGroups && userGroups.size() == 1 &&
        tryJoin(p, userGroups.front(), /*asExtraOutput=*/false))
      continue;
    // A reshape that cannot be folded into its one consumer stays a view.
    if (reshape)
      continue;
    bool joined = false;
    for (unsigned g : userGroups)
      if ((joined = tryJoin(p, g, /*asExtraOutput=*/true)))
        break;
    if (!joined)
      startGroup(p);
  }

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

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (failed(checkTensorSizes(func)))
      return signalPassFailure();
    for (Block &block : func.getBody()) {
      Fuser fuser(block, maxOpsPerKernel);
      if (failed(fuser.run())) {
        func.emitError() << "dlc-fuse found a cyclic dependence between "
                            "kernels (internal error)";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
