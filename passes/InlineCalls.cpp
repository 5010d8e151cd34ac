//===- InlineCalls.cpp - Calls of the module's functions inlined ----------===//
//
// The first step of the lowering pipeline. Code generation compiles one
// function, whose top level holds kernels, products and views only; a
// `func.call` of another function of the module is therefore replaced by
// the callee's body (MLIR's inliner, without its cleanup pipeline, so that
// --no-canonicalize still means no canonicalization). What cannot be
// inlined is an error at the call's location before the inliner runs: a
// call of a declaration without a body, and a recursive call, whose cycle
// the message names.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_INLINECALLS
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

struct InlineCallsPass
    : public mlir::dlc::impl::InlineCallsBase<InlineCallsPass> {
  void getDependentDialects(DialectRegistry &registry) const override {
    // func.func and func.return take part in inlining through this
    // extension (func.call's callee body replaces the call).
    func::registerInlinerExtension(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool anyCall = false;
    module.walk([&](func::CallOp) { anyCall = true; });
    if (!anyCall)
      return;
    if (failed(checkCalls(module)))
      return signalPassFailure();
    // The inliner alone: the default pipeline it runs on callees would
    // canonicalize.
    OpPassManager inliner(ModuleOp::getOperationName());
    inliner.addPass(createInlinerPass(llvm::StringMap<OpPassManager>{},
                                      [](OpPassManager &) {}));
    if (failed(runPipeline(inliner, module)))
      return signalPassFailure();
    // Every call passed the checks: one left means a callee holds an op no
    // dialect allows to be inlined.
    WalkResult left = module.walk([&](func::CallOp call) {
      call.emitOpError() << "calls '@" << call.getCallee()
                         << "', whose body cannot be inlined; dlc compiles a "
                            "call by inlining the callee";
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }

  /// Errors for calls of declarations and for recursive calls.
  LogicalResult checkCalls(ModuleOp module) {
    SymbolTable symbols(module);
    bool ok = true;
    module.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (callee && callee.isExternal()) {
        call.emitOpError() << "calls '@" << call.getCallee()
                           << "', a declaration without a body; dlc compiles "
                              "a call by inlining the callee";
        ok = false;
      }
    });
    if (!ok)
      return failure();
    // Depth-first over the call graph, with a stack of its own (a chain
    // of many functions must not exhaust the native one); a call of a
    // function still on the path closes a cycle.
    llvm::DenseMap<Operation *, SmallVector<func::CallOp>> calls;
    for (auto f : module.getOps<func::FuncOp>())
      f.walk([&](func::CallOp call) { calls[f].push_back(call); });
    enum class State { Unvisited, OnPath, Done };
    llvm::DenseMap<Operation *, State> state;
    struct Frame {
      func::FuncOp func;
      size_t next = 0;
    };
    for (auto root : module.getOps<func::FuncOp>()) {
      if (state.lookup(root) != State::Unvisited)
        continue;
      SmallVector<Frame> path{{root}};
      state[root] = State::OnPath;
      while (!path.empty()) {
        Frame &top = path.back();
        auto found = calls.find(top.func);
        ArrayRef<func::CallOp> out;
        if (found != calls.end())
          out = found->second;
        if (top.next == out.size()) {
          state[top.func] = State::Done;
          path.pop_back();
          continue;
        }
        func::CallOp call = out[top.next++];
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!callee)
          continue;
        State s = state.lookup(callee);
        if (s == State::Unvisited) {
          state[callee] = State::OnPath;
          path.push_back({callee});
          continue;
        }
        if (s == State::Done)
          continue;
        std::string cycle;
        bool on = false;
        for (Frame &frame : path) {
          on |= frame.func == callee;
          if (on)
            cycle += "'@" + frame.func.getSymName().str() + "' -> ";
        }
        cycle += "'@" + callee.getSymName().str() + "'";
        call.emitOpError() << "is a recursive call (" << cycle
                           << "); dlc compiles a call by inlining the "
                              "callee, which a recursive call does not allow";
        return failure();
      }
    }
    return success();
  }
};

} // namespace
