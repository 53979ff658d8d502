#include <boost/test/unit_test.hpp>

#include "server/wire/openai_responses/codec.h"
#include "tests/server/wire/openai_responses/test_support.h"

namespace sluice::wire::openai_responses {
namespace {

using Type = ContentBlock::Type;

Response decoded(std::string_view body) {
  auto response = decodeResponse(body);
  if (!response) BOOST_FAIL("decodeResponse refused: " + response.error().message);
  return *response;
}

ContentBlock block(Type type) {
  ContentBlock out;
  out.type = type;
  return out;
}

Response sampleResponse() {
  Response response;
  response.id = "resp_req-1";
  response.model = "gpt-5";
  ContentBlock thinking = block(Type::Thinking);
  thinking.text = "Two lookups.";
  thinking.signature = "gAAAA-enc";
  thinking.signature_wire = catalog::Wire::OpenAIResponses;
  thinking.reasoning_id = "rs_up_1";
  ContentBlock text = block(Type::Text);
  text.text = "Checking both.";
  ContentBlock first = block(Type::ToolUse);
  first.tool_id = "call_1";
  first.tool_name = "weather";
  first.tool_input = {{"city", "Paris"}};
  ContentBlock second = block(Type::ToolUse);
  second.tool_id = "call_2";
  second.tool_name = "weather";
  second.tool_input = {{"city", "Oslo"}};
  response.content = {thinking, text, first, second};
  response.stop_reason = StopReason::ToolUse;
  response.usage = {120, 80, 100, 7, 40};
  response.usage_reported = true;
  return response;
}

const ResponseContext kContext{"gpt-5", "req-1", 1765552659};

}  // namespace

BOOST_AUTO_TEST_SUITE(response)

BOOST_AUTO_TEST_CASE(decodes_the_recorded_reasoning_response) {
  const Response response = decoded(test::readFixture("openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.json"));
  BOOST_TEST(response.id == "resp_0f35ed53160b395301693cc957829881909359e7f80cdd20b5");
  BOOST_TEST(response.model == "gpt-5-mini-2025-08-07");
  BOOST_REQUIRE_EQUAL(response.content.size(), 2u);
  const ContentBlock& thinking = response.content[0];
  BOOST_TEST((thinking.type == Type::Thinking));
  BOOST_TEST(thinking.text.starts_with("**Reporting final result**"));
  BOOST_TEST(thinking.signature.starts_with("gAAAAABpPMlcH0HHEv5_ozHwP5Gxz5ZLE7A8Aw7GK94sa1KWHqXLrAch29KZrZqCzH6"));
  BOOST_TEST(thinking.signature.ends_with("C7eJRZj1LtUqh2kCQ=="));
  BOOST_TEST((thinking.signature_wire == catalog::Wire::OpenAIResponses));
  BOOST_TEST(thinking.reasoning_id == "rs_0f35ed53160b395301693cc95817ac8190b978637daea4987e");
  BOOST_TEST((response.content[1].type == Type::Text));
  BOOST_TEST(response.content[1].text == "12 + 7 = 19\n19 × 3 = 57\n57 × 10 = 570\n\nFinal result: 570");
  BOOST_TEST((response.stop_reason == StopReason::EndTurn));
  BOOST_TEST(response.usage_reported);
  BOOST_TEST(response.usage.input_tokens == 865);
  BOOST_TEST(response.usage.cache_read_tokens == 0);
  BOOST_TEST(response.usage.output_tokens == 163);
  BOOST_TEST(response.usage.reasoning_tokens == 128);
}

BOOST_AUTO_TEST_CASE(decodes_cache_writes_then_cache_reads_from_the_prompt_cache_recording) {
  const auto interactions = test::loadCassette("openai-responses/pydantic-ai__test_openai_responses_prompt_cache_e2e.yaml");
  BOOST_REQUIRE_EQUAL(interactions.size(), 2u);
  const Response first = decoded(test::yamlToJson(interactions[0]["response"]["parsed_body"]).dump());
  const Response second = decoded(test::yamlToJson(interactions[1]["response"]["parsed_body"]).dump());
  for (const Response* response : {&first, &second}) {
    BOOST_REQUIRE_EQUAL(response->content.size(), 1u);
    BOOST_TEST(response->content[0].text == "OK");
    BOOST_TEST((response->stop_reason == StopReason::EndTurn));
    BOOST_TEST(response->usage.input_tokens == 4020);  // includes the cached tokens
    BOOST_TEST(response->usage.output_tokens == 5);
    BOOST_TEST(response->model == "gpt-5.6-sol");
  }
  BOOST_TEST(first.usage.cache_write_tokens == 4012);
  BOOST_TEST(first.usage.cache_read_tokens == 0);
  BOOST_TEST(second.usage.cache_write_tokens == 0);
  BOOST_TEST(second.usage.cache_read_tokens == 4012);
  BOOST_TEST(second.usage.uncachedInputTokens() == 8);
}

BOOST_AUTO_TEST_CASE(decodes_the_final_response_objects_of_the_recorded_stream) {
  const auto lines = test::fixtureLines("openai-responses/vercel-ai__openai-reasoning-encrypted-content.1.chunks.txt");
  std::vector<Response> responses;
  for (const auto& line : lines) {
    const Json event = Json::parse(line);
    if (event["type"] == "response.completed") responses.push_back(decoded(event["response"].dump()));
  }
  BOOST_REQUIRE_EQUAL(responses.size(), 4u);
  BOOST_TEST((responses[0].stop_reason == StopReason::ToolUse));
  BOOST_REQUIRE_EQUAL(responses[0].content.size(), 2u);
  BOOST_TEST((responses[0].content[0].type == Type::Thinking));
  BOOST_TEST(responses[0].content[1].tool_id == "call_AB6AaRZ1FYZB2RwS6A5vbdqn");
  BOOST_TEST(responses[0].content[1].tool_input == Json::parse(R"({"a":12,"b":7,"op":"add"})"));
  BOOST_TEST(responses[1].content.at(0).tool_input == Json::parse(R"({"a":19,"b":3,"op":"multiply"})"));
  BOOST_TEST(responses[2].content.at(0).tool_input == Json::parse(R"({"a":57,"b":10,"op":"multiply"})"));
  BOOST_TEST((responses[3].stop_reason == StopReason::EndTurn));
  BOOST_TEST(responses[3].content.at(0).text == "The final result is **570**.");
  const int64_t inputs[] = {134, 221, 260, 299};
  const int64_t outputs[] = {28, 26, 26, 12};
  for (size_t i = 0; i < 4; ++i) {
    BOOST_TEST(responses[i].usage.input_tokens == inputs[i]);
    BOOST_TEST(responses[i].usage.output_tokens == outputs[i]);
  }
}

BOOST_AUTO_TEST_CASE(encodes_the_exact_response_object_with_minted_ids) {
  const Json body = Json::parse(encodeResponse(sampleResponse(), kContext));
  const Json expected = Json::parse(R"({
    "id": "resp_req-1", "object": "response", "created_at": 1765552659, "status": "completed",
    "background": false, "error": null, "incomplete_details": null, "instructions": null,
    "max_output_tokens": null, "model": "gpt-5",
    "output": [
      {"id": "rs_up_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Two lookups."}],
       "encrypted_content": "gAAAA-enc"},
      {"id": "msg_req-1_1", "type": "message", "status": "completed",
       "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": "Checking both."}],
       "role": "assistant"},
      {"id": "fc_req-1_2", "type": "function_call", "status": "completed",
       "arguments": "{\"city\":\"Paris\"}", "call_id": "call_1", "name": "weather"},
      {"id": "fc_req-1_3", "type": "function_call", "status": "completed",
       "arguments": "{\"city\":\"Oslo\"}", "call_id": "call_2", "name": "weather"}
    ],
    "parallel_tool_calls": true, "previous_response_id": null,
    "reasoning": {"effort": null, "summary": null}, "store": false, "temperature": null,
    "text": {"format": {"type": "text"}}, "tool_choice": "auto", "tools": [], "top_p": null,
    "truncation": "disabled",
    "usage": {"input_tokens": 120, "input_tokens_details": {"cached_tokens": 100, "cache_write_tokens": 7},
              "output_tokens": 80, "output_tokens_details": {"reasoning_tokens": 40}, "total_tokens": 200},
    "user": null, "metadata": {}
  })");
  BOOST_TEST(body.dump(2) == expected.dump(2));
}

