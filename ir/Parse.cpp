//===- Parse.cpp - Parsing model sources safely ---------------------------===//
#include "ir/Parse.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace {
bool isIdentifierStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentifierChar(char c) {
  return isIdentifierStart(c) || (c >= '0' && c <= '9') || c == '$' || c == '.';
}
} // namespace

std::optional<size_t>
mlir::dlc::findSparseElementsLiteral(llvm::StringRef text) {
  // Most models never spell the word (a fast search), and weights in hex
  // blobs or dense literals make the text large: scan only when needed.
  if (text.find("sparse") == llvm::StringRef::npos)
    return std::nullopt;
  size_t n = text.size();
  for (size_t i = 0; i < n;) {
    char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      // A comment runs to the end of the line.
      while (i < n && text[i] != '\n')
        ++i;
      continue;
    }
    if (c == '"') {
      // A string literal; an unterminated one ends at the line's end, as in
      // MLIR's lexer.
      for (++i; i < n && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      ++i;
      continue;
    }
    if (c == '%' || c == '@' || c == '#' || c == '!' || c == '^') {
      // SSA names, symbols, aliases and block labels: skip their identifier
      // so `%sparse` or `#sparse` are not taken for the keyword.
      for (++i; i < n && isIdentifierChar(text[i]); ++i)
        ;
      continue;
    }
    if (isIdentifierStart(c) || (c >= '0' && c <= '9')) {
      size_t start = i;
      for (++i; i < n && isIdentifierChar(text[i]); ++i)
        ;
      if (text.slice(start, i) != "sparse")
        continue;
      size_t j = i;
      while (j < n && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' ||
                       text[j] == '\r'))
        ++j;
      if (j < n && text[j] == '<')
        return start;
      continue;
    }
    ++i;
  }
  return std::nullopt;
}

LogicalResult mlir::dlc::checkParsableSource(const llvm::SourceMgr &sourceMgr,
                                             MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::optional<size_t> offset = findSparseElementsLiteral(buffer->getBuffer());
  if (!offset)
    return success();
  llvm::SMLoc loc =
      llvm::SMLoc::getFromPointer(buffer->getBufferStart() + *offset);
  auto [line, column] = sourceMgr.getLineAndColumn(loc);
  return emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(),
                                       line, column))
         << "sparse elements attributes are not supported by dlc; write the "
            "constant as dense<...> or dense_resource<...>";
}

OwningOpRef<ModuleOp>
mlir::dlc::parseSourceChecked(const llvm::SourceMgr &sourceMgr,
                              const ParserConfig &config) {
  if (failed(checkParsableSource(sourceMgr, config.getContext())))
    return {};
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}
