#include <boost/test/unit_test.hpp>

#include "server/wire/openai_chat/codec.h"
#include "tests/server/wire/openai_chat/chat_fixtures.h"
#include "tests/server/wire/openai_chat/ir_builders.h"

namespace chat = sluice::wire::openai_chat;
using namespace sluice::wire::openai_chat::testing;
using sluice::catalog::Wire;
using sluice::wire::ApiError;
using sluice::wire::ContentBlock;
using sluice::wire::Json;
using sluice::wire::ResponseContext;
using sluice::wire::StopReason;
using sluice::wire::StreamEvent;
using sluice::wire::Usage;
using EventType = sluice::wire::StreamEvent::Type;
using DeltaKind = sluice::wire::StreamEvent::DeltaKind;

namespace {

const ResponseContext kContext{"sluice-model", "req-9", 1770000000};

StreamEvent messageStart(Usage usage = {}, bool reported = false) {
  StreamEvent event;
  event.type = EventType::MessageStart;
  event.id = "msg_01";
  event.model = "claude-sonnet";
  event.usage = usage;
  event.usage_reported = reported;
  return event;
}

StreamEvent blockStart(int index, ContentBlock block) {
  StreamEvent event;
  event.type = EventType::BlockStart;
  event.index = index;
  event.block = std::move(block);
  return event;
}

StreamEvent blockDelta(int index, DeltaKind kind, std::string delta) {
  StreamEvent event;
  event.type = EventType::BlockDelta;
  event.index = index;
  event.delta_kind = kind;
  event.delta = std::move(delta);
  return event;
}

StreamEvent blockStop(int index) {
  StreamEvent event;
  event.type = EventType::BlockStop;
  event.index = index;
  return event;
}

StreamEvent messageDelta(StopReason reason, Usage usage, bool reported = true) {
  StreamEvent event;
  event.type = EventType::MessageDelta;
  event.stop_reason = reason;
  event.usage = usage;
  event.usage_reported = reported;
  return event;
}

StreamEvent simple(EventType type) {
  StreamEvent event;
  event.type = type;
  return event;
}

// Every payload written for the events, then for finish().
std::vector<std::string> encodeAll(const std::vector<StreamEvent>& events) {
  auto encoder = chat::makeStreamEncoder(kContext);
  std::string sse;
  for (const auto& event : events) sse += encoder->encode(event);
  sse += encoder->finish();
  return dataPayloads(sse);
}

std::string chunk(const std::string& delta, const std::string& finish = "null") {
  return R"({"id":"chatcmpl-req-9","object":"chat.completion.chunk","created":1770000000,"model":"sluice-model",)"
         R"("choices":[{"index":0,"delta":)" + delta + R"(,"logprobs":null,"finish_reason":)" + finish + "}]}";
}

Usage usageOf(int64_t input, int64_t output, int64_t cache_read = 0, int64_t reasoning = 0) {
  Usage usage;
  usage.input_tokens = input;
  usage.output_tokens = output;
  usage.cache_read_tokens = cache_read;
  usage.reasoning_tokens = reasoning;
  return usage;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(stream_encoder)

BOOST_AUTO_TEST_CASE(writes_role_content_finish_usage_and_done_in_order) {
  const auto payloads = encodeAll({messageStart(usageOf(120, 1, 100), true), blockStart(0, text("")),
                                   blockDelta(0, DeltaKind::Text, "Hel"), blockDelta(0, DeltaKind::Text, "lo"),
                                   blockStop(0), messageDelta(StopReason::EndTurn, usageOf(120, 12, 100, 0)),
                                   simple(EventType::MessageStop)});
  const std::vector<std::string> expected = {
      chunk(R"({"role":"assistant","content":""})"),
      chunk(R"({"content":"Hel"})"),
      chunk(R"({"content":"lo"})"),
      chunk("{}", R"("stop")"),
      R"({"id":"chatcmpl-req-9","object":"chat.completion.chunk","created":1770000000,"model":"sluice-model","choices":[],)"
      R"("usage":{"prompt_tokens":120,"completion_tokens":12,"total_tokens":132,"prompt_tokens_details":{"cached_tokens":100},)"
      R"("completion_tokens_details":{"reasoning_tokens":0}}})",
      "[DONE]"};
  BOOST_TEST(payloads == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(numbers_tool_calls_from_zero_whatever_their_block_index) {
  const auto payloads = encodeAll({messageStart(), blockStart(0, text("")), blockDelta(0, DeltaKind::Text, "Checking."),
                                   blockStop(0), blockStart(1, toolUse("toolu_1", "weather", Json::object())),
                                   blockDelta(1, DeltaKind::ToolInputJson, R"({"city":)"),
                                   blockDelta(1, DeltaKind::ToolInputJson, R"("Paris"})"), blockStop(1),
                                   blockStart(2, toolUse("toolu_2", "now", Json::object())),
                                   blockDelta(2, DeltaKind::ToolInputJson, ""), blockStop(2),
                                   messageDelta(StopReason::ToolUse, usageOf(10, 20)), simple(EventType::MessageStop)});
  BOOST_REQUIRE_EQUAL(payloads.size(), 10u);
  BOOST_TEST(payloads[2] == chunk(R"({"tool_calls":[{"index":0,"id":"toolu_1","type":"function","function":{"name":"weather","arguments":""}}]})"));
  BOOST_TEST(payloads[3] == chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":"}}]})"));
  BOOST_TEST(payloads[4] == chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]})"));
  BOOST_TEST(payloads[5] == chunk(R"({"tool_calls":[{"index":1,"id":"toolu_2","type":"function","function":{"name":"now","arguments":""}}]})"));
  // A call with no arguments still reads as a JSON object.
  BOOST_TEST(payloads[6] == chunk(R"({"tool_calls":[{"index":1,"function":{"arguments":"{}"}}]})"));
  BOOST_TEST(payloads[7] == chunk("{}", R"("tool_calls")"));
  BOOST_TEST(payloads[9] == "[DONE]");
}

