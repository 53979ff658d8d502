#include <boost/test/unit_test.hpp>

#include "server/wire/openai_responses/codec.h"
#include "server/wire/sse.h"
#include "tests/server/wire/openai_responses/test_support.h"

namespace sluice::wire::openai_responses {
namespace {

using Type = ContentBlock::Type;
using test::Assembled;

constexpr const char* kReasoningStream = "openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.chunks.txt";
constexpr const char* kErrorStream = "openai-responses/vercel-ai__openai-error.1.chunks.txt";

void checkSameAssembly(const Assembled& a, const Assembled& b) {
  BOOST_TEST(a.id == b.id);
  BOOST_TEST(a.model == b.model);
  BOOST_REQUIRE_EQUAL(a.blocks.size(), b.blocks.size());
  for (size_t i = 0; i < a.blocks.size(); ++i) {
    BOOST_TEST((a.blocks[i].type == b.blocks[i].type));
    BOOST_TEST(a.blocks[i].text == b.blocks[i].text);
    BOOST_TEST(a.blocks[i].signature == b.blocks[i].signature);
    BOOST_TEST(a.blocks[i].tool_id == b.blocks[i].tool_id);
    BOOST_TEST(a.blocks[i].tool_name == b.blocks[i].tool_name);
    BOOST_TEST(a.blocks[i].stopped == b.blocks[i].stopped);
  }
  BOOST_TEST((a.stop_reason == b.stop_reason));
  BOOST_TEST(a.usage.input_tokens == b.usage.input_tokens);
  BOOST_TEST(a.usage.output_tokens == b.usage.output_tokens);
  BOOST_TEST(a.errors.size() == b.errors.size());
}

// Decodes the body whole and in random pieces (several seeds); all must agree.
Assembled decodeEveryWay(const std::string& body) {
  const Assembled whole = test::assemble(test::decodeWhole(body));
  for (uint32_t seed : {1u, 7u, 42u, 2024u}) {
    checkSameAssembly(whole, test::assemble(test::decodeInPieces(body, seed)));
  }
  checkSameAssembly(whole, test::assemble(test::decodeInPieces(body, 3, 1)));  // byte by byte
  return whole;
}

std::string frame(const Json& data) { return sseFrame(data.at("type").get<std::string>(), data.dump()); }

}  // namespace

BOOST_AUTO_TEST_SUITE(stream_decoder)

BOOST_AUTO_TEST_CASE(decodes_every_recorded_response_of_the_reasoning_stream) {
  const auto responses = test::splitResponses(test::fixtureLines(kReasoningStream));
  BOOST_REQUIRE_EQUAL(responses.size(), 4u);
  const char* const calls[] = {"call_AB6AaRZ1FYZB2RwS6A5vbdqn", "call_Q6pW65MUgW9vF59BmItYGos3",
                               "call_Zl5vIMnD7dVAjgU6FkhmiCZh"};
  const char* const arguments[] = {R"({"a":12,"b":7,"op":"add"})", R"({"a":19,"b":3,"op":"multiply"})",
                                   R"({"a":57,"b":10,"op":"multiply"})"};
  const int64_t inputs[] = {134, 221, 260, 299};
  const int64_t outputs[] = {28, 26, 26, 12};
  for (size_t r = 0; r < responses.size(); ++r) {
    const Assembled got = decodeEveryWay(test::chunksToSse(responses[r]));
    const Json completed = Json::parse(responses[r].back());
    BOOST_TEST(got.message_starts == 1);
    BOOST_TEST(got.message_stops == 1);
    BOOST_TEST(got.errors.empty());
    BOOST_TEST(got.id == completed["response"]["id"].get<std::string>());
    BOOST_TEST(got.model == "gpt-5.1-codex-max");
    BOOST_TEST(got.usage_reported);
    BOOST_TEST(got.usage.input_tokens == inputs[r]);
    BOOST_TEST(got.usage.output_tokens == outputs[r]);
    BOOST_TEST(got.usage.reasoning_tokens == 0);
    for (const auto& block : got.blocks) BOOST_TEST(block.stopped);
    if (r < 3) {
      BOOST_TEST((got.stop_reason == StopReason::ToolUse));
      const auto& call = got.blocks.back();
      BOOST_TEST((call.type == Type::ToolUse));
      BOOST_TEST(call.tool_id == calls[r]);
      BOOST_TEST(call.tool_name == "calculator");
      BOOST_TEST(call.text == arguments[r]);
    } else {
      BOOST_TEST((got.stop_reason == StopReason::EndTurn));
      BOOST_REQUIRE_EQUAL(got.blocks.size(), 1u);
      BOOST_TEST((got.blocks[0].type == Type::Text));
      BOOST_TEST(got.blocks[0].text == "The final result is **570**.");
    }
    // The stream says what the final response object says.
    auto final_response = decodeResponse(completed["response"].dump());
    BOOST_REQUIRE(final_response.has_value());
    BOOST_REQUIRE_EQUAL(final_response->content.size(), got.blocks.size());
    for (size_t i = 0; i < got.blocks.size(); ++i) {
      const ContentBlock& expected = final_response->content[i];
      BOOST_TEST((got.blocks[i].type == expected.type));
      if (expected.type == Type::ToolUse) {
        BOOST_TEST(Json::parse(got.blocks[i].text) == expected.tool_input);
      } else {
        BOOST_TEST(got.blocks[i].text == expected.text);
      }
      // Each event encrypts anew: output_item.done and response.completed carry different (both
      // valid) encrypted_content for the same item, so only their shape is compared.
      BOOST_TEST(got.blocks[i].signature.empty() == expected.signature.empty());
      BOOST_TEST(got.blocks[i].signature.starts_with("gAAAA") == expected.signature.starts_with("gAAAA"));
      BOOST_TEST(got.blocks[i].reasoning_id == expected.reasoning_id);
    }
  }
}

BOOST_AUTO_TEST_CASE(reasoning_summary_streams_as_thinking_and_encrypted_content_as_its_signature) {
  const auto responses = test::splitResponses(test::fixtureLines(kReasoningStream));
  const auto events = test::decodeWhole(test::chunksToSse(responses[0]));
  const Assembled got = test::assemble(events);
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 2u);
  const auto& thinking = got.blocks[0];
  BOOST_TEST((thinking.type == Type::Thinking));
  BOOST_TEST(thinking.text ==
             "**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, "
             "and finally multiply that by 10, reporting the final product.");
  BOOST_TEST(thinking.reasoning_id == "rs_01830d662ab3856501693c321405c88190be3ab04d5782d5f9");
  // The encrypted_content of output_item.done, not the earlier one of output_item.added.
  const Json done = Json::parse(responses[0][38]);
  BOOST_REQUIRE(done["type"] == "response.output_item.done");
  BOOST_TEST(thinking.signature == done["item"]["encrypted_content"].get<std::string>());
  // The signature is the block's last delta, right before its stop; the start names the wire.
  for (size_t i = 0; i + 1 < events.size(); ++i) {
    if (events[i].type == StreamEvent::Type::BlockDelta && events[i].delta_kind == StreamEvent::DeltaKind::Signature) {
      BOOST_TEST((events[i + 1].type == StreamEvent::Type::BlockStop));
      BOOST_TEST(events[i + 1].index == events[i].index);
    }
    if (events[i].type == StreamEvent::Type::BlockStart && events[i].index == 0) {
      BOOST_TEST((events[i].block.signature_wire == catalog::Wire::OpenAIResponses));
    }
  }
}

