// Neutral Response -> chat.completion body for the client.
//
// Text blocks are joined without a separator (they are pieces of one answer); Thinking text goes
// to `reasoning_content`. A Gemini signature that belongs to a call rides in the call's id
// (tool_call_id.h). NOTE: other signatures, redacted thinking and Opaque blocks of other wires
// cannot be expressed in Chat and are dropped.
#include "server/wire/openai_chat/codec.h"

#include "server/wire/openai_chat/completion_id.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_chat/stop_reason.h"
#include "server/wire/openai_chat/tool_arguments.h"
#include "server/wire/openai_chat/tool_call_id.h"
#include "server/wire/openai_chat/usage_json.h"

namespace sluice::wire::openai_chat {

std::string encodeResponse(const Response& response, const ResponseContext& context) {
  std::string text;
  std::string reasoning;
  Json tool_calls = Json::array();
  PendingCallSignature pending;
  for (const auto& block : response.content) {
    pending.see(block);
    switch (block.type) {
      case ContentBlock::Type::Text: text += block.text; break;
      case ContentBlock::Type::Thinking: reasoning += block.text; break;
      case ContentBlock::Type::ToolUse:
        tool_calls.push_back(Json{{"id", toolCallIdFor(block.tool_id, pending.takeForCall())},
                                  {"type", "function"},
                                  {"function", {{"name", block.tool_name}, {"arguments", dumpToolArguments(block.tool_input)}}}});
        break;
      case ContentBlock::Type::Opaque:
        if (block.raw_wire == catalog::Wire::OpenAIChat && block.raw.is_object() && block.raw.contains("custom")) {
          tool_calls.push_back(block.raw);
        }
        break;
      default: break;
    }
  }

  Json message = {{"role", "assistant"}};
  message["content"] = text.empty() && !tool_calls.empty() ? Json(nullptr) : Json(text);
  if (!reasoning.empty()) message["reasoning_content"] = reasoning;
  if (!tool_calls.empty()) message["tool_calls"] = std::move(tool_calls);
  message["refusal"] = nullptr;

  Json body = {{"id", completionId(context, response.id)},
               {"object", "chat.completion"},
               {"created", context.created},
               {"model", context.model.empty() ? response.model : context.model}};
  body["choices"] = Json::array({Json{{"index", 0},
                                      {"message", std::move(message)},
                                      {"logprobs", nullptr},
                                      {"finish_reason", finishReasonFor(response.stop_reason)}}});
  body["usage"] = usageToJson(response.usage);
  return dumpJsonText(body);
}

}  // namespace sluice::wire::openai_chat
