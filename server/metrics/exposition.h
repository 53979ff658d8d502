#pragma once
// What Sluice adds to prometheus-cpp's text exposition (prometheus::TextSerializer, format
// 0.0.4): TextSerializer escapes label values (backslash, double quote, newline) but writes HELP
// text as given and passes any bytes through, and it writes labels sorted by name and series in
// hash order. These pure functions make up for it, so that /metrics reads as before: HELP text
// escaped, valid UTF-8 only, labels in the family's declared order, series sorted.

#include <string>
#include <string_view>
#include <vector>

#include <prometheus/metric_family.h>

namespace sluice::metrics {

// `text` with every byte that is not part of valid UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF) replaced by U+FFFD; a scraper refuses invalid UTF-8.
std::string validUtf8(std::string_view text);

// Backslash and newline escaped as \\ and \n, invalid UTF-8 replaced by U+FFFD: the HELP text to
// hand to prometheus-cpp, which writes it verbatim.
std::string escapeHelp(std::string_view help);

// Puts each series' labels in `label_names` order (labels not named there keep their place after
// them) and sorts the series by their label values in that order. Histogram buckets and `le`
// are untouched (TextSerializer adds `le` last).
void orderSeries(prometheus::MetricFamily& family, const std::vector<std::string>& label_names);

}  // namespace sluice::metrics