BOOST_AUTO_TEST_CASE(decoding_the_encoded_response_gives_it_back) {
  for (StopReason stop : {StopReason::ToolUse, StopReason::EndTurn, StopReason::MaxTokens, StopReason::Refusal}) {
    Response original = sampleResponse();
    if (stop != StopReason::ToolUse) original.content.resize(2);  // no calls: the stop says the rest
    original.stop_reason = stop;
    const Response back = decoded(encodeResponse(original, kContext));
    BOOST_TEST(back.id == original.id);
    BOOST_TEST(back.model == original.model);
    BOOST_TEST((back.stop_reason == stop));
    BOOST_REQUIRE_EQUAL(back.content.size(), original.content.size());
    for (size_t i = 0; i < back.content.size(); ++i) {
      BOOST_TEST((back.content[i].type == original.content[i].type));
      BOOST_TEST(back.content[i].text == original.content[i].text);
      BOOST_TEST(back.content[i].tool_id == original.content[i].tool_id);
      BOOST_TEST(back.content[i].tool_name == original.content[i].tool_name);
      BOOST_TEST(back.content[i].tool_input == original.content[i].tool_input);
      BOOST_TEST(back.content[i].signature == original.content[i].signature);
      BOOST_TEST((back.content[i].signature_wire == original.content[i].signature_wire));
      BOOST_TEST(back.content[i].reasoning_id == original.content[i].reasoning_id);
    }
    BOOST_TEST(back.usage_reported);
    BOOST_TEST(back.usage.input_tokens == 120);
    BOOST_TEST(back.usage.output_tokens == 80);
    BOOST_TEST(back.usage.cache_read_tokens == 100);
    BOOST_TEST(back.usage.cache_write_tokens == 7);
    BOOST_TEST(back.usage.reasoning_tokens == 40);
  }
}

