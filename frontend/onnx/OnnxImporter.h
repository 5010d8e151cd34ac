//===- OnnxImporter.h - ONNX models to the dlc dialect ---------*- C++ -*-===//
//
// Reads an ONNX ModelProto (with Debian's libonnx protobuf classes) and builds
// a module with one `func.func @main` in the dlc dialect: graph inputs become
// arguments, graph outputs results, initializers `dlc.constant`s whose data
// lives in the module's resource section (dense_resource<...>). Shapes are
// static; shape computations (Shape, ConstantOfShape, Range, Gather on
// shapes, ...) are folded while importing.
//
// This header exposes no protobuf or ONNX types.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_FRONTEND_ONNX_ONNXIMPORTER_H
#define DLC_FRONTEND_ONNX_ONNXIMPORTER_H

#include "runtime/Status.h"
#include "runtime/Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dlc {

struct OnnxImportOptions {
  /// Static shapes for graph inputs, by input name; needed for inputs with
  /// dynamic dimensions (dim_param or unknown), allowed for any input.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Name of the function that holds the graph.
  std::string entry = "main";
  /// When set, receives the path of every external data file the model's
  /// tensors are read from (once each): what a compile depends on besides
  /// the model file (the compile cache checks them).
  std::vector<std::string> *externalDataFiles = nullptr;
  /// Marks every float initializer the model computes with as a trainable
  /// parameter (`dlc.param` = its name, on its dlc.constant), and keeps
  /// such initializers out of import-time folding (BatchNormalization into
  /// a convolution, constant subgraphs), so that each stays one tensor the
  /// training step updates (`dlc compile --train`).
  bool markParameters = false;
};

/// Parses "name=1x3x224x224" (a scalar is "name=") into `options`; on
/// failure returns false with a message in `error`.
bool parseOnnxInputShape(llvm::StringRef spec, OnnxImportOptions &options,
                         std::string &error);

/// Whether `path` names an ONNX model: a `.onnx` file, or a file that is
/// neither `.mlir` nor a dlc package and parses as an ONNX ModelProto.
bool isOnnxModelFile(const std::string &path);

/// Imports the ONNX model in `path`. Errors are reported through the
/// context's diagnostic handler, located at the ONNX node (file, node name
/// and op type); returns null after an error. External tensor data is read
/// relative to the model's directory.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxFile(const std::string &path, mlir::MLIRContext &context,
               const OnnxImportOptions &options = {});

/// Imports a serialized ModelProto held in memory; `name` is used in
/// locations, `baseDir` to find external tensor data.
mlir::OwningOpRef<mlir::ModuleOp>
importOnnxBuffer(llvm::StringRef bytes, llvm::StringRef name,
                 llvm::StringRef baseDir, mlir::MLIRContext &context,
                 const OnnxImportOptions &options = {});

/// Reads a serialized ONNX TensorProto (.pb, as in the ONNX backend test
/// data) into a host tensor; f32, f16, bf16, i32, i64 and bool only.
rt::Result<rt::HostTensor> readTensorProtoFile(const std::string &path);

} // namespace dlc

#endif // DLC_FRONTEND_ONNX_ONNXIMPORTER_H
