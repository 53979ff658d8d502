// A Responses provider's error answer -> neutral ApiError. Errors outside a stream use the Chat
// shape {"error":{message,type,param,code}}; the key is the code when there is one (it is the
// more precise: "insufficient_quota", "model_not_found", "decimal_below_min_value"), else the type.

#include <string>

#include "server/text/utf8.h"
#include "server/wire/openai_responses/codec.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"

namespace sluice::wire::openai_responses {

namespace {

constexpr size_t kMaxRawMessage = 500;

}  // namespace

ApiError decodeError(int status, std::string_view body, std::optional<int> retry_after_seconds) {
  ApiError error;
  error.status = status;
  error.retry_after_seconds = retry_after_seconds;
  const Json parsed = parseBounded(body);
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
    error.message = text::repairUtf8(body, kMaxRawMessage);
  }
  if (error.key.empty()) error.key = errorTypeFor(catalog::Wire::OpenAIResponses, status);
  if (error.message.empty()) error.message = "the provider answered HTTP " + std::to_string(status);
  return error;
}

}  // namespace sluice::wire::openai_responses
