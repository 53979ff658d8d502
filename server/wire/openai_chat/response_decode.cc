// Provider's chat.completion body -> neutral Response.
//
// Only choices[0] is read: the gateway never asks for n > 1. Its message becomes, in order, a
// Thinking block (reasoning_content, or `reasoning` as some compatible servers name it), the text
// (or the refusal) and one ToolUse block per function tool call.
#include "server/wire/openai_chat/codec.h"

#include "server/wire/openai_chat/errors.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_chat/stop_reason.h"
#include "server/wire/openai_chat/tool_arguments.h"
#include "server/wire/openai_chat/usage_json.h"

namespace sluice::wire::openai_chat {

namespace {

ContentBlock textBlock(ContentBlock::Type type, std::string text) {
  ContentBlock block;
  block.type = type;
  block.text = std::move(text);
  return block;
}

// The text of `content`: a string, or (rarely, from compatible servers) an array of text parts.
std::string contentText(const Json& message) {
  const Json* content = member(message, "content");
  if (content == nullptr) return {};
  if (content->is_string()) return content->get<std::string>();
  std::string text;
  if (content->is_array()) {
    for (const auto& part : *content) text += optionalString(part, "text").value_or("");
  }
  return text;
}

void appendToolCalls(const Json& message, std::vector<ContentBlock>& out) {
  const Json* tool_calls = member(message, "tool_calls");
  if (tool_calls == nullptr || !tool_calls->is_array()) return;
  for (size_t i = 0; i < tool_calls->size(); ++i) {
    const Json& call = (*tool_calls)[i];
    const Json* function = member(call, "function");
    if (optionalString(call, "type").value_or("function") != "function" || function == nullptr) {
      ContentBlock opaque;
      opaque.type = ContentBlock::Type::Opaque;
      opaque.raw = call;
      opaque.raw_wire = catalog::Wire::OpenAIChat;
      out.push_back(std::move(opaque));
      continue;
    }
    ContentBlock block;
    block.type = ContentBlock::Type::ToolUse;
    block.tool_id = optionalString(call, "id").value_or("call_" + std::to_string(i));
    block.tool_name = optionalString(*function, "name").value_or("");
    // NOTE: arguments that are not a JSON object (a model cut off mid-call) become {}: the
    // client's schema check then tells the model, which is better than losing the whole answer.
    block.tool_input = parseToolArguments(optionalString(*function, "arguments").value_or("")).value_or(Json::object());
    out.push_back(std::move(block));
  }
}

}  // namespace

std::expected<Response, ApiError> decodeResponse(std::string_view body) {
  const Json parsed = parseBounded(body);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return std::unexpected(ApiError::upstreamInvalidResponse("the provider's answer is not a JSON object"));
  }
  if (const Json* error = member(parsed, "error"); error != nullptr && error->is_object()) {
    return std::unexpected(errorFromObject(*error, statusForErrorObject(*error)));
  }
  const Json* choices = member(parsed, "choices");
  if (choices == nullptr || !choices->is_array() || choices->empty() || !(*choices)[0].is_object()) {
    return std::unexpected(ApiError::upstreamInvalidResponse("the provider's answer has no choices"));
  }
  const Json& choice = (*choices)[0];
  const Json* message = member(choice, "message");
  if (message == nullptr || !message->is_object()) {
    return std::unexpected(ApiError::upstreamInvalidResponse("the provider's answer has no message"));
  }

  Response response;
  response.id = optionalString(parsed, "id").value_or("");
  response.model = optionalString(parsed, "model").value_or("");

  auto reasoning = optionalString(*message, "reasoning_content");
  if (!reasoning || reasoning->empty()) reasoning = optionalString(*message, "reasoning");
  if (reasoning && !reasoning->empty()) response.content.push_back(textBlock(ContentBlock::Type::Thinking, *reasoning));

  std::string text = contentText(*message);
  const auto refusal = optionalString(*message, "refusal");
  const bool refused = refusal && !refusal->empty();
  if (text.empty() && refused) text = *refusal;
  if (!text.empty()) response.content.push_back(textBlock(ContentBlock::Type::Text, std::move(text)));

  const size_t before_tools = response.content.size();
  appendToolCalls(*message, response.content);
  const bool has_tool_calls = response.content.size() > before_tools;

  response.stop_reason = stopReasonFor(optionalString(choice, "finish_reason").value_or(""), has_tool_calls, refused);
  if (const Json* usage = member(parsed, "usage"); usage != nullptr && usage->is_object()) {
    response.usage = usageFromJson(*usage);
    response.usage_reported = true;
  }
  return response;
}

}  // namespace sluice::wire::openai_chat
