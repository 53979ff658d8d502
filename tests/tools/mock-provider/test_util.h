#pragma once
// Helpers shared by the mock provider's unit tests.

#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/sse.h"
#include "tools/mock-provider/answer.h"
#include "tools/mock-provider/request_info.h"
#include "tools/mock-provider/route.h"
#include "tools/mock-provider/script.h"
#include "tools/mock-provider/sse_event.h"

namespace sluice::mock::testing {

inline Route routeFor(Wire wire) {
  switch (wire) {
    case Wire::Anthropic: return *matchRoute("/v1/messages");
    case Wire::OpenAiChat: return *matchRoute("/v1/chat/completions");
    case Wire::OpenAiResponses: return *matchRoute("/v1/responses");
    case Wire::Gemini: return *matchRoute("/v1beta/models/gemini-test:streamGenerateContent");
  }
  return *matchRoute("/v1/messages");
}

inline RequestInfo inspect(Wire wire, const std::string& body) {
  auto info = inspectRequest(routeFor(wire), body);
  BOOST_TEST_REQUIRE(info.has_value(), "inspectRequest failed: " << (info ? "" : info.error().message));
  return *info;
}

inline Script script(const std::string& json) {
  auto parsed = parseScript(json);
  BOOST_TEST_REQUIRE(parsed.has_value(), "parseScript failed: " << (parsed ? "" : parsed.error()));
  return *parsed;
}

inline Answer plan(Wire wire, const std::string& body, const std::string& script_json = "{}") {
  return planAnswer(inspect(wire, body), script(script_json), 7, 1700000000);
}

// Each event's data parsed as JSON (fails the test on invalid JSON); "[DONE]" is skipped.
inline std::vector<nlohmann::json> parseData(const std::vector<SseEvent>& events) {
  std::vector<nlohmann::json> out;
  for (const auto& event : events) {
    if (event.data == "[DONE]") continue;
    auto json = nlohmann::json::parse(event.data, nullptr, false);
    BOOST_TEST_REQUIRE(!json.is_discarded(), "event data is not JSON: " << event.data);
    out.push_back(json);
  }
  return out;
}

// The framed bytes, concatenated and parsed back as SSE.
inline std::vector<test::ServerSentEvent> reparse(Framing framing, const std::vector<SseEvent>& events) {
  std::string body;
  for (const auto& frame : frameEvents(framing, events)) body += frame;
  return test::parseSse(body);
}

}  // namespace sluice::mock::testing
