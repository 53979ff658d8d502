#include "server/wire/sse.h"

#include <boost/test/unit_test.hpp>

using sluice::wire::SseParser;

BOOST_AUTO_TEST_SUITE(sse)

BOOST_AUTO_TEST_CASE(parses_events_split_at_every_byte) {
  const std::string text = "event: message_start\ndata: {\"a\":1}\n\nevent: ping\ndata: {}\n\n";
  SseParser parser;
  std::vector<sluice::wire::SseEvent> events;
  for (char c : text) {
    for (auto& event : parser.feed(std::string_view(&c, 1))) events.push_back(event);
  }
  BOOST_REQUIRE_EQUAL(events.size(), 2u);
  BOOST_TEST(events[0].event == "message_start");
  BOOST_TEST(events[0].data == "{\"a\":1}");
  BOOST_TEST(events[1].event == "ping");
}

BOOST_AUTO_TEST_CASE(accepts_crlf_separators_as_gemini_sends_them) {
  SseParser parser;
  auto events = parser.feed("data: {\"x\":1}\r\n\r\ndata: {\"x\":2}\r\n\r\n");
  BOOST_REQUIRE_EQUAL(events.size(), 2u);
  BOOST_TEST(events[0].event.empty());
  BOOST_TEST(events[1].data == "{\"x\":2}");
}

BOOST_AUTO_TEST_CASE(ignores_comments_and_joins_multiline_data) {
  SseParser parser;
  auto events = parser.feed(": keep-alive\ndata: a\ndata: b\n\n");
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_TEST(events[0].data == "a\nb");
}

BOOST_AUTO_TEST_CASE(finish_returns_an_event_without_its_blank_line) {
  SseParser parser;
  BOOST_TEST(parser.feed("data: [DONE]").empty());
  auto events = parser.finish();
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_TEST(events[0].data == "[DONE]");
}

BOOST_AUTO_TEST_CASE(frame_writes_event_and_data_lines) {
  BOOST_TEST(sluice::wire::sseFrame("ping", "{}") == "event: ping\ndata: {}\n\n");
  BOOST_TEST(sluice::wire::sseFrame("", "[DONE]") == "data: [DONE]\n\n");
  // Found by the libFuzzer run: multi-line data must be one data line per line.
  BOOST_TEST(sluice::wire::sseFrame("", "a\nb") == "data: a\ndata: b\n\n");
  BOOST_TEST(sluice::wire::sseFrame("e", "a\r\n\nb\r") == "event: e\ndata: a\ndata: \ndata: b\ndata: \n\n");
  sluice::wire::SseParser parser;
  const auto events = parser.feed(sluice::wire::sseFrame("x", "line one\n\nline three"));
  BOOST_REQUIRE_EQUAL(events.size(), 1u);
  BOOST_TEST(events[0].data == "line one\n\nline three");
}

BOOST_AUTO_TEST_SUITE_END()
