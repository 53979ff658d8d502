#include "server/metrics/exposition.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

using sluice::metrics::escapeHelp;
using sluice::metrics::escapeLabelValue;
using sluice::metrics::formatValue;
using sluice::metrics::writeLabels;

BOOST_AUTO_TEST_SUITE(exposition)

BOOST_AUTO_TEST_CASE(integers_print_without_exponent_or_fraction) {
  BOOST_TEST(formatValue(0) == "0");
  BOOST_TEST(formatValue(-0.0) == "0");
  BOOST_TEST(formatValue(1) == "1");
  BOOST_TEST(formatValue(-3) == "-3");
  BOOST_TEST(formatValue(1000000) == "1000000");
  BOOST_TEST(formatValue(67108864) == "67108864");
  BOOST_TEST(formatValue(9007199254740992.0) == "9007199254740992");  // 2^53, the last exact one
}

BOOST_AUTO_TEST_CASE(infinities_and_nan_use_the_prometheus_spelling) {
  BOOST_TEST(formatValue(std::numeric_limits<double>::infinity()) == "+Inf");
  BOOST_TEST(formatValue(-std::numeric_limits<double>::infinity()) == "-Inf");
  BOOST_TEST(formatValue(std::nan("")) == "NaN");
}

BOOST_AUTO_TEST_CASE(fractions_print_as_the_shortest_round_trip) {
  BOOST_TEST(formatValue(0.1) == "0.1");
  BOOST_TEST(formatValue(0.5) == "0.5");
  BOOST_TEST(formatValue(2.5e-05) == "2.5e-05");
  BOOST_TEST(formatValue(0.00001) == "1e-05");
  BOOST_TEST(formatValue(1.28) == "1.28");
  BOOST_TEST(formatValue(0.1 + 0.2) == "0.30000000000000004");
  BOOST_TEST(formatValue(1e300) == "1e+300");
  BOOST_TEST(formatValue(-1.5) == "-1.5");
  BOOST_TEST(formatValue(-0.25) == "-0.25");
  BOOST_TEST(formatValue(5e-324) == "5e-324");
  BOOST_TEST(formatValue(1.7976931348623157e308) == "1.7976931348623157e+308");
}

BOOST_AUTO_TEST_CASE(fractions_switch_to_scientific_below_1e_minus_4_and_from_1e6_as_go_does) {
  BOOST_TEST(formatValue(0.0001) == "0.0001");
  BOOST_TEST(formatValue(0.00025) == "0.00025");
  BOOST_TEST(formatValue(0.000099) == "9.9e-05");
  BOOST_TEST(formatValue(123456.789) == "123456.789");
  BOOST_TEST(formatValue(999999.5) == "999999.5");
  BOOST_TEST(formatValue(1234567.5) == "1.2345675e+06");
  BOOST_TEST(formatValue(1e22) == "1e+22");  // integral but past 2^53
}

BOOST_AUTO_TEST_CASE(every_value_reads_back_to_the_same_double) {
  for (double value : {0.1, 1.0 / 3, 2.0 / 3, 1e-300, 123456.789, 5e-324, 1.7976931348623157e308, 0.000123,
                       -7.25e-9, 4503599627370497.5, 9007199254740994.0}) {
    const std::string text = formatValue(value);
    double back = 0;
    const auto result = std::from_chars(text.data(), text.data() + text.size(), back);
    BOOST_TEST((result.ec == std::errc()));
    BOOST_TEST(result.ptr == text.data() + text.size());
    BOOST_TEST(back == value);
  }
}

BOOST_AUTO_TEST_CASE(label_values_escape_backslash_quote_and_newline) {
  BOOST_TEST(escapeLabelValue("plain") == "plain");
  BOOST_TEST(escapeLabelValue("a\\b") == "a\\\\b");
  BOOST_TEST(escapeLabelValue("say \"hi\"") == "say \\\"hi\\\"");
  BOOST_TEST(escapeLabelValue("two\nlines") == "two\\nlines");
  BOOST_TEST(escapeLabelValue("tab\tstays") == "tab\tstays");
  BOOST_TEST(escapeLabelValue("{a=\"b\"},") == "{a=\\\"b\\\"},");
}

BOOST_AUTO_TEST_CASE(help_escapes_backslash_and_newline_but_not_quotes) {
  BOOST_TEST(escapeHelp("a \"quoted\" \\ word\nnext") == "a \"quoted\" \\\\ word\\nnext");
}

BOOST_AUTO_TEST_CASE(valid_utf8_passes_and_invalid_bytes_become_replacement_characters) {
  BOOST_TEST(escapeLabelValue("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  BOOST_TEST(escapeLabelValue("a\xFFz") == "a\xEF\xBF\xBDz");
  BOOST_TEST(escapeLabelValue("\xC3") == "\xEF\xBF\xBD");                     // truncated
  BOOST_TEST(escapeLabelValue("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");     // overlong '/'
  BOOST_TEST(escapeLabelValue("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
  BOOST_TEST(escapeHelp("\x80") == "\xEF\xBF\xBD");
}

BOOST_AUTO_TEST_CASE(labels_are_written_in_order_with_le_last) {
  std::string out;
  writeLabels(out, {}, {}, {});
  BOOST_TEST(out == "");
  writeLabels(out, {}, {}, "0.5");
  BOOST_TEST(out == "{le=\"0.5\"}");
  out.clear();
  writeLabels(out, {"b", "a"}, {"1", "x\"y"}, {});
  BOOST_TEST(out == "{b=\"1\",a=\"x\\\"y\"}");
  out.clear();
  writeLabels(out, {"a"}, {""}, "+Inf");
  BOOST_TEST(out == "{a=\"\",le=\"+Inf\"}");
}

BOOST_AUTO_TEST_SUITE_END()
