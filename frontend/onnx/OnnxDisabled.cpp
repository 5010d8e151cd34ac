//===- OnnxDisabled.cpp - The ONNX API of a build without ONNX ------------===//
//
// Built instead of the importer (Importer.cpp and its op families) when dlc is
// configured with -DDLC_BUILD_ONNX=OFF: the tools keep their ONNX options
// and say why they cannot use them.
//
//===----------------------------------------------------------------------===//
#include "frontend/onnx/OnnxImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

namespace dlc {

static const char *kNoOnnx =
    "this dlc was built without ONNX support (configure with "
    "-DDLC_BUILD_ONNX=ON after scripts/install-deps.sh)";

bool parseOnnxInputShape(llvm::StringRef, OnnxImportOptions &,
                         std::string &error) {
  error = kNoOnnx;
  return false;
}

bool isOnnxModelFile(const std::string &path) {
  return llvm::StringRef(path).ends_with(".onnx");
}

mlir::OwningOpRef<mlir::ModuleOp>
importOnnxBuffer(llvm::StringRef, llvm::StringRef name, llvm::StringRef,
                 mlir::MLIRContext &context, const OnnxImportOptions &) {
  mlir::emitError(mlir::FileLineColLoc::get(&context, name, 0, 0)) << kNoOnnx;
  return nullptr;
}

mlir::OwningOpRef<mlir::ModuleOp>
importOnnxFile(const std::string &path, mlir::MLIRContext &context,
               const OnnxImportOptions &options) {
  return importOnnxBuffer({}, path, {}, context, options);
}

rt::Result<rt::HostTensor> readTensorProtoFile(const std::string &) {
  return rt::Status::error(kNoOnnx);
}

} // namespace dlc
