#include "server/metrics/exposition.h"

#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>

namespace sluice::metrics {

namespace {

// 2^53: every integer up to here is exact in a double, so printing it as an integer is exact.
constexpr double kMaxExactInteger = 9007199254740992.0;

// The length of the valid UTF-8 sequence at the start of `text`, 0 when it is not one
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8SequenceLength(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const auto continuation = [&](size_t i) { return i < text.size() && (byte(i) & 0xC0) == 0x80; };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (!continuation(1) || !continuation(2)) return 0;
    if (lead == 0xE0 && byte(1) < 0xA0) return 0;  // overlong
    if (lead == 0xED && byte(1) > 0x9F) return 0;  // surrogate
    return 3;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (!continuation(1) || !continuation(2) || !continuation(3)) return 0;
    if (lead == 0xF0 && byte(1) < 0x90) return 0;  // overlong
    if (lead == 0xF4 && byte(1) > 0x8F) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

std::string escape(std::string_view text, bool quote) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const size_t length = utf8SequenceLength(text.substr(i));
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for one bad byte, then resynchronise
      ++i;
      continue;
    }
    if (length > 1) {
      out.append(text.substr(i, length));
    } else if (text[i] == '\\') {
      out += "\\\\";
    } else if (text[i] == '\n') {
      out += "\\n";
    } else if (quote && text[i] == '"') {
      out += "\\\"";
    } else {
      out += text[i];
    }
    i += length;
  }
  return out;
}

}  // namespace

std::string formatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[400];  // the longest fixed form of a double whose exponent is below 6 fits
  if (std::trunc(value) == value && std::fabs(value) <= kMaxExactInteger) {
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<int64_t>(value));
    assert(result.ec == std::errc());
    return std::string(buffer, result.ptr);
  }
  // The shortest round-trip digits, laid out as Go's strconv.FormatFloat(v, 'g', -1, 64) does
  // (what the Prometheus client libraries write, so `le` values read the same everywhere):
  // scientific when the decimal exponent is below -4 or at least 6, fixed otherwise.
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  assert(result.ec == std::errc());
  const std::string_view scientific(buffer, result.ptr);
  int exponent = 0;
  const std::string_view exponent_text = scientific.substr(scientific.find('e') + 1);
  std::from_chars(exponent_text.data() + (exponent_text.front() == '+' ? 1 : 0),
                  exponent_text.data() + exponent_text.size(), exponent);
  if (exponent < -4 || exponent >= 6) return std::string(scientific);
  result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  assert(result.ec == std::errc());
  return std::string(buffer, result.ptr);
}

std::string escapeLabelValue(std::string_view value) { return escape(value, true); }

std::string escapeHelp(std::string_view help) { return escape(help, false); }

void writeLabels(std::string& out, const std::vector<std::string>& names, const std::vector<std::string>& values,
                 std::string_view le) {
  assert(names.size() == values.size());
  if (names.empty() && le.empty()) return;
  out += '{';
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i];
    out += "=\"";
    out += escapeLabelValue(values[i]);
    out += '"';
  }
  if (!le.empty()) {
    if (!names.empty()) out += ',';
    out += "le=\"";
    out += le;
    out += '"';
  }
  out += '}';
}

}  // namespace sluice::metrics
