//===- Parse.cpp - Parsing model sources safely ---------------------------===//
#include "ir/Parse.h"
#include "ir/Dialect.h"
#include "ir/Limits.h"
#include "runtime/Sandbox.h"

#include "mlir/Bytecode/BytecodeReader.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <mutex>

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
    // i1, also spelled with leading zeros (i01, i001: MLIR reads the width
    // as a number).
    llvm::StringRef type = scanner.peek(ahead);
    if (!type.consume_front("i") || type.empty() ||
        type.find_first_not_of('0') != type.size() - 1 || type.back() != '1')
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

namespace {
/// The end of the string literal that starts at text[i] (a '"'): after its
/// closing quote, or at the line's end if it has none (MLIR's lexer stops
/// there too). Hex blobs, most of a large model's text, have no escapes
/// and no line ends: three memchr scans find their end.
size_t skipString(llvm::StringRef text, size_t i) {
  const size_t n = text.size();
  const char *base = text.data();
  const void *quote = std::memchr(base + i + 1, '"', n - i - 1);
  size_t end = quote ? size_t(static_cast<const char *>(quote) - base) : n;
  if (!std::memchr(base + i + 1, '\\', end - i - 1) &&
      !std::memchr(base + i + 1, '\n', end - i - 1))
    return quote ? end + 1 : n;
  size_t j = i + 1;
  while (true) {
    j = text.find_first_of("\"\\\n", j);
    if (j == llvm::StringRef::npos)
      return n;
    if (text[j] == '\\') {
      j += 2;
      continue;
    }
    return text[j] == '\n' ? j : j + 1;
  }
}

bool isHexDigit(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
         (c >= 'A' && c <= 'F');
}

/// Checks the value token `token` (a string literal) of resource `key` in
/// the file metadata: a hex blob must hold its 4-byte alignment, a power of
/// two from 1 to kMaxResourceAlignment. Values that are not hex blobs are
/// MLIR's to report.
std::optional<std::string> checkBlobValue(llvm::StringRef key,
                                          llvm::StringRef token) {
  llvm::StringRef body = token.drop_front();
  if (body.ends_with("\""))
    body = body.drop_back();
  if (!body.consume_front("0x"))
    return std::nullopt;
  size_t header = std::min<size_t>(body.size(), 8);
  for (size_t k = 0; k < header; ++k)
    if (!isHexDigit(body[k]))
      return std::nullopt;
  if (body.size() % 2 != 0)
    return std::nullopt;
  std::string name = ("'" + key + "'").str();
  if (body.size() < 8)
    return "the resource " + name + " holds " +
           std::to_string(body.size() / 2) +
           " bytes; a blob starts with its alignment (4 bytes)";
  uint64_t alignment = 0;
  for (int b = 0; b < 4; ++b) {
    llvm::StringRef byte = body.substr(2 * b, 2);
    alignment |= uint64_t(std::stoul(byte.str(), nullptr, 16)) << (8 * b);
  }
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 ||
      alignment > mlir::dlc::kMaxResourceAlignment)
    return "the resource " + name + " has alignment " +
           std::to_string(alignment) +
           " (the blob's first 4 bytes); dlc reads blobs aligned to a power "
           "of two from 1 to " +
           std::to_string(mlir::dlc::kMaxResourceAlignment);
  return std::nullopt;
}

/// Checks every `key: "0x..."` of the file metadata that starts at `start`
/// ("{-#"), wherever it appears (a superset of the entries MLIR's parser
/// reads as blobs). Returns the offset after its "#-}", or the text's end.
size_t checkMetadata(llvm::StringRef text, size_t start,
                     std::optional<mlir::dlc::UnparsableConstruct> &problem) {
  const size_t n = text.size();
  size_t i = start + 3;
  enum { None, Key, Colon } state = None;
  llvm::StringRef key;
  while (i < n) {
    char c = text[i];
    if (isSpace(c)) {
      ++i;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      size_t end = text.find('\n', i);
      i = end == llvm::StringRef::npos ? n : end + 1;
    } else if (c == '#' && text.substr(i, 3) == "#-}") {
      return i + 3;
    } else if (c == '"') {
      size_t end = skipString(text, i);
      llvm::StringRef token = text.slice(i, end);
      if (state == Colon) {
        if (std::optional<std::string> message = checkBlobValue(key, token)) {
          problem = mlir::dlc::UnparsableConstruct{i, *message};
          return n;
        }
        state = None;
      } else {
        key = token.drop_front();
        if (key.ends_with("\""))
          key = key.drop_back();
        state = Key;
      }
      i = end;
    } else if (isIdentifierChar(c) || c == '-') {
      size_t end = i;
      while (end < n && (isIdentifierChar(text[end]) || text[end] == '-'))
        ++end;
      if (state == Colon) {
        state = None;
      } else {
        key = text.slice(i, end);
        state = Key;
      }
      i = end;
    } else {
      state = c == ':' && state == Key ? Colon : None;
      ++i;
    }
  }
  return n;
}
} // namespace

