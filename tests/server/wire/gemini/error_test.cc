#include <chrono>

#include <boost/test/unit_test.hpp>

#include "server/wire/codec.h"
#include "server/wire/gemini/codec.h"
#include "tests/server/wire/gemini/test_support.h"

namespace sluice::wire::gemini {
namespace {

BOOST_AUTO_TEST_SUITE(error)

BOOST_AUTO_TEST_CASE(rate_limit_fixture_maps_status_message_and_retry_info) {
  const ApiError error = decodeError(429, test::readFixture("gemini/vercel-ai__google-429-retry-info.json"), std::nullopt);
  BOOST_TEST(error.status == 429);
  BOOST_TEST(error.key == "RESOURCE_EXHAUSTED");
  BOOST_TEST(error.message == "You exceeded your current quota, please check your plan.");
  BOOST_TEST(error.retry_after_seconds.value_or(-1) == 35);  // "34.4s", rounded up
}

BOOST_AUTO_TEST_CASE(not_found_cassette_maps_to_not_found) {
  const auto interactions = test::loadCassette("gemini/pydantic-ai__test_model_name_suggestion--google.yaml");
  BOOST_TEST_REQUIRE(interactions.size() == 1u);
  const ApiError error = decodeError(interactions[0].status, interactions[0].response_body, std::nullopt);
  BOOST_TEST(error.status == 404);
  BOOST_TEST(error.key == "NOT_FOUND");
  BOOST_TEST(error.message.starts_with("models/gemini-3.6-flahs is not found for API version v1beta"));
  BOOST_TEST(!error.retry_after_seconds.has_value());
}

BOOST_AUTO_TEST_CASE(retry_delay_is_rounded_up_to_whole_seconds) {
  const auto withDelay = [](const std::string& delay) {
    return decodeError(429, R"({"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED","details":[
        {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":)" + delay + "}]}}", std::nullopt);
  };
  BOOST_TEST(withDelay(R"("34s")").retry_after_seconds.value_or(-1) == 34);
  BOOST_TEST(withDelay(R"("1.5s")").retry_after_seconds.value_or(-1) == 2);
  BOOST_TEST(withDelay(R"("0s")").retry_after_seconds.value_or(-1) == 0);
  BOOST_TEST(withDelay(R"({"seconds":3,"nanos":1})").retry_after_seconds.value_or(-1) == 4);
  BOOST_TEST(!withDelay(R"("soon")").retry_after_seconds.has_value());
}

BOOST_AUTO_TEST_CASE(retry_after_header_is_used_when_the_body_has_no_retry_info) {
  const std::string body = R"({"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}})";
  const auto now = std::chrono::sys_days(std::chrono::year(2015) / 10 / 21) + std::chrono::hours(7) + std::chrono::minutes(27);
  const auto read = [&](const std::string& answer, std::string_view header) {
    return wire::decodeError(catalog::Wire::Gemini, 503, answer, header, now).retry_after_seconds.value_or(-1);
  };
  BOOST_TEST(read(body, "7") == 7);
  BOOST_TEST(read(body, " 2.5 ") == 3);
  BOOST_TEST(read(body, "Wed, 21 Oct 2015 07:28:00 GMT") == 60);
  BOOST_TEST(read(body, "Wed, 21 Oct 2026 07:28:00 GMT") == 86400);  // cut to wire::kMaxRetryAfter
  const std::string with_info = R"({"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"m","details":[
      {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"9s"}]}})";
  BOOST_TEST(read(with_info, "60") == 9);
}

BOOST_AUTO_TEST_CASE(field_violation_names_the_param) {
  const ApiError error = decodeError(400, R"({"error":{"code":400,"message":"Invalid value","status":"INVALID_ARGUMENT",
      "details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[
      {"field":"generation_config.temperature","description":"out of range"}]}]}})", std::nullopt);
  BOOST_TEST(error.key == "INVALID_ARGUMENT");
  BOOST_TEST(error.param.value_or("") == "generation_config.temperature");
}

BOOST_AUTO_TEST_CASE(array_wrapped_error_body_is_read) {
  const ApiError error = decodeError(400, R"([{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT",
      "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}])", std::nullopt);
  BOOST_TEST(error.status == 400);
  BOOST_TEST(error.key == "INVALID_ARGUMENT");
  BOOST_TEST(error.message == "API key not valid.");
}

BOOST_AUTO_TEST_CASE(non_json_body_keeps_status_and_names_it_like_gemini) {
  const ApiError error = decodeError(503, "<html>upstream connect error</html>", std::nullopt);
  BOOST_TEST(error.status == 503);
  BOOST_TEST(error.key == "UNAVAILABLE");
  BOOST_TEST(error.message == "<html>upstream connect error</html>");
  const ApiError empty = decodeError(500, "", std::nullopt);
  BOOST_TEST(empty.key == "INTERNAL");
  BOOST_TEST(empty.message == "gemini answered 500");
  const ApiError bad_utf8 = decodeError(502, std::string("bad \xff\xfe bytes"), std::nullopt);
  BOOST_TEST(!bad_utf8.message.empty());
  BOOST_TEST(nlohmann::json(bad_utf8.message).dump().size() > 0u);  // valid UTF-8: dump does not throw
}

BOOST_AUTO_TEST_CASE(missing_status_falls_back_to_the_http_status_name) {
  const ApiError error = decodeError(504, R"({"error":{"code":504,"message":"Deadline"}})", std::nullopt);
  BOOST_TEST(error.key == "DEADLINE_EXCEEDED");
  BOOST_TEST(error.message == "Deadline");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::wire::gemini
