// The gateway's response id shown in place of a provider's on the passthrough lane: in a whole
// object and in a stream's lifecycle events, every other byte unchanged, however the stream is
// split; and the held event bounded.
#include <boost/test/unit_test.hpp>

#include <string>

#include "server/wire/openai_responses/response_id.h"
#include "server/wire/sse.h"

using namespace sluice::wire;
using openai_responses::ResponseIdFilter;

namespace {

const std::string kCreated = sseFrame(
    "response.created",
    R"({"type":"response.created","sequence_number":0,"response":{"id":"resp_provider","object":"response","output":[]}})");
const std::string kDelta = sseFrame(
    "response.output_text.delta", R"({"type":"response.output_text.delta","item_id":"msg_1","delta":"resp_provider"})");
const std::string kCompleted = sseFrame(
    "response.completed",
    R"({"type":"response.completed","response":{"object":"response","id":"resp_provider","output":[{"id":"msg_1"}]}})");

}  // namespace

BOOST_AUTO_TEST_SUITE(response_id)

BOOST_AUTO_TEST_CASE(a_whole_answer_shows_the_gateways_id_and_nothing_else_changes) {
  const auto shown = openai_responses::withResponseId(
      R"({"id":"resp_provider","object":"response","output":[{"id":"msg_1","text":"resp_provider"}]})", "resp_gw");
  BOOST_REQUIRE(shown.has_value());
  BOOST_TEST(*shown == R"({"id":"resp_gw","object":"response","output":[{"id":"msg_1","text":"resp_provider"}]})");
  BOOST_TEST(!openai_responses::withResponseId("not json", "resp_gw").has_value());
}

BOOST_AUTO_TEST_CASE(lifecycle_events_show_the_gateways_id_however_the_stream_is_split) {
  const std::string stream = kCreated + kDelta + kCompleted;
  std::string expected = stream;
  for (size_t at = expected.find(R"("id":"resp_provider")"); at != std::string::npos;
       at = expected.find(R"("id":"resp_provider")", at)) {
    expected.replace(at, 20, R"("id":"resp_gw")");
  }
  BOOST_TEST(expected.find("resp_gw") != std::string::npos);
  BOOST_TEST(expected.find(R"("delta":"resp_provider")") != std::string::npos);  // text is text
  for (size_t split = 1; split < stream.size(); split += 5) {
    ResponseIdFilter filter("resp_gw");
    std::string out = filter.feed(stream.substr(0, split));  // one statement each: in order
    out += filter.feed(stream.substr(split));
    out += filter.finish();
    BOOST_TEST_CONTEXT("split at " << split) { BOOST_TEST(out == expected); }
  }
}

BOOST_AUTO_TEST_CASE(an_event_past_the_bound_is_passed_on_not_held) {
  int filtered = 0;
  SseEventFilter filter(
      [&](std::string_view event) {
        ++filtered;
        return std::string(event);
      },
      64);
  const std::string big = "data: {\"x\":\"" + std::string(100, 'a');
  const std::string out = filter.feed(big);
  BOOST_TEST(out == big);  // nothing held past the bound
  BOOST_TEST(filter.gaveUp());
  BOOST_TEST(filter.feed("\"}\n\n" + kCreated) == "\"}\n\n" + kCreated);
  BOOST_TEST(filtered == 0);
}

BOOST_AUTO_TEST_SUITE_END()
