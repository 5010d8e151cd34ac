//===- Parse.cpp - Parsing model sources safely ---------------------------===//
#include "ir/Parse.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

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

namespace {
/// Hex digit values; -1 for any other character.
struct HexTable {
  int8_t value[256];
  HexTable() {
    for (int c = 0; c < 256; ++c)
      value[c] = -1;
    for (int c = 0; c < 10; ++c)
      value['0' + c] = int8_t(c);
    for (int c = 0; c < 6; ++c)
      value['a' + c] = value['A' + c] = int8_t(10 + c);
  }
};
const HexTable kHex;
int hexValue(char c) { return kHex.value[uint8_t(c)]; }

/// Reads the metadata's pieces; every method returns false when the text is
/// not in the form expected.
class MetadataReader {
public:
  MetadataReader(llvm::StringRef text, size_t pos) : text(text), i(pos) {}

  void skipSpace() {
    while (i < text.size()) {
      if (isSpace(text[i])) {
        ++i;
      } else if (text.substr(i).starts_with("//")) {
        size_t end = text.find('\n', i);
        i = end == llvm::StringRef::npos ? text.size() : end + 1;
      } else {
        break;
      }
    }
  }
  bool punct(char c) {
    skipSpace();
    if (i >= text.size() || text[i] != c)
      return false;
    ++i;
    return true;
  }
  bool peekPunct(char c) {
    skipSpace();
    return i < text.size() && text[i] == c;
  }
  /// Whether only white space and comments follow.
  bool atEnd() {
    skipSpace();
    return i == text.size();
  }
  bool literal(llvm::StringRef word) {
    skipSpace();
    if (!text.substr(i).starts_with(word))
      return false;
    i += word.size();
    return true;
  }
  /// A bare key: letters, digits, `_ $ . -`.
  bool key(llvm::StringRef &out) {
    skipSpace();
    size_t start = i;
    while (i < text.size() && (isIdentifierChar(text[i]) || text[i] == '-'))
      ++i;
    out = text.slice(start, i);
    return !out.empty();
  }
  /// A string literal holding "0x", an 8-digit alignment and the data's
  /// digits, all hex, an even count.
  bool hexBlob(mlir::dlc::TextResourceBlob &blob) {
    skipSpace();
    if (!text.substr(i).starts_with("\"0x"))
      return false;
    size_t start = i + 3;
    size_t end = text.find('"', start);
    if (end == llvm::StringRef::npos || end - start < 8 ||
        (end - start) % 2 != 0)
      return false;
    // One pass over the digits (most of a large model's text): OR of the
    // table's values, negative if any is not a digit.
    int8_t any = 0;
    const char *digits = text.data();
    for (size_t j = start; j < end; ++j)
      any |= kHex.value[uint8_t(digits[j])];
    if (any < 0)
      return false;
    uint32_t alignment = 0;
    for (int b = 0; b < 4; ++b)
      alignment |= uint32_t(hexValue(text[start + 2 * b]) * 16 +
                            hexValue(text[start + 2 * b + 1]))
                   << (8 * b);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0)
      return false;
    blob.alignment = alignment;
    blob.digits = start + 8;
    blob.digitsEnd = end;
    i = end + 1;
    return true;
  }

private:
  llvm::StringRef text;
  size_t i;
};
} // namespace

std::optional<std::vector<mlir::dlc::TextResourceBlob>>
mlir::dlc::findResourceBlobs(llvm::StringRef text) {
  // The metadata dictionary ends the file (MLIR's printer writes it last):
  // `{-# dialect_resources: { builtin: { ... } } #-}` and nothing after it.
  // The search runs forward: the ops come first and are short next to the
  // weights.
  size_t open = text.find("{-#");
  if (open == llvm::StringRef::npos)
    return std::nullopt;
  MetadataReader r(text, open + 3);
  llvm::StringRef word;
  if (!r.key(word) || word != "dialect_resources" || !r.punct(':') ||
      !r.punct('{'))
    return std::nullopt;
  // Only the builtin dialect's resources, and only when they are all.
  if (!r.key(word) || word != "builtin" || !r.punct(':') || !r.punct('{'))
    return std::nullopt;
  auto finish = [&]() -> bool {
    return r.punct('}') && r.literal("#-}") && r.atEnd();
  };
  std::vector<TextResourceBlob> blobs;
  if (r.punct('}'))
    return finish() ? std::optional(blobs) : std::nullopt;
  while (true) {
    TextResourceBlob blob;
    llvm::StringRef key;
    if (!r.key(key) || !r.punct(':') || !r.hexBlob(blob))
      return std::nullopt;
    blob.key = key.str();
    blobs.push_back(std::move(blob));
    if (r.punct(','))
      continue;
    if (r.punct('}'))
      return finish() ? std::optional(blobs) : std::nullopt;
    return std::nullopt;
  }
}

OwningOpRef<ModuleOp>
mlir::dlc::parseSourceChecked(const llvm::SourceMgr &sourceMgr,
                              const ParserConfig &config) {
  MLIRContext *context = config.getContext();
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  std::optional<std::vector<TextResourceBlob>> blobs = findResourceBlobs(text);
  auto &manager = DenseResourceElementsHandle::getManagerInterface(context);
  // Only in a context that holds none of the keys yet: the parser then
  // gives each blob its key from the text (no renaming).
  if (blobs && !blobs->empty() &&
      llvm::none_of(*blobs, [&](const TextResourceBlob &b) {
        return manager.getBlobManager().lookup(b.key) != nullptr;
      })) {
    // The text with each blob's data emptied: "0x" and its alignment stay,
    // so the parser sees an empty blob of the same alignment. Nothing
    // before the first blob moves, and no line ends.
    std::string reduced;
    size_t pos = 0;
    for (const TextResourceBlob &b : *blobs) {
      reduced.append(text.data() + pos, b.digits - pos);
      pos = b.digitsEnd;
    }
    reduced.append(text.data() + pos, text.size() - pos);
    llvm::SourceMgr reducedMgr;
    reducedMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBuffer(
                                      reduced, buffer->getBufferIdentifier()),
                                  llvm::SMLoc());
    if (failed(checkParsableSource(reducedMgr, context)))
      return {};
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(reducedMgr, config);
    if (!module)
      return {};
    llvm::StringSet<> seen;
    for (const TextResourceBlob &b : *blobs)
      if (!seen.insert(b.key).second) {
        emitError(module->getLoc()) << "the resource '" << b.key
                                    << "' is defined twice in "
                                       "dialect_resources";
        return {};
      }
    for (const TextResourceBlob &b : *blobs) {
      auto *entry = manager.getBlobManager().lookup(b.key);
      if (!entry ||
          (entry->getBlob() && !entry->getBlob()->getData().empty())) {
        emitError(module->getLoc()) << "internal error: the resource '" << b.key
                                    << "' was not parsed as an empty blob";
        return {};
      }
      size_t size = (b.digitsEnd - b.digits) / 2;
      AsmResourceBlob blob = HeapAsmResourceBlob::allocate(size, b.alignment);
      char *out = blob.getMutableData().data();
      const uint8_t *in =
          reinterpret_cast<const uint8_t *>(text.data() + b.digits);
      for (size_t k = 0; k < size; ++k)
        out[k] = char((kHex.value[in[2 * k]] << 4) | kHex.value[in[2 * k + 1]]);
      manager.update(b.key, std::move(blob));
    }
    return module;
  }
  if (failed(checkParsableSource(sourceMgr, context)))
    return {};
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}
