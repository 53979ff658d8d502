#include "server/wire/api_error.h"

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

using sluice::catalog::Wire;
using sluice::wire::ApiError;
using sluice::wire::renderError;

BOOST_AUTO_TEST_SUITE(api_error)

BOOST_AUTO_TEST_CASE(anthropic_errors_carry_type_message_key_and_request_id) {
  const auto body = nlohmann::json::parse(
      renderError(Wire::Anthropic, ApiError{404, "model_not_found", "model 'x' is not served", "model", {}}, "rid"));
  BOOST_TEST(body["type"] == "error");
  BOOST_TEST(body["error"]["type"] == "not_found_error");
  BOOST_TEST(body["error"]["message"] == "model 'x' is not served");
  BOOST_TEST(body["error"]["error_key"] == "model_not_found");
  BOOST_TEST(body["request_id"] == "rid");
}

BOOST_AUTO_TEST_CASE(openai_errors_carry_type_param_and_code) {
  const auto body = nlohmann::json::parse(
      renderError(Wire::OpenAIChat, ApiError{429, "quota_exceeded", "spent", std::nullopt, 30}, "rid"));
  BOOST_TEST(body["error"]["type"] == "rate_limit_error");
  BOOST_TEST(body["error"]["code"] == "quota_exceeded");
  BOOST_TEST(body["error"]["param"].is_null());
}

BOOST_AUTO_TEST_CASE(overload_status_maps_between_wires) {
  BOOST_TEST(sluice::wire::clientStatusFor(Wire::Anthropic, 503) == 529);
  BOOST_TEST(sluice::wire::clientStatusFor(Wire::OpenAIChat, 529) == 503);
  BOOST_TEST(sluice::wire::clientStatusFor(Wire::OpenAIResponses, 429) == 429);
  const auto body = nlohmann::json::parse(renderError(Wire::Anthropic, ApiError{503, "k", "m", {}, {}}, ""));
  BOOST_TEST(body["error"]["type"] == "overloaded_error");
}

BOOST_AUTO_TEST_SUITE_END()
