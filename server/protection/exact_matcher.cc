#include "server/protection/exact_matcher.h"

#include <algorithm>
#include <utility>

#include "server/protection/scan_util.h"

namespace sluice::protection {
namespace {

// Text is matched in pieces of this many bytes (each read with the longest entry's length beyond
// it), so only one piece's matches are held at once.
constexpr size_t kPieceBytes = 1u << 20;

uint64_t slotKey(uint32_t node, uint32_t symbol) { return (uint64_t{node} << 9) | symbol; }
size_t slotHash(uint64_t key) { return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 20); }

// The symbols of `s`, forward: its bytes, a kWordStart before the first byte of each word and a
// kWordEnd after its last.
void symbolsOf(std::string_view s, std::vector<uint32_t>& out) {
  out.clear();
  for (size_t i = 0; i < s.size(); ++i) {
    const bool word = isWordByte(s[i]);
    if (word && (i == 0 || !isWordByte(s[i - 1]))) out.push_back(ExactMatcher::kWordStart);
    out.push_back(static_cast<unsigned char>(s[i]));
    if (word && (i + 1 == s.size() || !isWordByte(s[i + 1]))) out.push_back(ExactMatcher::kWordEnd);
  }
}

}  // namespace

uint32_t ExactMatcher::child(uint32_t node, uint32_t symbol) const {
  if (node == 0) return root_[symbol];
  if (slots_.empty()) return 0;
  const uint64_t key = slotKey(node, symbol);
  const size_t mask = slots_.size() - 1;
  for (size_t at = slotHash(key) & mask;; at = (at + 1) & mask) {
    if (slots_[at].key == key) return slots_[at].child;
    if (slots_[at].key == 0) return 0;
  }
}

void ExactMatcher::setChild(uint32_t node, uint32_t symbol, uint32_t to) {
  if (node == 0) {
    root_[symbol] = to;
    return;
  }
  if ((used_slots_ + 1) * 2 > slots_.size()) {
    std::vector<Slot> old = std::exchange(slots_, std::vector<Slot>(std::max<size_t>(64, slots_.size() * 2)));
    used_slots_ = 0;
    for (const Slot& slot : old) {
      if (slot.key != 0) setChild(static_cast<uint32_t>(slot.key >> 9), static_cast<uint32_t>(slot.key & 511), slot.child);
    }
  }
  const uint64_t key = slotKey(node, symbol);
  const size_t mask = slots_.size() - 1;
  size_t at = slotHash(key) & mask;
  while (slots_[at].key != 0) at = (at + 1) & mask;
  slots_[at] = {key, to};
  ++used_slots_;
}

uint32_t ExactMatcher::step(uint32_t node, uint32_t symbol) const {
  for (;;) {
    const uint32_t next = child(node, symbol);
    if (next != 0 || node == 0) return next;
    node = fail_[node];
  }
}

