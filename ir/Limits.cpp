//===- Limits.cpp - How deep dlc lets IR nest -----------------------------===//
#include "ir/Limits.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Types.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlir;

namespace {

/// An attribute or a type, as one opaque pointer with a tag bit.
struct Element {
  const void *pointer;
  bool isType;
  uintptr_t key() const { return uintptr_t(pointer) | uintptr_t(isType); }
};

Element of(Attribute attr) { return {attr.getAsOpaquePointer(), false}; }
Element of(Type type) { return {type.getAsOpaquePointer(), true}; }

/// How deep the elements reachable from `roots` nest (the roots are level
/// 1), up to `limit + 1`. Level by level: each level holds distinct
/// elements, so the work is at most `limit` times the distinct elements.
unsigned nestingDepth(llvm::ArrayRef<Element> roots, unsigned limit) {
  llvm::SmallVector<Element> level, next;
  llvm::DenseSet<uintptr_t> seen;
  auto push = [&](Element e) {
    if (e.pointer && seen.insert(e.key()).second)
      next.push_back(e);
  };
  for (Element e : roots)
    push(e);
  unsigned depth = 0;
  while (!next.empty()) {
    std::swap(level, next);
    if (++depth > limit)
      return depth;
    next.clear();
    seen.clear();
    auto onAttr = [&](Attribute a) { push(of(a)); };
    auto onType = [&](Type t) { push(of(t)); };
    for (Element e : level) {
      if (e.isType)
        Type::getFromOpaquePointer(e.pointer).walkImmediateSubElements(onAttr,
                                                                       onType);
      else
        Attribute::getFromOpaquePointer(e.pointer).walkImmediateSubElements(
            onAttr, onType);
    }
  }
  return depth;
}

/// The location, attributes and types an op carries, and those of its
/// blocks' arguments.
void elementsOf(Operation *op, llvm::SmallVectorImpl<Element> &out) {
  out.push_back(of(Attribute(op->getLoc())));
  out.push_back(of(Attribute(op->getAttrDictionary())));
  for (Type t : op->getResultTypes())
    out.push_back(of(t));
  for (Region &region : op->getRegions())
    for (Block &block : region)
      for (BlockArgument arg : block.getArguments()) {
        out.push_back(of(arg.getType()));
        out.push_back(of(Attribute(arg.getLoc())));
      }
}

/// Every op under `root` with its region depth (root: 1), without
/// recursion; stops when `visit` returns false.
template <typename Fn> void forEachOp(Operation *root, Fn visit) {
  llvm::SmallVector<std::pair<Operation *, unsigned>> work = {{root, 1}};
  while (!work.empty()) {
    auto [op, depth] = work.pop_back_val();
    if (!visit(op, depth))
      return;
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (Operation &nested : block)
          work.push_back({&nested, depth + 1});
  }
}

/// `loc` cut to at most `budget` levels (memoized per location and budget).
class Truncator {
public:
  Location cut(Location loc, unsigned budget) {
    if (mlir::dlc::locationDepth(loc, budget) <= budget)
      return loc;
    if (budget <= 3)
      return mlir::dlc::firstFileLocation(loc);
    auto key = std::make_pair(loc.getAsOpaquePointer(), budget);
    auto it = memo.find(key);
    if (it != memo.end())
      return Location::getFromOpaquePointer(it->second);
    Location out = cutUncached(loc, budget);
    memo[key] = out.getAsOpaquePointer();
    return out;
  }

private:
  Location cutUncached(Location loc, unsigned budget) {
    MLIRContext *context = loc->getContext();
    if (auto call = dyn_cast<CallSiteLoc>(loc))
      return CallSiteLoc::get(cut(call.getCallee(), budget - 1),
                              cut(call.getCaller(), budget - 1));
    if (auto name = dyn_cast<NameLoc>(loc))
      return NameLoc::get(name.getName(), cut(name.getChildLoc(), budget - 1));
    if (auto fused = dyn_cast<FusedLoc>(loc)) {
      llvm::SmallVector<Location> parts;
      for (Location part : fused.getLocations())
        parts.push_back(cut(part, budget - 1));
      Attribute metadata = fused.getMetadata();
      if (metadata && nestingDepth({of(metadata)}, budget - 1) > budget - 1)
        metadata = {};
      return FusedLoc::get(context, parts, metadata);
    }
    return mlir::dlc::firstFileLocation(loc);
  }

