// Gemini thought signatures carried in Chat tool call ids (server/wire/openai_chat/tool_call_id.h):
// a Gemini answer shown to a Chat client, streamed or not, and the client's next turn sent back,
// must reach Gemini with each signature on the functionCall part it came with, and reach any
// other provider with plain, short ids that pair each call with its result.

#include "server/wire/openai_chat/tool_call_id.h"

#include <boost/test/unit_test.hpp>

#include "server/wire/codec.h"
#include "tests/server/wire/openai_chat/chat_fixtures.h"

namespace chat = sluice::wire::openai_chat;
using namespace sluice::wire::openai_chat::testing;
using sluice::catalog::Wire;
using sluice::wire::Json;
using sluice::wire::ResponseContext;

namespace {

struct SeenCall {
  std::string id;
  std::string name;
  std::string arguments;
};

ResponseContext context() {
  ResponseContext ctx;
  ctx.model = "gemini-model";
  ctx.request_id = "01900000-0000-7000-8000-000000000000";
  ctx.created = 1700000000;
  return ctx;
}

// The calls a Chat client sees in a non-streamed answer to a Gemini body.
std::vector<SeenCall> unstreamedCalls(const std::string& gemini_body) {
  const auto response = sluice::wire::decodeResponse(Wire::Gemini, gemini_body);
  BOOST_TEST_REQUIRE(response.has_value());
  const Json body = Json::parse(sluice::wire::encodeResponse(Wire::OpenAIChat, *response, context()));
  std::vector<SeenCall> calls;
  for (const Json& call : body["choices"][0]["message"]["tool_calls"]) {
    calls.push_back({call["id"], call["function"]["name"], call["function"]["arguments"]});
  }
  return calls;
}

// The calls a Chat client accumulates from a streamed answer to a Gemini SSE body, the way the
// Vercel AI SDK does: the id of a call is read from its first delta only.
std::vector<SeenCall> streamedCalls(const std::string& gemini_sse) {
  auto decoder = sluice::wire::makeStreamDecoder(Wire::Gemini);
  auto encoder = sluice::wire::makeStreamEncoder(Wire::OpenAIChat, context());
  std::string out;
  for (const auto& event : decoder->feed(gemini_sse)) out += encoder->encode(event);
  for (const auto& event : decoder->finish()) out += encoder->encode(event);
  out += encoder->finish();
  std::vector<SeenCall> calls;
  size_t at = 0;
  while ((at = out.find("data: ", at)) != std::string::npos) {
    const size_t end = out.find("\n\n", at);
    const std::string payload = out.substr(at + 6, end - at - 6);
    at = end;
    if (payload == "[DONE]") break;
    const Json chunk = Json::parse(payload);
    if (chunk["choices"].empty() || !chunk["choices"][0]["delta"].contains("tool_calls")) continue;
    for (const Json& delta : chunk["choices"][0]["delta"]["tool_calls"]) {
      const size_t index = delta["index"];
      if (index == calls.size()) calls.push_back({delta["id"], delta["function"]["name"], ""});
      calls[index].arguments += delta["function"]["arguments"].get<std::string>();
    }
  }
  return calls;
}

std::string geminiSse(const std::vector<std::string>& lines) {
  std::string body;
  for (const auto& line : lines) body += "data: " + line + "\r\n\r\n";
  return body;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The Chat client's second turn: the calls as the assistant's tool_calls, a tool message each.
std::string secondTurn(const std::vector<SeenCall>& calls) {
  Json tool_calls = Json::array();
  Json messages = Json::array({Json{{"role", "user"}, {"content", "weather?"}}});
  for (const auto& call : calls) {
    tool_calls.push_back(Json{{"id", call.id}, {"type", "function"},
                              {"function", {{"name", call.name}, {"arguments", call.arguments}}}});
  }
  messages.push_back(Json{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", tool_calls}});
  for (const auto& call : calls) {
    messages.push_back(Json{{"role", "tool"}, {"tool_call_id", call.id}, {"content", "18 degrees"}});
  }
  return Json{{"model", "m"}, {"messages", messages}}.dump();
}

Json sentTo(Wire wire, const std::string& chat_body) {
  const auto request = sluice::wire::decodeRequest(Wire::OpenAIChat, chat_body);
  BOOST_TEST_REQUIRE(request.has_value(), (request ? "" : request.error().message));
  sluice::wire::EncodeOptions options;
  options.upstream_model = "upstream";
  const auto body = sluice::wire::encodeRequest(wire, *request, options);
  BOOST_TEST_REQUIRE(body.has_value(), (body ? "" : body.error().message));
  return Json::parse(*body);
}

// Gemini's model turn as the gateway sends it back: [name, signature or ""] per functionCall.
std::vector<std::pair<std::string, std::string>> geminiCalls(const Json& body) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const Json& part : body["contents"][1]["parts"]) {
    if (part.contains("functionCall")) out.emplace_back(part["functionCall"]["name"], part.value("thoughtSignature", ""));
  }
  return out;
}

std::string signatureOf(const std::string& gemini_line, size_t part = 0) {
  return Json::parse(gemini_line)["candidates"][0]["content"]["parts"][part]["thoughtSignature"];
}

}  // namespace

BOOST_AUTO_TEST_SUITE(tool_call_id)

BOOST_AUTO_TEST_CASE(a_signature_rides_in_the_envelope_and_plain_ids_pass_unchanged) {
  const std::string id = chat::toolCallIdFor("call_0123", "EqUC+/9=");
  BOOST_TEST(id == "sluice:gemini:call_0123:EqUC+/9=");
  const auto parsed = chat::parseToolCallId(id, "p");
  BOOST_TEST_REQUIRE(parsed.has_value());
  BOOST_TEST(parsed->id == "call_0123");
  BOOST_TEST(parsed->signature == "EqUC+/9=");
  BOOST_TEST(chat::toolCallIdFor("call_0123", "") == "call_0123");
  const auto plain = chat::parseToolCallId("toolu_01abc", "p");
  BOOST_TEST_REQUIRE(plain.has_value());
  BOOST_TEST(plain->id == "toolu_01abc");
  BOOST_TEST(plain->signature.empty());
  // Another wire's envelope is no Chat carrier: kept as a plain id.
  BOOST_TEST(chat::parseToolCallId("sluice:anthropic:x:y", "p")->id == "sluice:anthropic:x:y");
}

BOOST_AUTO_TEST_CASE(oversized_and_malformed_ids_are_refused_naming_the_field) {
  const auto huge = chat::parseToolCallId(std::string(chat::kMaxToolCallIdBytes + 1, 'a'), "messages[1].tool_calls[0].id");
  BOOST_TEST_REQUIRE(!huge.has_value());
  BOOST_TEST(huge.error().status == 400);
  BOOST_TEST(huge.error().param.value_or("") == "messages[1].tool_calls[0].id");
  for (const std::string& bad : std::vector<std::string>{"sluice:gemini::EqUC", "sluice:gemini:call_1:", "sluice:gemini:call_1:not base64!",
                                "sluice:gemini:" + std::string(200, 'c') + ":EqUC"}) {
    const auto parsed = chat::parseToolCallId(bad, "messages[2].tool_call_id");
    BOOST_TEST_REQUIRE(!parsed.has_value(), bad);
    BOOST_TEST(parsed.error().param.value_or("") == "messages[2].tool_call_id");
  }
  // A signature too long to carry is not carried: the call keeps its plain id.
  BOOST_TEST(chat::toolCallIdFor("call_1", std::string(chat::kMaxToolCallIdBytes, 'A')) == "call_1");
}

BOOST_AUTO_TEST_CASE(a_gemini_call_comes_back_signed_on_its_part_streamed_or_not) {
  const std::string whole = readFixture("gemini/vercel-ai__google-tool-call.json");
  const auto chunk_lines = lines(readFixture("gemini/vercel-ai__google-tool-call.chunks.txt"));
  const std::string streamed_signature = signatureOf(chunk_lines[0]);
  const std::string whole_signature = Json::parse(whole)["candidates"][0]["content"]["parts"][0]["thoughtSignature"];
  for (const auto& [calls, signature] :
       {std::pair{unstreamedCalls(whole), whole_signature}, std::pair{streamedCalls(geminiSse(chunk_lines)), streamed_signature}}) {
    BOOST_TEST_REQUIRE(calls.size() == 1u);
    BOOST_TEST(calls[0].id.starts_with("sluice:gemini:call_"));
    const Json gemini = sentTo(Wire::Gemini, secondTurn(calls));
    BOOST_TEST((geminiCalls(gemini) == std::vector<std::pair<std::string, std::string>>{{"weather", signature}}));
    BOOST_TEST(gemini["contents"][2]["parts"][0]["functionResponse"]["name"] == "weather");
  }
}

BOOST_AUTO_TEST_CASE(parallel_calls_keep_the_signature_on_the_first_call_only) {
  const auto chunk_lines = lines(readFixture("gemini/vercel-ai__google-stream-tool-call-arguments.chunks.txt"));
  const auto calls = streamedCalls(geminiSse(chunk_lines));
  BOOST_TEST_REQUIRE(calls.size() == 2u);
  BOOST_TEST(calls[0].id.starts_with("sluice:gemini:call_"));
  BOOST_TEST(calls[1].id.starts_with("call_"));
  const Json gemini = sentTo(Wire::Gemini, secondTurn(calls));
  BOOST_TEST((geminiCalls(gemini) ==
              std::vector<std::pair<std::string, std::string>>{{"getWeather", signatureOf(chunk_lines[0])}, {"getWeather", ""}}));
}

BOOST_AUTO_TEST_CASE(a_signature_on_a_later_piece_of_a_streamed_call_still_reaches_the_id) {
  const std::vector<std::string> stream = {
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"lookup","willContinue":true}}]}}],"responseId":"r1"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"partialArgs":[{"jsonPath":"$.q","stringValue":"x"}],"willContinue":true},"thoughtSignature":"TGF0ZXI="}]}}],"responseId":"r1"})",
      R"({"candidates":[{"content":{"role":"model","parts":[{"functionCall":{}}]},"finishReason":"STOP"}],"responseId":"r1"})",
  };
  const auto calls = streamedCalls(geminiSse(stream));
  BOOST_TEST_REQUIRE(calls.size() == 1u);
  BOOST_TEST(calls[0].id.ends_with(":TGF0ZXI="));
  BOOST_TEST(calls[0].arguments == R"({"q":"x"})");
  BOOST_TEST((geminiCalls(sentTo(Wire::Gemini, secondTurn(calls))) ==
              std::vector<std::pair<std::string, std::string>>{{"lookup", "TGF0ZXI="}}));
}

