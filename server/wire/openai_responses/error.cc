// A Responses provider's error answer -> neutral ApiError. Errors outside a stream use the Chat
// shape {"error":{message,type,param,code}}; the key is the code when there is one (it is the
// more precise: "insufficient_quota", "model_not_found", "decimal_below_min_value"), else the type.

#include <cctype>
#include <string>

#include "server/wire/openai_responses/codec.h"
#include "server/wire/openai_responses/json_access.h"

namespace sluice::wire::openai_responses {

namespace {

constexpr size_t kMaxRawMessage = 500;

// "30" or "1.5" seconds, rounded up; an HTTP date (or anything else) gives nothing, since reading
// it would need the clock.
std::optional<int> parseRetryAfter(std::string_view header) {
  while (!header.empty() && std::isspace(static_cast<unsigned char>(header.front()))) header.remove_prefix(1);
  while (!header.empty() && std::isspace(static_cast<unsigned char>(header.back()))) header.remove_suffix(1);
  if (header.empty()) return std::nullopt;
  int64_t seconds = 0;
  size_t at = 0;
  for (; at < header.size() && std::isdigit(static_cast<unsigned char>(header[at])); ++at) {
    seconds = seconds * 10 + (header[at] - '0');
    if (seconds > 86400 * 7) return std::nullopt;
  }
  if (at == 0) return std::nullopt;
  bool fraction = false;
  if (at < header.size() && header[at] == '.') {
    ++at;
    for (; at < header.size() && std::isdigit(static_cast<unsigned char>(header[at])); ++at) fraction |= header[at] != '0';
  }
  if (at != header.size()) return std::nullopt;
  return static_cast<int>(seconds + (fraction ? 1 : 0));
}

}  // namespace

ApiError decodeError(int status, std::string_view body, std::string_view retry_after_header) {
  ApiError error;
  error.status = status;
  error.retry_after_seconds = parseRetryAfter(retry_after_header);
  const Json parsed = parseJson(body);
  const Json* inner = parsed.is_object() ? member(parsed, "error") : nullptr;
  if (inner != nullptr && inner->is_object()) {
    const std::string code = stringMember(*inner, "code");
    const std::string type = stringMember(*inner, "type");
    error.key = !code.empty() ? code : type;
    error.message = stringMember(*inner, "message");
    if (const Json* param = member(*inner, "param"); param != nullptr && param->is_string()) error.param = param->get<std::string>();
  } else if (inner != nullptr && inner->is_string()) {
    error.message = inner->get<std::string>();
  } else if (parsed.is_discarded() || !parsed.is_object()) {
    error.message = cleanUtf8(body, kMaxRawMessage);
  }
  if (error.key.empty()) error.key = errorTypeFor(catalog::Wire::OpenAIResponses, status);
  if (error.message.empty()) error.message = "the provider answered HTTP " + std::to_string(status);
  return error;
}

}  // namespace sluice::wire::openai_responses
