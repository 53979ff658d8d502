// The bedrock-converse codec with strings: the Converse body a neutral request becomes, Converse's
// answer and ConverseStream's events (as bedrock_call.cc reframes them) read back, every
// stopReason, usage with cache tokens, and the refusals.
#include <boost/test/unit_test.hpp>

#include "server/wire/bedrock/converse_codec.h"
#include "server/wire/bedrock/invoke.h"

using namespace sluice;
using namespace sluice::wire;

namespace {

Json encode(const Request& request, std::string model = "us.meta.llama4-maverick-17b-instruct-v1:0") {
  EncodeOptions options;
  options.upstream_model = std::move(model);
  options.max_output = 8192;
  auto body = encodeRequest(catalog::Wire::BedrockConverse, request, options);
  BOOST_REQUIRE(body.has_value());
  return Json::parse(*body);
}

Message user(std::vector<ContentBlock> content) { return Message{Role::User, std::move(content)}; }

std::string sse(std::string_view type, std::string_view payload) {
  return "event: " + std::string(type) + "\ndata: " + std::string(payload) + "\n\n";
}

std::vector<StreamEvent> decodeStream(const std::string& text, bool finish = true) {
  auto decoder = makeStreamDecoder(catalog::Wire::BedrockConverse);
  std::vector<StreamEvent> events;
  // Fed byte by byte: SSE may be split anywhere.
  for (const char c : text) {
    for (auto& event : decoder->feed(std::string_view(&c, 1))) events.push_back(std::move(event));
  }
  if (finish) {
    for (auto& event : decoder->finish()) events.push_back(std::move(event));
  }
  return events;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bedrock_converse)

BOOST_AUTO_TEST_CASE(a_request_becomes_converse_messages_system_inference_config_and_tools) {
  Request request;
  request.system = {ContentBlock::ofText("Be brief.")};
  request.system[0].cache_control = Json{{"type", "ephemeral"}};
  ContentBlock image;
  image.type = ContentBlock::Type::Image;
  image.image.media_type = "image/png";
  image.image.data = "iVBORw0KGgo=";
  request.messages.push_back(user({ContentBlock::ofText("What is on it?"), image}));
  ContentBlock call;
  call.type = ContentBlock::Type::ToolUse;
  call.tool_id = "tooluse_1";
  call.tool_name = "weather";
  call.tool_input = Json{{"city", "Paris"}};
  request.messages.push_back(Message{Role::Assistant, {ContentBlock::ofText("Checking."), call}});
  ContentBlock result;
  result.type = ContentBlock::Type::ToolResult;
  result.tool_use_id = "tooluse_1";
  result.result = {ContentBlock::ofText("18 C")};
  result.is_error = false;
  request.messages.push_back(user({result}));
  request.messages.push_back(user({ContentBlock::ofText("Thanks")}));  // same role: merged
  Tool tool;
  tool.name = "weather";
  tool.description = "The weather";
  tool.input_schema = Json{{"$schema", "http://json-schema.org/draft-07/schema#"}, {"type", "object"}};
  request.tools = {tool};
  request.tool_choice = ToolChoice{ToolChoice::Mode::Tool, "weather", false};
  request.max_tokens = 100'000;  // clamped to the model's max_output
  request.temperature = 0.2;
  request.top_p = 0.9;
  request.stop_sequences = {"END"};

  const Json body = encode(request);
  BOOST_TEST(!body.contains("model"));  // in the URL
  BOOST_TEST(body["system"] == Json::parse(R"([{"text":"Be brief."},{"cachePoint":{"type":"default"}}])"));
  BOOST_TEST(body["messages"].size() == 3u);
  BOOST_TEST(body["messages"][0] == Json::parse(R"({"role":"user","content":[{"text":"What is on it?"},
      {"image":{"format":"png","source":{"bytes":"iVBORw0KGgo="}}}]})"));
  BOOST_TEST(body["messages"][1]["content"][1] ==
             Json::parse(R"({"toolUse":{"toolUseId":"tooluse_1","name":"weather","input":{"city":"Paris"}}})"));
  BOOST_TEST(body["messages"][2]["content"] == Json::parse(R"([{"toolResult":{"toolUseId":"tooluse_1",
      "content":[{"text":"18 C"}],"status":"success"}},{"text":"Thanks"}])"));
  BOOST_TEST(body["inferenceConfig"] ==
             Json::parse(R"({"maxTokens":8192,"temperature":0.2,"topP":0.9,"stopSequences":["END"]})"));
  BOOST_TEST(body["toolConfig"] == Json::parse(R"({"tools":[{"toolSpec":{"name":"weather","description":"The weather",
      "inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"tool":{"name":"weather"}}})"));
  BOOST_TEST(!body.contains("additionalModelRequestFields"));
}

