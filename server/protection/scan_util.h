#pragma once
// Byte classes and small helpers the scanners share. ASCII only: a byte >= 0x80 (part of a UTF-8
// sequence) is in no class, so it separates words as punctuation does.

#include <cstddef>
#include <string_view>

namespace sluice::protection {

constexpr bool isDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool isUpper(char c) { return c >= 'A' && c <= 'Z'; }
constexpr bool isLower(char c) { return c >= 'a' && c <= 'z'; }
constexpr bool isAlpha(char c) { return isUpper(c) || isLower(c); }
constexpr bool isAlnum(char c) { return isAlpha(c) || isDigit(c); }
constexpr bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
// Identifier bytes: [A-Za-z0-9_].
constexpr bool isWordByte(char c) { return isAlnum(c) || c == '_'; }
// Token bytes of keys and base64url: [A-Za-z0-9_-].
constexpr bool isTokenByte(char c) { return isWordByte(c) || c == '-'; }
constexpr char lowerAscii(char c) { return isUpper(c) ? static_cast<char>(c + ('a' - 'A')) : c; }

// The byte at `i`, or NUL past either end (so checks around a candidate need no bounds tests).
inline char at(std::string_view s, size_t i) { return i < s.size() ? s[i] : '\0'; }
inline char before(std::string_view s, size_t i) { return i > 0 ? s[i - 1] : '\0'; }

constexpr bool startsWithAt(std::string_view s, size_t i, std::string_view prefix) {
  return i <= s.size() && s.substr(i).starts_with(prefix);
}

// ASCII case-insensitive equality.
constexpr bool equalsFolded(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (lowerAscii(a[i]) != lowerAscii(b[i])) return false;
  }
  return true;
}
constexpr bool endsWithFolded(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && equalsFolded(s.substr(s.size() - suffix.size()), suffix);
}

}  // namespace sluice::protection
