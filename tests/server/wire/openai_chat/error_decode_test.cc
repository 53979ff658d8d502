#include <chrono>

#include <boost/test/unit_test.hpp>

#include "server/wire/codec.h"
#include "server/wire/openai_chat/codec.h"
#include "tests/server/wire/openai_chat/chat_fixtures.h"

namespace chat = sluice::wire::openai_chat;
using namespace sluice::wire::openai_chat::testing;
using sluice::wire::Json;

namespace {

// The recorded status and body of a cassette's first interaction.
std::pair<int, std::string> recordedError(const std::string& cassette) {
  const auto interaction = loadCassette(cassette)[0];
  return {interaction["response"]["status"]["code"].as<int>(), yamlToJson(interaction["response"]["parsed_body"]).dump()};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(error_decode)

BOOST_AUTO_TEST_CASE(maps_recorded_model_not_found_404) {
  const auto [status, body] = recordedError("openai-chat/pydantic-ai__test_model_name_suggestion--openai-chat.yaml");
  const auto error = chat::decodeError(status, body, std::nullopt);
  BOOST_TEST(error.status == 404);
  BOOST_TEST(error.key == "model_not_found");
  BOOST_TEST(error.message == "The model `gpt-5.2-proo` does not exist or you do not have access to it.");
  BOOST_TEST(!error.param.has_value());
  BOOST_TEST(!error.retry_after_seconds.has_value());
}

BOOST_AUTO_TEST_CASE(maps_recorded_unsupported_developer_role_with_its_param) {
  const auto [status, body] = recordedError("openai-chat/pydantic-ai__test_openai_o1_mini_system_role--developer.yaml");
  const auto error = chat::decodeError(status, body, std::nullopt);
  BOOST_TEST(error.status == 400);
  BOOST_TEST(error.key == "unsupported_value");
  BOOST_REQUIRE(error.param.has_value());
  BOOST_TEST(*error.param == "messages[0].role");
  BOOST_TEST(error.message.find("does not support 'developer'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(maps_recorded_legacy_max_tokens_error) {
  const auto body = readFixture("openai-chat/vercel-ai__reasoning-model-legacy-parameter-error.json");
  const auto error = chat::decodeError(400, body, std::nullopt);
  BOOST_TEST(error.status == 400);
  BOOST_TEST(error.key == "unsupported_parameter");
  BOOST_REQUIRE(error.param.has_value());
  BOOST_TEST(*error.param == "max_tokens");
  BOOST_TEST(error.message.starts_with("Unsupported parameter: 'max_tokens' is not supported with this model."));
}

BOOST_AUTO_TEST_CASE(keys_on_type_when_code_is_null) {
  const auto error = chat::decodeError(
      503, R"({"error":{"message":"overloaded","type":"service_unavailable_error","param":null,"code":null}})", std::nullopt);
  BOOST_TEST(error.status == 503);
  BOOST_TEST(error.key == "service_unavailable_error");
  BOOST_TEST(error.message == "overloaded");
}

BOOST_AUTO_TEST_CASE(reads_retry_after_seconds_from_the_header) {
  const std::string body = R"({"error":{"message":"slow down","type":"requests","code":"rate_limit_exceeded"}})";
  const auto now = std::chrono::sys_days(std::chrono::year(2015) / 10 / 21) + std::chrono::hours(7) + std::chrono::minutes(27);
  const auto read = [&](std::string_view header) {
    return sluice::wire::decodeError(sluice::catalog::Wire::OpenAIChat, 429, body, header, now);
  };
  BOOST_TEST(read("20").retry_after_seconds.value_or(-1) == 20);
  BOOST_TEST(read(" 1.5 ").retry_after_seconds.value_or(-1) == 2);
  BOOST_TEST(read("Wed, 21 Oct 2015 07:28:00 GMT").retry_after_seconds.value_or(-1) == 60);
  BOOST_TEST(!read("").retry_after_seconds.has_value());
  BOOST_TEST(read("20").key == "rate_limit_exceeded");
  BOOST_TEST(chat::decodeError(429, body, 20).retry_after_seconds.value_or(-1) == 20);
}

// Azure OpenAI's prompt filter: a 400 whose code is content_filter, with its innererror. It stays a
// 400 (a client error, answered to the client, never failed over) keyed content_filter.
BOOST_AUTO_TEST_CASE(maps_azures_content_filter_refusal_with_its_innererror) {
  const auto error = chat::decodeError(
      400,
      R"({"error":{"message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy.","type":null,"param":"prompt","code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation","content_filter_result":{"violence":{"filtered":true,"severity":"high"}}}}})",
      std::nullopt);
  BOOST_TEST(error.status == 400);
  BOOST_TEST(error.key == "content_filter");
  BOOST_REQUIRE(error.param.has_value());
  BOOST_TEST(*error.param == "prompt");
  BOOST_TEST(error.message.starts_with("The response was filtered due to the prompt"));
}

// Azure's own error shape: {"error":{"code":"401","message"}} without a type.
BOOST_AUTO_TEST_CASE(maps_azures_code_and_message_error_shape) {
  const auto error = chat::decodeError(
      401, R"({"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint."}})",
      std::nullopt);
  BOOST_TEST(error.status == 401);
  BOOST_TEST(error.message == "Access denied due to invalid subscription key or wrong API endpoint.");
}

BOOST_AUTO_TEST_CASE(keeps_status_for_a_body_that_is_not_json) {
  const auto error = chat::decodeError(502, "<html>Bad Gateway</html>\n", std::nullopt);
  BOOST_TEST(error.status == 502);
  BOOST_TEST(error.key == "server_error");
  BOOST_TEST(error.message == "<html>Bad Gateway</html>");
}

BOOST_AUTO_TEST_CASE(accepts_string_errors_and_empty_bodies) {
  BOOST_TEST(chat::decodeError(400, R"({"error":"bad things"})", std::nullopt).message == "bad things");
  BOOST_TEST(chat::decodeError(404, R"({"message":"no such route"})", std::nullopt).message == "no such route");
  const auto empty = chat::decodeError(500, "", std::nullopt);
  BOOST_TEST(empty.status == 500);
  BOOST_TEST(!empty.message.empty());
}

BOOST_AUTO_TEST_CASE(cuts_an_invalid_utf8_body_into_a_renderable_message) {
  const std::string body = "oops \xff\xfe tail";
  const auto error = chat::decodeError(500, body, std::nullopt);
  BOOST_CHECK_NO_THROW(Json(error.message).dump());
}

BOOST_AUTO_TEST_SUITE_END()