std::optional<mlir::dlc::UnparsableConstruct>
mlir::dlc::findUnsafeStructure(llvm::StringRef text) {
  const size_t n = text.size();
  unsigned depth = 0;
  size_t i = 0;
  while (true) {
    i = text.find_first_of("/\"{([<)]}>-", i);
    if (i == llvm::StringRef::npos)
      return std::nullopt;
    const char c = text[i];
    const char next = i + 1 < n ? text[i + 1] : '\0';
    switch (c) {
    case '/':
      if (next == '/') {
        i = text.find('\n', i);
        if (i == llvm::StringRef::npos)
          return std::nullopt;
      } else {
        ++i;
      }
      break;
    case '"':
      i = skipString(text, i);
      break;
    case '-':
      // `->` closes nothing.
      i += next == '>' ? 2 : 1;
      break;
    case '>':
      // `>=` (affine constraints) closes nothing either.
      if (next != '=' && depth > 0)
        --depth;
      i += next == '=' ? 2 : 1;
      break;
    case ')':
    case ']':
    case '}':
      if (depth > 0)
        --depth;
      ++i;
      break;
    default:
      if (c == '{' && text.substr(i, 3) == "{-#") {
        std::optional<UnparsableConstruct> problem;
        i = checkMetadata(text, i, problem);
        if (problem)
          return problem;
        break;
      }
      if (++depth > kMaxNestingDepth)
        return UnparsableConstruct{
            i, "the model nests brackets more than " +
                   std::to_string(kMaxNestingDepth) +
                   " levels deep; dlc reads models nested at most " +
                   std::to_string(kMaxNestingDepth) + " levels deep"};
      ++i;
      break;
    }
  }
}

namespace {
/// A diagnostic as a child sends it: severity ('E', 'W', 'N' for a note,
/// 'R'), file, line, column (empty, 0, 0 without a file location) and
/// message, separated by 0x1f; 0x1e ends it.
void encodeDiagnostic(std::string &out, char severity, Location loc,
                      llvm::StringRef message) {
  auto file = dyn_cast<FileLineColLoc>(mlir::dlc::firstFileLocation(loc));
  out.push_back(severity);
  out.push_back('\x1f');
  if (file)
    out += file.getFilename().str();
  out += "\x1f" + std::to_string(file ? file.getLine() : 0) + "\x1f" +
         std::to_string(file ? file.getColumn() : 0) + "\x1f";
  out += message.str();
  out.push_back('\x1e');
}

void encodeDiagnostic(std::string &out, Diagnostic &diag) {
  char severity = diag.getSeverity() == DiagnosticSeverity::Error     ? 'E'
                  : diag.getSeverity() == DiagnosticSeverity::Warning ? 'W'
                  : diag.getSeverity() == DiagnosticSeverity::Note    ? 'N'
                                                                      : 'R';
  encodeDiagnostic(out, severity, diag.getLocation(), diag.str());
  for (Diagnostic &note : diag.getNotes())
    encodeDiagnostic(out, 'N', note.getLocation(), note.str());
}

/// Emits in `context` the diagnostics a child encoded; notes go with the
/// error or warning before them.
void emitDecodedDiagnostics(llvm::StringRef records, MLIRContext *context) {
  std::optional<InFlightDiagnostic> current;
  while (!records.empty()) {
    auto [record, rest] = records.split('\x1e');
    records = rest;
    llvm::SmallVector<llvm::StringRef, 5> fields;
    record.split(fields, '\x1f', /*MaxSplit=*/4);
    if (fields.size() != 5 || fields[0].size() != 1)
      continue;
    unsigned line = 0, column = 0;
    (void)fields[2].getAsInteger(10, line);
    (void)fields[3].getAsInteger(10, column);
    Location loc = fields[1].empty()
                       ? Location(UnknownLoc::get(context))
                       : FileLineColLoc::get(context, fields[1], line, column);
    char severity = fields[0][0];
    if (severity == 'N' && current) {
      current->attachNote(loc) << fields[4];
      continue;
    }
    current.reset();
    current.emplace(severity == 'W'   ? emitWarning(loc)
                    : severity == 'R' ? emitRemark(loc)
                                      : emitError(loc));
    *current << fields[4];
  }
}

/// readBytecodeAsText's work, in the process that runs it: 'T' and the
/// text, or 'D' and the reader's diagnostics. The model's dialects
/// (registerModelDialects), as the child has them.
std::string bytecodeToText(const llvm::MemoryBufferRef &buffer,
                           bool allowUnregistered) {
  ::dlc::rt::setChildStage(1);
  DialectRegistry registry;
  mlir::dlc::registerModelDialects(registry);
  MLIRContext local(registry, MLIRContext::Threading::DISABLED);
  local.allowUnregisteredDialects(allowUnregistered);
  std::string diagnostics;
  ScopedDiagnosticHandler collect(&local, [&](Diagnostic &diag) {
    encodeDiagnostic(diagnostics, diag);
    return success();
  });
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBuffer(buffer,
                                       /*RequiresNullTerminator=*/false),
      llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      sourceMgr, ParserConfig(&local, /*verifyAfterParse=*/false));
  if (!module || failed(mlir::dlc::checkNestingDepth(*module)))
    return "D" + diagnostics;
  ::dlc::rt::setChildStage(2);
  // The generic form (what parses back whatever the ops hold), with the
  // locations and the resources' blobs; verified by the reader of the
  // text.
  OpPrintingFlags flags;
  flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  flags.printGenericOpForm();
  flags.assumeVerified();
  std::string text = "T";
  llvm::raw_string_ostream os(text);
  module->print(os, flags);
  return text;
}

