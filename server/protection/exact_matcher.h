#pragma once
// A set of exact strings found in text in one pass: the operator's vault, and the values a request
// masked (so another occurrence, in a context no detector recognises, is masked too). Pure.
//
// An Aho-Corasick automaton over the entries, reading the text right to left: after the byte at i
// it knows the longest entry that starts at i, so finding every match costs the same per byte
// however many entries there are and however they overlap. (The lookup it replaces hashed one
// slice per distinct entry length at every position whose two bytes began an entry: entries of a
// thousand lengths made text built from their first bytes cost a thousand hashes per byte.) The
// whole-word rule is part of the automaton: entries and text are read with a mark before each
// word's first byte and one after its last, so an entry that starts (ends) with a word byte only
// matches where a word starts (ends) in the text.
//
// Built once, then read-only: findAll() is const and keeps no state, so concurrent calls are safe.
// Memory: about 40 bytes per byte of the entries.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "server/protection/scan_budget.h"

namespace sluice::protection {

class ExactMatcher {
 public:
  struct Match {
    size_t offset = 0;
    size_t length = 0;
    uint32_t tag = 0;
  };
  struct Entry {
    std::string_view value;
    uint32_t tag = 0;
  };

  ExactMatcher() = default;
  // The matcher for `entries` (their text is copied into the automaton; the views may go after).
  // An entry shorter than two bytes is ignored, and so is a repeated value (its first tag is kept).
  // Linear in the entries' total length.
  static ExactMatcher build(const std::vector<Entry>& entries);

  // Appends the entries found in `text`, left to right, non-overlapping: at each position the
  // longest entry that matches wins. Whole-word rule: an entry that starts with a word character
  // ([A-Za-z0-9_]) matches only where the text's previous byte is not one, and an entry that ends
  // with one only where the next byte is not one. With a budget, returns false as soon as it is
  // exhausted (what was appended is then partial); true otherwise.
  bool findAll(std::string_view text, std::vector<Match>& out, ScanBudget* budget = nullptr) const;

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }

  // Bytes are symbols 0..255; kWordStart and kWordEnd are the marks around words.
  static constexpr uint32_t kWordStart = 256;
  static constexpr uint32_t kWordEnd = 257;
  static constexpr uint32_t kSymbols = 258;

 private:
  struct Slot {
    uint64_t key = 0;  // node << 9 | symbol; 0 = empty (the root's moves are in root_)
    uint32_t child = 0;
  };
  struct Found {
    uint32_t length = 0;  // bytes
    uint32_t tag = 0;
  };

  uint32_t child(uint32_t node, uint32_t symbol) const;
  void setChild(uint32_t node, uint32_t symbol, uint32_t to);
  uint32_t step(uint32_t node, uint32_t symbol) const;
  // Appends the matches that start in [from, to), longest per start, in decreasing start order.
  bool matchesIn(std::string_view text, size_t from, size_t to, std::vector<std::pair<size_t, uint32_t>>& starts,
                 ScanBudget* budget) const;

  std::vector<Found> entries_;
  std::array<uint32_t, kSymbols> root_{};  // the root's moves (0: stay at the root)
  std::vector<Slot> slots_;                // every other move, open addressing
  size_t used_slots_ = 0;
  std::vector<uint32_t> fail_;  // per node: the longest proper suffix that is a node
  std::vector<uint32_t> best_;  // per node: 1 + the longest entry that is a suffix of it; 0: none
  size_t longest_symbols_ = 0;  // symbols of the longest entry (the deepest node)
};

}  // namespace sluice::protection
