#include "tools/mock-provider/auth_check.h"

#include <string>

namespace sluice::mock {
namespace {

std::optional<std::string> bearerToken(const ReceivedRequest& request) {
  auto header = findHeader(request.headers, "authorization");
  if (!header) return std::nullopt;
  constexpr std::string_view kPrefix = "Bearer ";
  if (header->size() <= kPrefix.size() || std::string_view(*header).substr(0, 7) != kPrefix) return std::nullopt;
  std::string token = header->substr(kPrefix.size());
  if (token.find_first_not_of(' ') == std::string::npos) return std::nullopt;
  return token;
}

ErrorSpec make(int status, std::string type, std::string message) {
  ErrorSpec error;
  error.status = status;
  error.type = std::move(type);
  error.message = std::move(message);
  return error;
}

std::optional<ErrorSpec> checkAnthropic(const ReceivedRequest& request, std::optional<std::string_view> expected_key) {
  const auto key = findHeader(request.headers, "x-api-key");
  if (!key || key->empty()) return make(401, "authentication_error", "x-api-key header is required");
  if (expected_key && *key != *expected_key) return make(401, "authentication_error", "invalid x-api-key");
  const auto version = findHeader(request.headers, "anthropic-version");
  if (!version || version->empty()) return make(400, "invalid_request_error", "anthropic-version: header is required");
  return std::nullopt;
}

std::optional<ErrorSpec> checkOpenAi(const ReceivedRequest& request, std::optional<std::string_view> expected_key) {
  const auto token = bearerToken(request);
  if (!token)
    return make(401, "invalid_request_error",
                "You didn't provide an API key. You need to provide your API key in an Authorization header using "
                "Bearer auth (i.e. Authorization: Bearer YOUR_KEY).");
  if (expected_key && *token != *expected_key) {
    auto error = make(401, "invalid_request_error", "Incorrect API key provided.");
    error.code = "invalid_api_key";
    return error;
  }
  return std::nullopt;
}

std::optional<ErrorSpec> checkGemini(const Route& route, const ReceivedRequest& request,
                                     std::optional<std::string_view> expected_key) {
  std::optional<std::string> key = findHeader(request.headers, "x-goog-api-key");
  if (!key || key->empty()) key = findQueryParam(request.query, "key");
  if ((!key || key->empty()) && route.vertex) key = bearerToken(request);
  if (!key || key->empty())
    return make(403, "PERMISSION_DENIED",
                "Method doesn't allow unregistered callers (callers without established identity). Please use API "
                "Key or other form of API consumer identity to call this API.");
  if (expected_key && *key != *expected_key) {
    auto error = make(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.");
    error.reason = "API_KEY_INVALID";
    return error;
  }
  return std::nullopt;
}

}  // namespace

std::optional<ErrorSpec> checkAuth(const Route& route, const ReceivedRequest& request,
                                   std::optional<std::string_view> expected_key) {
  switch (route.wire) {
    case Wire::Anthropic: return checkAnthropic(request, expected_key);
    case Wire::OpenAiChat:
    case Wire::OpenAiResponses: return checkOpenAi(request, expected_key);
    case Wire::Gemini: return checkGemini(route, request, expected_key);
  }
  return std::nullopt;
}

}  // namespace sluice::mock
