#include "tests/support/sse.h"

#include <boost/test/unit_test.hpp>

using sluice::test::parseSse;

BOOST_AUTO_TEST_SUITE(sse)

BOOST_AUTO_TEST_CASE(parses_named_events_data_only_and_crlf_framing) {
  auto named = parseSse("event: a\ndata: {\"x\":1}\n\nevent: b\ndata: 2\n\n");
  BOOST_TEST_REQUIRE(named.size() == 2u);
  BOOST_TEST(named[0].event == "a");
  BOOST_TEST(named[0].data == "{\"x\":1}");
  BOOST_TEST(named[1].event == "b");

  auto crlf = parseSse("data: 1\r\n\r\ndata: 2\r\n\r\n");
  BOOST_TEST_REQUIRE(crlf.size() == 2u);
  BOOST_TEST(crlf[1].data == "2");
  BOOST_TEST(crlf[1].event == "");
}

BOOST_AUTO_TEST_CASE(joins_data_lines_skips_comments_and_keeps_an_unterminated_tail) {
  auto events = parseSse(": comment\ndata: a\ndata: b\n\ndata: tail");
  BOOST_TEST_REQUIRE(events.size() == 2u);
  BOOST_TEST(events[0].data == "a\nb");
  BOOST_TEST(events[1].data == "tail");
}

BOOST_AUTO_TEST_SUITE_END()
