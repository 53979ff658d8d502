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

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::text
