#define BOOST_TEST_MODULE text_tests
#include <boost/test/unit_test.hpp>

#include <string>

#include "server/text/utf8.h"

namespace sluice::text {
namespace {

size_t lengthAt0(const std::string& bytes) { return utf8SequenceLength(bytes, 0); }

BOOST_AUTO_TEST_SUITE(utf8)

BOOST_AUTO_TEST_CASE(well_formed_sequences_have_their_length) {
  BOOST_TEST(lengthAt0("\xC2\x80") == 2u);          // U+0080, the first two-byte value
  BOOST_TEST(lengthAt0("\xDF\xBF") == 2u);          // U+07FF
  BOOST_TEST(lengthAt0("\xE0\xA0\x80") == 3u);      // U+0800
  BOOST_TEST(lengthAt0("\xED\x9F\xBF") == 3u);      // U+D7FF, just below the surrogates
  BOOST_TEST(lengthAt0("\xEE\x80\x80") == 3u);      // U+E000, just above them
  BOOST_TEST(lengthAt0("\xEF\xBF\xBD") == 3u);      // U+FFFD
  BOOST_TEST(lengthAt0("\xF0\x90\x80\x80") == 4u);  // U+10000
  BOOST_TEST(lengthAt0("\xF4\x8F\xBF\xBF") == 4u);  // U+10FFFF, the last value
}

BOOST_AUTO_TEST_CASE(malformed_sequences_have_none) {
  for (const std::string bad : {"\x80", "\xBF", "\xC0\x80", "\xC1\xBF", "\xC2", "\xC2\x41", "\xE0\x80\x80",
                                "\xE0\x9F\xBF", "\xED\xA0\x80", "\xED\xBF\xBF", "\xE1\x80", "\xF0\x80\x80\x80",
                                "\xF0\x8F\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xFF", "\xF0\x90\x80"}) {
    BOOST_TEST(lengthAt0(bad) == 0u, "bytes of length " << bad.size());
  }
}

BOOST_AUTO_TEST_CASE(a_sequence_is_read_where_it_starts) {
  const std::string text = "a\xC3\xA9z";
  BOOST_TEST(utf8SequenceLength(text, 1) == 2u);
  BOOST_TEST(utf8SequenceLength(text, 2) == 0u);  // a continuation byte starts nothing
}

BOOST_AUTO_TEST_CASE(well_formed_text_is_kept_as_it_is) {
  const std::string text = "plain, \xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80, \xF4\x8F\xBF\xBF (U+10FFFF)";
  BOOST_TEST(repairUtf8(text) == text);
  BOOST_TEST(repairUtf8("") == "");
}

// U+FFFD, the replacement character.
const std::string R = "\xEF\xBF\xBD";

BOOST_AUTO_TEST_CASE(surrogates_are_replaced_byte_by_byte) {
  BOOST_TEST(repairUtf8("a\xED\xA0\x80z") == "a" + R + R + R + "z");                  // U+D800
  BOOST_TEST(repairUtf8("\xED\xBF\xBF") == R + R + R);                               // U+DFFF
  BOOST_TEST(repairUtf8("\xED\xA0\xBD\xED\xB8\x80") == R + R + R + R + R + R);       // a CESU-8 pair
  BOOST_TEST(repairUtf8("\xED\x9F\xBF") == "\xED\x9F\xBF");                          // U+D7FF stays
}

BOOST_AUTO_TEST_CASE(overlong_forms_are_replaced_byte_by_byte) {
  BOOST_TEST(repairUtf8("\xC0\x80") == R + R);              // NUL in two bytes
  BOOST_TEST(repairUtf8("\xC1\xBF") == R + R);
  BOOST_TEST(repairUtf8("\xE0\x80\xAF") == R + R + R);      // '/' in three bytes
  BOOST_TEST(repairUtf8("\xF0\x80\x80\xAF") == R + R + R + R);
  BOOST_TEST(repairUtf8("\xF0\x8F\xBF\xBF") == R + R + R + R);  // U+FFFF in four bytes
}

BOOST_AUTO_TEST_CASE(a_truncated_sequence_is_one_replacement) {
  BOOST_TEST(repairUtf8("a\xC3") == "a" + R);
  BOOST_TEST(repairUtf8("a\xE2\x82") == "a" + R);
  BOOST_TEST(repairUtf8("a\xF0\x9F\x98") == "a" + R);
  BOOST_TEST(repairUtf8("\xF0\x9F\x98z") == R + "z");         // cut by a byte that cannot follow
  BOOST_TEST(repairUtf8("\xE2\x82\xE2\x82\xAC") == R + "\xE2\x82\xAC");  // the next sequence is kept
}

BOOST_AUTO_TEST_CASE(bytes_that_begin_nothing_are_replaced_each) {
  BOOST_TEST(repairUtf8("\x80\xBF") == R + R);               // lone continuation bytes
  BOOST_TEST(repairUtf8("\xF5\x80\x80\x80") == R + R + R + R);
  BOOST_TEST(repairUtf8("\xFF\xFE") == R + R);
}

BOOST_AUTO_TEST_CASE(the_four_byte_maximum_is_u_10ffff) {
  BOOST_TEST(repairUtf8("\xF4\x8F\xBF\xBF") == "\xF4\x8F\xBF\xBF");
  BOOST_TEST(repairUtf8("\xF4\x90\x80\x80") == R + R + R + R);  // U+110000
  BOOST_TEST(lengthAt0("\xF4\x8F\xBF\xBF") == 4u);
}

BOOST_AUTO_TEST_CASE(a_limit_never_splits_a_character) {
  const std::string text = "ab\xE2\x82\xAC" "cd";  // 2 + 3 + 2 bytes
  BOOST_TEST(repairUtf8(text, 4) == "ab");
  BOOST_TEST(repairUtf8(text, 5) == "ab\xE2\x82\xAC");
  BOOST_TEST(repairUtf8(text, 0) == "");
  BOOST_TEST(repairUtf8("a\xFFz", 3) == "a");                // the replacement takes 3 bytes
  BOOST_TEST(repairUtf8("a\xFFz", 4) == "a" + R);
  BOOST_TEST(repairUtf8("a\xFFz", 5) == "a" + R + "z");
}

BOOST_AUTO_TEST_CASE(spans_tell_a_whole_sequence_from_a_broken_one) {
  BOOST_TEST(utf8SpanAt("\xE2\x82\xAC", 0).whole);
  BOOST_TEST(utf8SpanAt("\xE2\x82\xAC", 0).length == 3u);
  BOOST_TEST(!utf8SpanAt("\xE2\x82", 0).whole);
  BOOST_TEST(utf8SpanAt("\xE2\x82", 0).length == 2u);
  BOOST_TEST(utf8SpanAt("\xE0\x80", 0).length == 1u);  // 80 cannot follow E0
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::text
