#include "tools/mock-provider/render.h"

#include <boost/test/unit_test.hpp>

#include "tests/tools/mock-provider/test_util.h"
#include "tools/mock-provider/error_spec.h"

using namespace sluice::mock;
using namespace sluice::mock::testing;
using nlohmann::json;

namespace {

const std::string kBodies[] = {
    R"({"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]})",
    R"({"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]})",
    R"({"model":"m","stream":true,"input":"hi"})",
    R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}]})",
};
constexpr Wire kWires[] = {Wire::Anthropic, Wire::OpenAiChat, Wire::OpenAiResponses, Wire::Gemini};

RenderOptions streamOptions(Wire wire, std::optional<int> error_after) {
  RenderOptions options;
  options.stream = true;
  options.include_usage = true;
  options.error_after = error_after;
  options.stream_error = inStreamErrorFor(wire, Script{});
  return options;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render)

BOOST_AUTO_TEST_CASE(every_framed_stream_parses_back_event_by_event) {
  for (std::size_t i = 0; i < 4; ++i) {
    const Route route = routeFor(kWires[i]);
    const Answer answer = plan(kWires[i], kBodies[i]);
    const auto events = streamEvents(route, answer, streamOptions(kWires[i], std::nullopt));
    const auto reparsed = reparse(framingFor(route, true), events);
    BOOST_TEST_REQUIRE(reparsed.size() == events.size());
    for (std::size_t e = 0; e < events.size(); ++e) {
      BOOST_TEST(reparsed[e].data == events[e].data);
      BOOST_TEST(reparsed[e].event == events[e].name);
    }
  }
}

BOOST_AUTO_TEST_CASE(gemini_frames_end_with_crlf_pairs_or_form_one_json_array) {
  const Route route = routeFor(Wire::Gemini);
  const Answer answer = plan(Wire::Gemini, kBodies[3]);
  RenderOptions options = streamOptions(Wire::Gemini, std::nullopt);
  for (const auto& frame : renderAnswer(route, answer, options).frames) BOOST_TEST(frame.ends_with("}\r\n\r\n"));
  options.gemini_sse = false;
  const Rendered array = renderAnswer(route, answer, options);
  std::string body;
  for (const auto& frame : array.frames) body += frame;
  const json parsed = json::parse(body);
  BOOST_TEST(parsed.is_array());
  BOOST_TEST(parsed.size() == array.frames.size());
  BOOST_TEST(array.content_type.starts_with("application/json"));
}

BOOST_AUTO_TEST_CASE(in_stream_error_replaces_the_rest_of_the_stream) {
  const auto anthropic = streamEvents(routeFor(Wire::Anthropic), plan(Wire::Anthropic, kBodies[0]), streamOptions(Wire::Anthropic, 3));
  BOOST_TEST_REQUIRE(anthropic.size() == 4u);
  BOOST_TEST(anthropic[3].name == "error");
  BOOST_TEST(json::parse(anthropic[3].data)["error"]["type"] == "overloaded_error");

  const auto chat = streamEvents(routeFor(Wire::OpenAiChat), plan(Wire::OpenAiChat, kBodies[1]), streamOptions(Wire::OpenAiChat, 2));
  BOOST_TEST_REQUIRE(chat.size() == 3u);
  BOOST_TEST(json::parse(chat[2].data)["error"]["type"] == "server_error");
  BOOST_TEST(chat.back().data != "[DONE]");

  const auto responses = streamEvents(routeFor(Wire::OpenAiResponses), plan(Wire::OpenAiResponses, kBodies[2]),
                                      streamOptions(Wire::OpenAiResponses, 2));
  BOOST_TEST_REQUIRE(responses.size() == 4u);
  BOOST_TEST(responses[2].name == "error");
  BOOST_TEST(json::parse(responses[2].data)["sequence_number"] == 2);
  BOOST_TEST(responses[3].name == "response.failed");
  const json failed = json::parse(responses[3].data);
  BOOST_TEST(failed["sequence_number"] == 3);
  BOOST_TEST(failed["response"]["status"] == "failed");
  BOOST_TEST(failed["response"]["error"]["code"] == "server_error");

  const auto gemini = streamEvents(routeFor(Wire::Gemini), plan(Wire::Gemini, kBodies[3]), streamOptions(Wire::Gemini, 1));
  BOOST_TEST_REQUIRE(gemini.size() == 2u);
  BOOST_TEST(json::parse(gemini[1].data)["error"]["status"] == "UNAVAILABLE");

  // An index past the end still replaces the terminal event.
  const auto late = streamEvents(routeFor(Wire::Anthropic), plan(Wire::Anthropic, kBodies[0]), streamOptions(Wire::Anthropic, 999));
  BOOST_TEST(late.back().name == "error");
}

BOOST_AUTO_TEST_CASE(non_stream_bodies_are_json_with_the_right_content_type) {
  for (std::size_t i = 0; i < 4; ++i) {
    RenderOptions options;
    const Rendered rendered = renderAnswer(routeFor(kWires[i]), plan(kWires[i], kBodies[i]), options);
    BOOST_TEST(!rendered.stream);
    BOOST_TEST(rendered.content_type == "application/json");
    BOOST_TEST(!json::parse(rendered.body).is_null());
  }
}

BOOST_AUTO_TEST_SUITE_END()
