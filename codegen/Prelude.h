//===- Prelude.h - The start of every generated CUDA source -----*- C++ -*-===//
#ifndef DLC_CODEGEN_PRELUDE_H
#define DLC_CODEGEN_PRELUDE_H

namespace mlir::dlc {

/// codegen/Prelude.cuh without its header: the conversions and scalar
/// helpers (dlc_h2f, dlc_add, dlc_copy16, ...) every kernel may call,
/// written once at the start of a package's source.
extern const char kCudaPrelude[];

} // namespace mlir::dlc

#endif // DLC_CODEGEN_PRELUDE_H
