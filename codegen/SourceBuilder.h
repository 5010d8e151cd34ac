//===- SourceBuilder.h - Scoped C statements, index arithmetic --*- C++ -*-===//
//
// Internal to codegen/: the statements of a kernel body live in a tree of C
// scopes. A value is emitted into the outermost scope where every index
// variable it depends on is defined (loop-invariant code motion for free) but
// never out of a conditional scope (pad, concat), and it is cached there so
// common subexpressions are computed once. Index arithmetic works on indices
// that are literals or variables with a known exclusive upper bound, so
// divisions and remainders that cannot change anything fold away.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_CODEGEN_SOURCEBUILDER_H
#define DLC_CODEGEN_SOURCEBUILDER_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace mlir::dlc {

class SourceBuilder {
public:
  /// `kernelName` prefixes the kernel's constant tables (k3_c0, ...).
  explicit SourceBuilder(std::string kernelName);
  virtual ~SourceBuilder();

protected:
  //===--- Scopes --------------------------------------------------------===//
  struct Scope;
  struct Chunk {
    std::string text;
    std::unique_ptr<Scope> child;
  };
  struct Scope {
    Scope *parent = nullptr;
    unsigned depth = 0;
    /// Nothing computed inside may move out (the scope is conditional).
    bool barrier = false;
    std::string header, footer;
    std::list<Chunk> chunks;
    /// Open child scopes, innermost last: statements go before the last one
    /// (they are computed before the loop or branch now being emitted).
    std::vector<std::list<Chunk>::iterator> open;
    /// (value, index) or "#index-expression" -> C variable.
    std::unordered_map<std::string, std::string> cache;
  };

  /// Appends a statement (one or more lines) to `s`.
  void line(Scope *s, std::string text);
  /// Opens a child scope of `parent` (a loop or a branch) written as
  /// `header` ... `footer`; close it with closeScope.
  Scope *openScope(Scope *parent, std::string header, bool barrier,
                   std::string footer = "}");
  void closeScope(Scope *s);
  /// Records that `name` is defined in `s`, with exclusive upper bound
  /// `bound` when it is an index (-1: none).
  void declare(Scope *s, const std::string &name, int64_t bound = -1);
  /// A variable name not used before: `<prefix><n>`.
  std::string fresh(StringRef prefix);
  /// The innermost conditional scope around `cur` (the root counts as one).
  Scope *floorScope();
  /// The outermost scope on the current path where all of `names` (C index
  /// expressions: variables or literals) are defined.
  Scope *targetFor(ArrayRef<std::string> names, bool respectBarriers);
  /// What `key` is cached as in `cur` or a scope around it.
  std::optional<std::string> lookup(const std::string &key);
  /// The root scope's statements, indented, with unused declarations
  /// removed.
  std::string renderBody();

  //===--- Index arithmetic: every index is a literal or a variable ------===//
  static bool isLit(const std::string &s) {
    return !s.empty() && (std::isdigit((unsigned char)s[0]) || s[0] == '-');
  }
  static int64_t litVal(const std::string &s) { return std::stoll(s); }
  static std::string lit(int64_t v) { return std::to_string(v); }

  /// An exclusive upper bound of the index `s`.
  int64_t boundOf(const std::string &s);
  /// Materializes an index expression as a variable, hoisted as far out as
  /// its operands allow (index arithmetic cannot fault, so conditional
  /// scopes do not hold it back) and shared with every later use.
  std::string ixTemp(const std::string &expr, ArrayRef<std::string> deps,
                     int64_t bound);
  std::string ixAdd(const std::string &a, int64_t c);
  std::string ixDiv(const std::string &a, int64_t c);
  std::string ixMod(const std::string &a, int64_t c);
  /// `sum(index * coefficient) + constant` as a literal or variable; every
  /// index is non-negative, so the upper bound adds the positive terms.
  std::string ixAffine(ArrayRef<std::pair<std::string, int64_t>> terms,
                       int64_t constant);
  /// The row-major linear position of `idx` in `shape`.
  std::string ixLinear(ArrayRef<std::string> idx, ArrayRef<int64_t> shape);
  /// The multi-index of the row-major position `lin` in `shape`.
  SmallVector<std::string> ixDelinearize(const std::string &lin,
                                         ArrayRef<int64_t> shape);
  /// Declares named variables `<prefix><d>` in `s` for the multi-index of
  /// the row-major position `lin` (a C expression) in `shape`.
  SmallVector<std::string> declareIndex(Scope *s, const std::string &lin,
                                        ArrayRef<int64_t> shape,
                                        StringRef prefix);
  /// The index of an operand of shape `shape` broadcast to the result.
  static SmallVector<std::string> broadcastIndex(ArrayRef<std::string> idx,
                                                 ArrayRef<int64_t> shape);
  /// Maps an index of the reshape result to an index of its input: dims are
  /// matched in groups of equal element count; a group of one dimension on
  /// each side passes through, others are linearized and delinearized.
  SmallVector<std::string> reshapeIndex(ArrayRef<std::string> idx,
                                        ArrayRef<int64_t> out,
                                        ArrayRef<int64_t> in);
  /// Conditions that keep the indices `idx` (whose smallest possible values
  /// are `lowest`) inside `[0, size)`; nothing when a literal index is out
  /// of range (the read is statically outside).
  std::optional<SmallVector<std::string>> inBounds(ArrayRef<std::string> idx,
                                                   ArrayRef<int64_t> lowest,
                                                   ArrayRef<int64_t> size);
  /// Opens `for` loops over `sizes` (dimensions of size 1 get the literal 0)
  /// as one scope under `cur`, or returns `cur` when every size is 1.
  Scope *openLoops(ArrayRef<int64_t> sizes, SmallVector<std::string> &vars);
  /// A compile-time table in the kernel's globals (shared by equal tables).
  std::string constTable(const char *type, ArrayRef<std::string> values);
  /// The value `table[i]` as an index variable bounded by `bound`.
  std::string ixLookup(const std::string &table, ArrayRef<int64_t> values,
                       const std::string &i, int64_t bound);

  std::string name;
  /// The C type of index arithmetic: int, or long long for large tensors.
  std::string idxType = "int";
  /// Definitions before the kernel function (constant tables).
  std::string globals;
  unsigned numConstTables = 0;

  std::unique_ptr<Scope> root;
  /// Where statements go now.
  Scope *cur = nullptr;

private:
  std::list<Chunk>::iterator insertPoint(Scope *s);
  void render(const Scope &s, unsigned indent, std::string &out);
  static std::string tupleKey(ArrayRef<std::string> idx,
                              ArrayRef<int64_t> shape);

  llvm::StringMap<Scope *> varScope;
  llvm::StringMap<int64_t> bounds;
  /// Multi-indices produced by ixDelinearize -> the position they came from.
  std::unordered_map<std::string, std::string> delinearized;
  unsigned counter = 0;
  /// Table contents -> name, for constTable.
  std::unordered_map<std::string, std::string> tables;
};

/// Drops `const T name = expr;` lines whose variable is never used (index
/// variables the templates declare up front, values made redundant by a
/// peephole); the expressions have no side effects.
std::string removeDeadDeclarations(const std::string &text);

} // namespace mlir::dlc

#endif // DLC_CODEGEN_SOURCEBUILDER_H
