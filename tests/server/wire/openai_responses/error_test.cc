#include <chrono>

#include <boost/test/unit_test.hpp>

#include "server/wire/codec.h"
#include "server/wire/openai_responses/codec.h"
#include "tests/server/wire/openai_responses/test_support.h"

namespace sluice::wire::openai_responses {

BOOST_AUTO_TEST_SUITE(error)

BOOST_AUTO_TEST_CASE(maps_the_recorded_insufficient_quota_body_and_keeps_retry_after) {
  const ApiError error = decodeError(429, test::readFixture("openai-responses/vercel-ai__openai-error.1.json"), 20);
  BOOST_TEST(error.status == 429);
  BOOST_TEST(error.key == "insufficient_quota");
  BOOST_TEST(error.message.starts_with("You exceeded your current quota"));
  BOOST_TEST(!error.param.has_value());
  BOOST_TEST((error.retry_after_seconds == std::optional<int>(20)));
}

BOOST_AUTO_TEST_CASE(falls_back_to_the_type_when_the_code_is_null) {
  const ApiError error = decodeError(400, test::readFixture("openai-responses/vercel-ai__reasoning-model-temperature-error.json"), std::nullopt);
  BOOST_TEST(error.status == 400);
  BOOST_TEST(error.key == "invalid_request_error");
  BOOST_TEST(error.message == "Unsupported parameter: 'temperature' is not supported with this model.");
  BOOST_TEST(error.param.value_or("") == "temperature");
  BOOST_TEST(!error.retry_after_seconds.has_value());
}

BOOST_AUTO_TEST_CASE(maps_the_recorded_cassette_errors) {
  struct Case {
    const char* file;
    int status;
    const char* key;
    const char* param;
  };
  for (const Case& c : {Case{"openai-responses/pydantic-ai__test_model_name_suggestion--openai-responses.yaml", 400,
                             "model_not_found", "model"},
                        Case{"openai-responses/pydantic-ai__test_openai_responses_model_http_error.yaml", 400,
                             "decimal_below_min_value", "temperature"}}) {
    const auto interaction = test::loadCassette(c.file)[0];
    const int status = interaction["response"]["status"]["code"].as<int>();
    const Json body = test::yamlToJson(interaction["response"]["parsed_body"]);
    const ApiError error = decodeError(status, body.dump(), std::nullopt);
    BOOST_TEST(error.status == c.status);
    BOOST_TEST(error.key == c.key);
    BOOST_TEST(error.param.value_or("") == c.param);
    BOOST_TEST(error.message == body["error"]["message"].get<std::string>());
  }
}

BOOST_AUTO_TEST_CASE(survives_bodies_that_are_not_openai_errors) {
  ApiError error = decodeError(502, "<html>Bad gateway</html>", std::nullopt);
  BOOST_TEST(error.status == 502);
  BOOST_TEST(error.key == "server_error");
  BOOST_TEST(error.message == "<html>Bad gateway</html>");
  error = decodeError(503, "", std::nullopt);
  BOOST_TEST(error.key == "service_unavailable_error");
  BOOST_TEST(error.message == "the provider answered HTTP 503");
  error = decodeError(429, R"({"error":"slow down"})", std::nullopt);
  BOOST_TEST(error.key == "rate_limit_error");
  BOOST_TEST(error.message == "slow down");
}

BOOST_AUTO_TEST_CASE(a_raw_body_becomes_a_message_that_is_safe_to_render) {
  std::string body(498, 'x');
  body += "\xC3\xA9\xC3\xA9";  // "éé": the limit falls inside the second one
  ApiError error = decodeError(500, body, std::nullopt);
  BOOST_TEST(error.message.size() == 500u);
  BOOST_TEST(error.message.ends_with("\xC3\xA9"));
  error = decodeError(500, "bad \xFF byte", std::nullopt);
  BOOST_TEST(error.message == "bad \xEF\xBF\xBD byte");  // U+FFFD, as every codec repairs
  BOOST_TEST(!renderError(catalog::Wire::OpenAIResponses, error, "req-1").empty());
}

BOOST_AUTO_TEST_CASE(reads_retry_after_seconds_and_dates) {
  const auto now = std::chrono::sys_days(std::chrono::year(2015) / 10 / 21) + std::chrono::hours(7) + std::chrono::minutes(27);
  const auto read = [&](std::string_view header) {
    return wire::decodeError(catalog::Wire::OpenAIResponses, 429, "{}", header, now).retry_after_seconds;
  };
  BOOST_TEST((read(" 7 ") == std::optional<int>(7)));
  BOOST_TEST((read("1.5") == std::optional<int>(2)));
  BOOST_TEST((read("3.0") == std::optional<int>(3)));
  BOOST_TEST((read("Wed, 21 Oct 2015 07:28:00 GMT") == std::optional<int>(60)));
  BOOST_TEST(!read("").has_value());
  BOOST_TEST((decodeError(429, "{}", 5).retry_after_seconds == std::optional<int>(5)));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace sluice::wire::openai_responses
