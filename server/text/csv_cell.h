#pragma once
// One CSV field (RFC 4180) that is safe to open in a spreadsheet. Header-only: `sluicectl`'s CSV
// and the console's CSV exports use it, so both neutralise the same cells.
//
// A cell a spreadsheet would run as a formula (first character =, +, -, @, tab or carriage
// return) and that is not a plain number gets a leading apostrophe inside quotes, as OWASP's CSV
// injection advice has it: "'=HYPERLINK(…)" shows as text. Numbers, negative ones included, stay
// numbers. Commas, quotes and line breaks are quoted with quotes doubled.

#include <string>
#include <string_view>

namespace sluice::text {

// "-12", "+3", "0.5": one optional sign, digits, at most one dot.
inline bool plainNumber(std::string_view value) {
  size_t i = !value.empty() && (value[0] == '-' || value[0] == '+') ? 1 : 0;
  bool dot = false, digit = false;
  for (; i < value.size(); ++i) {
    if (value[i] == '.' && !dot) dot = true;
    else if (value[i] >= '0' && value[i] <= '9') digit = true;
    else return false;
  }
  return digit;
}

inline std::string csvCell(std::string_view value) {
  const bool formula = !value.empty() && std::string_view("=+-@\t\r").find(value[0]) != std::string_view::npos &&
                       !plainNumber(value);
  if (!formula && value.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(value);
  std::string quoted = formula ? "\"'" : "\"";
  for (const char c : value) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

}  // namespace sluice::text