BOOST_AUTO_TEST_CASE(claude_gets_thinking_and_top_k_as_its_own_request_fields_and_only_bedrock_signatures_go_back) {
  Request request;
  request.reasoning = Reasoning{true, 2048, "", ""};
  request.top_k = 40;
  ContentBlock ours;
  ours.type = ContentBlock::Type::Thinking;
  ours.text = "Let me think.";
  ours.signature = "EqQBCkYI";
  ours.signature_wire = catalog::Wire::BedrockConverse;
  ContentBlock theirs = ours;
  theirs.signature_wire = catalog::Wire::Anthropic;  // the Anthropic API's: Bedrock cannot check it
  request.messages.push_back(user({ContentBlock::ofText("Hi")}));
  request.messages.push_back(Message{Role::Assistant, {ours, theirs, ContentBlock::ofText("Hello")}});
  request.messages.push_back(user({ContentBlock::ofText("Again")}));
  const Json body = encode(request, "us.anthropic.claude-sonnet-4-5-20250929-v1:0");
  BOOST_TEST(body["additionalModelRequestFields"] ==
             Json::parse(R"({"thinking":{"type":"enabled","budget_tokens":2048},"top_k":40})"));
  BOOST_TEST(body["messages"][1]["content"] == Json::parse(R"([{"reasoningContent":{"reasoningText":
      {"text":"Let me think.","signature":"EqQBCkYI"}}},{"text":"Hello"}])"));
  // Another model: nothing Claude-only.
  BOOST_TEST(!encode(request).contains("additionalModelRequestFields"));
}

BOOST_AUTO_TEST_CASE(an_image_by_url_is_refused_in_the_callers_terms) {
  Request request;
  ContentBlock image;
  image.type = ContentBlock::Type::Image;
  image.image.kind = ImageSource::Kind::Url;
  image.image.url = "https://example.com/cat.png";
  request.messages.push_back(user({ContentBlock::ofText("Look"), image}));
  auto body = encodeRequest(catalog::Wire::BedrockConverse, request, EncodeOptions{});
  BOOST_REQUIRE(!body.has_value());
  BOOST_TEST(body.error().status == 400);
  BOOST_TEST(body.error().key == "unsupported_field");
  BOOST_TEST(body.error().param.value_or("") == "messages[0].content[1]");
  BOOST_TEST(!decodeRequest(catalog::Wire::BedrockConverse, "{}").has_value());  // never a client wire
}

BOOST_AUTO_TEST_CASE(an_answer_with_text_a_tool_call_reasoning_and_cached_usage_is_read) {
  const auto response = decodeResponse(catalog::Wire::BedrockConverse, R"({
    "output":{"message":{"role":"assistant","content":[
      {"reasoningContent":{"reasoningText":{"text":"Think","signature":"sig=="}}},
      {"text":"Let me look."},
      {"toolUse":{"toolUseId":"tooluse_abc","name":"weather","input":{"city":"Oslo"}}}]}},
    "stopReason":"tool_use",
    "usage":{"inputTokens":10,"outputTokens":20,"totalTokens":1530,"cacheReadInputTokens":1000,"cacheWriteInputTokens":500},
    "metrics":{"latencyMs":321}})");
  BOOST_REQUIRE(response.has_value());
  BOOST_REQUIRE(response->content.size() == 3u);
  BOOST_TEST((response->content[0].type == ContentBlock::Type::Thinking));
  BOOST_TEST(response->content[0].signature == "sig==");
  BOOST_TEST((response->content[0].signature_wire == catalog::Wire::BedrockConverse));
  BOOST_TEST(response->content[1].text == "Let me look.");
  BOOST_TEST(response->content[2].tool_id == "tooluse_abc");
  BOOST_TEST(response->content[2].tool_input == Json::parse(R"({"city":"Oslo"})"));
  BOOST_TEST((response->stop_reason == StopReason::ToolUse));
  BOOST_TEST(response->usage.input_tokens == 1510);  // 10 uncached + 1000 read + 500 written
  BOOST_TEST(response->usage.cache_read_tokens == 1000);
  BOOST_TEST(response->usage.cache_write_tokens == 500);
  BOOST_TEST(response->usage.output_tokens == 20);
  BOOST_TEST(!decodeResponse(catalog::Wire::BedrockConverse, R"({"output":{}})").has_value());
  BOOST_TEST(decodeResponse(catalog::Wire::BedrockConverse, "not json").error().key == "upstream_invalid_response");
}

