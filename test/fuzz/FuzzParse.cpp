//===- FuzzParse.cpp - libFuzzer target: parse and verify MLIR text -------===//
//
// Input: MLIR text. Parses it with every dialect dlc reads registered and
// verifies it. Beyond crashes and sanitizer reports it checks that a module
// that verifies prints to text that parses and verifies again and prints the
// same (the custom assembly of the dlc ops round-trips).
//
//===----------------------------------------------------------------------===//

#include "test/fuzz/FuzzCommon.h"
#include "test/fuzz/TextMutator.h"

#include "mlir/IR/Verifier.h"

using namespace dlc::fuzz;

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size,
                                          size_t maxSize, unsigned seed) {
  return mutateMlirText(data, size, maxSize, seed);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text(reinterpret_cast<const char *>(data), size);
  FuzzContext fc;
  mlir::OwningOpRef<mlir::ModuleOp> module = fc.parse(text);
  if (!module || mlir::failed(mlir::verify(*module)))
    return 0;

  const std::string printed = print(*module);
  FuzzContext again;
  mlir::OwningOpRef<mlir::ModuleOp> reparsed = again.parse(printed);
  if (!reparsed)
    fail("a verified module prints to text that does not parse",
         printed + "\n" + again.diagnostics);
  if (mlir::failed(mlir::verify(*reparsed)))
    fail("a verified module prints to text that does not verify",
         printed + "\n" + again.diagnostics);
  const std::string reprinted = print(*reparsed);
  if (reprinted != printed)
    fail("printing is not stable across a parse",
         printed + "\n----- reprinted -----\n" + reprinted);
  return 0;
}
