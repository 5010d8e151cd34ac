//===- TextMutator.h - Consistent token substitutions in MLIR text -*- C++
//-*-===//
//
// Byte-level mutations rarely turn a model into another model that still
// verifies, so fuzz-pipeline would spend its time in the parser. Half of
// the mutations here replace *every* occurrence of one token with another of
// the same kind, which keeps the text consistent: an element type for
// another (f32 -> f16 everywhere), an op for one with the same signature
// (dlc.add -> dlc.max), a reduction kind or comparison predicate for another,
// or one integer (a dimension, an axis, a size) for an interesting value.
// The other half are libFuzzer's own mutations.
//
//===----------------------------------------------------------------------===//
#ifndef DLC_TEST_FUZZ_TEXTMUTATOR_H
#define DLC_TEST_FUZZ_TEXTMUTATOR_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

namespace dlc::fuzz {

/// Tokens that can replace each other everywhere in a model.
inline const std::vector<std::vector<const char *>> &substitutionClasses() {
  static const std::vector<std::vector<const char *>> classes = {
      {"f32", "f16", "bf16", "i1", "i8", "i32", "i64", "f64"},
      {"dlc.add", "dlc.sub", "dlc.mul", "dlc.div", "dlc.max", "dlc.min",
       "dlc.pow", "dlc.and", "dlc.or"},
      {"dlc.exp", "dlc.log", "dlc.tanh", "dlc.sigmoid", "dlc.erf", "dlc.rsqrt",
       "dlc.sqrt", "dlc.reciprocal", "dlc.abs", "dlc.neg", "dlc.not"},
      {"tosa.add", "tosa.sub", "tosa.maximum", "tosa.minimum", "tosa.pow",
       "tosa.bitwise_and", "tosa.bitwise_or", "tosa.logical_and",
       "tosa.logical_or", "tosa.int_div"},
      {"tosa.exp", "tosa.log", "tosa.tanh", "tosa.sigmoid", "tosa.erf",
       "tosa.rsqrt", "tosa.reciprocal", "tosa.abs", "tosa.floor", "tosa.sin",
       "tosa.logical_not", "tosa.identity"},
      {"tosa.reduce_sum", "tosa.reduce_max", "tosa.reduce_min",
       "tosa.reduce_prod", "tosa.reduce_all", "tosa.reduce_any"},
      {"tosa.greater", "tosa.greater_equal", "tosa.equal"},
      {"sum", "max", "min", "prod"},
      {"eq", "ne", "lt", "le", "gt", "ge"},
  };
  return classes;
}

inline bool isWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.';
}

/// Offsets of the occurrences of `token` in `text` that stand alone. An
/// element type may follow the `x` of a shape (tensor<4xf32>).
inline std::vector<size_t> findToken(const std::string &text,
                                     const std::string &token, bool isType) {
  std::vector<size_t> found;
  for (size_t pos = text.find(token); pos != std::string::npos;
       pos = text.find(token, pos + 1)) {
    const size_t end = pos + token.size();
    if (end < text.size() && isWordChar(text[end]))
      continue;
    if (pos > 0 && isWordChar(text[pos - 1]) &&
        !(isType && text[pos - 1] == 'x'))
      continue;
    found.push_back(pos);
  }
  return found;
}

inline void replaceAt(std::string &text, const std::vector<size_t> &at,
                      size_t oldSize, const std::string &replacement) {
  for (size_t i = at.size(); i-- > 0;)
    text.replace(at[i], oldSize, replacement);
}

/// Replaces every occurrence of a token of some class with another member.
inline bool substituteToken(std::string &text, std::minstd_rand &rng) {
  const auto &classes = substitutionClasses();
  const auto &cls = classes[rng() % classes.size()];
  const bool isType = &cls == &classes.front();
  std::vector<size_t> present;
  for (size_t i = 0; i < cls.size(); ++i)
    if (!findToken(text, cls[i], isType).empty())
      present.push_back(i);
  if (present.empty())
    return false;
  const std::string from = cls[present[rng() % present.size()]];
  std::string to = from;
  while (to == from)
    to = cls[rng() % cls.size()];
  replaceAt(text, findToken(text, from, isType), from.size(), to);
  return true;
}

/// Replaces every standalone occurrence of one integer (a dimension of
/// 4x8, an element of array<i64: 0, 1>, an attribute value) with another.
inline bool substituteInteger(std::string &text, std::minstd_rand &rng) {
  auto boundaryBefore = [](char c) {
    return c != 0 && std::strchr(" <x,[(:=", c) != nullptr;
  };
  auto boundaryAfter = [](char c) {
    return c != 0 && std::strchr(" x>,])}\n", c) != nullptr;
  };
  std::vector<std::pair<size_t, size_t>> numbers;
  for (size_t i = 0; i < text.size();) {
    if (text[i] < '0' || text[i] > '9') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9')
      ++j;
    // The 0 of a "0x..." hex literal follows a quote: not a boundary.
    if (i > 0 && boundaryBefore(text[i - 1]) && j < text.size() &&
        boundaryAfter(text[j]))
      numbers.push_back({i, j - i});
    i = j;
  }
  if (numbers.empty())
    return false;
  auto [start, length] = numbers[rng() % numbers.size()];
  const std::string from = text.substr(start, length);
  static const char *const values[] = {
      "0",    "1",    "2",     "3",       "4",          "5",         "7",
      "8",    "16",   "31",    "32",      "33",         "63",        "64",
      "65",   "127",  "128",   "255",     "256",        "257",       "1023",
      "1024", "4097", "65536", "1048577", "2147483647", "4294967296"};
  std::string to = from;
  while (to == from)
    to = values[rng() % (sizeof(values) / sizeof(values[0]))];
  std::vector<size_t> at;
  for (auto [s, l] : numbers)
    if (text.compare(s, l, from) == 0)
      at.push_back(s);
  replaceAt(text, at, from.size(), to);
  return true;
}

/// libFuzzer's custom mutator for MLIR text (see the file comment).
inline size_t mutateMlirText(uint8_t *data, size_t size, size_t maxSize,
                             unsigned seed) {
  std::minstd_rand rng(seed);
  if (rng() % 2 == 0)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::string text(reinterpret_cast<const char *>(data), size);
  const bool changed = rng() % 2 == 0 ? substituteToken(text, rng)
                                      : substituteInteger(text, rng);
  if (!changed || text.size() > maxSize)
    return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, text.data(), text.size());
  return text.size();
}

} // namespace dlc::fuzz

#endif // DLC_TEST_FUZZ_TEXTMUTATOR_H
