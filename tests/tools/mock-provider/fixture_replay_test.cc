#include "tools/mock-provider/fixture_replay.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "tests/support/sse.h"
#include "tests/support/test_env.h"
#include "tools/mock-provider/fixture_loader.h"
#include "tools/mock-provider/yaml_json.h"

using namespace sluice::mock;
using nlohmann::json;

namespace {

std::string join(const std::vector<std::string>& frames) {
  std::string out;
  for (const auto& frame : frames) out += frame;
  return out;
}

Wire wireOfFolder(const std::string& folder) {
  if (folder == "anthropic") return Wire::Anthropic;
  if (folder == "openai-chat") return Wire::OpenAiChat;
  if (folder == "openai-responses") return Wire::OpenAiResponses;
  return Wire::Gemini;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fixture_replay)

BOOST_AUTO_TEST_CASE(chunks_get_each_wire_framing) {
  const std::string lines = "{\"type\":\"message_start\"}\n{\"type\":\"ping\"}\n\n{\"type\":\"message_stop\"}";
  const auto anthropic = replayChunks(Wire::Anthropic, lines);
  BOOST_TEST_REQUIRE(anthropic.has_value());
  BOOST_TEST(anthropic->stream);
  BOOST_TEST(anthropic->frames.size() == 3u);
  BOOST_TEST(anthropic->frames[1] == "event: ping\ndata: {\"type\":\"ping\"}\n\n");

  const auto chat = replayChunks(Wire::OpenAiChat, "{\"a\":1}\n{\"a\":2}\n");
  BOOST_TEST(chat->frames.size() == 3u);
  BOOST_TEST(chat->frames.back() == "data: [DONE]\n\n");
  BOOST_TEST(chat->frames.front() == "data: {\"a\":1}\n\n");

  const auto gemini = replayChunks(Wire::Gemini, "{\"a\":1}");
  BOOST_TEST(gemini->frames.front() == "data: {\"a\":1}\r\n\r\n");

  BOOST_TEST(!replayChunks(Wire::Gemini, "{\"a\":1}\nnot json").has_value());
}

BOOST_AUTO_TEST_CASE(splits_raw_sse_into_frames) {
  const auto frames = splitSseFrames("event: a\ndata: 1\n\nevent: b\ndata: 2\n\n\n");
  BOOST_TEST_REQUIRE(frames.size() == 2u);
  BOOST_TEST(frames[0] == "event: a\ndata: 1\n\n");
  BOOST_TEST(frames[1] == "event: b\ndata: 2\n\n\n");
  BOOST_TEST(splitSseFrames("data: 1\r\n\r\ndata: 2\r\n\r\n").size() == 2u);
  BOOST_TEST(splitSseFrames("data: x").front() == "data: x");
}

BOOST_AUTO_TEST_CASE(cassettes_replay_status_and_body_of_an_interaction) {
  const std::string cassette = R"(interactions:
- request:
    method: POST
  response:
    headers:
      content-type:
      - application/json
      request-id:
      - req_1
      content-length:
      - '10'
    parsed_body:
      error:
        message: 'model: x'
        type: not_found_error
      count: 3
      ratio: 0.5
      flag: true
      quoted: '12'
      nothing: null
    status:
      code: 404
- response:
    body:
      string: "event: ping\ndata: {}\n\nevent: ping\ndata: {}\n\n"
    headers:
      Content-Type:
      - text/event-stream; charset=utf-8
    status:
      code: 200
)";
  const auto first = replayCassette(cassette, 0);
  BOOST_TEST_REQUIRE(first.has_value(), (first ? "" : first.error()));
  BOOST_TEST(first->status == 404);
  BOOST_TEST(!first->stream);
  const json body = json::parse(first->body);
  BOOST_TEST(body["error"]["type"] == "not_found_error");
  BOOST_TEST(body["count"] == 3);
  BOOST_TEST(body["ratio"] == 0.5);
  BOOST_TEST(body["flag"] == true);
  BOOST_TEST(body["quoted"] == "12");
  BOOST_TEST(body["nothing"].is_null());
  BOOST_TEST_REQUIRE(first->headers.size() == 1u);  // content-length is not replayed
  BOOST_TEST(first->headers[0].first == "request-id");

  const auto second = replayCassette(cassette, 1);
  BOOST_TEST(second->stream);
  BOOST_TEST(second->frames.size() == 2u);
  BOOST_TEST(second->content_type == "text/event-stream; charset=utf-8");
  BOOST_TEST(!replayCassette(cassette, 2).has_value());
}

BOOST_AUTO_TEST_CASE(every_recorded_fixture_replays) {
  const std::filesystem::path root = sluice::test::fixturesDir();
  int replayed = 0;
  for (const auto& folder : {"anthropic", "openai-chat", "openai-responses", "gemini"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root / folder)) {
      const std::string relative = std::string(folder) + "/" + entry.path().filename().string();
      const auto replay = loadFixture(root.string(), relative, wireOfFolder(folder), 0);
      BOOST_TEST_REQUIRE(replay.has_value(), relative << ": " << (replay ? "" : replay.error()));
      if (replay->stream) {
        BOOST_TEST(!replay->frames.empty(), relative);
        // Each replayed stream parses back into events whose data is JSON (or [DONE]).
        for (const auto& event : sluice::test::parseSse(join(replay->frames))) {
          if (event.data == "[DONE]") continue;
          BOOST_TEST(!json::parse(event.data, nullptr, false).is_discarded(), relative << ": " << event.data);
        }
      } else if (replay->content_type.find("json") != std::string::npos) {
        BOOST_TEST(!json::parse(replay->body, nullptr, false).is_discarded(), relative);
      }
      ++replayed;
    }
  }
  BOOST_TEST(replayed >= 40);
}

BOOST_AUTO_TEST_CASE(loader_refuses_paths_outside_the_fixtures_dir) {
  BOOST_TEST(!loadFixture("/tmp", "../etc/passwd", Wire::Anthropic, 0).has_value());
  BOOST_TEST(!loadFixture("/tmp", "/etc/passwd", Wire::Anthropic, 0).has_value());
  BOOST_TEST(loadFixture("/nonexistent", "a.json", Wire::Anthropic, 0).error().find("cannot read") != std::string::npos);
  BOOST_TEST(!replayFixture(Wire::Anthropic, "x.txt", "", 0).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
