// A Gemini answer decoded for a client and sent back as history must reach Gemini as the same
// parts: same text, same calls, each thought signature on the part it came with. Gemini has no
// client wire, so the round trip is decodeResponse (or the stream decoder) -> encodeRequest.

#include <boost/test/unit_test.hpp>

#include "server/wire/gemini/codec.h"
#include "tests/server/wire/gemini/test_support.h"

namespace sluice::wire::gemini {
namespace {

using test::plain;

// The answer's content as the assistant turn of a follow-up request; returns the encoded body.
nlohmann::json resend(const std::vector<ContentBlock>& content, std::vector<ContentBlock> next_user_turn = {}) {
  Request request;
  ContentBlock question;
  question.text = "question";
  request.messages.push_back(Message{Role::User, {question}});
  request.messages.push_back(Message{Role::Assistant, content});
  if (!next_user_turn.empty()) request.messages.push_back(Message{Role::User, std::move(next_user_turn)});
  auto body = encodeRequest(request, {});
  BOOST_TEST_REQUIRE(body.has_value(), (body ? "" : body.error().message));
  return plain(*body);
}

nlohmann::json candidateParts(const std::string& response_body) {
  return plain(response_body)["candidates"][0]["content"]["parts"];
}

BOOST_AUTO_TEST_SUITE(round_trip)

BOOST_AUTO_TEST_CASE(answer_parts_come_back_unchanged_in_history) {
  for (const std::string fixture : {"gemini/vercel-ai__google-text.json", "gemini/vercel-ai__google-tool-call.json"}) {
    const std::string body = test::readFixture(fixture);
    const auto response = decodeResponse(body);
    BOOST_TEST_REQUIRE(response.has_value());
    BOOST_TEST(resend(response->content)["contents"][1]["parts"] == candidateParts(body), fixture);
  }
  for (const auto& interaction : test::loadCassette("gemini/pydantic-ai__test_google_tool_output.yaml")) {
    const auto response = decodeResponse(interaction.response_body);
    BOOST_TEST_REQUIRE(response.has_value());
    // gemini-2.0-flash sent no signature: the call goes back with the documented placeholder,
    // as a history without signatures would be refused by a Gemini 3 model.
    auto expected = candidateParts(interaction.response_body);
    expected[0]["thoughtSignature"] = "skip_thought_signature_validator";
    BOOST_TEST(resend(response->content)["contents"][1]["parts"] == expected);
  }
}

BOOST_AUTO_TEST_CASE(minted_tool_id_pairs_the_result_with_its_call) {
  const std::string body = test::readFixture("gemini/vercel-ai__google-tool-call.json");
  const auto response = decodeResponse(body);
  BOOST_TEST_REQUIRE(response.has_value());
  ContentBlock result;
  result.type = ContentBlock::Type::ToolResult;
  result.tool_use_id = response->content[1].tool_id;
  ContentBlock output;
  output.text = "18 degrees";
  result.result.push_back(output);
  const auto sent = resend(response->content, {result});
  BOOST_TEST(sent["contents"][2] == plain(std::string(
      R"({"role":"user","parts":[{"functionResponse":{"name":"weather","response":{"output":"18 degrees"}}}]})")));
}

BOOST_AUTO_TEST_CASE(streamed_answer_comes_back_as_joined_text_and_trailing_signature) {
  const auto lines = test::chunkLines("gemini/vercel-ai__google-text.chunks.txt");
  const auto folded = test::fold(test::decodeWhole(test::sseBody(lines)));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  const auto parts = resend(folded.response.content)["contents"][1]["parts"];
  BOOST_TEST_REQUIRE(parts.size() == 2u);
  BOOST_TEST(parts[0] == plain(std::string(R"({"text":"There are **3** \"r\"s in strawberry.\n\nst**r**awbe**rr**y"})")));
  BOOST_TEST(parts[1]["text"] == "");
  BOOST_TEST(parts[1]["thoughtSignature"] == plain(lines[2])["candidates"][0]["content"]["parts"][0]["thoughtSignature"]);
}

BOOST_AUTO_TEST_CASE(streamed_thoughts_are_not_resent_but_the_signature_is) {
  const auto interactions = test::loadCassette("gemini/pydantic-ai__test_google_model_thinking_part_iter.yaml");
  const auto folded = test::fold(test::decodeWhole(interactions[0].response_body));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  const auto parts = resend(folded.response.content)["contents"][1]["parts"];
  BOOST_TEST_REQUIRE(parts.size() == 1u);
  BOOST_TEST(parts[0]["text"].get<std::string>().starts_with("This is a great question!"));
  BOOST_TEST(parts[0]["thoughtSignature"].get<std::string>().starts_with("CiIB0e2Kb6Syj1a961EfbWv4W5C8RgAA"));
  BOOST_TEST(!parts[0].contains("thought"));
}

BOOST_AUTO_TEST_CASE(vertex_streamed_calls_come_back_with_their_arguments_and_signature) {
  const auto lines = test::chunkLines("gemini/vercel-ai__google-stream-tool-call-arguments.chunks.txt");
  const auto folded = test::fold(test::decodeWhole(test::sseBody(lines)));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  const auto parts = resend(folded.response.content)["contents"][1]["parts"];
  BOOST_TEST(parts == plain(std::string(R"([
    {"functionCall":{"name":"getWeather","args":{"location":"Boston"}},
     "thoughtSignature":")" + plain(lines[0])["candidates"][0]["content"]["parts"][0]["thoughtSignature"].get<std::string>() + R"("},
    {"functionCall":{"name":"getWeather","args":{"location":"San Francisco"}}}])")));
}

BOOST_AUTO_TEST_CASE(a_signature_on_a_later_piece_of_a_streamed_call_goes_back_on_that_call) {
  const std::vector<std::string> lines = {
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"lookup","willContinue":true}}]}}],"responseId":"r1"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.q","stringValue":"x"}],"willContinue":true},"thoughtSignature":"TGF0ZXI="}]}}],"responseId":"r1"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}},{"functionCall":{"name":"other","args":{}}}]},"finishReason":"STOP"}],"responseId":"r1"})",
  };
  const auto folded = test::fold(test::decodeWhole(test::sseBody(lines)));
  BOOST_TEST_REQUIRE(!folded.error.has_value());
  // The held call goes out after its signature block, whatever piece the signature came on.
  BOOST_TEST_REQUIRE(folded.response.content.size() == 3u);
  BOOST_TEST((folded.response.content[0].type == ContentBlock::Type::Thinking));
  BOOST_TEST(folded.response.content[1].tool_name == "lookup");
  const auto parts = resend(folded.response.content)["contents"][1]["parts"];
  BOOST_TEST(parts == plain(std::string(R"([
    {"functionCall":{"name":"lookup","args":{"q":"x"}},"thoughtSignature":"TGF0ZXI="},
    {"functionCall":{"name":"other","args":{}}}])")));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::gemini
