#include <boost/test/unit_test.hpp>

#include "server/wire/gemini/tool_ids.h"

namespace sluice::wire::gemini {
namespace {

BOOST_AUTO_TEST_SUITE(tool_ids)

BOOST_AUTO_TEST_CASE(minted_id_is_call_and_24_hex_digits_and_deterministic) {
  const std::string id = mintToolCallId("m36LaZGyCLz1xs0PtNSB-QU", 0, 0, "weather");
  BOOST_TEST(id.size() == 5u + 24u);
  BOOST_TEST(id.starts_with("call_"));
  BOOST_TEST(isMintedToolCallId(id));
  BOOST_TEST(mintToolCallId("m36LaZGyCLz1xs0PtNSB-QU", 0, 0, "weather") == id);
}

BOOST_AUTO_TEST_CASE(every_input_changes_the_id) {
  const std::string base = mintToolCallId("r", 0, 0, "f");
  BOOST_TEST(mintToolCallId("s", 0, 0, "f") != base);
  BOOST_TEST(mintToolCallId("r", 1, 0, "f") != base);
  BOOST_TEST(mintToolCallId("r", 0, 1, "f") != base);
  BOOST_TEST(mintToolCallId("r", 0, 0, "g") != base);
  BOOST_TEST(mintToolCallId("ab", 0, 0, "c") != mintToolCallId("a", 0, 0, "bc"));
  BOOST_TEST(mintToolCallId("", 0, 0, "f") != mintToolCallId("", 0, 0, ""));
}

BOOST_AUTO_TEST_CASE(minted_shape_is_recognised_exactly) {
  BOOST_TEST(isMintedToolCallId("call_0123456789abcdef01234567"));
  BOOST_TEST(!isMintedToolCallId("call_0123456789ABCDEF01234567"));
  BOOST_TEST(!isMintedToolCallId("call_0123456789abcdef0123456"));
  BOOST_TEST(!isMintedToolCallId("toolu_0123456789abcdef012345"));
  BOOST_TEST(!isMintedToolCallId(""));
}

BOOST_AUTO_TEST_CASE(only_gemini_own_ids_are_sent_back) {
  BOOST_TEST(sendsToolCallId("gx-17"));
  BOOST_TEST(sendsToolCallId("8wd2ow1k"));
  BOOST_TEST(!sendsToolCallId(mintToolCallId("r", 0, 0, "f")));
  BOOST_TEST(!sendsToolCallId("toolu_01A09q90qw90lq917835lq9"));
  BOOST_TEST(!sendsToolCallId("call_AbC123xyz"));
  BOOST_TEST(!sendsToolCallId("fc_68a1"));
  BOOST_TEST(!sendsToolCallId(""));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::gemini
