//===- FuzzOnnx.cpp - libFuzzer target: importing ONNX models -------------===//
//
// Input: the bytes of an .onnx file (a serialized ModelProto). Runs what
// `dlc import` runs (importOnnxBuffer), and on a model that imports, the
// compiler up to fused, planned dlc IR. Beyond crashes and sanitizer reports
// (including allocations sized by corrupt shapes and tensor lengths) it checks
// that the importer either reports an error or returns a module that
// verifies, and that the printed module (weights as dense_resource blobs)
// parses back to the same text.
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/FuzzCommon.h"

#include "frontend/onnx/OnnxImporter.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Verifier.h"

using namespace dlc::fuzz;

namespace {

/// The module's text including its resource section (the weights).
std::string printWithResources(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  module->print(os, flags);
  return text;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzContext fc;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  // No external data: a fuzzed model must not read files beside the input.
  mlir::OwningOpRef<mlir::ModuleOp> module = dlc::importOnnxBuffer(
      bytes, "fuzz.onnx", "/nonexistent-dlc-fuzz-dir", fc.context);
  if (!module) {
    if (fc.diagnostics.empty())
      fail("the importer failed without a diagnostic");
    return 0;
  }
  if (mlir::failed(mlir::verify(*module)))
    fail("the importer returned a module that does not verify",
         fc.diagnostics + print(module->getOperation()));

  const std::string text = printWithResources(*module);
  // A fresh context: in this one the blob names are taken, and parsing
  // would rename the resources.
  FuzzContext fc2;
  mlir::OwningOpRef<mlir::ModuleOp> again = fc2.parse(text);
  if (!again || mlir::failed(mlir::verify(*again)))
    fail("an imported module does not parse back", fc2.diagnostics + text);
  if (printWithResources(*again) != text)
    fail("an imported module changes when printed and parsed again");

  dlc::CompileOptions options;
  options.compileCubins = false;
  options.archs = {"sm_90"};
  dlc::CompileResult result;
  (void)dlc::compileModule(*module, options, dlc::Stage::Fused, result);
  return 0;
}
