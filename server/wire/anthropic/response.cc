// Non-streamed answers: an Anthropic provider's message -> IR Response, and IR Response -> the
// message an Anthropic client expects.

#include "server/wire/anthropic/codec.h"
#include "server/wire/json_parse.h"
#include "server/wire/anthropic/content_block.h"
#include "server/wire/anthropic/error_body.h"
#include "server/wire/json_access.h"
#include "server/wire/anthropic/message_id.h"
#include "server/wire/anthropic/stop_reason.h"
#include "server/wire/anthropic/usage_counts.h"

namespace sluice::wire::anthropic {

std::expected<Response, ApiError> decodeResponse(std::string_view body) {
  const Json root = parseBounded(body);
  if (root.is_discarded() || !root.is_object()) {
    return std::unexpected(ApiError::upstreamInvalidResponse("the provider's answer is not a JSON object"));
  }
  if (stringMember(root, "type") == "error") {
    const Json* inner = member(root, "error");
    const int status = statusForErrorType(inner ? stringMember(*inner, "type") : "");
    return std::unexpected(errorFromBody(root, status, "api_error"));
  }
  const Json* content = member(root, "content");
  if (content == nullptr || !content->is_array()) {
    return std::unexpected(ApiError::upstreamInvalidResponse("the provider's answer has no 'content' array"));
  }
  Response response;
  response.id = stringMember(root, "id");
  response.model = stringMember(root, "model");
  for (size_t i = 0; i < content->size(); ++i) {
    // Lenient decoding never fails: a malformed block reads as empty fields or an Opaque block.
    auto block = decodeBlock((*content)[i], "content[" + std::to_string(i) + "]", Strictness::Lenient);
    if (block) response.content.push_back(std::move(*block));
  }
  response.stop_reason = stopReasonFromWire(stringMember(root, "stop_reason", "end_turn"));
  response.stop_sequence = stringMember(root, "stop_sequence");
  if (const Json* usage = member(root, "usage")) {
    UsageCounts counts;
    response.usage_reported = counts.merge(*usage);
    response.usage = counts.toNeutral();
  }
  return response;
}

std::string encodeResponse(const Response& response, const ResponseContext& context) {
  Json content = Json::array();
  for (const ContentBlock& block : response.content) {
    if (auto encoded = encodeBlock(block, Audience::Client)) content.push_back(std::move(*encoded));
  }
  Json out = Json::object();
  out["id"] = messageId(response.id, context.request_id);
  out["type"] = "message";
  out["role"] = "assistant";
  out["model"] = context.model.empty() ? response.model : context.model;
  out["content"] = std::move(content);
  out["stop_reason"] = stopReasonToWire(response.stop_reason);
  out["stop_sequence"] = response.stop_sequence.empty() ? Json(nullptr) : Json(response.stop_sequence);
  out["usage"] = usageToWire(response.usage);
  return dumpJsonText(out);
}

}  // namespace sluice::wire::anthropic
