#pragma once
// A set of exact strings found in text in one pass: the operator's vault, and the values a request
// already masked (so a later occurrence in a context no detector recognises is masked too). Pure.
//
// Every entry is at least two bytes; a bitmap of the entries' first two bytes filters the text's
// positions, so a text without any candidate costs one bit test per byte. At a candidate position
// the entries' lengths for those two bytes (longest first) say which slices to look up in a hash
// table: the cost is the number of distinct lengths, however many entries share a prefix.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sluice::protection {

class ExactMatcher {
 public:
  struct Match {
    size_t offset = 0;
    size_t length = 0;
    uint32_t tag = 0;
  };

  // Adds `value` with `tag`. Ignored (returns false) when `value` is shorter than two bytes or
  // already present: the first tag given for a value is kept.
  bool add(std::string_view value, uint32_t tag);

  // Appends the entries found in `text`, left to right, non-overlapping: at each position the
  // longest entry that matches wins. Whole-word rule: an entry that starts with a word character
  // ([A-Za-z0-9_]) matches only where the text's previous byte is not one, and an entry that ends
  // with one only where the next byte is not one.
  void findAll(std::string_view text, std::vector<Match>& out) const;

  bool empty() const { return tags_.empty(); }
  size_t size() const { return tags_.size(); }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  static uint16_t pairAt(std::string_view s, size_t i) {
    return static_cast<uint16_t>((static_cast<unsigned char>(s[i]) << 8) | static_cast<unsigned char>(s[i + 1]));
  }

  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> tags_;  // value -> tag
  std::unordered_map<uint16_t, std::vector<uint32_t>> lengths_;            // first two bytes -> lengths, longest first
  std::vector<uint64_t> pairs_;                                            // 65536 bits: lengths_ has the pair
};

}  // namespace sluice::protection
