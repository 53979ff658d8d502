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

BOOST_AUTO_TEST_CASE(make_takes_the_fields_in_their_order_and_an_empty_param_is_none) {
  const ApiError error = ApiError::make(404, sluice::wire::error_keys::kModelNotFound, "no such model", "model");
  BOOST_TEST(error.status == 404);
  BOOST_TEST(error.key == "model_not_found");
  BOOST_TEST(error.message == "no such model");
  BOOST_TEST(error.param.value_or("") == "model");
  BOOST_TEST(!error.retry_after_seconds.has_value());
  BOOST_TEST(!ApiError::make(500, "k", "m").param.has_value());
  BOOST_TEST(!ApiError::invalidRequest("m", "").param.has_value());
}

BOOST_AUTO_TEST_CASE(named_factories_carry_their_status_and_key) {
  const ApiError json = ApiError::invalidJson();
  BOOST_TEST(json.status == 400);
  BOOST_TEST(json.key == "invalid_json");
  BOOST_TEST(json.message == "request body is not valid JSON");
  const ApiError invalid = ApiError::invalidRequest("'model' must be a string", "model");
  BOOST_TEST(invalid.status == 400);
  BOOST_TEST(invalid.key == "invalid_request");
  BOOST_TEST(invalid.param.value_or("") == "model");
  const ApiError unsupported = ApiError::unsupportedField("n > 1", "n");
  BOOST_TEST(unsupported.status == 400);
  BOOST_TEST(unsupported.key == "unsupported_field");
  BOOST_TEST(unsupported.param.value_or("") == "n");
  BOOST_TEST(ApiError::upstreamInvalidResponse("x").status == 502);
  BOOST_TEST(ApiError::upstreamInvalidResponse("x").key == "upstream_invalid_response");
  BOOST_TEST(ApiError::upstreamStreamTruncated("x").status == 502);
  BOOST_TEST(ApiError::upstreamStreamTruncated("x").key == "upstream_stream_truncated");
}

// Error keys are public API: a changed value breaks clients, so each is pinned here.
BOOST_AUTO_TEST_CASE(error_keys_keep_their_values) {
  namespace keys = sluice::wire::error_keys;
  BOOST_TEST(keys::kInvalidJson == "invalid_json");
  BOOST_TEST(keys::kPersonalKeyMissing == "personal_key_missing");
  BOOST_TEST(keys::kCredentialMissing == "credential_missing");
  BOOST_TEST(keys::kTransport == "transport");
  BOOST_TEST(keys::kInvalidRequest == "invalid_request");
  BOOST_TEST(keys::kUnsupportedField == "unsupported_field");
  BOOST_TEST(keys::kUnsupportedWire == "unsupported_wire");
  BOOST_TEST(keys::kRequestTooLarge == "request_too_large");
  BOOST_TEST(keys::kContextWindowExceeded == "context_window_exceeded");
  BOOST_TEST(keys::kDataProtectionFailed == "data_protection_failed");
  BOOST_TEST(keys::kDataProtectionBlocked == "data_protection_blocked");
  BOOST_TEST(keys::kModelNotFound == "model_not_found");
  BOOST_TEST(keys::kRetiredModel == "retired_model");
  BOOST_TEST(keys::kGovernanceDenied == "governance_denied");
  BOOST_TEST(keys::kNoDeployment == "no_deployment");
  BOOST_TEST(keys::kNoDeploymentAvailable == "no_deployment_available");
  BOOST_TEST(keys::kInvalidApiKey == "invalid_api_key");
  BOOST_TEST(keys::kAccessDenied == "access_denied");
  BOOST_TEST(keys::kScopeDenied == "scope_denied");
  BOOST_TEST(keys::kQuotaExceeded == "quota_exceeded");
  BOOST_TEST(keys::kQuotaWarning == "quota_warning");
  BOOST_TEST(keys::kIdentityUnavailable == "identity_unavailable");
  BOOST_TEST(keys::kUpstreamUnreachable == "upstream_unreachable");
  BOOST_TEST(keys::kUpstreamError == "upstream_error");
  BOOST_TEST(keys::kUpstreamInvalidResponse == "upstream_invalid_response");
  BOOST_TEST(keys::kUpstreamStreamTruncated == "upstream_stream_truncated");
  BOOST_TEST(keys::kUpstreamStreamBroken == "upstream_stream_broken");
  BOOST_TEST(keys::kUpstreamStreamError == "upstream_stream_error");
  BOOST_TEST(keys::kRateLimitExceeded == "rate_limit_exceeded");
  BOOST_TEST(keys::kServerIsOverloaded == "server_is_overloaded");
  BOOST_TEST(keys::kClientGone == "client_gone");
  BOOST_TEST(keys::kInternalError == "internal_error");
  BOOST_TEST(keys::kNotFound == "not_found");
  BOOST_TEST(keys::kMethodNotAllowed == "method_not_allowed");
}

BOOST_AUTO_TEST_SUITE_END()
