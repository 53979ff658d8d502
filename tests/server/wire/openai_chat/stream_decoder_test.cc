#include <boost/test/unit_test.hpp>

#include <sstream>

#include "server/wire/openai_chat/codec.h"
#include "tests/server/wire/openai_chat/chat_fixtures.h"

namespace chat = sluice::wire::openai_chat;
using namespace sluice::wire::openai_chat::testing;
using sluice::wire::Json;
using sluice::wire::StopReason;
using sluice::wire::StreamEvent;
using EventType = sluice::wire::StreamEvent::Type;

namespace {

// Decodes whole and in random pieces (several seeds); every run must give the same events.
Folded decodeEveryWay(const std::string& body) {
  const auto whole = decodeWhole(body);
  for (unsigned seed = 1; seed <= 5; ++seed) {
    BOOST_TEST(describe(decodeInPieces(body, seed, seed * 7)) == describe(whole));
  }
  BOOST_TEST(describe(decodeInPieces(body, 99, 1)) == describe(whole));  // byte by byte
  const Folded folded = fold(whole);
  BOOST_TEST(folded.order_problems.empty(), "order: " << (folded.order_problems.empty() ? "" : folded.order_problems[0]));
  return folded;
}

// The text a client would see: the concatenated delta.content of each chunk line, computed
// independently of the codec.
std::string contentOfChunkLines(const std::string& lines) {
  std::string text;
  std::istringstream in(lines);
  for (std::string line; std::getline(in, line);) {
    const Json chunk = Json::parse(line);
    for (const auto& choice : chunk["choices"]) {
      if (choice["delta"].contains("content") && choice["delta"]["content"].is_string()) {
        text += choice["delta"]["content"].get<std::string>();
      }
    }
  }
  return text;
}

std::string rawBody(const std::string& cassette, size_t interaction) {
  return loadCassette(cassette)[interaction]["response"]["body"]["string"].as<std::string>();
}

std::vector<EventType> typesOf(const std::vector<StreamEvent>& events) {
  std::vector<EventType> types;
  for (const auto& event : events) types.push_back(event.type);
  return types;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stream_decoder)

BOOST_AUTO_TEST_CASE(decodes_the_recorded_text_stream) {
  const std::string lines = readFixture("openai-chat/vercel-ai__openai-text.chunks.txt");
  const Folded folded = decodeEveryWay(sseFromChunkLines(lines));
  BOOST_TEST(folded.message_starts == 1);
  BOOST_TEST(folded.message_stops == 1);
  BOOST_TEST(!folded.error.has_value());
  BOOST_TEST(folded.id == "chatcmpl-D8Z5oo6uDh67AD85p73ksdT1KxhE0");
  BOOST_TEST(folded.model == "gpt-4.1-nano-2025-04-14");
  BOOST_TEST(folded.text == contentOfChunkLines(lines));
  BOOST_TEST(folded.text.starts_with("**Holiday Name:** Harmony Day\n\n"));
  BOOST_TEST(folded.tools.empty());
  BOOST_TEST((folded.stop_reason == StopReason::EndTurn));
  BOOST_TEST(folded.usage_reported);
  BOOST_TEST(folded.usage.input_tokens == 16);
  BOOST_TEST(folded.usage.output_tokens == 300);
  BOOST_TEST(folded.usage.cache_read_tokens == 0);
  BOOST_TEST(folded.usage.reasoning_tokens == 0);
}

BOOST_AUTO_TEST_CASE(decodes_the_recorded_azure_stream_and_skips_its_filter_chunk) {
  const std::string lines = readFixture("openai-chat/vercel-ai__azure-model-router.1.chunks.txt");
  const Folded folded = decodeEveryWay(sseFromChunkLines(lines));
  BOOST_TEST(folded.id == "chatcmpl-CYPS1lijGoK8gd9lYzY3r9Sx50nbt");
  BOOST_TEST(folded.model == "gpt-5-nano-2025-08-07");
  BOOST_TEST(folded.text == "Capital of Denmark.");
  BOOST_TEST((folded.stop_reason == StopReason::EndTurn));
  BOOST_TEST(folded.usage.input_tokens == 15);
  BOOST_TEST(folded.usage.output_tokens == 78);
  BOOST_TEST(folded.usage.reasoning_tokens == 64);
  BOOST_TEST(folded.message_stops == 1);
}

BOOST_AUTO_TEST_CASE(decodes_the_recorded_tool_call_stream) {
  const Folded folded = decodeEveryWay(rawBody("openai-chat/pydantic-ai__test_run_stream_sync_streams_real_model.yaml", 0));
  BOOST_TEST(folded.id == "chatcmpl-Dx0XpqH8w09uBXwq1zFGYdETjtnEl");
  BOOST_TEST(folded.text.empty());
  BOOST_REQUIRE_EQUAL(folded.tools.size(), 1u);
  BOOST_TEST(folded.tools[0].id == "call_ZR5UUuTt3pf61kjwAJIYdVMj");
  BOOST_TEST(folded.tools[0].name == "get_capital");
  BOOST_TEST(Json::parse(folded.tools[0].arguments) == Json::parse(R"({"country":"UK"})"));
  BOOST_TEST((folded.stop_reason == StopReason::ToolUse));
  BOOST_TEST(folded.usage.input_tokens == 53);
  BOOST_TEST(folded.usage.output_tokens == 15);
  BOOST_TEST(folded.message_stops == 1);
}

BOOST_AUTO_TEST_CASE(decodes_the_recorded_answer_after_the_tool_result) {
  const Folded folded = decodeEveryWay(rawBody("openai-chat/pydantic-ai__test_run_stream_sync_streams_real_model.yaml", 1));
  BOOST_TEST(folded.text == "The capital of the UK is London.");
  BOOST_TEST((folded.stop_reason == StopReason::EndTurn));
  BOOST_TEST(folded.usage.input_tokens == 78);
  BOOST_TEST(folded.usage.output_tokens == 9);
  BOOST_TEST(folded.message_stops == 1);
}

BOOST_AUTO_TEST_CASE(holds_the_message_delta_until_the_usage_chunk) {
  auto decoder = chat::makeStreamDecoder();
  auto events = decoder->feed(R"(data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]})"
                              "\n\n");
  BOOST_TEST((typesOf(events) == std::vector<EventType>{EventType::MessageStart, EventType::BlockStart, EventType::BlockDelta}));
  events = decoder->feed(R"(data: {"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"length"}]})" "\n\n");
  BOOST_TEST((typesOf(events) == std::vector<EventType>{EventType::BlockStop}));
  events = decoder->feed(R"(data: {"id":"c1","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":7,"total_tokens":12,)"
                         R"("prompt_tokens_details":{"cached_tokens":3},"completion_tokens_details":{"reasoning_tokens":2}}})"
                         "\n\n");
  BOOST_REQUIRE_EQUAL(events.size(), 1u);  // sent as soon as it is complete, not at [DONE]
  BOOST_TEST((events[0].type == EventType::MessageDelta));
  BOOST_TEST((events[0].stop_reason == StopReason::MaxTokens));
  BOOST_TEST(events[0].usage_reported);
  BOOST_TEST(events[0].usage.input_tokens == 5);
  BOOST_TEST(events[0].usage.cache_read_tokens == 3);
  BOOST_TEST(events[0].usage.output_tokens == 7);
  BOOST_TEST(events[0].usage.reasoning_tokens == 2);
  events = decoder->feed("data: [DONE]\n\n");
  BOOST_TEST((typesOf(events) == std::vector<EventType>{EventType::MessageStop}));
  BOOST_TEST(decoder->finish().empty());
}

