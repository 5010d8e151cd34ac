//===- SourceBuilder.cpp - Scoped C statements and index arithmetic -------===//
#include "codegen/SourceBuilder.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <cassert>
#include <limits>

using namespace mlir;
using namespace mlir::dlc;

SourceBuilder::SourceBuilder(std::string kernelName)
    : name(std::move(kernelName)), root(std::make_unique<Scope>()) {
  root->barrier = true;
  cur = root.get();
}

SourceBuilder::~SourceBuilder() = default;

std::list<SourceBuilder::Chunk>::iterator SourceBuilder::insertPoint(Scope *s) {
  return s->open.empty() ? s->chunks.end() : s->open.back();
}

void SourceBuilder::line(Scope *s, std::string text) {
  s->chunks.insert(insertPoint(s), Chunk{std::move(text), nullptr});
}

SourceBuilder::Scope *SourceBuilder::openScope(Scope *parent,
                                               std::string header, bool barrier,
                                               std::string footer) {
  auto child = std::make_unique<Scope>();
  child->parent = parent;
  child->depth = parent->depth + 1;
  child->barrier = barrier;
  child->header = std::move(header);
  child->footer = std::move(footer);
  Scope *raw = child.get();
  auto it = parent->chunks.insert(insertPoint(parent),
                                  Chunk{std::string(), std::move(child)});
  parent->open.push_back(it);
  return raw;
}

void SourceBuilder::closeScope(Scope *s) {
  assert(!s->parent->open.empty() && s->parent->open.back()->child.get() == s &&
         "scopes nest");
  s->parent->open.pop_back();
}

void SourceBuilder::declare(Scope *s, const std::string &name, int64_t bound) {
  varScope[name] = s;
  if (bound >= 0)
    bounds[name] = bound;
}

std::string SourceBuilder::fresh(StringRef prefix) {
  return fmt::format("{}{}", prefix.str(), counter++);
}

SourceBuilder::Scope *SourceBuilder::floorScope() {
  Scope *s = cur;
  while (!s->barrier && s->parent)
    s = s->parent;
  return s;
}

SourceBuilder::Scope *SourceBuilder::targetFor(ArrayRef<std::string> names,
                                               bool respectBarriers) {
  Scope *target = respectBarriers ? floorScope() : root.get();
  for (const std::string &name : names) {
    auto it = varScope.find(name);
    if (it != varScope.end() && it->second->depth > target->depth)
      target = it->second;
  }
  return target;
}

std::optional<std::string> SourceBuilder::lookup(const std::string &key) {
  for (Scope *s = cur; s; s = s->parent) {
    auto it = s->cache.find(key);
    if (it != s->cache.end())
      return it->second;
  }
  return std::nullopt;
}

static void renderLines(StringRef text, unsigned indent, std::string &out) {
  SmallVector<StringRef> lines;
  text.split(lines, '\n');
  for (StringRef l : lines) {
    out.append(2 * indent, ' ');
    out += l.str();
    out += '\n';
  }
}

std::string SourceBuilder::renderBody() {
  std::string text;
  render(*root, 1, text);
  return removeDeadDeclarations(text);
}

void SourceBuilder::render(const Scope &s, unsigned indent, std::string &out) {
  unsigned inner = indent;
  if (!s.header.empty()) {
    renderLines(s.header, indent, out);
    inner = indent + 1;
  }
  for (const Chunk &c : s.chunks) {
    if (c.child)
      render(*c.child, inner, out);
    else
      renderLines(c.text, inner, out);
  }
  if (!s.header.empty())
    renderLines(s.footer, indent, out);
}

int64_t SourceBuilder::boundOf(const std::string &s) {
  if (isLit(s))
    return litVal(s) + 1;
  auto it = bounds.find(s);
  return it == bounds.end() ? std::numeric_limits<int64_t>::max() : it->second;
}

std::string SourceBuilder::ixTemp(const std::string &expr,
                                  ArrayRef<std::string> deps, int64_t bound) {
  std::string key = "#" + expr;
  if (auto hit = lookup(key))
    return *hit;
  Scope *target = targetFor(deps, /*respectBarriers=*/false);
  std::string name = fresh("t");
  line(target, fmt::format("const {} {} = {};", idxType, name, expr));
  declare(target, name, bound);
  target->cache[key] = name;
  return name;
}