BOOST_AUTO_TEST_CASE(stops_map_to_status_and_incomplete_details) {
  Response response = sampleResponse();
  response.content.resize(2);
  response.stop_reason = StopReason::MaxTokens;
  Json body = Json::parse(encodeResponse(response, kContext));
  BOOST_TEST(body["status"] == "incomplete");
  BOOST_TEST(body["incomplete_details"] == Json({{"reason", "max_output_tokens"}}));
  response.stop_reason = StopReason::Refusal;
  body = Json::parse(encodeResponse(response, kContext));
  BOOST_TEST(body["incomplete_details"]["reason"] == "content_filter");
  response.stop_reason = StopReason::StopSequence;
  body = Json::parse(encodeResponse(response, kContext));
  BOOST_TEST(body["status"] == "completed");
  BOOST_TEST(body["incomplete_details"].is_null());
}

BOOST_AUTO_TEST_CASE(foreign_signatures_travel_in_an_envelope_and_unreported_usage_is_null) {
  Response response;
  ContentBlock thinking = block(Type::Thinking);
  thinking.text = "pondering";
  thinking.signature = "anthropic-signature";
  thinking.signature_wire = catalog::Wire::Anthropic;
  response.content = {thinking, block(Type::RedactedThinking)};
  const Json body = Json::parse(encodeResponse(response, kContext));
  BOOST_REQUIRE_EQUAL(body["output"].size(), 1u);
  BOOST_TEST(body["output"][0]["id"] == "rs_req-1_0");
  BOOST_TEST(body["output"][0]["encrypted_content"] == "sluice:anthropic::anthropic-signature");
  BOOST_TEST(body["output"][0]["summary"][0]["text"] == "pondering");
  BOOST_TEST(body["usage"].is_null());
}