BOOST_AUTO_TEST_CASE(the_recorded_error_stream_gives_one_error_event) {
  const std::string body = test::chunksToSse(test::fixtureLines(kErrorStream));
  const Assembled got = decodeEveryWay(body);
  BOOST_TEST(got.message_starts == 1);
  BOOST_TEST(got.id == "resp_05500b38c2cd9bfc00691c7c9d222481a3b595421266dab424");
  BOOST_TEST(got.model == "gpt-5-nano-2025-08-07");
  BOOST_TEST(got.message_stops == 0);
  BOOST_REQUIRE_EQUAL(got.errors.size(), 1u);
  BOOST_TEST(got.errors[0].status == 429);
  BOOST_TEST(got.errors[0].key == "insufficient_quota");
  BOOST_TEST(got.errors[0].message.starts_with("You exceeded your current quota"));
  const auto events = test::decodeWhole(body);
  BOOST_TEST((events.back().type == StreamEvent::Type::Error));
}

BOOST_AUTO_TEST_CASE(a_stream_cut_before_its_terminal_event_ends_with_a_truncation_error) {
  auto lines = test::splitResponses(test::fixtureLines(kReasoningStream))[1];
  lines.pop_back();  // response.completed never came
  const auto events = test::decodeInPieces(test::chunksToSse(lines), 5);
  const Assembled got = test::assemble(events);
  BOOST_REQUIRE_EQUAL(got.errors.size(), 1u);
  BOOST_TEST(got.errors[0].status == 502);
  BOOST_TEST(got.errors[0].key == "upstream_stream_truncated");
  BOOST_TEST((events.back().type == StreamEvent::Type::Error));
  BOOST_TEST(got.message_stops == 0);
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 1u);
  BOOST_TEST(got.blocks[0].text == R"({"a":19,"b":3,"op":"multiply"})");  // what did arrive was passed on

  const auto nothing = test::decodeWhole("");
  BOOST_REQUIRE_EQUAL(nothing.size(), 1u);
  BOOST_TEST(nothing[0].error.key == "upstream_stream_truncated");
}