std::string SourceBuilder::ixAdd(const std::string &a, int64_t c) {
  if (c == 0)
    return a;
  if (isLit(a))
    return lit(litVal(a) + c);
  int64_t b = boundOf(a);
  int64_t bound = b == std::numeric_limits<int64_t>::max() ? b : b + c;
  return ixTemp(c > 0 ? fmt::format("{} + {}", a, c)
                      : fmt::format("{} - {}", a, -c),
                {a}, std::max<int64_t>(bound, 1));
}

std::string SourceBuilder::ixDiv(const std::string &a, int64_t c) {
  if (c == 1)
    return a;
  if (isLit(a))
    return lit(litVal(a) / c);
  int64_t b = boundOf(a);
  if (b <= c)
    return "0";
  int64_t bound =
      b == std::numeric_limits<int64_t>::max() ? b : (b + c - 1) / c;
  return ixTemp(fmt::format("{} / {}", a, c), {a}, bound);
}

std::string SourceBuilder::ixMod(const std::string &a, int64_t c) {
  if (c == 1)
    return "0";
  if (isLit(a))
    return lit(litVal(a) % c);
  if (boundOf(a) <= c)
    return a;
  return ixTemp(fmt::format("{} % {}", a, c), {a}, c);
}

std::string SourceBuilder::tupleKey(ArrayRef<std::string> idx,
                                    ArrayRef<int64_t> shape) {
  std::string key;
  for (size_t d = 0; d < idx.size(); ++d)
    key += fmt::format("{}:{},", idx[d], shape[d]);
  return key;
}

std::string SourceBuilder::ixLinear(ArrayRef<std::string> idx,
                                    ArrayRef<int64_t> shape) {
  // Linearizing what was just delinearized in the same shape.
  auto known = delinearized.find(tupleKey(idx, shape));
  if (known != delinearized.end())
    return known->second;
  int64_t constant = 0, stride = 1;
  SmallVector<std::pair<std::string, int64_t>> terms;
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    if (shape[d] != 1) {
      if (isLit(idx[d]))
        constant += litVal(idx[d]) * stride;
      else
        terms.push_back({idx[d], stride});
    }
    stride *= shape[d];
  }
  if (terms.empty())
    return lit(constant);
  if (terms.size() == 1 && terms[0].second == 1 && constant == 0)
    return terms[0].first;
  std::string expr;
  SmallVector<std::string> deps;
  for (auto &[name, s] : llvm::reverse(terms)) {
    if (!expr.empty())
      expr += " + ";
    expr += s == 1 ? name : fmt::format("{} * {}", name, s);
    deps.push_back(name);
  }
  if (constant)
    expr += fmt::format(" + {}", constant);
  return ixTemp(expr, deps,
                std::max<int64_t>(ShapedType::getNumElements(shape), 1));
}

SmallVector<std::string> SourceBuilder::ixDelinearize(const std::string &lin,
                                                      ArrayRef<int64_t> shape) {
  SmallVector<std::string> idx(shape.size(), "0");
  int64_t stride = 1;
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    if (shape[d] != 1)
      idx[d] = ixMod(ixDiv(lin, stride), shape[d]);
    stride *= shape[d];
  }
  // Only a multi-index with a variable: its scope proves `lin` visible.
  if (boundOf(lin) <= ShapedType::getNumElements(shape) &&
      llvm::any_of(idx, [](const std::string &s) { return !isLit(s); }))
    delinearized[tupleKey(idx, shape)] = lin;
  return idx;
}

