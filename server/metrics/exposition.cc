#include "server/metrics/exposition.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace sluice::metrics {

namespace {

// The length of the valid UTF-8 sequence at the start of `text`, 0 when it is not one.
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

// Copies `text` to the output with invalid bytes replaced; `escape_help` also escapes backslash
// and newline.
std::string sanitize(std::string_view text, bool escape_help) {
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
    if (escape_help && text[i] == '\\') {
      out += "\\\\";
    } else if (escape_help && text[i] == '\n') {
      out += "\\n";
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

}  // namespace

std::string validUtf8(std::string_view text) {
  // The common case, plain ASCII, is one scan and one copy.
  if (std::ranges::all_of(text, [](char c) { return static_cast<unsigned char>(c) < 0x80; })) return std::string(text);
  return sanitize(text, false);
}

std::string escapeHelp(std::string_view help) { return sanitize(help, true); }

void orderSeries(prometheus::MetricFamily& family, const std::vector<std::string>& label_names) {
  for (prometheus::ClientMetric& metric : family.metric) {
    auto next = metric.label.begin();
    for (const std::string& name : label_names) {
      auto found = std::find_if(next, metric.label.end(), [&](const auto& label) { return label.name == name; });
      if (found == metric.label.end()) continue;
      std::rotate(next, found, found + 1);  // moves it to `next`, keeping the others' order
      ++next;
    }
  }
  std::ranges::sort(family.metric, [](const prometheus::ClientMetric& a, const prometheus::ClientMetric& b) {
    return std::ranges::lexicographical_compare(a.label, b.label, [](const auto& x, const auto& y) {
      return x.value < y.value;
    });
  });
}

}  // namespace sluice::metrics
