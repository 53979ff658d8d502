// Neutral Response -> the Responses body a Codex or Responses-API client reads. Item ids are
// minted from the gateway's request id and the item's output index, so the same answer always
// shows the same ids.

#include "server/wire/openai_responses/codec.h"
#include "server/wire/openai_responses/items.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_responses/mint_id.h"
#include "server/wire/openai_responses/response_object.h"
#include "server/wire/signature_envelope.h"
#include "server/wire/openai_responses/stop_reason.h"
#include "server/wire/openai_responses/usage_json.h"

namespace sluice::wire::openai_responses {

std::string encodeResponse(const Response& response, const ResponseContext& context) {
  Json output = Json::array();
  for (const auto& block : response.content) {
    const size_t index = output.size();
    switch (block.type) {
      case ContentBlock::Type::Text:
        output.push_back(outputMessageItem(mintId("msg", context.request_id, index), "completed", block.text));
        break;
      case ContentBlock::Type::ToolUse:
        output.push_back(functionCallItem(block, mintId("fc", context.request_id, index), "completed", argumentsText(block)));
        break;
      case ContentBlock::Type::Thinking: {
        const bool own = block.signature_wire == catalog::Wire::OpenAIResponses;
        const std::string id = own && !block.reasoning_id.empty() ? block.reasoning_id : mintId("rs", context.request_id, index);
        output.push_back(reasoningItem(id, block.text, wrapSignature(catalog::Wire::OpenAIResponses, block.signature_wire, block.reasoning_id, block.signature)));
        break;
      }
      case ContentBlock::Type::Opaque:
        if (block.raw_wire == catalog::Wire::OpenAIResponses && block.raw.is_object() &&
            !isContentPartType(stringMember(block.raw, "type"))) {
          output.push_back(block.raw);
        }
        break;
      case ContentBlock::Type::Image:
      case ContentBlock::Type::ToolResult:
      case ContentBlock::Type::RedactedThinking: break;  // nothing a Responses answer can show
    }
  }
  const ResponseStatus status = statusFor(response.stop_reason);
  ResponseShape shape;
  shape.id = responseIdFor(context, response.id);
  shape.status = status.status;
  shape.incomplete_reason = status.incomplete_reason;
  if (status.status == "failed") shape.error = {{"code", "server_error"}, {"message", "the provider's answer ended in an error"}};
  shape.output = std::move(output);
  shape.usage = response.usage_reported ? usageJson(response.usage) : Json(nullptr);
  return dumpJsonText(responseObject(context, shape));
}

}  // namespace sluice::wire::openai_responses
