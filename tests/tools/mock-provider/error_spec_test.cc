#include "tools/mock-provider/error_spec.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

using namespace sluice::mock;
using nlohmann::json;

BOOST_AUTO_TEST_SUITE(error_spec)

BOOST_AUTO_TEST_CASE(anthropic_types_follow_the_status_table) {
  const Script none;
  BOOST_TEST(errorForStatus(Wire::Anthropic, 400, none).type == "invalid_request_error");
  BOOST_TEST(errorForStatus(Wire::Anthropic, 401, none).type == "authentication_error");
  BOOST_TEST(errorForStatus(Wire::Anthropic, 404, none).type == "not_found_error");
  BOOST_TEST(errorForStatus(Wire::Anthropic, 413, none).type == "request_too_large");
  BOOST_TEST(errorForStatus(Wire::Anthropic, 429, none).type == "rate_limit_error");
  BOOST_TEST(errorForStatus(Wire::Anthropic, 500, none).type == "api_error");
  BOOST_TEST(errorForStatus(Wire::Anthropic, 504, none).type == "timeout_error");
  BOOST_TEST(errorForStatus(Wire::Anthropic, 529, none).type == "overloaded_error");
}

BOOST_AUTO_TEST_CASE(openai_and_gemini_names_follow_their_tables) {
  const Script none;
  BOOST_TEST(*errorForStatus(Wire::OpenAiChat, 429, none).code == "rate_limit_exceeded");
  BOOST_TEST(*errorForStatus(Wire::OpenAiResponses, 404, none).code == "model_not_found");
  BOOST_TEST(errorForStatus(Wire::OpenAiChat, 503, none).type == "service_unavailable_error");
  BOOST_TEST(errorForStatus(Wire::OpenAiChat, 500, none).type == "server_error");
  BOOST_TEST(errorForStatus(Wire::Gemini, 400, none).type == "INVALID_ARGUMENT");
  BOOST_TEST(errorForStatus(Wire::Gemini, 403, none).type == "PERMISSION_DENIED");
  BOOST_TEST(errorForStatus(Wire::Gemini, 404, none).type == "NOT_FOUND");
  BOOST_TEST(errorForStatus(Wire::Gemini, 429, none).type == "RESOURCE_EXHAUSTED");
  BOOST_TEST(errorForStatus(Wire::Gemini, 500, none).type == "INTERNAL");
  BOOST_TEST(errorForStatus(Wire::Gemini, 503, none).type == "UNAVAILABLE");
  BOOST_TEST(errorForStatus(Wire::Gemini, 504, none).type == "DEADLINE_EXCEEDED");
}

BOOST_AUTO_TEST_CASE(script_overrides_type_message_and_code) {
  Script script;
  script.error_type = "insufficient_quota";
  script.error_code = "insufficient_quota";
  script.error_message = "You exceeded your current quota";
  const ErrorSpec error = errorForStatus(Wire::OpenAiChat, 429, script);
  const json body = json::parse(renderErrorBody(Wire::OpenAiChat, error, "req_1"));
  BOOST_TEST(body["error"]["type"] == "insufficient_quota");
  BOOST_TEST(body["error"]["code"] == "insufficient_quota");
  BOOST_TEST(body["error"]["message"] == "You exceeded your current quota");
  BOOST_TEST(body["error"]["param"].is_null());
}

BOOST_AUTO_TEST_CASE(renders_each_wire_error_shape) {
  const Script none;
  const json anthropic = json::parse(renderErrorBody(Wire::Anthropic, errorForStatus(Wire::Anthropic, 529, none), "req_9"));
  BOOST_TEST(anthropic["type"] == "error");
  BOOST_TEST(anthropic["error"]["type"] == "overloaded_error");
  BOOST_TEST(anthropic["request_id"] == "req_9");

  const json openai = json::parse(renderErrorBody(Wire::OpenAiResponses, errorForStatus(Wire::OpenAiResponses, 400, none), "r"));
  BOOST_TEST(openai["error"].size() == 4u);
  BOOST_TEST(openai["error"].contains("param"));
  BOOST_TEST(openai["error"].contains("code"));

  Script retry;
  retry.retry_after = "34";
  const json gemini = json::parse(renderErrorBody(Wire::Gemini, errorForStatus(Wire::Gemini, 429, retry), "r"));
  BOOST_TEST(gemini["error"]["code"] == 429);
  BOOST_TEST(gemini["error"]["status"] == "RESOURCE_EXHAUSTED");
  BOOST_TEST(gemini["error"]["details"][0]["@type"] == "type.googleapis.com/google.rpc.RetryInfo");
  BOOST_TEST(gemini["error"]["details"][0]["retryDelay"] == "34s");
}

BOOST_AUTO_TEST_CASE(in_stream_errors_default_to_each_wire_overload) {
  const Script none;
  BOOST_TEST(inStreamErrorFor(Wire::Anthropic, none).type == "overloaded_error");
  BOOST_TEST(inStreamErrorFor(Wire::Anthropic, none).message == "Overloaded");
  BOOST_TEST(inStreamErrorFor(Wire::OpenAiChat, none).type == "server_error");
  BOOST_TEST(inStreamErrorFor(Wire::Gemini, none).status == 503);
  BOOST_TEST(inStreamErrorFor(Wire::Gemini, none).type == "UNAVAILABLE");
}

BOOST_AUTO_TEST_CASE(reason_phrases_include_529) {
  BOOST_TEST(reasonPhrase(529) == "Overloaded");
  BOOST_TEST(reasonPhrase(429) == "Too Many Requests");
}

BOOST_AUTO_TEST_SUITE_END()
