//===- FusionReport.h - The report of dlc compile --emit=fused --*- C++ -*-===//
#ifndef DLC_TOOLS_DLC_FUSIONREPORT_H
#define DLC_TOOLS_DLC_FUSIONREPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::dlc {

/// Prints `module` (after dlc-fuse, with dlc.fusion_notes) as parseable IR
/// with a `//` report above every top-level dlc.kernel and dlc.matmul: the
/// ops fused and the kernel template, the bytes read and written, and why
/// each neighbour not fused stayed out (the notes dlc-fuse recorded, which
/// are then dropped from the printed IR).
void printFusionReport(ModuleOp module, llvm::raw_ostream &os);

} // namespace mlir::dlc

#endif // DLC_TOOLS_DLC_FUSIONREPORT_H