/// The child's job (runtime/Sandbox.h): its input is the bytecode, the
/// buffer's name, the name's length (8 bytes) and a byte that says whether
/// unregistered dialects are allowed.
std::string bytecodeJob(std::string_view input) {
  uint64_t nameSize = 0;
  if (input.size() < 9)
    return "D";
  std::memcpy(&nameSize, input.data() + input.size() - 9, 8);
  if (nameSize > input.size() - 9)
    return "D";
  const size_t bytecodeSize = input.size() - 9 - size_t(nameSize);
  llvm::StringRef name(input.data() + bytecodeSize, size_t(nameSize));
  // MLIR's reader aligns a resource's bytes by their address: the buffer
  // starts at the largest alignment dlc accepts.
  std::unique_ptr<llvm::WritableMemoryBuffer> aligned =
      llvm::WritableMemoryBuffer::getNewUninitMemBuffer(
          bytecodeSize, name,
          llvm::Align(uint64_t(mlir::dlc::kMaxResourceAlignment)));
  if (!aligned)
    return "D";
  std::memcpy(aligned->getBufferStart(), input.data(), bytecodeSize);
  return bytecodeToText(aligned->getMemBufferRef(), input.back() == 1);
}
} // namespace

void mlir::dlc::registerModelDialects(DialectRegistry &registry) {
  registry.insert<DlcDialect, func::FuncDialect, tosa::TosaDialect,
                  arith::ArithDialect, tensor::TensorDialect>();
}