BOOST_AUTO_TEST_CASE(parallel_calls_and_a_call_without_arguments_yield_objects) {
  std::string body;
  body += frame({{"type", "response.created"}, {"sequence_number", 0}, {"response", {{"id", "resp_p"}, {"model", "m"}, {"usage", nullptr}}}});
  body += frame({{"type", "response.output_item.added"}, {"output_index", 0},
                 {"item", {{"id", "fc_a"}, {"type", "function_call"}, {"call_id", "call_a"}, {"name", "weather"}, {"arguments", ""}}}});
  body += frame({{"type", "response.function_call_arguments.delta"}, {"item_id", "fc_a"}, {"output_index", 0}, {"delta", R"({"city":)"}});
  body += frame({{"type", "response.function_call_arguments.delta"}, {"item_id", "fc_a"}, {"output_index", 0}, {"delta", R"("Paris"})"}});
  body += frame({{"type", "response.output_item.done"}, {"output_index", 0},
                 {"item", {{"id", "fc_a"}, {"type", "function_call"}, {"call_id", "call_a"}, {"arguments", R"({"city":"Paris"})"}}}});
  body += frame({{"type", "response.output_item.added"}, {"output_index", 1},
                 {"item", {{"id", "fc_b"}, {"type", "function_call"}, {"call_id", "call_b"}, {"name", "clock"}, {"arguments", ""}}}});
  body += frame({{"type", "response.function_call_arguments.done"}, {"item_id", "fc_b"}, {"output_index", 1}, {"arguments", ""}});
  body += frame({{"type", "response.output_item.done"}, {"output_index", 1},
                 {"item", {{"id", "fc_b"}, {"type", "function_call"}, {"call_id", "call_b"}, {"arguments", ""}}}});
  body += frame({{"type", "response.output_item.added"}, {"output_index", 2},
                 {"item", {{"id", "fc_c"}, {"type", "function_call"}, {"call_id", "call_c"}, {"name", "date"}, {"arguments", ""}}}});
  body += frame({{"type", "response.function_call_arguments.done"}, {"item_id", "fc_c"}, {"output_index", 2}, {"arguments", R"({"tz":"UTC"})"}});
  body += frame({{"type", "response.output_item.done"}, {"output_index", 2},
                 {"item", {{"id", "fc_c"}, {"type", "function_call"}, {"call_id", "call_c"}, {"arguments", R"({"tz":"UTC"})"}}}});
  body += frame({{"type", "response.completed"},
                 {"response", {{"id", "resp_p"}, {"status", "completed"},
                               {"usage", {{"input_tokens", 10}, {"output_tokens", 20}}}}}});
  const Assembled got = decodeEveryWay(body);
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 3u);
  BOOST_TEST(got.blocks[0].tool_id == "call_a");
  BOOST_TEST(got.blocks[0].tool_name == "weather");
  BOOST_TEST(got.blocks[0].text == R"({"city":"Paris"})");
  BOOST_TEST(got.blocks[1].tool_id == "call_b");
  BOOST_TEST(got.blocks[1].tool_name == "clock");  // from output_item.added: .done has no name
  BOOST_TEST(got.blocks[1].text == "{}");
  BOOST_TEST(got.blocks[2].text == R"({"tz":"UTC"})");  // only .done carried them
  BOOST_TEST((got.stop_reason == StopReason::ToolUse));
}