BOOST_AUTO_TEST_CASE(other_providers_get_the_plain_short_id_on_call_and_result) {
  const auto calls = streamedCalls(geminiSse(lines(readFixture("gemini/vercel-ai__google-stream-tool-call-arguments.chunks.txt"))));
  const Json openai = sentTo(Wire::OpenAIChat, secondTurn(calls));
  const Json& assistant = openai["messages"][1];
  BOOST_TEST_REQUIRE(assistant["tool_calls"].size() == 2u);
  for (size_t i = 0; i < 2; ++i) {
    const std::string id = assistant["tool_calls"][i]["id"];
    BOOST_TEST(id.starts_with("call_"));
    BOOST_TEST(id.size() <= 40u);
    BOOST_TEST(openai["messages"][2 + i]["tool_call_id"] == id);
  }
  const Json anthropic = sentTo(Wire::Anthropic, secondTurn(calls));
  for (const Json& block : anthropic["messages"][1]["content"]) {
    BOOST_TEST(block["type"] == "tool_use");  // no foreign thinking block
    BOOST_TEST(!block["id"].get<std::string>().starts_with("sluice:"));
  }
}

BOOST_AUTO_TEST_CASE(the_passthrough_body_gets_plain_ids) {
  Json body = Json::parse(secondTurn({{"sluice:gemini:call_1:RXE=", "f", "{}"}}));
  BOOST_TEST_REQUIRE(chat::stripToolCallSignatures(body).has_value());
  BOOST_TEST(body["messages"][1]["tool_calls"][0]["id"] == "call_1");
  BOOST_TEST(body["messages"][2]["tool_call_id"] == "call_1");
  Json bad = Json::parse(secondTurn({{"sluice:gemini:call_1:!!", "f", "{}"}}));
  BOOST_TEST(!chat::stripToolCallSignatures(bad).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
