#pragma once
// Hex digits and percent-encoding read back, the one way: query strings in the console's forms,
// the canonical URI SigV4 signs, hex-encoded keys in the credential vault. Header-only, like utf8.h.

#include <string>
#include <string_view>

namespace sluice::text {

// The value of one hex digit (either case), or -1 for any other byte.
constexpr int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// `text` with each `%XY` (two hex digits) replaced by its byte, and with `+` read as a space when
// `plus_is_space` (HTML form encoding). A `%` not followed by two hex digits is kept as it is.
inline std::string percentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (plus_is_space && text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() && hexValue(text[i + 1]) >= 0 && hexValue(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hexValue(text[i + 1]) * 16 + hexValue(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace sluice::text