SmallVector<std::string> SourceBuilder::declareIndex(Scope *s,
                                                     const std::string &lin,
                                                     ArrayRef<int64_t> shape,
                                                     StringRef prefix) {
  SmallVector<std::string> idx(shape.size(), "0");
  int64_t stride = 1;
  SmallVector<int64_t> strides(shape.size());
  for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= shape[d];
  }
  bool first = true;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1)
      continue;
    std::string expr =
        strides[d] == 1 ? lin : fmt::format("({}) / {}", lin, strides[d]);
    if (!first)
      expr = fmt::format("({}) % {}", expr, shape[d]);
    first = false;
    std::string name = fmt::format("{}{}", prefix.str(), d);
    if (varScope.count(name))
      name = fresh(prefix.str() + std::to_string(d) + "_");
    line(s, fmt::format("const {} {} = {};", idxType, name, expr));
    declare(s, name, shape[d]);
    idx[d] = name;
  }
  bool plainVariable = llvm::all_of(
      lin, [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
  if (plainVariable && !isLit(lin) &&
      llvm::any_of(idx, [](const std::string &s) { return !isLit(s); }))
    delinearized[tupleKey(idx, shape)] = lin;
  return idx;
}

SmallVector<std::string>
SourceBuilder::broadcastIndex(ArrayRef<std::string> idx,
                              ArrayRef<int64_t> shape) {
  SmallVector<std::string> out(idx.begin(), idx.end());
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == 1)
      out[d] = "0";
  return out;
}

SmallVector<std::string> SourceBuilder::reshapeIndex(ArrayRef<std::string> idx,
                                                     ArrayRef<int64_t> out,
                                                     ArrayRef<int64_t> in) {
  SmallVector<std::string> result(in.size(), "0");
  size_t i = 0, j = 0;
  while (i < out.size() || j < in.size()) {
    size_t i0 = i, j0 = j;
    int64_t po = 1, pi = 1;
    if (i < out.size())
      po *= out[i++];
    if (j < in.size())
      pi *= in[j++];
    while (po != pi) {
      if (po < pi && i < out.size())
        po *= out[i++];
      else if (pi < po && j < in.size())
        pi *= in[j++];
      else
        break;
    }
    if (po != pi) {
      // Cannot happen for equal element counts; stay correct regardless.
      SmallVector<std::string> all = ixDelinearize(ixLinear(idx, out), in);
      return all;
    }
    if (i - i0 == 1 && j - j0 == 1) {
      result[j0] = out[i0] == 1 ? "0" : idx[i0];
      continue;
    }
    std::string lin = ixLinear(idx.slice(i0, i - i0), out.slice(i0, i - i0));
    SmallVector<std::string> part = ixDelinearize(lin, in.slice(j0, j - j0));
    for (size_t k = 0; k < part.size(); ++k)
      result[j0 + k] = part[k];
  }
  return result;
}

std::string
SourceBuilder::ixAffine(ArrayRef<std::pair<std::string, int64_t>> terms,
                        int64_t constant) {
  SmallVector<std::pair<std::string, int64_t>> vars;
  for (auto &[t, c] : terms) {
    if (c == 0)
      continue;
    if (isLit(t)) {
      constant += litVal(t) * c;
      continue;
    }
    vars.push_back({t, c});
  }
  if (vars.empty())
    return lit(constant);
  if (vars.size() == 1 && vars[0].second == 1)
    return ixAdd(vars[0].first, constant);
  std::string expr;
  SmallVector<std::string> deps;
  int64_t bound = constant + 1;
  bool unbounded = false;
  for (auto &[t, c] : vars) {
    if (!expr.empty())
      expr += c > 0 ? " + " : " - ";
    else if (c < 0)
      expr += "-";
    int64_t magnitude = c < 0 ? -c : c;
    expr += magnitude == 1 ? t : fmt::format("{} * {}", t, magnitude);
    deps.push_back(t);
    int64_t b = boundOf(t);
    if (b == std::numeric_limits<int64_t>::max())
      unbounded = true;
    else if (c > 0)
      bound += (b - 1) * c;
  }
  if (constant > 0)
    expr += fmt::format(" + {}", constant);
  else if (constant < 0)
    expr += fmt::format(" - {}", -constant);
  return ixTemp(expr, deps,
                unbounded ? std::numeric_limits<int64_t>::max()
                          : std::max<int64_t>(bound, 1));
}