FailureOr<std::string>
mlir::dlc::readBytecodeAsText(const llvm::MemoryBuffer &buffer,
                              MLIRContext *context, std::string *crash) {
  const bool allowUnregistered = context->allowsUnregisteredDialects();
  std::string answer;
  if (::dlc::rt::inChild()) {
    answer = bytecodeToText(buffer.getMemBufferRef(), allowUnregistered);
  } else {
    // What the child runs, once in this process first: lazily initialized
    // state of MLIR (the dialects, their type IDs, the bytecode reader and
    // writer, the printer) is then initialized before a fork of this
    // process (when it has no fork server, runtime/Sandbox.h).
    static std::once_flag once;
    std::call_once(once, [&] {
      DialectRegistry registry;
      registerModelDialects(registry);
      MLIRContext local(registry, MLIRContext::Threading::DISABLED);
      local.loadAllAvailableDialects();
      OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&local));
      std::string bytecode;
      llvm::raw_string_ostream os(bytecode);
      if (failed(writeBytecodeToFile(*module, os)))
        return;
      (void)bytecodeToText(llvm::MemoryBufferRef(bytecode, "warm-up"),
                           allowUnregistered);
    });
    ::dlc::rt::ChildLimits limits;
    // MLIR's structures and the printed text (resources in hex) are a
    // small multiple of the bytecode's size.
    limits.memoryBytes = (uint64_t(1) << 30) + 32 * buffer.getBufferSize();
    limits.cpuSeconds = 120;
    limits.wallSeconds = 600;
    // Forked again if it waits for a lock held when it was forked.
    limits.idleSeconds = 5;
    // The reader recurses once per level of nesting: on this stack a model
    // nested past kMaxNestingDepth is read, then refused by name.
    limits.stackBytes = uint64_t(512) << 20;
    const llvm::StringRef name = buffer.getBufferIdentifier();
    const uint64_t nameSize = name.size();
    std::string input(buffer.getBuffer());
    input += name;
    input.append(reinterpret_cast<const char *>(&nameSize), 8);
    input.push_back(char(allowUnregistered ? 1 : 0));
    ::dlc::rt::ChildResult child =
        ::dlc::rt::runInChild(limits, bytecodeJob, input);
    if (!child.returned()) {
      std::string what =
          (child.stage == 2 ? "MLIR's printer " : "MLIR's bytecode reader ") +
          child.describe();
      if (crash) {
        *crash = what;
        return failure();
      }
      emitError(
          FileLineColLoc::get(context, buffer.getBufferIdentifier(), 0, 0))
          << "the model's bytecode is corrupt (" << what << ")";
      return failure();
    }
    answer = std::move(child.output);
  }
  if (!answer.empty() && answer.front() == 'T')
    return answer.substr(1);
  emitDecodedDiagnostics(llvm::StringRef(answer).drop_front(), context);
  return failure();
}

namespace {
/// An error at `found` in the main buffer of `sourceMgr`.
LogicalResult
reportConstruct(const llvm::SourceMgr &sourceMgr, MLIRContext *context,
                const std::optional<mlir::dlc::UnparsableConstruct> &found) {
  if (!found)
    return success();
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::SMLoc loc =
      llvm::SMLoc::getFromPointer(buffer->getBufferStart() + found->offset);
  auto [line, column] = sourceMgr.getLineAndColumn(loc);
  return emitError(FileLineColLoc::get(context, buffer->getBufferIdentifier(),
                                       line, column))
         << found->message;
}
} // namespace

LogicalResult mlir::dlc::checkParsableSource(const llvm::SourceMgr &sourceMgr,
                                             MLIRContext *context) {
  const llvm::MemoryBuffer *buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  std::optional<UnparsableConstruct> found =
      findUnsafeStructure(buffer->getBuffer());
  if (!found)
    found = findUnparsableConstruct(buffer->getBuffer());
  return reportConstruct(sourceMgr, context, found);
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
    if (alignment == 0 || (alignment & (alignment - 1)) != 0 ||
        alignment > mlir::dlc::kMaxResourceAlignment)
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
  // Parsed unverified: nothing runs on the module (the verifier included)
  // before its nesting is checked.
  const ParserConfig unverified(context, /*verifyAfterParse=*/false);
  auto finish = [&](OwningOpRef<ModuleOp> module) -> OwningOpRef<ModuleOp> {
    if (!module || failed(checkNestingDepth(*module)) ||
        (config.shouldVerifyAfterParse() && failed(verify(*module))))
      return {};
    return module;
  };
  if (isBytecode(buffer->getMemBufferRef())) {
    // In a child (runtime/Sandbox.h), MLIR's reader runs here: nothing it
    // does can harm the parent.
    if (::dlc::rt::inChild())
      return finish(parseSourceFile<ModuleOp>(sourceMgr, unverified));
    // Elsewhere it runs in a child, which sends the model back as text.
    FailureOr<std::string> text = readBytecodeAsText(*buffer, context);
    if (failed(text))
      return {};
    llvm::SourceMgr textMgr;
    textMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(
                                   *text, buffer->getBufferIdentifier()),
                               llvm::SMLoc());
    return parseSourceChecked(textMgr, config);
  }
  llvm::StringRef text = buffer->getBuffer();
  if (failed(reportConstruct(sourceMgr, context, findUnsafeStructure(text))))
    return {};
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
    if (failed(reportConstruct(reducedMgr, context,
                               findUnparsableConstruct(reduced))))
      return {};
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(reducedMgr, unverified);
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
    return finish(std::move(module));
  }
  if (failed(
          reportConstruct(sourceMgr, context, findUnparsableConstruct(text))))
    return {};
  return finish(parseSourceFile<ModuleOp>(sourceMgr, unverified));
}
