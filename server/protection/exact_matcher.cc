#include "server/protection/exact_matcher.h"

#include <algorithm>

#include "server/protection/scan_util.h"

namespace sluice::protection {

bool ExactMatcher::add(std::string_view value, uint32_t tag) {
  if (value.size() < 2) return false;
  if (!tags_.try_emplace(std::string(value), tag).second) return false;
  if (pairs_.empty()) pairs_.assign(65536 / 64, 0);
  const uint16_t pair = pairAt(value, 0);
  pairs_[pair >> 6] |= uint64_t{1} << (pair & 63);
  std::vector<uint32_t>& lengths = lengths_[pair];
  const auto length = static_cast<uint32_t>(value.size());
  const auto at = std::lower_bound(lengths.begin(), lengths.end(), length, std::greater<>());
  if (at == lengths.end() || *at != length) lengths.insert(at, length);
  return true;
}

void ExactMatcher::findAll(std::string_view text, std::vector<Match>& out) const {
  if (tags_.empty() || text.size() < 2) return;
  const size_t last = text.size() - 1;
  const uint64_t* bits = pairs_.data();
  size_t i = 0;
  while (i < last) {
    const uint16_t pair = pairAt(text, i);
    if ((bits[pair >> 6] >> (pair & 63) & 1) == 0) {
      ++i;
      continue;
    }
    size_t matched = 0;
    uint32_t tag = 0;
    // Longest first: the first entry that matches at this position is the longest one.
    for (const uint32_t length : lengths_.find(pair)->second) {
      if (length > text.size() - i) continue;
      const std::string_view slice = text.substr(i, length);
      const auto found = tags_.find(slice);
      if (found == tags_.end()) continue;
      if (isWordByte(slice.front()) && i > 0 && isWordByte(text[i - 1])) continue;
      const size_t end = i + length;
      if (isWordByte(slice.back()) && end < text.size() && isWordByte(text[end])) continue;
      matched = length;
      tag = found->second;
      break;
    }
    if (matched == 0) {
      ++i;
      continue;
    }
    out.push_back({i, matched, tag});
    i += matched;
  }
}

}  // namespace sluice::protection
