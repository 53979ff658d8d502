#include "server/protection/exact_matcher.h"

#include <algorithm>
#include <cstring>

#include "server/protection/scan_util.h"

namespace sluice::protection {

bool ExactMatcher::add(std::string_view value, uint32_t tag) {
  if (value.size() < 2) return false;
  const auto [it, inserted] = index_.try_emplace(std::string(value), static_cast<uint32_t>(values_.size()));
  if (!inserted) return false;
  values_.emplace_back(value);
  tags_.push_back(tag);
  if (pairs_.empty()) pairs_.assign(65536 / 64, 0);
  const uint16_t pair = pairAt(value, 0);
  pairs_[pair >> 6] |= uint64_t{1} << (pair & 63);
  std::vector<uint32_t>& bucket = buckets_[pair];
  // Longest first, so the first match at a position is the longest; equal lengths keep the order
  // of insertion (a determinism the masker's numbering relies on).
  const uint32_t position = it->second;
  const auto at = std::find_if(bucket.begin(), bucket.end(),
                               [&](uint32_t other) { return values_[other].size() < value.size(); });
  bucket.insert(at, position);
  return true;
}

void ExactMatcher::findAll(std::string_view text, std::vector<Match>& out) const {
  if (values_.empty() || text.size() < 2) return;
  const size_t last = text.size() - 1;
  const uint64_t* bits = pairs_.data();
  size_t i = 0;
  while (i < last) {
    const uint16_t pair = pairAt(text, i);
    if ((bits[pair >> 6] >> (pair & 63) & 1) == 0) {
      ++i;
      continue;
    }
    const auto bucket = buckets_.find(pair);
    size_t matched = 0;
    uint32_t tag = 0;
    for (const uint32_t position : bucket->second) {
      const std::string& value = values_[position];
      if (value.size() > text.size() - i) continue;
      if (std::memcmp(text.data() + i, value.data(), value.size()) != 0) continue;
      if (isWordByte(value.front()) && i > 0 && isWordByte(text[i - 1])) continue;
      const size_t end = i + value.size();
      if (isWordByte(value.back()) && end < text.size() && isWordByte(text[end])) continue;
      matched = value.size();
      tag = tags_[position];
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
