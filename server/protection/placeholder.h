#pragma once
// The placeholders that stand for masked values: ⟦KIND_N⟧, U+27E6 and U+27E7 around the kind's
// upper-case name and a number (1..99999, no leading zero) counted per kind. The brackets are
// mathematical white square brackets, which prompts, code and logs practically never contain, and
// the form survives any JSON encoder: raw UTF-8, or \u27e6 ... \u27e7 when a writer escapes
// non-ASCII. Pure.

#include <cstddef>
#include <string>
#include <string_view>

#include "server/protection/detectors.h"

namespace sluice::protection {

inline constexpr std::string_view kOpenBracket = "\xE2\x9F\xA6";   // ⟦ U+27E6
inline constexpr std::string_view kCloseBracket = "\xE2\x9F\xA7";  // ⟧ U+27E7
inline constexpr int kMaxPlaceholderNumber = 99'999;
// The longest placeholder: ⟦URL_CREDENTIALS_99999⟧ raw (3+16+5+3), and with both brackets written
// as JSON \u escapes (6+16+5+6).
inline constexpr size_t kMaxPlaceholderBytes = 27;
inline constexpr size_t kMaxEscapedPlaceholderBytes = 33;

// "EMAIL", "PHONE", "PAYMENT_CARD", "IBAN", "API_KEY", "JWT", "PRIVATE_KEY", "PASSWORD",
// "URL_CREDENTIALS", "IP_ADDRESS", "VAULT".
std::string_view placeholderName(Kind kind);

// "⟦EMAIL_1⟧" for (Email, 1). Precondition: 1 <= number <= kMaxPlaceholderNumber.
std::string makePlaceholder(Kind kind, int number);

// What the bytes at the start of a text are, read as a placeholder.
struct PlaceholderRead {
  enum class State {
    NoMatch,   // not a placeholder (the first byte can be passed on)
    Partial,   // the text ends inside what may still become one
    Complete,  // a whole placeholder of `length` bytes: kind and number
  } state = State::NoMatch;
  size_t length = 0;
  Kind kind = Kind::Email;
  int number = 0;
};

// Reads a placeholder at the start of `s`. With `json_escapes`, each bracket may also be written as
// the JSON escape \u27e6 / \u27e7 (hex digits in either case), as in the raw text of a JSON string.
PlaceholderRead readPlaceholder(std::string_view s, bool json_escapes);

// `s` escaped for the inside of a JSON string: '"', '\\' and the control characters (as \n, \t,
// ... or \u00XX); everything else, UTF-8 included, as it is.
std::string jsonEscape(std::string_view s);

}  // namespace sluice::protection
