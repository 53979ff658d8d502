// Anthropic error answers -> neutral ApiError.

#include <string>

#include "server/text/utf8.h"
#include "server/wire/anthropic/codec.h"
#include "server/wire/json_parse.h"
#include "server/wire/anthropic/error_body.h"
#include "server/wire/json_access.h"

namespace sluice::wire::anthropic {

namespace {

constexpr size_t kMaxQuotedBody = 512;  // a non-JSON error page is quoted, not copied whole

}  // namespace

int statusForErrorType(std::string_view type) {
  if (type == "invalid_request_error") return 400;
  if (type == "authentication_error") return 401;
  if (type == "billing_error") return 402;
  if (type == "permission_error") return 403;
  if (type == "not_found_error") return 404;
  if (type == "conflict_error") return 409;
  if (type == "request_too_large") return 413;
  if (type == "rate_limit_error") return 429;
  if (type == "timeout_error") return 504;
  if (type == "overloaded_error") return 529;
  return 500;  // "api_error" and types added later
}

ApiError errorFromBody(const Json& body, int status, std::string_view fallback_key) {
  ApiError error;
  error.status = status;
  const Json* inner = member(body, "error");
  const std::string type = inner ? stringMember(*inner, "type") : "";
  const std::string message = inner ? stringMember(*inner, "message") : "";
  error.key = type.empty() ? std::string(fallback_key) : type;
  error.message = message.empty() ? "the provider answered HTTP " + std::to_string(status) : message;
  return error;
}

ApiError decodeError(int status, std::string_view body, std::optional<int> retry_after_seconds) {
  const Json parsed = parseBounded(body);
  ApiError error;
  if (!parsed.is_discarded() && member(parsed, "error") != nullptr) {
    error = errorFromBody(parsed, status, errorTypeFor(catalog::Wire::Anthropic, status));
  } else {
    error.status = status;
    error.key = errorTypeFor(catalog::Wire::Anthropic, status);
    std::string quoted = text::repairUtf8(body.substr(0, kMaxQuotedBody));
    while (!quoted.empty() && (quoted.back() == '\n' || quoted.back() == '\r' || quoted.back() == ' ')) quoted.pop_back();
    error.message = quoted.empty() ? "the provider answered HTTP " + std::to_string(status)
                                   : "the provider answered HTTP " + std::to_string(status) + ": " + quoted;
  }
  error.retry_after_seconds = retry_after_seconds;
  return error;
}

}  // namespace sluice::wire::anthropic