BOOST_AUTO_TEST_CASE(padding_comments_crlf_and_unknown_events_are_tolerated) {
  std::string body =
      ": keep-alive comment\r\n\r\n"
      "event: response.queued\r\ndata: {\"type\": \"response.queued\", \"response\": {\"id\": \"resp_q\", \"model\": \"m\"}}\r\n\r\n"
      "event: response.created\r\ndata: {\"type\": \"response.created\" , \"response\": {\"id\": \"resp_q\"}   }\r\n\r\n"
      "event: keepalive\r\ndata: {\"type\": \"keepalive\"}\r\n\r\n"
      "event: response.output_item.added\r\ndata: {\"type\":\"response.output_item.added\",\"output_index\":0,"
      "\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[]}}\r\n\r\n"
      "event: response.content_part.added\r\ndata: {\"type\":\"response.content_part.added\",\"output_index\":0,"
      "\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\"},\"brand_new_field\":1}\r\n\r\n"
      "event: response.output_text.delta\r\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,"
      "\"content_index\":0,\"delta\":\"Hel\"}\r\n\r\n"
      "event: response.output_text.annotation.added\r\ndata: {\"type\":\"response.output_text.annotation.added\","
      "\"output_index\":0,\"annotation\":{}}\r\n\r\n"
      "event: response.web_search_call.searching\r\ndata: {\"type\":\"response.web_search_call.searching\"}\r\n\r\n"
      "event: response.output_text.delta\r\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":0,"
      "\"content_index\":0,\"delta\":\"lo\"}\r\n\r\n"
      "event: response.output_text.done\r\ndata: {\"type\":\"response.output_text.done\",\"output_index\":0,"
      "\"content_index\":0,\"text\":\"Hello\"}\r\n\r\n"
      "event: response.output_item.done\r\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,"
      "\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"content\":[{\"type\":\"output_text\",\"text\":\"Hello\"}]}}\r\n\r\n"
      "event: response.completed\r\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\","
      "\"usage\":{\"input_tokens\":5,\"input_tokens_details\":{\"cached_tokens\":2},\"output_tokens\":3}}}          \r\n\r\n"
      "data: [DONE]\r\n\r\n";
  const Assembled got = decodeEveryWay(body);
  BOOST_TEST(got.id == "resp_q");
  BOOST_TEST(got.message_starts == 1);
  BOOST_REQUIRE_EQUAL(got.blocks.size(), 1u);
  BOOST_TEST(got.blocks[0].text == "Hello");
  BOOST_TEST(got.usage.cache_read_tokens == 2);
  BOOST_TEST((got.stop_reason == StopReason::EndTurn));
  BOOST_TEST(got.errors.empty());
}