BOOST_AUTO_TEST_CASE(opens_thinking_then_text_blocks_for_reasoning_content) {
  const std::string body =
      R"(data: {"id":"d1","model":"deepseek-reasoner","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""}}]})" "\n\n"
      R"(data: {"id":"d1","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"Two and "}}]})" "\n\n"
      R"(data: {"id":"d1","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"two."}}]})" "\n\n"
      R"(data: {"id":"d1","choices":[{"index":0,"delta":{"content":"4","reasoning_content":null}}]})" "\n\n"
      R"(data: {"id":"d1","choices":[{"index":0,"delta":{"content":""},"finish_reason":"stop"}],)"
      R"("usage":{"prompt_tokens":10,"completion_tokens":20,"prompt_cache_hit_tokens":8,"completion_tokens_details":{"reasoning_tokens":15}}})" "\n\n"
      "data: [DONE]\n\n";
  const auto events = decodeWhole(body);
  const Folded folded = decodeEveryWay(body);
  BOOST_TEST(folded.thinking == "Two and two.");
  BOOST_TEST(folded.text == "4");
  BOOST_TEST(events[1].index == 0);
  BOOST_TEST((events[1].block.type == sluice::wire::ContentBlock::Type::Thinking));
  BOOST_TEST(folded.usage.cache_read_tokens == 8);
  BOOST_TEST(folded.usage.reasoning_tokens == 15);
  BOOST_TEST((folded.stop_reason == StopReason::EndTurn));
}

BOOST_AUTO_TEST_CASE(streams_parallel_tool_calls_as_separate_blocks) {
  const std::string body =
      R"(data: {"id":"p","model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"weather","arguments":""}}]}}]})" "\n\n"
      R"(data: {"id":"p","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]}}]})" "\n\n"
      R"(data: {"id":"p","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]}}]})" "\n\n"
      R"(data: {"id":"p","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"now","arguments":""}}]}}]})" "\n\n"
      R"(data: {"id":"p","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})" "\n\n"
      R"(data: {"id":"p","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}})" "\n\n"
      "data: [DONE]\n\n";
  const Folded folded = decodeEveryWay(body);
  BOOST_REQUIRE_EQUAL(folded.tools.size(), 2u);
  BOOST_TEST(folded.tools[0].id == "call_a");
  BOOST_TEST(folded.tools[0].arguments == R"({"city":"Paris"})");
  BOOST_TEST(folded.tools[1].id == "call_b");
  BOOST_TEST(folded.tools[1].name == "now");
  BOOST_TEST(folded.tools[1].arguments == "{}");  // a call with no arguments
  BOOST_TEST((folded.stop_reason == StopReason::ToolUse));
}

