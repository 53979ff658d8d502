#include <boost/test/unit_test.hpp>

#include <string>

#include "server/text/hex.h"

namespace sluice::text {
namespace {

BOOST_AUTO_TEST_SUITE(hex)

BOOST_AUTO_TEST_CASE(hex_digits_read_in_either_case_and_nothing_else_does) {
  BOOST_TEST(hexValue('0') == 0);
  BOOST_TEST(hexValue('9') == 9);
  BOOST_TEST(hexValue('a') == 10);
  BOOST_TEST(hexValue('F') == 15);
  for (const char c : {'g', 'G', '/', ':', '@', '`', ' ', '\0', '\xff'}) BOOST_TEST(hexValue(c) == -1);
}

BOOST_AUTO_TEST_CASE(percent_escapes_decode_and_broken_ones_stay_as_written) {
  BOOST_TEST(percentDecode("us.anthropic.claude%3Av1%3a0", false) == "us.anthropic.claude:v1:0");
  BOOST_TEST(percentDecode("a+b%20c", false) == "a+b c");
  BOOST_TEST(percentDecode("a+b%20c", true) == "a b c");
  BOOST_TEST(percentDecode("100%", false) == "100%");      // cut short at the end
  BOOST_TEST(percentDecode("%4", false) == "%4");
  BOOST_TEST(percentDecode("%zz%41", false) == "%zzA");    // not hex: kept, the next escape still read
  BOOST_TEST(percentDecode("%00x", false) == std::string("\0x", 2));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::text
