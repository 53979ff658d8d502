#include "server/wire/openai_chat/errors.h"

#include <string_view>

#include "server/wire/json_access.h"

namespace sluice::wire::openai_chat {

ApiError errorFromObject(const Json& error, int status) {
  ApiError result{status, "", "", std::nullopt, std::nullopt};
  const auto code = optionalString(error, "code");
  const auto type = optionalString(error, "type");
  if (code && !code->empty()) {
    result.key = *code;
  } else if (type && !type->empty()) {
    result.key = *type;
  } else {
    result.key = errorTypeFor(catalog::Wire::OpenAIChat, status);
  }
  result.message = optionalString(error, "message").value_or("");
  if (result.message.empty()) result.message = "the provider returned an error (" + result.key + ")";
  if (auto param = optionalString(error, "param")) result.param = std::move(*param);
  return result;
}

namespace {

int statusForName(std::string_view name) {
  if (name == "rate_limit_error" || name == "rate_limit_exceeded" || name == "insufficient_quota" ||
      name == "tokens" || name == "requests") {
    return 429;
  }
  if (name == "service_unavailable_error" || name == "server_is_overloaded" || name == "overloaded_error" ||
      name == "slow_down") {
    return 503;
  }
  if (name == "server_error" || name == "api_error" || name == "internal_error") return 500;
  if (name == "invalid_request_error" || name == "context_length_exceeded" || name == "invalid_prompt") return 400;
  if (name == "authentication_error" || name == "invalid_api_key") return 401;
  if (name == "permission_error") return 403;
  if (name == "not_found_error" || name == "model_not_found") return 404;
  return 0;
}

}  // namespace

int statusForErrorObject(const Json& error) {
  if (const auto numeric = intMember(error, "code"); numeric && *numeric >= 400 && *numeric <= 599) {
    return static_cast<int>(*numeric);
  }
  if (const auto code = optionalString(error, "code")) {
    if (const int status = statusForName(*code)) return status;
  }
  if (const auto type = optionalString(error, "type")) {
    if (const int status = statusForName(*type)) return status;
  }
  return 502;
}

}  // namespace sluice::wire::openai_chat