BOOST_AUTO_TEST_CASE(writes_thinking_as_reasoning_content_and_drops_signatures) {
  const auto payloads = encodeAll({messageStart(), blockStart(0, thinking("")), blockDelta(0, DeltaKind::Thinking, "Hmm."),
                                   blockDelta(0, DeltaKind::Signature, "EqQBCkYIBxgCKkBsig"), blockStop(0),
                                   blockStart(1, text("")), blockDelta(1, DeltaKind::Text, "Yes."), blockStop(1),
                                   messageDelta(StopReason::EndTurn, usageOf(1, 2)), simple(EventType::MessageStop)});
  BOOST_REQUIRE_EQUAL(payloads.size(), 6u);
  BOOST_TEST(payloads[1] == chunk(R"({"reasoning_content":"Hmm."})"));
  BOOST_TEST(payloads[2] == chunk(R"({"content":"Yes."})"));
}

BOOST_AUTO_TEST_CASE(maps_stop_reasons_to_finish_reasons) {
  const std::vector<std::pair<StopReason, std::string>> cases = {
      {StopReason::MaxTokens, "length"}, {StopReason::Refusal, "content_filter"},
      {StopReason::StopSequence, "stop"}, {StopReason::ToolUse, "tool_calls"}};
  for (const auto& [reason, finish] : cases) {
    const auto payloads = encodeAll({messageStart(), messageDelta(reason, usageOf(1, 1)), simple(EventType::MessageStop)});
    BOOST_TEST(payloads[1] == chunk("{}", "\"" + finish + "\""));
  }
}

BOOST_AUTO_TEST_CASE(renders_an_error_event_as_an_error_chunk_then_done) {
  auto encoder = chat::makeStreamEncoder(kContext);
  std::string sse = encoder->encode(messageStart());
  sse += encoder->encode(blockStart(0, text("")));
  sse += encoder->encode(blockDelta(0, DeltaKind::Text, "Hel"));
  StreamEvent error = simple(EventType::Error);
  error.error = ApiError{529, "overloaded_error", "Overloaded", std::nullopt, std::nullopt};
  const std::string error_bytes = encoder->encode(error);
  BOOST_TEST(error_bytes ==
             "data: {\"error\":{\"code\":\"overloaded_error\",\"message\":\"Overloaded\",\"param\":null,"
             "\"type\":\"service_unavailable_error\"}}\n\ndata: [DONE]\n\n");
  BOOST_TEST(encoder->encode(blockDelta(0, DeltaKind::Text, "lo")).empty());
  BOOST_TEST(encoder->finish().empty());
}

BOOST_AUTO_TEST_CASE(returns_the_bytes_of_each_event_at_once) {
  auto encoder = chat::makeStreamEncoder(kContext);
  BOOST_TEST(!encoder->encode(messageStart()).empty());
  BOOST_TEST(encoder->encode(blockStart(0, text(""))).empty());
  BOOST_TEST(encoder->encode(blockDelta(0, DeltaKind::Text, "a")) == "data: " + chunk(R"({"content":"a"})") + "\n\n");
  BOOST_TEST(encoder->encode(simple(EventType::Ping)).empty());
}