BOOST_AUTO_TEST_CASE(every_stop_reason_has_its_neutral_one) {
  BOOST_TEST((wire::converse::stopReasonOf("end_turn") == StopReason::EndTurn));
  BOOST_TEST((wire::converse::stopReasonOf("tool_use") == StopReason::ToolUse));
  BOOST_TEST((wire::converse::stopReasonOf("max_tokens") == StopReason::MaxTokens));
  BOOST_TEST((wire::converse::stopReasonOf("stop_sequence") == StopReason::StopSequence));
  BOOST_TEST((wire::converse::stopReasonOf("guardrail_intervened") == StopReason::Refusal));
  BOOST_TEST((wire::converse::stopReasonOf("content_filtered") == StopReason::Refusal));
  BOOST_TEST((wire::converse::stopReasonOf("model_context_window_exceeded") == StopReason::ContextWindowExceeded));
  BOOST_TEST((wire::converse::stopReasonOf("something_new") == StopReason::EndTurn));
}

BOOST_AUTO_TEST_CASE(a_stream_opens_blocks_at_their_first_delta_and_ends_with_its_usage) {
  const std::string text =
      sse("messageStart", R"({"role":"assistant"})") +
      sse("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"Hm"}}})") +
      sse("contentBlockDelta", R"({"contentBlockIndex":0,"delta":{"reasoningContent":{"signature":"s1"}}})") +
      sse("contentBlockStop", R"({"contentBlockIndex":0})") +
      sse("contentBlockDelta", R"({"contentBlockIndex":1,"delta":{"text":"Hel"}})") +
      sse("contentBlockDelta", R"({"contentBlockIndex":1,"delta":{"text":"lo"}})") +
      sse("contentBlockStop", R"({"contentBlockIndex":1})") +
      sse("contentBlockStart", R"({"contentBlockIndex":2,"start":{"toolUse":{"toolUseId":"t1","name":"weather"}}})") +
      sse("contentBlockDelta", R"({"contentBlockIndex":2,"delta":{"toolUse":{"input":"{\"city\":"}}})") +
      sse("contentBlockDelta", R"({"contentBlockIndex":2,"delta":{"toolUse":{"input":"\"Oslo\"}"}}})") +
      sse("contentBlockStop", R"({"contentBlockIndex":2})") +
      sse("messageStop", R"({"stopReason":"tool_use"})") +
      sse("metadata", R"({"usage":{"inputTokens":5,"outputTokens":7,"totalTokens":12,"cacheReadInputTokens":3},"metrics":{"latencyMs":9}})");
  const auto events = decodeStream(text);
  using T = StreamEvent::Type;
  std::vector<T> types;
  for (const auto& event : events) types.push_back(event.type);
  const std::vector<T> expected = {T::MessageStart, T::BlockStart, T::BlockDelta, T::BlockDelta, T::BlockStop,
                                   T::BlockStart,   T::BlockDelta, T::BlockDelta, T::BlockStop,  T::BlockStart,
                                   T::BlockDelta,   T::BlockDelta, T::BlockStop,  T::MessageDelta, T::MessageStop};
  BOOST_TEST((types == expected));
  BOOST_TEST((events[1].block.type == ContentBlock::Type::Thinking));
  BOOST_TEST((events[3].delta_kind == StreamEvent::DeltaKind::Signature));
  BOOST_TEST(events[3].delta == "s1");
  BOOST_TEST((events[5].block.type == ContentBlock::Type::Text));
  BOOST_TEST(events[9].block.tool_id == "t1");
  BOOST_TEST(events[10].delta + events[11].delta == R"({"city":"Oslo"})");
  BOOST_TEST((events[13].stop_reason == StopReason::ToolUse));
  BOOST_TEST(events[13].usage.input_tokens == 8);
  BOOST_TEST(events[13].usage.cache_read_tokens == 3);
  BOOST_TEST(events[13].usage_reported);
}

