#pragma once
// UTF-8 well-formedness, as RFC 3629 defines it: no overlong forms, no surrogates, nothing past
// U+10FFFF; and the one repair of text that is not well formed. Header-only: the log writer, the
// JSON reader, writer and walk, and the codecs' error messages all use it, so they agree on which
// bytes are broken.

#include <cstddef>
#include <string>
#include <string_view>

namespace sluice::text {

// How the bytes from `s[i]` (a byte >= 0x80) read: `length` bytes make a whole well-formed
// sequence (`whole`), or else the longest beginning of one that is there (at least 1: a byte that
// begins nothing, or a sequence cut by the end of `s` or by a byte that cannot follow). Unicode
// calls the broken case a "maximal subpart"; repairUtf8 replaces each with one U+FFFD.
struct Utf8Span {
  size_t length = 1;
  bool whole = false;
};
inline Utf8Span utf8SpanAt(std::string_view s, size_t i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  size_t size = 0;
  unsigned char low = 0x80;  // the range of the second byte; later bytes are 80..BF
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    size = 2;
  } else if (lead == 0xE0) {
    size = 3, low = 0xA0;  // below: overlong
  } else if (lead == 0xED) {
    size = 3, high = 0x9F;  // above: a surrogate
  } else if (lead >= 0xE1 && lead <= 0xEF) {
    size = 3;
  } else if (lead == 0xF0) {
    size = 4, low = 0x90;  // below: overlong
  } else if (lead == 0xF4) {
    size = 4, high = 0x8F;  // above: past U+10FFFF
  } else if (lead >= 0xF1 && lead <= 0xF3) {
    size = 4;
  } else {
    return {};  // ASCII is not asked about; 80..C1 and F5..FF begin nothing
  }
  size_t k = 1;
  for (; k < size && i + k < s.size(); ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if (k == 1 ? (c < low || c > high) : (c & 0xC0) != 0x80) break;
  }
  return {k, k == size};
}

// Length of the well-formed UTF-8 sequence starting at `s[i]` (a byte >= 0x80), or 0 when there is
// none there.
inline size_t utf8SequenceLength(std::string_view s, size_t i) {
  const Utf8Span span = utf8SpanAt(s, i);
  return span.whole ? span.length : 0;
}

// `s` with each maximal subpart that is not well-formed UTF-8 replaced by U+FFFD (EF BF BD), as
// nlohmann's error_handler_t::replace and the WHATWG decoder do, so the text can go into JSON: a
// truncated sequence gives one U+FFFD, an overlong form or an encoded surrogate one per byte.
// With `limit`, the result stops before the character (or U+FFFD) that would take it past `limit`
// bytes, so a cut never splits a character.
inline std::string repairUtf8(std::string_view s, size_t limit = std::string::npos) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";
  std::string out;
  out.reserve(s.size() < limit ? s.size() : limit);
  size_t i = 0;
  while (i < s.size()) {
    std::string_view piece = s.substr(i, 1);
    if (static_cast<unsigned char>(s[i]) >= 0x80) {
      const Utf8Span span = utf8SpanAt(s, i);
      piece = span.whole ? s.substr(i, span.length) : kReplacement;
      i += span.length;
    } else {
      ++i;
    }
    if (piece.size() > limit - out.size()) break;
    out.append(piece);
  }
  return out;
}

}  // namespace sluice::text
