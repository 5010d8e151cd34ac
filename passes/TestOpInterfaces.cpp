//===- TestOpInterfaces.cpp - Test pass: what each op declares ------------===//
//
// Reports, as a remark at each dlc op, the knowledge the op carries in
// DlcOps.td (traits and interfaces), so that lit tests pin it down.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::dlc {
#define GEN_PASS_DEF_TESTOPINTERFACES
#include "passes/Passes.h.inc"
} // namespace mlir::dlc

using namespace mlir;
using namespace mlir::dlc;

namespace {

const char *precisionName(PrecisionClass c) {
  switch (c) {
  case PrecisionClass::Allow:
    return "allow";
  case PrecisionClass::Prefer:
    return "prefer";
  case PrecisionClass::Deny:
    return "deny";
  }
  return "deny";
}

const char *layoutName(LayoutClass c) {
  switch (c) {
  case LayoutClass::Agnostic:
    return "agnostic";
  case LayoutClass::Axes:
    return "axes";
  case LayoutClass::Spatial:
    return "spatial";
  case LayoutClass::Fixed:
    return "fixed";
  }
  return "fixed";
}

struct TestOpInterfacesPass
    : public mlir::dlc::impl::TestOpInterfacesBase<TestOpInterfacesPass> {
  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      if (!isa<DlcDialect>(op->getDialect()))
        return;
      SmallVector<StringRef> classes;
      if (op->hasTrait<trait::Elementwise>())
        classes.push_back("elementwise");
      if (op->hasTrait<trait::DataMovement>())
        classes.push_back("data-movement");
      if (op->hasTrait<trait::Window>())
        classes.push_back("window");
      if (op->hasTrait<trait::Reduction>())
        classes.push_back("reduction");
      if (isKernelBodyOp(op))
        classes.push_back("kernel-body");
      auto cost = dyn_cast<CostOpInterface>(op);
      auto precision = dyn_cast<PrecisionPolicyOpInterface>(op);
      auto layout = dyn_cast<LayoutOpInterface>(op);
      InFlightDiagnostic remark = op->emitRemark();
      remark << "classes [" << llvm::join(classes, ", ")
             << "], ops per element " << (cost ? cost.getOpsPerElement() : 0);
      if (cost)
        remark << " (" << int64_t(cost.getFlops()) << " flops, "
               << cost.getBytesMoved() << " bytes alone)";
      remark << ", precision "
             << precisionName(precision ? precision.getPrecisionClass()
                                        : PrecisionClass::Deny)
             << ", layout "
             << layoutName(layout ? layout.getLayoutClass()
                                  : LayoutClass::Fixed)
             << ", gradient " << (isa<GradientOpInterface>(op) ? "yes" : "no");
    });
  }
};

} // namespace