BOOST_AUTO_TEST_CASE(separates_whole_tool_calls_sent_without_an_index) {
  const std::string body =
      R"(data: {"id":"g","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[)"
      R"({"id":"call_1","type":"function","function":{"name":"a","arguments":"{\"x\":1}"}},)"
      R"({"id":"call_2","type":"function","function":{"name":"b","arguments":"{\"y\":2}"}}]},"finish_reason":"tool_calls"}]})" "\n\n"
      "data: [DONE]\n\n";
  const Folded folded = decodeEveryWay(body);
  BOOST_REQUIRE_EQUAL(folded.tools.size(), 2u);
  BOOST_TEST(folded.tools[0].arguments == R"({"x":1})");
  BOOST_TEST(folded.tools[1].name == "b");
  BOOST_TEST(folded.tools[1].arguments == R"({"y":2})");
}

BOOST_AUTO_TEST_CASE(turns_an_error_payload_into_an_error_event_and_stops) {
  const std::string body =
      R"(data: {"id":"e","choices":[{"index":0,"delta":{"content":"Hel"}}]})" "\n\n"
      R"(data: {"error":{"message":"You exceeded your current quota.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}})" "\n\n"
      R"(data: {"id":"e","choices":[{"index":0,"delta":{"content":"lo"}}]})" "\n\n";
  const auto events = decodeWhole(body);
  BOOST_REQUIRE(!events.empty());
  BOOST_TEST((events.back().type == EventType::Error));
  BOOST_TEST(events.back().error.status == 429);
  BOOST_TEST(events.back().error.key == "insufficient_quota");
  BOOST_TEST(events.back().error.message == "You exceeded your current quota.");
  BOOST_TEST(fold(events).text == "Hel");
  BOOST_TEST(describe(decodeInPieces(body, 3)) == describe(events));
}

BOOST_AUTO_TEST_CASE(reports_a_stream_cut_before_finish_reason_as_truncated) {
  const std::string body = R"(data: {"id":"t","choices":[{"index":0,"delta":{"content":"partial"}}]})" "\n\n";
  const auto events = decodeWhole(body);
  BOOST_REQUIRE(!events.empty());
  BOOST_TEST((events.back().type == EventType::Error));
  BOOST_TEST(events.back().error.status == 502);
  BOOST_TEST(events.back().error.key == "upstream_stream_truncated");
  BOOST_TEST(fold(events).message_stops == 0);
}

BOOST_AUTO_TEST_CASE(accepts_a_stream_that_ends_after_finish_reason_without_done) {
  const std::string body =
      R"(data: {"id":"f","choices":[{"index":0,"delta":{"content":"ok"}}]})" "\n\n"
      R"(data: {"id":"f","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})" "\n\n";
  const Folded folded = fold(decodeWhole(body));
  BOOST_TEST(!folded.error.has_value());
  BOOST_TEST(folded.text == "ok");
  BOOST_TEST(folded.message_stops == 1);
  BOOST_TEST(!folded.usage_reported);
}

BOOST_AUTO_TEST_CASE(reports_a_chunk_that_is_not_json_as_an_invalid_response) {
  const auto events = decodeWhole("data: {\"id\":\"x\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {oops\n\n");
  BOOST_TEST((events.back().type == EventType::Error));
  BOOST_TEST(events.back().error.key == "upstream_invalid_response");
  BOOST_TEST(events.back().error.status == 502);
}

BOOST_AUTO_TEST_CASE(tolerates_padding_crlf_comments_event_names_and_unknown_fields) {
  const std::string body =
      ": keep-alive\r\n\r\n"
      "event: chunk\r\n"
      "data:   {\"id\":\"w\", \"model\":\"m\", \"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"new_field\":1}], \"obfuscation\":\"abc\"}    \r\n\r\n"
      "data: {\"id\":\"w\",\"choices\":[{\"index\":1,\"delta\":{\"content\":\"other choice\"}}]}\r\n\r\n"
      "data: {\"id\":\"w\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n"
      "data:  [DONE] \r\n\r\n";
  const Folded folded = decodeEveryWay(body);
  BOOST_TEST(!folded.error.has_value());
  BOOST_TEST(folded.text == "x");
  BOOST_TEST(folded.message_stops == 1);
}

BOOST_AUTO_TEST_CASE(ignores_everything_after_done) {
  auto decoder = chat::makeStreamDecoder();
  decoder->feed("data: {\"id\":\"a\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
  BOOST_TEST(decoder->feed("data: {\"error\":{\"message\":\"late\"}}\n\n").empty());
  BOOST_TEST(decoder->finish().empty());
}

BOOST_AUTO_TEST_SUITE_END()