BOOST_AUTO_TEST_CASE(refusals_function_calls_cut_short_and_hosted_items_decode) {
  const Json refusal = Json::parse(R"({"id":"resp_1","object":"response","status":"completed","model":"m",
    "output":[{"type":"message","role":"assistant","content":[{"type":"refusal","refusal":"No."}]}],
    "usage":{"input_tokens":3,"output_tokens":1}})");
  Response response = decoded(refusal.dump());
  BOOST_TEST((response.stop_reason == StopReason::Refusal));
  BOOST_TEST(response.content.at(0).text == "No.");

  const Json truncated = Json::parse(R"({"id":"resp_2","status":"incomplete",
    "incomplete_details":{"reason":"max_output_tokens"},
    "output":[{"type":"web_search_call","id":"ws_1","status":"completed"},
              {"type":"function_call","call_id":"c","name":"f","arguments":"{\"a\":"}]})");
  response = decoded(truncated.dump());
  BOOST_TEST((response.stop_reason == StopReason::MaxTokens));
  BOOST_TEST((response.content.at(0).type == Type::Opaque));
  BOOST_TEST((response.content.at(0).raw_wire == catalog::Wire::OpenAIResponses));
  BOOST_TEST(response.content.at(1).tool_input == Json::object());
  BOOST_TEST(!response.usage_reported);
}

BOOST_AUTO_TEST_CASE(bad_or_failed_provider_bodies_are_errors_not_exceptions) {
  for (const char* body : {"", "not json", "[]", R"({"id":"x"})", R"({"output":[1]})",
                           R"({"status":"completed","output":[{"type":"function_call","call_id":"c","name":"f","arguments":"{oops"}]})"}) {
    auto response = decodeResponse(body);
    BOOST_REQUIRE(!response.has_value());
    BOOST_TEST(response.error().status == 502);
    BOOST_TEST(response.error().key == "upstream_invalid_response");
  }
  auto failed = decodeResponse(R"({"status":"failed","error":{"code":"server_error","message":"boom"},"output":[]})");
  BOOST_REQUIRE(!failed.has_value());
  BOOST_TEST(failed.error().status == 500);
  BOOST_TEST(failed.error().key == "server_error");
  BOOST_TEST(failed.error().message == "boom");
}

// Codex declares each MCP server's tools as a `namespace` tool and calls them with the function's
// name and its namespace: a masked (translated) turn must give both back, whole and streamed, and
// send both on in the next turn's history.
BOOST_AUTO_TEST_CASE(a_function_call_keeps_its_namespace_both_ways) {
  const Response response = decoded(R"({"id":"resp_1","object":"response","status":"completed","model":"gpt-5",
    "output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"echo","namespace":"mcp__sluice",
               "arguments":"{\"text\":\"hi\"}","status":"completed"}],
    "usage":{"input_tokens":5,"output_tokens":3,"total_tokens":8}})");
  BOOST_REQUIRE(response.content.size() == 1u);
  BOOST_TEST(response.content[0].tool_namespace == "mcp__sluice");
  const Json encoded = Json::parse(encodeResponse(response, kContext));
  BOOST_TEST(encoded["output"][0]["namespace"] == "mcp__sluice");
  BOOST_TEST(encoded["output"][0]["name"] == "echo");

  auto request = decodeRequest(R"({"model":"gpt-5","input":[
    {"type":"function_call","call_id":"call_1","name":"echo","namespace":"mcp__sluice","arguments":"{}"},
    {"type":"function_call_output","call_id":"call_1","output":"echo: hi"}]})");
  BOOST_REQUIRE(request.has_value());
  auto body = encodeRequest(*request, {"gpt-5", 4096, std::nullopt});
  BOOST_REQUIRE(body.has_value());
  BOOST_TEST(Json::parse(*body)["input"][0]["namespace"] == "mcp__sluice", *body);

  // A call without a namespace has none written.
  Response plain = response;
  plain.content[0].tool_namespace.clear();
  BOOST_TEST(!Json::parse(encodeResponse(plain, kContext))["output"][0].contains("namespace"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::wire::openai_responses
