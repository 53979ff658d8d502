// Personal data: IP addresses (IPv4 dotted quads, IPv6). Octets in range, and the characters
// around a value must not make it part of a longer token (a version, a path, a longer number).

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "server/protection/scan_util.h"
#include "server/protection/scanners.h"

namespace sluice::protection::scan {
namespace {

// A decimal octet 0..255 without leading zeros at `p`; its end, or npos.
size_t readOctet(std::string_view t, size_t p, int& value) {
  size_t q = p;
  value = 0;
  while (q < t.size() && isDigit(t[q]) && q - p < 4) value = value * 10 + (t[q++] - '0');
  const size_t length = q - p;
  if (length == 0 || length > 3 || value > 255 || (length > 1 && t[p] == '0')) return std::string_view::npos;
  return q;
}

// A dotted quad from `p`: its end, or npos. `first` gets the first octet.
size_t readDottedQuad(std::string_view t, size_t p, int& first) {
  for (int k = 0; k < 4; ++k) {
    int value = 0;
    p = readOctet(t, p, value);
    if (p == std::string_view::npos) return p;
    if (k == 0) first = value;
    if (k < 3) {
      if (at(t, p) != '.') return std::string_view::npos;
      ++p;
    }
  }
  return p;
}

// The word before `start` (skipping spaces) names a version: "version 1.2.3.4", "v 10.0.0.1".
bool afterVersionWord(std::string_view t, size_t start) {
  size_t e = start;
  while (e > 0 && start - e < 3 && (t[e - 1] == ' ' || t[e - 1] == ':')) --e;
  size_t s = e;
  while (s > 0 && e - s < 12 && isAlpha(t[s - 1])) --s;
  const std::string_view word = t.substr(s, e - s);
  for (const std::string_view version : {"version", "ver", "v", "release", "build", "rev", "revision", "firmware",
                                         "chapter", "section", "sec", "figure", "fig", "table", "step", "clause",
                                         "rule", "part", "item", "appendix", "oid"}) {
    if (equalsFolded(word, version)) return true;
  }
  return false;
}

}  // namespace

std::optional<Hit> ipv4(std::string_view t, size_t start) {
  const char prev = before(t, start);
  if (isWordByte(prev) || prev == '.' || std::string_view("^~<>").contains(prev)) return std::nullopt;
  // Version pins: "==1.2.3.4", ">=1.2.3.4", "~=1.2.3.4" (a single '=' assigns an address).
  if (prev == '=' && std::string_view("=<>~!").contains(before(t, start - 1))) return std::nullopt;
  // "Chrome/120.0.0.0", "python-3.1.2.4": a product's version, not an address.
  if ((prev == '/' || prev == '-') && isWordByte(before(t, start - 1))) return std::nullopt;
  int first = 0;
  const size_t end = readDottedQuad(t, start, first);
  if (end == std::string_view::npos) return std::nullopt;
  // Four single digits ("3.2.1.4", "1.1.1.1", "8.8.8.8") read as a section or version number as
  // often as an address, and as an address they are public resolvers.
  if (end - start == 7) return std::nullopt;
  const char next = at(t, end);
  if (isWordByte(next) || (next == '.' && isDigit(at(t, end + 1)))) return std::nullopt;
  // 0.0.0.0/8 (unspecified), 127.0.0.0/8 (loopback) and 255.x (masks, broadcast) identify no one.
  if (first == 0 || first == 127 || first == 255) return std::nullopt;
  if (afterVersionWord(t, start)) return std::nullopt;
  return Hit{start, end - start};
}

std::optional<Hit> ipv6(std::string_view t, size_t start) {
  const char prev = before(t, start);
  if (isWordByte(prev) || prev == ':' || prev == '.') return std::nullopt;
  size_t p = start;
  int groups = 0;
  bool compressed = false;
  bool has_digit = false;
  bool ipv4_tail = false;
  size_t longest = 0;
  if (at(t, p) == ':') {
    if (at(t, p + 1) != ':') return std::nullopt;
    compressed = true;
    p += 2;
  }
  while (true) {
    const size_t s = p;
    while (p < t.size() && isHex(t[p]) && p - s <= 4) ++p;
    const size_t length = p - s;
    if (length == 0) {
      // Only right after "::" may the last group be missing: the address ends there.
      if (compressed && p >= 2 && t[p - 1] == ':' && t[p - 2] == ':') break;
      return std::nullopt;
    }
    if (length > 4) return std::nullopt;
    if (at(t, p) == '.') {
      int first = 0;
      const size_t end = readDottedQuad(t, s, first);
      if (end == std::string_view::npos) return std::nullopt;
      groups += 2;
      p = end;
      ipv4_tail = true;
      has_digit = true;
      break;
    }
    ++groups;
    if (groups > 8) return std::nullopt;  // longer than any address: stop reading
    longest = std::max(longest, length);
    for (size_t i = s; i < p; ++i) has_digit = has_digit || isDigit(t[i]);
    if (at(t, p) == ':') {
      if (at(t, p + 1) == ':') {
        if (compressed) return std::nullopt;
        compressed = true;
        p += 2;
        continue;
      }
      if (isHex(at(t, p + 1))) {
        ++p;
        continue;
      }
    }
    break;
  }
  if (compressed ? groups > 7 : groups != 8) return std::nullopt;
  const char next = at(t, p);
  if (isWordByte(next) || (next == '.' && isDigit(at(t, p + 1)))) return std::nullopt;
  if (next == ':' && (isHex(at(t, p + 1)) || at(t, p + 1) == ':')) return std::nullopt;
  // "::", "::1", "a[1::2]", "abc::def": too little to be an address someone wrote on purpose.
  if (!has_digit) return std::nullopt;
  if (!ipv4_tail && longest < 3) return std::nullopt;  // "a:b:c:d:e:f:1:2", "1::2"
  return Hit{start, p - start};
}

}  // namespace sluice::protection::scan
