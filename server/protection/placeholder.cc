#include "server/protection/placeholder.h"

#include <array>
#include <cassert>

#include "server/protection/scan_util.h"

namespace sluice::protection {
namespace {

// Each name with the '_' that separates it from the number.
constexpr std::array<std::string_view, kKindCount> kPrefixes = {
    "EMAIL_",    "PHONE_", "PAYMENT_CARD_", "IBAN_",           "API_KEY_", "JWT_",
    "PRIVATE_KEY_", "PASSWORD_", "URL_CREDENTIALS_", "IP_ADDRESS_", "VAULT_"};

enum class Prefix { No, Partial, Whole };

// Whether `s` from `p` holds `token` (Whole), or runs out while matching it (Partial). With
// `fold_hex`, letters compare case-insensitively (the hex digits of a \u escape).
Prefix matchToken(std::string_view s, size_t p, std::string_view token, bool fold_hex) {
  for (size_t k = 0; k < token.size(); ++k) {
    if (p + k >= s.size()) return Prefix::Partial;
    const char c = s[p + k];
    if (fold_hex ? lowerAscii(c) != token[k] : c != token[k]) return Prefix::No;
  }
  return Prefix::Whole;
}

// A bracket at `p`: raw, or (with json) as a \u escape. Sets `length` on Whole.
Prefix matchBracket(std::string_view s, size_t p, std::string_view raw, std::string_view escaped, bool json,
                    size_t& length) {
  const Prefix r = matchToken(s, p, raw, false);
  if (r == Prefix::Whole) {
    length = raw.size();
    return r;
  }
  if (!json) return r;
  const Prefix e = matchToken(s, p, escaped, true);
  if (e == Prefix::Whole) length = escaped.size();
  if (e == Prefix::No) return r;
  return e == Prefix::Whole ? e : Prefix::Partial;
}

}  // namespace

std::string_view placeholderName(Kind kind) {
  const std::string_view prefix = kPrefixes[static_cast<size_t>(kind)];
  return prefix.substr(0, prefix.size() - 1);
}

std::string makePlaceholder(Kind kind, int number) {
  assert(number >= 1 && number <= kMaxPlaceholderNumber);
  std::string out;
  out.reserve(kMaxPlaceholderBytes);
  out.append(kOpenBracket);
  out.append(kPrefixes[static_cast<size_t>(kind)]);
  out.append(std::to_string(number));
  out.append(kCloseBracket);
  return out;
}

// True when `s` has the whole bracket at `p` (matchBracket: its length in `length`); when `s` ends
// inside it, `read` is marked Partial.
bool wholeBracket(std::string_view s, size_t p, std::string_view raw, std::string_view escaped, bool json,
                  size_t& length, PlaceholderRead& read) {
  switch (matchBracket(s, p, raw, escaped, json, length)) {
    case Prefix::No: return false;
    case Prefix::Partial:
      read.state = PlaceholderRead::State::Partial;
      return false;
    case Prefix::Whole: return true;
  }
  return false;
}

PlaceholderRead readPlaceholder(std::string_view s, bool json_escapes) {
  using State = PlaceholderRead::State;
  PlaceholderRead read;
  size_t open = 0;
  if (!wholeBracket(s, 0, kOpenBracket, "\\u27e6", json_escapes, open, read)) return read;
  // The name and its '_': upper-case letters and '_' up to the first digit.
  size_t p = open;
  while (p < s.size() && (isUpper(s[p]) || s[p] == '_') && p - open < 16) ++p;
  const std::string_view name = s.substr(open, p - open);
  if (p == s.size()) {
    for (const std::string_view prefix : kPrefixes) {
      if (prefix.starts_with(name)) {
        read.state = State::Partial;
        return read;
      }
    }
    return read;
  }
  int kind = -1;
  for (size_t k = 0; k < kPrefixes.size(); ++k) {
    if (kPrefixes[k] == name) kind = static_cast<int>(k);
  }
  if (kind < 0 || !isDigit(s[p]) || s[p] == '0') return read;
  // The number: 1..99999.
  const size_t digits = p;
  int number = 0;
  while (p < s.size() && isDigit(s[p]) && p - digits < 6) number = number * 10 + (s[p++] - '0');
  if (p - digits > 5) return read;
  if (p == s.size()) {
    read.state = State::Partial;
    return read;
  }
  size_t close = 0;
  if (!wholeBracket(s, p, kCloseBracket, "\\u27e7", json_escapes, close, read)) return read;
  read.state = State::Complete;
  read.length = p + close;
  read.kind = static_cast<Kind>(kind);
  read.number = number;
  return read;
}

std::string jsonEscape(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 8);
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out += "\\u00";
          out += kHex[(c >> 4) & 0xF];
          out += kHex[c & 0xF];
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace sluice::protection
