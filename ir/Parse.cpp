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
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/// A lexer over the parts of MLIR text that matter here: it skips comments
/// and string literals (where weights in hex take most of a large model's
/// text, so they are skipped with a fast search) and yields bare
/// identifiers and single punctuation characters.
class Scanner {
public:
  explicit Scanner(llvm::StringRef text) : text(text) {}

  /// The next bare identifier or punctuation character (empty at the end);
  /// its offset in `start`.
  llvm::StringRef next(size_t &start) {
    size_t n = text.size();
    while (i < n) {
      char c = text[i];
      if (isSpace(c)) {
        ++i;
        continue;
      }
      if (c == '/' && i + 1 < n && text[i + 1] == '/') {
        size_t end = text.find('\n', i);
        i = end == llvm::StringRef::npos ? n : end + 1;
        continue;
      }
      if (c == '"') {
        // To the closing quote; an unterminated string ends at the line's
        // end, as in MLIR's lexer.
        size_t j = i + 1;
        while (true) {
          j = text.find_first_of("\"\\\n", j);
          if (j == llvm::StringRef::npos) {
            j = n;
            break;
          }
          if (text[j] == '\\') {
            j += 2;
            continue;
          }
          ++j;
          break;
        }
        i = j;
        continue;
      }
      start = i;
      if (c == '%' || c == '@' || c == '#' || c == '!' || c == '^') {
        // SSA names, symbols, aliases, dialect types, block labels: one
        // token, so `%sparse` or `#sparse` are not keywords.
        for (++i; i < n && isIdentifierChar(text[i]); ++i)
          ;
        return text.slice(start, i);
      }
      if (isIdentifierStart(c) || (c >= '0' && c <= '9') || c == '-') {
        for (++i; i < n && (isIdentifierChar(text[i]) || text[i] == '-'); ++i)
          ;
        return text.slice(start, i);
      }
      ++i;
      return text.slice(start, i);
    }
    start = n;
    return {};
  }

  /// The next token without consuming it.
  llvm::StringRef peek(size_t &start) {
    size_t saved = i;
    llvm::StringRef token = next(start);
    i = saved;
    return token;
  }

private:
  llvm::StringRef text;
  size_t i = 0;
};
} // namespace

std::optional<mlir::dlc::UnparsableConstruct>
mlir::dlc::findUnparsableConstruct(llvm::StringRef text) {
  // Most models spell neither keyword (fast searches); weights in hex make
  // the text large.
  if (text.find("sparse") == llvm::StringRef::npos &&
      text.find("array") == llvm::StringRef::npos)
    return std::nullopt;
  Scanner scanner(text);
  size_t at = 0, ahead = 0;
  for (llvm::StringRef token = scanner.next(at); !token.empty();
       token = scanner.next(at)) {
    if (token == "sparse" && scanner.peek(ahead) == "<")
      return UnparsableConstruct{
          at, "sparse elements attributes are not supported by dlc; write "
              "the constant as dense<...> or dense_resource<...>"};
    if (token != "array" || scanner.peek(ahead) != "<")
      continue;
    scanner.next(ahead);
    if (scanner.peek(ahead) != "i1")
      continue;
    scanner.next(ahead);
    if (scanner.peek(ahead) != ":")
      continue;
    scanner.next(ahead);
    // MLIR 19 accepts integers in an i1 dense array and then crashes
    // printing it: only true and false are i1 elements.
    for (llvm::StringRef element = scanner.next(ahead); !element.empty();
         element = scanner.next(ahead)) {
      if (element != "true" && element != "false")
        return UnparsableConstruct{
            ahead, "elements of array<i1: ...> must be true or false"};
      llvm::StringRef separator = scanner.next(ahead);
      if (separator != ",")
        break;
    }
  }
  return std::nullopt;
}

LogicalResult mlir::dlc::checkParsableSource(const llvm::SourceMgr &sourceMgr,
                                             MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::optional<UnparsableConstruct> found =
      findUnparsableConstruct(buffer->getBuffer());
  if (!found)
    return success();
  llvm::SMLoc loc =
      llvm::SMLoc::getFromPointer(buffer->getBufferStart() + found->offset);
  auto [line, column] = sourceMgr.getLineAndColumn(loc);
  return emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(),
                                       line, column))
         << found->message;
}

OwningOpRef<ModuleOp>
mlir::dlc::parseSourceChecked(const llvm::SourceMgr &sourceMgr,
                              const ParserConfig &config) {
  if (failed(checkParsableSource(sourceMgr, config.getContext())))
    return {};
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}