ExactMatcher ExactMatcher::build(const std::vector<Entry>& entries) {
  ExactMatcher m;
  // The trie of the entries' symbols read backwards, and what the suffix links need of each node.
  std::vector<uint32_t> parent{0};
  std::vector<uint32_t> depth{0};
  std::vector<uint16_t> via{0};
  std::vector<uint32_t> terminal{0};  // 1 + the entry ending here; 0: none
  std::vector<uint32_t> symbols;
  for (const Entry& entry : entries) {
    if (entry.value.size() < 2) continue;
    symbolsOf(entry.value, symbols);
    uint32_t node = 0;
    for (size_t k = symbols.size(); k > 0; --k) {
      const uint32_t symbol = symbols[k - 1];
      uint32_t next = m.child(node, symbol);
      if (next == 0) {
        next = static_cast<uint32_t>(parent.size());
        parent.push_back(node);
        depth.push_back(depth[node] + 1);
        via.push_back(static_cast<uint16_t>(symbol));
        terminal.push_back(0);
        m.setChild(node, symbol, next);
      }
      node = next;
    }
    if (terminal[node] != 0) continue;  // the same value again: the first tag stays
    m.entries_.push_back({static_cast<uint32_t>(entry.value.size()), entry.tag});
    terminal[node] = static_cast<uint32_t>(m.entries_.size());
    m.longest_symbols_ = std::max(m.longest_symbols_, symbols.size());
  }
  // Suffix links in order of depth (a node's link is shallower, so it is known first).
  const size_t nodes = parent.size();
  std::vector<uint32_t> first(m.longest_symbols_ + 2, 0);
  for (size_t n = 0; n < nodes; ++n) ++first[depth[n] + 1];
  for (size_t d = 1; d < first.size(); ++d) first[d] += first[d - 1];
  std::vector<uint32_t> order(nodes);
  for (size_t n = 0; n < nodes; ++n) order[first[depth[n]]++] = static_cast<uint32_t>(n);
  m.fail_.assign(nodes, 0);
  m.best_.assign(nodes, 0);
  for (const uint32_t node : order) {
    if (node == 0) continue;
    uint32_t link = 0;
    if (parent[node] != 0) {
      for (uint32_t candidate = m.fail_[parent[node]];; candidate = m.fail_[candidate]) {
        if (const uint32_t next = m.child(candidate, via[node]); next != 0) {
          link = next;
          break;
        }
        if (candidate == 0) break;
      }
    }
    m.fail_[node] = link;
    m.best_[node] = terminal[node] != 0 ? terminal[node] : m.best_[link];
  }
  return m;
}

bool ExactMatcher::matchesIn(std::string_view t, size_t from, size_t to,
                             std::vector<std::pair<size_t, uint32_t>>& starts, ScanBudget* budget) const {
  // Read right to left from far enough past `to` that the automaton's state is exact at `to`: a
  // state depends on no more symbols than the deepest node has, and every byte is a symbol.
  const size_t end = std::min(t.size(), to + longest_symbols_);
  // From the root, reading backwards: an entry ends with a word byte only where a word ends (its
  // reversed symbols start with the word-end mark), with any other byte on that byte alone; no
  // entry read backwards starts with a word-start mark. Any other byte leaves the automaton at the
  // root, so most text costs a table lookup per byte.
  const uint32_t word_end = root_[kWordEnd];
  const auto may_end_an_entry = [&](size_t at) {
    const auto c = static_cast<unsigned char>(t[at]);
    if (!isWordByte(t[at])) return root_[c] != 0;
    if (at + 1 < t.size() && isWordByte(t[at + 1])) return false;
    return word_end != 0 && child(word_end, c) != 0;
  };
  uint32_t node = 0;
  size_t unreported = 0;
  for (size_t i = end; i > from; --i) {
    const size_t at = i - 1;
    const char c = t[at];
    if (budget != nullptr && ++unreported == ScanBudget::kBytesPerReading) {
      unreported = 0;
      if (!budget->progress(ScanBudget::kBytesPerReading)) return false;
    }
    const bool word = isWordByte(c);
    if (node == 0 && !may_end_an_entry(at)) continue;
    if (word && (at + 1 == t.size() || !isWordByte(t[at + 1]))) node = step(node, kWordEnd);
    node = step(node, static_cast<unsigned char>(c));
    if (word && (at == 0 || !isWordByte(t[at - 1]))) node = step(node, kWordStart);
    if (at < to && best_[node] != 0) starts.emplace_back(at, best_[node] - 1);
  }
  return true;
}

bool ExactMatcher::findAll(std::string_view text, std::vector<Match>& out, ScanBudget* budget) const {
  if (entries_.empty() || text.size() < 2) return true;
  std::vector<std::pair<size_t, uint32_t>> starts;
  size_t covered = 0;
  for (size_t from = 0; from < text.size(); from += kPieceBytes) {
    const size_t to = std::min(text.size(), from + kPieceBytes);
    starts.clear();
    if (!matchesIn(text, from, to, starts, budget)) return false;
    // Left to right, the longest entry at each start not covered by the match before it.
    for (auto it = starts.rbegin(); it != starts.rend(); ++it) {
      if (it->first < covered) continue;
      const Found& found = entries_[it->second];
      out.push_back({it->first, found.length, found.tag});
      covered = it->first + found.length;
    }
  }
  return true;
}

}  // namespace sluice::protection
