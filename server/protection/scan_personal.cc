// Personal data: phone numbers, payment cards and IBANs, the numbers people write. The rules lean
// towards precision: a value must have the shape people write AND pass the checks the shape allows
// (Luhn and a known issuer, mod-97), and the characters around it must not make it part of a
// longer token (an identifier, a version, a path, a longer number). E-mail addresses are in
// scan_email.cc, IP addresses in scan_ip.cc.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>

#include "server/protection/scan_util.h"
#include "server/protection/scanners.h"

namespace sluice::protection::scan {
namespace {

// ---- digit groups (phones and cards) -----------------------------------------------------------

// A byte before a number that makes it part of something longer: an identifier, a decimal or
// version, a signed or negative number, a path, a time.
bool blocksNumberBefore(char c) {
  return isWordByte(c) || c == '.' || c == '-' || c == '+' || c == '/' || c == '\\' || c == ':' || c == '$';
}
// The same after the number (`next` is the byte after `c`).
bool blocksNumberAfter(char c, char next) {
  if (isWordByte(c)) return true;
  if ((c == '.' || c == '/' || c == ':' || c == ',' || c == '-') && isDigit(next)) return true;
  return false;
}

struct Group {
  uint8_t length = 0;
  bool paren = false;
};

struct Groups {
  std::array<Group, 8> group{};
  int count = 0;
  int digits = 0;
  char separator = 0;     // the first separator seen
  bool mixed = false;     // more than one kind of separator
  size_t end = 0;
  bool ok = false;
};

// Digit groups from `p`: "(555) 123-4567", "4111 1111 1111 1111", "020 7946 0958". A separator is
// one space or dash and is taken only when a digit or '(' follows; a parenthesised group may be
// followed directly by digits.
Groups readGroups(std::string_view t, size_t p, bool allow_paren) {
  Groups out;
  size_t end = p;    // after the last whole group
  char pending = 0;  // the separator before the group being read
  while (true) {
    Group group;
    size_t q = p;
    if (allow_paren && at(t, q) == '(') {
      group.paren = true;
      ++q;
    }
    const size_t start = q;
    while (q < t.size() && isDigit(t[q]) && q - start <= 19) ++q;
    const size_t length = q - start;
    if (length > 19) return out;
    if (length == 0 || (group.paren && at(t, q) != ')')) {
      // A separator followed by something else ("-30 (Berlin)"): the number ended before it.
      if (out.count == 0) return out;
      break;
    }
    if (group.paren) ++q;
    if (out.count == static_cast<int>(out.group.size())) return out;
    if (pending != 0) {
      if (out.separator == 0) {
        out.separator = pending;
      } else if (out.separator != pending) {
        out.mixed = true;
      }
    }
    group.length = static_cast<uint8_t>(length);
    out.group[out.count++] = group;
    out.digits += static_cast<int>(length);
    if (out.digits > 19) return out;
    end = q;
    p = q;
    const char c = at(t, p);
    const char next = at(t, p + 1);
    if ((c == ' ' || c == '-') && (isDigit(next) || (allow_paren && next == '('))) {
      pending = c;
      ++p;
      continue;
    }
    pending = 0;
    if (group.paren && isDigit(c)) continue;
    break;
  }
  out.end = end;
  out.ok = !blocksNumberAfter(at(t, end), at(t, end + 1));
  return out;
}

// ---- payment cards -----------------------------------------------------------------------------

bool luhn(std::string_view digits) {
  int sum = 0;
  bool twice = false;
  for (size_t i = digits.size(); i > 0; --i) {
    int d = digits[i - 1] - '0';
    if (twice) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    twice = !twice;
  }
  return sum % 10 == 0;
}

int prefixValue(std::string_view digits, size_t n) {
  int value = 0;
  for (size_t i = 0; i < n && i < digits.size(); ++i) value = value * 10 + (digits[i] - '0');
  return value;
}

// A known issuer (IIN range) for this number of digits: Visa, Mastercard, American Express,
// Discover, Diners Club, JCB, UnionPay, Maestro, Mir.
bool knownIssuer(std::string_view d) {
  const size_t n = d.size();
  const int p1 = prefixValue(d, 1);
  const int p2 = prefixValue(d, 2);
  const int p3 = prefixValue(d, 3);
  const int p4 = prefixValue(d, 4);
  const int p6 = prefixValue(d, 6);
  if (p1 == 4) return n == 13 || n == 16 || n == 19;                          // Visa
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return n == 16;  // Mastercard
  if (p2 == 34 || p2 == 37) return n == 15;                                   // American Express
  if (p4 >= 2200 && p4 <= 2204) return n == 16;                               // Mir
  if (p4 == 6011 || (p3 >= 644 && p3 <= 649) || p2 == 65 || (p6 >= 622126 && p6 <= 622925)) {
    return n >= 16 && n <= 19;  // Discover
  }
  if (p2 == 62) return n >= 16 && n <= 19;                           // UnionPay
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19;           // JCB
  if ((p3 >= 300 && p3 <= 305) || p2 == 36 || p2 == 38 || p2 == 39) {
    return n >= 14 && n <= 19;  // Diners Club
  }
  for (const int maestro : {5018, 5020, 5038, 5893, 6304, 6759, 6761, 6762, 6763}) {
    if (p4 == maestro) return n >= 13 && n <= 19;
  }
  return false;
}

// The ways card numbers are grouped: one run, fours (the last group shorter), or 4-6-5 / 4-6-4.
bool cardGrouping(const Groups& g) {
  if (g.count == 1) return true;
  if (g.mixed) return false;
  if (g.count == 3 && g.group[0].length == 4 && g.group[1].length == 6 &&
      (g.group[2].length == 5 || g.group[2].length == 4)) {
    return true;
  }
  for (int i = 0; i < g.count; ++i) {
    const int length = g.group[i].length;
    if (i + 1 < g.count ? length != 4 : (length < 1 || length > 4)) return false;
  }
  return true;
}

// ---- IBAN --------------------------------------------------------------------------------------

struct IbanCountry {
  char code[3];
  uint8_t length;
};
constexpr IbanCountry kIbanCountries[] = {
    {"AD", 24}, {"AE", 23}, {"AL", 28}, {"AT", 20}, {"AZ", 28}, {"BA", 20}, {"BE", 16}, {"BG", 22}, {"BH", 22},
    {"BR", 29}, {"BY", 28}, {"CH", 21}, {"CR", 22}, {"CY", 28}, {"CZ", 24}, {"DE", 22}, {"DK", 18}, {"DO", 28},
    {"EE", 20}, {"EG", 29}, {"ES", 24}, {"FI", 18}, {"FO", 18}, {"FR", 27}, {"GB", 22}, {"GE", 22}, {"GI", 23},
    {"GL", 18}, {"GR", 27}, {"GT", 28}, {"HR", 21}, {"HU", 28}, {"IE", 22}, {"IL", 23}, {"IQ", 23}, {"IS", 26},
    {"IT", 27}, {"JO", 30}, {"KW", 30}, {"KZ", 20}, {"LB", 28}, {"LC", 32}, {"LI", 21}, {"LT", 20}, {"LU", 20},
    {"LV", 21}, {"LY", 25}, {"MC", 27}, {"MD", 24}, {"ME", 22}, {"MK", 19}, {"MR", 27}, {"MT", 31}, {"MU", 30},
    {"NL", 18}, {"NO", 15}, {"PK", 24}, {"PL", 28}, {"PS", 29}, {"PT", 25}, {"QA", 29}, {"RO", 24}, {"RS", 22},
    {"SA", 24}, {"SC", 31}, {"SE", 24}, {"SI", 19}, {"SK", 24}, {"SM", 27}, {"ST", 25}, {"SV", 28}, {"TL", 23},
    {"TN", 24}, {"TR", 26}, {"UA", 29}, {"VA", 22}, {"VG", 24}, {"XK", 20}};

int ibanLength(char a, char b) {
  for (const IbanCountry& country : kIbanCountries) {
    if (country.code[0] == a && country.code[1] == b) return country.length;
  }
  return 0;
}

// ISO 13616: the four first characters moved to the end, letters as 10..35, the number mod 97 is 1.
bool ibanChecksum(std::string_view iban) {
  int remainder = 0;
  auto feed = [&](char c) {
    if (isDigit(c)) {
      remainder = (remainder * 10 + (c - '0')) % 97;
    } else {
      remainder = (remainder * 100 + (c - 'A' + 10)) % 97;
    }
  };
  for (size_t i = 4; i < iban.size(); ++i) feed(iban[i]);
  for (size_t i = 0; i < 4; ++i) feed(iban[i]);
  return remainder == 1;
}

}  // namespace

std::optional<Hit> phone(std::string_view t, size_t start) {
  const char lead = t[start];
  const char prev = before(t, start);
  if (lead == '+' ? isWordByte(prev) || prev == '+' || prev == '.' : blocksNumberBefore(prev)) return std::nullopt;
  if (lead == '+') {
    // E.164: '+', a country code not starting with 0, 8..15 digits in all, any grouping.
    if (!isDigit(at(t, start + 1)) || t[start + 1] == '0') return std::nullopt;
    const Groups g = readGroups(t, start + 1, true);
    if (!g.ok || g.digits < 8 || g.digits > 15) return std::nullopt;
    return Hit{start, g.end - start};
  }
  const Groups g = readGroups(t, start, true);
  if (!g.ok || g.count < 2) return std::nullopt;
  const Group* gs = g.group.data();
  // (555) 123-4567, (555) 123 4567, (555)123-4567: a NANP area code (2..9) in parentheses.
  if (lead == '(') {
    if (g.count == 3 && gs[0].paren && gs[0].length == 3 && gs[1].length == 3 && gs[2].length == 4 && !gs[1].paren &&
        !gs[2].paren && t[start + 1] >= '2') {
      return Hit{start, g.end - start};
    }
    return std::nullopt;
  }
  if (g.mixed) return std::nullopt;
  for (int i = 0; i < g.count; ++i) {
    if (gs[i].paren) return std::nullopt;
  }
  // 555-123-4567 and 1-555-123-4567: dashes only (spaced 3-3-4 runs are too often table columns).
  if (g.separator == '-') {
    const int skip = (g.count == 4 && gs[0].length == 1 && t[start] == '1') ? 1 : 0;
    if (g.count - skip == 3 && gs[skip].length == 3 && gs[skip + 1].length == 3 && gs[skip + 2].length == 4) {
      const char area = t[start + (skip ? 2 : 0)];
      if (area >= '2') return Hit{start, g.end - start};
    }
  }
  // National forms with a trunk 0: "020 7946 0958", "0171 123 4567", "030-12345678": an area code
  // of 3..5 digits starting 0[1-9], 2..4 groups of at least 3 digits, 10 or 11 digits in all.
  if (t[start] == '0' && t[start + 1] != '0' && gs[0].length >= 3 && gs[0].length <= 5 && g.count <= 4 &&
      (g.digits == 10 || g.digits == 11)) {
    for (int i = 1; i < g.count; ++i) {
      if (gs[i].length < 3) return std::nullopt;
    }
    return Hit{start, g.end - start};
  }
  return std::nullopt;
}

std::optional<Hit> paymentCard(std::string_view t, size_t start) {
  if (blocksNumberBefore(before(t, start))) return std::nullopt;
  const Groups g = readGroups(t, start, false);
  if (!g.ok || g.digits < 13 || g.digits > 19 || !cardGrouping(g)) return std::nullopt;
  char digits[19];
  size_t n = 0;
  for (size_t i = start; i < g.end; ++i) {
    if (isDigit(t[i])) digits[n++] = t[i];
  }
  const std::string_view d(digits, n);
  if (!knownIssuer(d) || !luhn(d)) return std::nullopt;
  return Hit{start, g.end - start};
}

std::optional<Hit> iban(std::string_view t, size_t start) {
  if (isWordByte(before(t, start)) || before(t, start) == '-') return std::nullopt;
  if (!isUpper(at(t, start)) || !isUpper(at(t, start + 1)) || !isDigit(at(t, start + 2)) ||
      !isDigit(at(t, start + 3))) {
    return std::nullopt;
  }
  const int length = ibanLength(t[start], t[start + 1]);
  if (length == 0) return std::nullopt;
  // Electronic form (no spaces) or print form (groups of four separated by one space).
  const bool grouped = at(t, start + 4) == ' ';
  char compact[34];
  int n = 0;
  size_t p = start;
  while (n < length) {
    if (grouped && n > 0 && n % 4 == 0) {
      if (at(t, p) != ' ') return std::nullopt;
      ++p;
    }
    const char c = at(t, p);
    if (!isUpper(c) && !isDigit(c)) return std::nullopt;
    compact[n++] = c;
    ++p;
  }
  if (isWordByte(at(t, p))) return std::nullopt;
  if (!ibanChecksum(std::string_view(compact, n))) return std::nullopt;
  return Hit{start, p - start};
}

}  // namespace sluice::protection::scan