BOOST_AUTO_TEST_CASE(a_stream_cut_before_message_stop_is_truncated_and_one_without_metadata_is_whole) {
  const auto cut = decodeStream(sse("messageStart", "{}") + sse("contentBlockDelta", R"({"delta":{"text":"Hi"}})"));
  BOOST_TEST((cut.back().type == StreamEvent::Type::Error));
  BOOST_TEST(cut.back().error.key == "upstream_stream_truncated");
  const auto whole = decodeStream(sse("contentBlockDelta", R"({"delta":{"text":"Hi"}})") +
                                  sse("messageStop", R"({"stopReason":"max_tokens"})"));
  BOOST_TEST((whole.back().type == StreamEvent::Type::MessageStop));
  BOOST_TEST((whole[whole.size() - 2].stop_reason == StopReason::MaxTokens));
  BOOST_TEST(!whole[whole.size() - 2].usage_reported);
}

BOOST_AUTO_TEST_CASE(an_exception_mid_stream_and_garbage_are_errors) {
  const auto thrown = decodeStream(
      sse("contentBlockDelta", R"({"delta":{"text":"Hi"}})") +
      sse("error", R"({"type":"error","error":{"type":"rate_limit_error","message":"Too many tokens"}})"));
  BOOST_TEST((thrown.back().type == StreamEvent::Type::Error));
  BOOST_TEST(thrown.back().error.status == 429);
  BOOST_TEST(thrown.back().error.message == "Too many tokens");
  const auto garbage = decodeStream(sse("contentBlockDelta", "[1,2"));
  BOOST_TEST((garbage.back().type == StreamEvent::Type::Error));
  BOOST_TEST(garbage.back().error.key == "upstream_invalid_response");
  // An event name that is not UTF-8 is quoted repaired: the error is rendered as JSON later.
  const auto named = decodeStream(sse("content\x80" "BlockDelta", "not json"));
  BOOST_TEST(named.back().error.message == "Converse stream event content\xEF\xBF\xBD" "BlockDelta is not a JSON object");
  BOOST_TEST(!renderError(catalog::Wire::OpenAIChat, named.back().error, "req").empty());
  const auto mixed = decodeStream(sse("contentBlockDelta", R"({"delta":{"text":"Hi"}})") +
                                  sse("contentBlockDelta", R"({"delta":{"toolUse":{"input":"{}"}}})"));
  BOOST_TEST(mixed.back().error.key == "upstream_invalid_response");
}

BOOST_AUTO_TEST_CASE(converse_stream_frames_are_reframed_as_their_events) {
  bedrock::EventMessage message;
  bedrock::EventHeader type;
  type.name = ":event-type";
  type.bytes = "contentBlockDelta";
  bedrock::EventHeader kind;
  kind.name = ":message-type";
  kind.bytes = "event";
  message.headers = {type, kind};
  message.payload = R"({"contentBlockIndex":0,"delta":{"text":"Hi"}})";
  bedrock::InvokeStreamReframer reframer(bedrock::Framing::ConverseEvents);
  const std::string out = reframer.feed(bedrock::encodeEventMessage(message));
  BOOST_TEST(out == "event: contentBlockDelta\ndata: {\"contentBlockIndex\":0,\"delta\":{\"text\":\"Hi\"}}\n\n");
  message.payload = "not json";
  reframer.feed(bedrock::encodeEventMessage(message));
  BOOST_TEST(reframer.failure().has_value());
  BOOST_TEST(bedrock::conversePath("us.meta.llama4-maverick-17b-instruct-v1:0", true) ==
             "/model/us.meta.llama4-maverick-17b-instruct-v1%3A0/converse-stream");
}

BOOST_AUTO_TEST_SUITE_END()
