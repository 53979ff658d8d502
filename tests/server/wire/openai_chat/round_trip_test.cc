#include <boost/test/unit_test.hpp>

#include "server/wire/openai_chat/codec.h"
#include "tests/server/wire/openai_chat/chat_fixtures.h"
#include "tests/server/wire/openai_chat/ir_builders.h"
#include "tests/server/wire/openai_chat/ir_json.h"

namespace chat = sluice::wire::openai_chat;
using namespace sluice::wire::openai_chat::testing;
using sluice::wire::EncodeOptions;
using sluice::wire::Json;
using sluice::wire::Message;
using sluice::wire::Reasoning;
using sluice::wire::Request;
using sluice::wire::Response;
using sluice::wire::ResponseContext;
using sluice::wire::ResponseFormat;
using sluice::wire::Role;
using sluice::wire::StopReason;
using sluice::wire::ToolChoice;

namespace {

Request throughTheWire(const Request& request) {
  EncodeOptions options;
  options.upstream_model = request.model;
  const auto body = chat::encodeRequest(request, options);
  BOOST_REQUIRE(body.has_value());
  const auto decoded = chat::decodeRequest(*body);
  BOOST_REQUIRE_MESSAGE(decoded.has_value(), "decode failed: " + (decoded ? std::string() : decoded.error().message));
  return *decoded;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(round_trip)

BOOST_AUTO_TEST_CASE(a_full_request_survives_encode_then_decode) {
  Request request;
  request.model = "gpt-4.1";
  request.system = {text("You are terse.")};
  request.messages.push_back(Message{Role::User, {text("Look:"), imageUrl("https://example.com/a.png"),
                                                  imageBase64("image/png", "iVBORw0KGgo=")}});
  request.messages.push_back(Message{Role::Assistant, {thinking("Need the weather."), text("Checking both."),
                                                       toolUse("call_1", "weather", Json{{"city", "Paris"}}),
                                                       toolUse("call_2", "now", Json::object())}});
  request.messages.push_back(Message{Role::User, {toolResult("call_1", {text("sunny")}), toolResult("call_2", {text("noon")}),
                                                  text("Thanks, and tomorrow?")}});
  request.messages.push_back(Message{Role::Assistant, {text("Rain.")}});
  auto tool = functionTool("weather", "Weather by city", Json::parse(R"({"type":"object","properties":{"city":{"type":"string"}}})"));
  tool.strict = true;
  request.tools = {tool, functionTool("now", "", Json::object())};
  request.tool_choice = ToolChoice{ToolChoice::Mode::Tool, "weather", false};
  request.parallel_tool_calls = false;
  request.max_tokens = 1024;
  request.temperature = 0.5;
  request.top_p = 0.9;
  request.stop_sequences = {"END"};
  request.stream = true;
  request.response_format = ResponseFormat{ResponseFormat::Kind::JsonSchema, "answer", Json::parse(R"({"type":"object"})"), true};
  request.reasoning = Reasoning{true, std::nullopt, "medium", ""};
  request.user = "user-7";
  BOOST_TEST(toJson(throughTheWire(request)).dump(1) == toJson(request).dump(1));
}

BOOST_AUTO_TEST_CASE(a_minimal_request_survives_encode_then_decode) {
  Request request;
  request.model = "m";
  request.messages.push_back(Message{Role::User, {text("hi")}});
  BOOST_TEST(toJson(throughTheWire(request)).dump(1) == toJson(request).dump(1));
}

BOOST_AUTO_TEST_CASE(a_recorded_client_body_survives_decode_then_encode) {
  Json body = yamlToJson(loadCassette("openai-chat/pydantic-ai__test_run_stream_sync_streams_real_model.yaml")[1]["request"]["parsed_body"]);
  const auto request = chat::decodeRequest(body.dump());
  BOOST_REQUIRE(request.has_value());
  EncodeOptions options;
  options.upstream_model = "gpt-4o-mini";
  const auto encoded = chat::encodeRequest(*request, options);
  BOOST_REQUIRE(encoded.has_value());
  body["tools"][0]["function"].erase("description");  // an empty description is not sent
  // Compared without key order.
  BOOST_TEST(nlohmann::json::parse(*encoded) == nlohmann::json::parse(body.dump()));
}

BOOST_AUTO_TEST_CASE(a_response_survives_encode_then_decode) {
  Response response;
  response.id = "chatcmpl-req-1";
  response.model = "gpt-4.1";
  response.content = {thinking("Weighing it."), text("Both cities:"), toolUse("call_1", "weather", Json{{"city", "Paris"}}),
                      toolUse("call_2", "weather", Json{{"city", "Rome"}})};
  response.stop_reason = StopReason::ToolUse;
  response.usage.input_tokens = 4020;
  response.usage.output_tokens = 50;
  response.usage.cache_read_tokens = 4000;
  response.usage.cache_write_tokens = 12;
  response.usage.reasoning_tokens = 30;
  response.usage_reported = true;
  const ResponseContext context{"gpt-4.1", "req-1", 1770000000};
  const auto decoded = chat::decodeResponse(chat::encodeResponse(response, context));
  BOOST_REQUIRE(decoded.has_value());
  BOOST_TEST(toJson(*decoded).dump(1) == toJson(response).dump(1));
}

BOOST_AUTO_TEST_CASE(stop_reasons_chat_can_express_survive_the_round_trip) {
  for (const StopReason reason : {StopReason::EndTurn, StopReason::MaxTokens, StopReason::ToolUse, StopReason::Refusal}) {
    Response response;
    response.content = {text("x")};
    if (reason == StopReason::ToolUse) response.content.push_back(toolUse("c", "f", Json::object()));
    response.stop_reason = reason;
    const auto decoded = chat::decodeResponse(chat::encodeResponse(response, ResponseContext{"m", "r", 1}));
    BOOST_REQUIRE(decoded.has_value());
    BOOST_TEST((decoded->stop_reason == reason));
  }
}

BOOST_AUTO_TEST_CASE(a_recorded_response_survives_decode_encode_decode) {
  const auto first = chat::decodeResponse(readFixture("openai-chat/vercel-ai__openai-text.json"));
  BOOST_REQUIRE(first.has_value());
  const ResponseContext context{first->model, "", 1770933883};
  const auto second = chat::decodeResponse(chat::encodeResponse(*first, context));
  BOOST_REQUIRE(second.has_value());
  BOOST_TEST(toJson(*second).dump(1) == toJson(*first).dump(1));
}

BOOST_AUTO_TEST_SUITE_END()