std::optional<SmallVector<std::string>>
SourceBuilder::inBounds(ArrayRef<std::string> idx, ArrayRef<int64_t> lowest,
                        ArrayRef<int64_t> size) {
  SmallVector<std::string> conds;
  for (size_t k = 0; k < idx.size(); ++k) {
    if (isLit(idx[k])) {
      int64_t v = litVal(idx[k]);
      if (v < 0 || v >= size[k])
        return std::nullopt;
      continue;
    }
    if (lowest[k] < 0)
      conds.push_back(fmt::format("{} >= 0", idx[k]));
    if (boundOf(idx[k]) > size[k])
      conds.push_back(fmt::format("{} < {}", idx[k], size[k]));
  }
  return conds;
}

SourceBuilder::Scope *SourceBuilder::openLoops(ArrayRef<int64_t> sizes,
                                               SmallVector<std::string> &vars) {
  std::string header;
  SmallVector<std::pair<std::string, int64_t>> loopVars;
  vars.clear();
  for (int64_t n : sizes) {
    if (n == 1) {
      vars.push_back("0");
      continue;
    }
    std::string k = fresh("k");
    header +=
        fmt::format("for ({0} {1} = 0; {1} < {2}; ++{1}) ", idxType, k, n);
    vars.push_back(k);
    loopVars.push_back({k, n});
  }
  if (loopVars.empty())
    return cur;
  Scope *loop = openScope(cur, header + "{", /*barrier=*/false);
  for (auto &[k, n] : loopVars)
    declare(loop, k, n);
  return loop;
}

std::string SourceBuilder::constTable(const char *type,
                                      ArrayRef<std::string> values) {
  std::string body;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i)
      body += i % 8 == 0 ? ",\n    " : ", ";
    body += values[i];
  }
  std::string key = std::string(type) + ":" + body;
  auto it = tables.find(key);
  if (it != tables.end())
    return it->second;
  std::string table = fmt::format("{}_c{}", name, numConstTables++);
  globals += fmt::format("static __device__ const {} {}[{}] = {{\n    {}}};\n",
                         type, table, values.size(), body);
  tables[key] = table;
  return table;
}

std::string SourceBuilder::ixLookup(const std::string &table,
                                    ArrayRef<int64_t> values,
                                    const std::string &i, int64_t bound) {
  if (isLit(i))
    return lit(values[litVal(i)]);
  return ixTemp(fmt::format("{}[{}]", table, i), {i}, bound);
}

std::string mlir::dlc::removeDeadDeclarations(const std::string &text) {
  SmallVector<std::string> lines;
  for (StringRef l : llvm::split(text, '\n'))
    lines.push_back(l.str());
  auto declaredName = [](StringRef line) -> StringRef {
    StringRef t = line.ltrim();
    if (!t.consume_front("const ") || !t.ends_with(";"))
      return StringRef();
    size_t eq = t.find(" = ");
    if (eq == StringRef::npos)
      return StringRef();
    StringRef lhs = t.take_front(eq).rtrim();
    size_t space = lhs.rfind(' ');
    return space == StringRef::npos ? StringRef() : lhs.drop_front(space + 1);
  };
  std::vector<bool> dead(lines.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    llvm::StringMap<unsigned> uses;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (dead[i])
        continue;
      StringRef l = lines[i];
      for (size_t p = 0; p < l.size();) {
        if (std::isalpha((unsigned char)l[p]) || l[p] == '_') {
          size_t q = p;
          while (q < l.size() &&
                 (std::isalnum((unsigned char)l[q]) || l[q] == '_'))
            ++q;
          ++uses[l.slice(p, q)];
          p = q;
        } else if (std::isdigit((unsigned char)l[p])) {
          while (p < l.size() &&
                 (std::isalnum((unsigned char)l[p]) || l[p] == '.'))
            ++p;
        } else {
          ++p;
        }
      }
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      if (dead[i])
        continue;
      StringRef name = declaredName(lines[i]);
      if (!name.empty() && uses.lookup(name) == 1) {
        dead[i] = true;
        changed = true;
      }
    }
  }
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (dead[i])
      continue;
    out += lines[i];
    if (i + 1 < lines.size())
      out += '\n';
  }
  return out;
}
