#pragma once
// How far a run of bytes that an escaper copies unchanged goes, eight bytes at a time (SWAR: a
// word's bytes tested together): what the log line's JSON strings and the audit row's COPY fields
// spend most of their time on, on every request. Pure; header-only.

#include <cstdint>
#include <cstring>
#include <string_view>

namespace sluice::text {

namespace swar {

inline constexpr uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr uint64_t kHigh = 0x8080808080808080ULL;

// The high bit of each byte of `word` that is below `n` (n <= 128).
constexpr uint64_t below(uint64_t word, uint8_t n) { return (word - kOnes * n) & ~word & kHigh; }
// The high bit of each byte of `word` equal to `c`.
constexpr uint64_t equal(uint64_t word, uint8_t c) { return below(word ^ (kOnes * c), 1); }

inline uint64_t load(const char* at) {
  uint64_t word;
  std::memcpy(&word, at, sizeof word);
  return word;
}

}  // namespace swar

// The first index from `from` on of a byte a JSON string cannot hold as it is: a control byte,
// '"', '\\', or any byte from 0x80 (UTF-8, checked by the caller). `value.size()` when none.
inline size_t plainJsonRun(std::string_view value, size_t from) {
  size_t i = from;
  for (; i + 8 <= value.size(); i += 8) {
    const uint64_t word = swar::load(value.data() + i);
    if ((word & swar::kHigh) | swar::below(word, 0x20) | swar::equal(word, '"') | swar::equal(word, '\\')) break;
  }
  for (; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c < 0x20 || c == '"' || c == '\\' || c >= 0x80) return i;
  }
  return i;
}

// The same for a field of PostgreSQL's COPY text: a byte below 0x0e (NUL, tab, newline and
// carriage return among them), '\\', or any byte from 0x80.
inline size_t plainCopyRun(std::string_view value, size_t from) {
  size_t i = from;
  for (; i + 8 <= value.size(); i += 8) {
    const uint64_t word = swar::load(value.data() + i);
    if ((word & swar::kHigh) | swar::below(word, 0x0e) | swar::equal(word, '\\')) break;
  }
  for (; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c < 0x0e || c == '\\' || c >= 0x80) return i;
  }
  return i;
}

}  // namespace sluice::text