BOOST_AUTO_TEST_CASE(refusals_and_truncation_set_the_stop_reason) {
  std::string refusal;
  refusal += frame({{"type", "response.created"}, {"response", {{"id", "r"}}}});
  refusal += frame({{"type", "response.output_item.added"}, {"output_index", 0}, {"item", {{"type", "message"}}}});
  refusal += frame({{"type", "response.content_part.added"}, {"output_index", 0}, {"content_index", 0},
                    {"part", {{"type", "refusal"}, {"refusal", ""}}}});
  refusal += frame({{"type", "response.refusal.delta"}, {"output_index", 0}, {"content_index", 0}, {"delta", "I can't."}});
  refusal += frame({{"type", "response.refusal.done"}, {"output_index", 0}, {"content_index", 0}, {"refusal", "I can't."}});
  refusal += frame({{"type", "response.completed"}, {"response", {{"status", "completed"}}}});
  Assembled got = decodeEveryWay(refusal);
  BOOST_TEST(got.blocks.at(0).text == "I can't.");
  BOOST_TEST((got.stop_reason == StopReason::Refusal));
  BOOST_TEST(!got.usage_reported);

  std::string cut;
  cut += frame({{"type", "response.created"}, {"response", {{"id", "r"}}}});
  cut += frame({{"type", "response.output_text.delta"}, {"output_index", 0}, {"content_index", 0}, {"delta", "Once upon"}});
  cut += frame({{"type", "response.incomplete"},
                {"response", {{"status", "incomplete"}, {"incomplete_details", {{"reason", "max_output_tokens"}}}}}});
  got = decodeEveryWay(cut);
  BOOST_TEST(got.blocks.at(0).text == "Once upon");
  BOOST_TEST(got.blocks.at(0).stopped);
  BOOST_TEST((got.stop_reason == StopReason::MaxTokens));
}

BOOST_AUTO_TEST_CASE(documented_flat_errors_failed_responses_and_garbage_become_errors) {
  std::string flat = frame({{"type", "response.created"}, {"response", {{"id", "r"}}}});
  flat += frame({{"type", "error"}, {"code", "rate_limit_exceeded"}, {"message", "slow down"}, {"param", nullptr}});
  flat += frame({{"type", "response.failed"}, {"response", {{"status", "failed"}, {"error", {{"code", "x"}, {"message", "y"}}}}}});
  Assembled got = decodeEveryWay(flat);
  BOOST_REQUIRE_EQUAL(got.errors.size(), 1u);
  BOOST_TEST(got.errors[0].status == 429);
  BOOST_TEST(got.errors[0].key == "rate_limit_exceeded");
  BOOST_TEST(got.errors[0].message == "slow down");

  std::string failed = frame({{"type", "response.created"}, {"response", {{"id", "r"}}}});
  failed += frame({{"type", "response.failed"},
                   {"response", {{"status", "failed"}, {"error", {{"code", "server_error"}, {"message", "boom"}}}}}});
  got = decodeEveryWay(failed);
  BOOST_REQUIRE_EQUAL(got.errors.size(), 1u);
  BOOST_TEST(got.errors[0].status == 500);
  BOOST_TEST(got.errors[0].key == "server_error");

  got = test::assemble(test::decodeWhole("event: response.created\ndata: {\"type\":\"response.created\",\n\n"));
  BOOST_REQUIRE_EQUAL(got.errors.size(), 1u);
  BOOST_TEST(got.errors[0].status == 502);
  BOOST_TEST(got.errors[0].key == "upstream_invalid_response");
}

BOOST_AUTO_TEST_CASE(events_come_out_as_soon_as_their_bytes_are_complete) {
  const auto lines = test::splitResponses(test::fixtureLines(kReasoningStream))[3];
  auto decoder = makeStreamDecoder();
  const std::string created = sseFrame("response.created", lines[0]);
  BOOST_TEST(decoder->feed(created.substr(0, created.size() - 1)).empty());
  const auto started = decoder->feed(created.substr(created.size() - 1));
  BOOST_REQUIRE_EQUAL(started.size(), 1u);
  BOOST_TEST((started[0].type == StreamEvent::Type::MessageStart));
  decoder->feed(sseFrame("response.in_progress", lines[1]) + sseFrame("response.output_item.added", lines[2]) +
                sseFrame("response.content_part.added", lines[3]));
  const auto delta = decoder->feed(sseFrame("response.output_text.delta", lines[4]));
  BOOST_REQUIRE_EQUAL(delta.size(), 1u);
  BOOST_TEST(delta[0].delta == "The");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::wire::openai_responses