BOOST_AUTO_TEST_CASE(closes_the_stream_on_finish_without_message_stop) {
  const auto payloads = encodeAll({messageStart(), blockStart(0, text("")), blockDelta(0, DeltaKind::Text, "x"),
                                   messageDelta(StopReason::EndTurn, usageOf(3, 4))});
  BOOST_REQUIRE_EQUAL(payloads.size(), 5u);
  BOOST_TEST(payloads[2] == chunk("{}", R"("stop")"));
  BOOST_TEST(Json::parse(payloads[3])["usage"]["total_tokens"] == 7);
  BOOST_TEST(payloads[4] == "[DONE]");
}

BOOST_AUTO_TEST_CASE(reads_back_what_it_writes) {
  const std::vector<StreamEvent> events = {
      messageStart(), blockStart(0, thinking("")), blockDelta(0, DeltaKind::Thinking, "Plan."), blockStop(0),
      blockStart(1, text("")), blockDelta(1, DeltaKind::Text, "Calling."), blockStop(1),
      blockStart(2, toolUse("call_1", "weather", Json::object())), blockDelta(2, DeltaKind::ToolInputJson, R"({"city":"Rome"})"),
      blockStop(2), blockStart(3, toolUse("call_2", "now", Json::object())), blockStop(3),
      messageDelta(StopReason::ToolUse, usageOf(50, 60, 40, 10)), simple(EventType::MessageStop)};
  auto encoder = chat::makeStreamEncoder(kContext);
  std::string sse;
  for (const auto& event : events) sse += encoder->encode(event);
  sse += encoder->finish();
  const Folded original = fold(events);
  const Folded read_back = fold(decodeInPieces(sse, 7));
  BOOST_TEST(read_back.order_problems.empty());
  BOOST_TEST(read_back.id == "chatcmpl-req-9");
  BOOST_TEST(read_back.thinking == original.thinking);
  BOOST_TEST(read_back.text == original.text);
  BOOST_REQUIRE_EQUAL(read_back.tools.size(), 2u);
  BOOST_TEST(read_back.tools[0].id == "call_1");
  BOOST_TEST(read_back.tools[0].arguments == R"({"city":"Rome"})");
  BOOST_TEST(read_back.tools[1].arguments == "{}");
  BOOST_TEST((read_back.stop_reason == StopReason::ToolUse));
  BOOST_TEST(read_back.usage.input_tokens == 50);
  BOOST_TEST(read_back.usage.output_tokens == 60);
  BOOST_TEST(read_back.usage.cache_read_tokens == 40);
  BOOST_TEST(read_back.usage.reasoning_tokens == 10);
  BOOST_TEST(read_back.message_stops == 1);
}

BOOST_AUTO_TEST_CASE(re_encodes_every_recorded_stream_without_loss) {
  std::vector<std::string> bodies = {sseFromChunkLines(readFixture("openai-chat/vercel-ai__openai-text.chunks.txt")),
                                     sseFromChunkLines(readFixture("openai-chat/vercel-ai__azure-model-router.1.chunks.txt"))};
  const auto cassette = loadCassette("openai-chat/pydantic-ai__test_run_stream_sync_streams_real_model.yaml");
  for (const auto& interaction : cassette) bodies.push_back(interaction["response"]["body"]["string"].as<std::string>());
  for (const auto& body : bodies) {
    const auto events = decodeWhole(body);
    auto encoder = chat::makeStreamEncoder(kContext);
    std::string sse;
    for (const auto& event : events) sse += encoder->encode(event);
    sse += encoder->finish();
    const Folded original = fold(events);
    const Folded again = fold(decodeWhole(sse));
    BOOST_TEST(again.text == original.text);
    BOOST_TEST(again.thinking == original.thinking);
    BOOST_REQUIRE_EQUAL(again.tools.size(), original.tools.size());
    for (size_t i = 0; i < again.tools.size(); ++i) {
      BOOST_TEST(again.tools[i].id == original.tools[i].id);
      BOOST_TEST(again.tools[i].name == original.tools[i].name);
      BOOST_TEST(again.tools[i].arguments == original.tools[i].arguments);
    }
    BOOST_TEST((again.stop_reason == original.stop_reason));
    BOOST_TEST(again.usage.input_tokens == original.usage.input_tokens);
    BOOST_TEST(again.usage.output_tokens == original.usage.output_tokens);
    BOOST_TEST(again.usage.reasoning_tokens == original.usage.reasoning_tokens);
    BOOST_TEST(dataPayloads(sse).back() == "[DONE]");
  }
}

BOOST_AUTO_TEST_SUITE_END()
