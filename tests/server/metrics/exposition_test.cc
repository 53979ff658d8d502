#include "server/metrics/exposition.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <prometheus/text_serializer.h>

using sluice::metrics::escapeHelp;
using sluice::metrics::orderSeries;
using sluice::metrics::validUtf8;

namespace {

prometheus::ClientMetric gaugeSample(std::vector<prometheus::ClientMetric::Label> labels, double value) {
  prometheus::ClientMetric metric;
  metric.label = std::move(labels);
  metric.gauge.value = value;
  return metric;
}

// What TextSerializer writes for one unlabelled gauge sample of `value`.
std::string serialized(double value) {
  prometheus::MetricFamily family{"v", "V.", prometheus::MetricType::Gauge, {gaugeSample({}, value)}};
  const std::string text = prometheus::TextSerializer().Serialize({family});
  const std::string prefix = "# HELP v V.\n# TYPE v gauge\nv ";
  BOOST_REQUIRE(text.starts_with(prefix));
  return text.substr(prefix.size(), text.size() - prefix.size() - 1);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(exposition)

BOOST_AUTO_TEST_CASE(valid_utf8_passes_and_invalid_bytes_become_replacement_characters) {
  BOOST_TEST(validUtf8("plain \"quoted\" \\ text\n") == "plain \"quoted\" \\ text\n");  // TextSerializer escapes
  BOOST_TEST(validUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  BOOST_TEST(validUtf8("a\xFFz") == "a\xEF\xBF\xBDz");
  BOOST_TEST(validUtf8("\xC3") == "\xEF\xBF\xBD");                                 // truncated
  BOOST_TEST(validUtf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");                 // overlong '/'
  BOOST_TEST(validUtf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  BOOST_TEST(validUtf8("\xF4\x90\x80\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // > U+10FFFF
}

BOOST_AUTO_TEST_CASE(help_escapes_backslash_and_newline_but_not_quotes) {
  BOOST_TEST(escapeHelp("a \"quoted\" \\ word\nnext") == "a \"quoted\" \\\\ word\\nnext");
  BOOST_TEST(escapeHelp("\x80") == "\xEF\xBF\xBD");
}

BOOST_AUTO_TEST_CASE(labels_take_the_declared_order_and_series_sort_by_values) {
  prometheus::MetricFamily family{"m", "M.", prometheus::MetricType::Gauge, {}};
  // As prometheus-cpp collects them: labels sorted by name, series in hash order.
  family.metric.push_back(gaugeSample({{"code", "200"}, {"method", "post"}}, 1));
  family.metric.push_back(gaugeSample({{"code", "500"}, {"method", "get"}}, 2));
  family.metric.push_back(gaugeSample({{"code", "200"}, {"method", "get"}}, 3));
  orderSeries(family, {"method", "code"});
  BOOST_TEST(prometheus::TextSerializer().Serialize({family}) ==
             "# HELP m M.\n# TYPE m gauge\n"
             "m{method=\"get\",code=\"200\"} 3\n"
             "m{method=\"get\",code=\"500\"} 2\n"
             "m{method=\"post\",code=\"200\"} 1\n");
}

BOOST_AUTO_TEST_CASE(labels_not_declared_keep_their_place_after_the_declared_ones) {
  prometheus::MetricFamily family{"m", "M.", prometheus::MetricType::Gauge, {}};
  family.metric.push_back(gaugeSample({{"a", "1"}, {"b", "2"}, {"c", "3"}}, 1));
  orderSeries(family, {"c", "missing", "a"});
  const auto& labels = family.metric.front().label;
  BOOST_TEST(labels.at(0).name == "c");
  BOOST_TEST(labels.at(1).name == "a");
  BOOST_TEST(labels.at(2).name == "b");
}

// The number forms docs/metrics.md promises: prometheus-cpp's (16 significant digits, %g).
BOOST_AUTO_TEST_CASE(text_serializer_writes_values_as_documented) {
  BOOST_TEST(serialized(0) == "0");
  BOOST_TEST(serialized(1) == "1");
  BOOST_TEST(serialized(-3) == "-3");
  BOOST_TEST(serialized(1000000) == "1000000");
  BOOST_TEST(serialized(67108864) == "67108864");
  BOOST_TEST(serialized(1234567.5) == "1234567.5");
  BOOST_TEST(serialized(0.1) == "0.1");
  BOOST_TEST(serialized(0.0001) == "0.0001");
  BOOST_TEST(serialized(0.00001) == "1e-05");
  BOOST_TEST(serialized(2.5e-05) == "2.5e-05");
  BOOST_TEST(serialized(1e16) == "1e+16");
  BOOST_TEST(serialized(std::numeric_limits<double>::infinity()) == "+Inf");
  BOOST_TEST(serialized(-std::numeric_limits<double>::infinity()) == "-Inf");
  BOOST_TEST(serialized(std::nan("")) == "Nan");
}

BOOST_AUTO_TEST_CASE(text_serializer_escapes_label_values) {
  prometheus::MetricFamily family{"m", "M.", prometheus::MetricType::Gauge, {}};
  family.metric.push_back(gaugeSample({{"v", "a\\b \"q\"\nz"}}, 1));
  BOOST_TEST(prometheus::TextSerializer().Serialize({family}) ==
             "# HELP m M.\n# TYPE m gauge\nm{v=\"a\\\\b \\\"q\\\"\\nz\"} 1\n");
}

BOOST_AUTO_TEST_SUITE_END()