  llvm::DenseMap<std::pair<const void *, unsigned>, const void *> memo;
};

} // namespace

unsigned mlir::dlc::locationDepth(Location loc, unsigned limit) {
  return nestingDepth({of(Attribute(loc))}, limit);
}

Location mlir::dlc::firstFileLocation(Location loc) {
  llvm::SmallVector<Location> work = {loc};
  llvm::DenseSet<const void *> seen;
  while (!work.empty()) {
    Location l = work.pop_back_val();
    if (!seen.insert(l.getAsOpaquePointer()).second)
      continue;
    if (isa<FileLineColLoc>(l))
      return l;
    // Pushed in reverse: callees and first parts are looked at first.
    if (auto call = dyn_cast<CallSiteLoc>(l)) {
      work.push_back(call.getCaller());
      work.push_back(call.getCallee());
    } else if (auto name = dyn_cast<NameLoc>(l)) {
      work.push_back(name.getChildLoc());
    } else if (auto fused = dyn_cast<FusedLoc>(l)) {
      for (Location part : llvm::reverse(fused.getLocations()))
        work.push_back(part);
    } else if (auto opaque = dyn_cast<OpaqueLoc>(l)) {
      work.push_back(opaque.getFallbackLocation());
    }
  }
  return UnknownLoc::get(loc->getContext());
}

LogicalResult mlir::dlc::checkNestingDepth(Operation *root, unsigned maxDepth) {
  Operation *tooDeep = nullptr;
  unsigned opDepth = 0;
  llvm::SmallVector<Element> all;
  forEachOp(root, [&](Operation *op, unsigned depth) {
    if (depth > maxDepth) {
      tooDeep = op;
      opDepth = depth;
      return false;
    }
    elementsOf(op, all);
    return true;
  });
  if (tooDeep)
    return emitError(firstFileLocation(tooDeep->getLoc()))
           << "'" << tooDeep->getName() << "' op is nested more than "
           << maxDepth << " levels deep in regions; dlc reads models nested "
           << "at most " << maxDepth << " levels deep";
  // All elements at once first (the common case: nothing is deep), then op
  // by op to find the one to report.
  if (nestingDepth(all, maxDepth) <= maxDepth)
    return success();
  forEachOp(root, [&](Operation *op, unsigned) {
    llvm::SmallVector<Element> mine;
    elementsOf(op, mine);
    if (nestingDepth(mine, maxDepth) > maxDepth) {
      tooDeep = op;
      return false;
    }
    return true;
  });
  if (!tooDeep)
    return success();
  bool deepLocation = locationDepth(tooDeep->getLoc(), maxDepth) > maxDepth;
  return emitError(firstFileLocation(tooDeep->getLoc()))
         << "'" << tooDeep->getName() << "' op has "
         << (deepLocation ? "a location" : "attributes or types")
         << " nested more than " << maxDepth
         << " levels deep; dlc reads models nested at most " << maxDepth
         << " levels deep";
}

bool mlir::dlc::hasDeepLocations(Operation *root, unsigned maxDepth) {
  bool deep = false;
  forEachOp(root, [&](Operation *op, unsigned) {
    llvm::SmallVector<Element> locs = {of(Attribute(op->getLoc()))};
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          locs.push_back(of(Attribute(arg.getLoc())));
    deep = nestingDepth(locs, maxDepth) > maxDepth;
    return !deep;
  });
  return deep;
}

void mlir::dlc::truncateLocations(Operation *root, unsigned maxDepth) {
  Truncator truncator;
  forEachOp(root, [&](Operation *op, unsigned) {
    op->setLoc(truncator.cut(op->getLoc(), maxDepth));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          arg.setLoc(truncator.cut(arg.getLoc(), maxDepth));
    return true;
  });
}
