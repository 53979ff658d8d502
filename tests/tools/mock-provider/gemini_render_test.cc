#include "tools/mock-provider/gemini_render.h"

#include <boost/test/unit_test.hpp>

#include "tests/tools/mock-provider/test_util.h"

using namespace sluice::mock;
using namespace sluice::mock::testing;
using nlohmann::json;

namespace {
const std::string kThinking = R"({"contents":[{"role":"user","parts":[{"text":"Hello"}]}],
  "generationConfig":{"thinkingConfig":{"includeThoughts":true}}})";
const std::string kTool = R"({"contents":[{"role":"user","parts":[{"text":"use a tool"}]}],
  "tools":[{"functionDeclarations":[{"name":"multiply","parameters":{"type":"OBJECT","properties":{"x":{"type":"INTEGER"}}}}]}]})";
}  // namespace

BOOST_AUTO_TEST_SUITE(gemini_render)

BOOST_AUTO_TEST_CASE(stream_chunks_carry_running_usage_and_finish_only_last) {
  const Answer answer = plan(Wire::Gemini, kThinking);
  const auto chunks = parseData(renderGeminiStream(answer));
  BOOST_TEST_REQUIRE(chunks.size() > 3u);
  std::int64_t last_total = 0;
  std::string thought;
  std::string text;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const json& candidate = chunks[i]["candidates"][0];
    BOOST_TEST(candidate.contains("finishReason") == (i + 1 == chunks.size()));
    BOOST_TEST(candidate["content"]["role"] == "model");
    const json& meta = chunks[i]["usageMetadata"];
    BOOST_TEST(meta["promptTokenCount"] == 2);
    BOOST_TEST(meta["totalTokenCount"].get<std::int64_t>() >= last_total);
    BOOST_TEST(meta["totalTokenCount"] == meta["promptTokenCount"].get<std::int64_t>() +
                                               meta["candidatesTokenCount"].get<std::int64_t>() +
                                               meta.value("thoughtsTokenCount", std::int64_t{0}));
    last_total = meta["totalTokenCount"];
    BOOST_TEST(chunks[i]["modelVersion"] == "gemini-test");
    BOOST_TEST(chunks[i]["responseId"] == "mock-7");
    for (const auto& part : candidate["content"]["parts"]) {
      if (part.value("thought", false)) thought += part["text"].get<std::string>();
      else text += part["text"].get<std::string>();
    }
  }
  BOOST_TEST(thought == *answer.thinking);
  BOOST_TEST(text == answer.text);
  const json& last = chunks.back();
  BOOST_TEST(last["candidates"][0]["finishReason"] == "STOP");
  BOOST_TEST(last["candidates"][0]["content"]["parts"][0]["thoughtSignature"] == answer.signature);
  BOOST_TEST(last["usageMetadata"]["candidatesTokenCount"] == answer.usage.visibleOutput());
  BOOST_TEST(last["usageMetadata"]["thoughtsTokenCount"] == answer.usage.reasoning);
}

BOOST_AUTO_TEST_CASE(function_call_arrives_whole_without_an_id) {
  const Answer answer = plan(Wire::Gemini, kTool);
  const auto chunks = parseData(renderGeminiStream(answer));
  BOOST_TEST(chunks.size() == 1u);
  const json& part = chunks[0]["candidates"][0]["content"]["parts"][0];
  BOOST_TEST(part["functionCall"]["name"] == "multiply");
  BOOST_TEST(part["functionCall"]["args"] == json::parse(R"({"x":1})"));
  BOOST_TEST(!part["functionCall"].contains("id"));
  BOOST_TEST(chunks[0]["candidates"][0]["finishReason"] == "STOP");
}

BOOST_AUTO_TEST_CASE(generate_content_body_puts_the_signature_on_the_first_answer_part) {
  const json body = json::parse(renderGenerateContent(plan(Wire::Gemini, kThinking)));
  const json& parts = body["candidates"][0]["content"]["parts"];
  BOOST_TEST(parts.size() == 2u);
  BOOST_TEST(parts[0]["thought"] == true);
  BOOST_TEST(parts[1].contains("thoughtSignature"));
  BOOST_TEST(body["candidates"][0]["finishReason"] == "STOP");
  const json length = json::parse(renderGenerateContent(plan(Wire::Gemini, kTool, R"({"finish":"length","text":"x"})")));
  BOOST_TEST(length["candidates"][0]["finishReason"] == "MAX_TOKENS");
  BOOST_TEST(json::parse(renderGeminiCountTokens(12))["totalTokens"] == 12);
}

BOOST_AUTO_TEST_SUITE_END()
