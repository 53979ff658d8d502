// Neutral Request -> body for an OpenAI-compatible provider (POST /chat/completions).
//
// Shape decisions (the lossy ones are marked NOTE):
// - The system blocks become one leading `system` message whose content is their texts joined
//   by a blank line (a plain string: the widest provider support).
// - A user message's ToolResult blocks become `tool` messages (one per result, right after the
//   assistant turn); its other blocks follow as a user message.
// - ToolUse blocks become assistant tool_calls with `arguments` = compact JSON of the input.
// - Thinking blocks become the assistant's `reasoning_content` (DeepSeek style).
//   NOTE: signatures and redacted thinking cannot be expressed and are dropped.
// - NOTE: top_k, cache_control and tool results' is_error have no Chat field and are dropped.
// - Max tokens go out as `max_tokens` (widest provider support), clamped to options.max_output.
#include "server/wire/openai_chat/codec.h"

#include <algorithm>
#include <string>

#include "server/wire/openai_chat/errors.h"
#include "server/wire/openai_chat/image_url.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_chat/tool_arguments.h"

namespace sluice::wire::openai_chat {

namespace {

using catalog::Wire;

std::string blockParam(size_t message, size_t block) {
  return "messages[" + std::to_string(message) + "].content[" + std::to_string(block) + "]";
}

bool isOwnOpaque(const ContentBlock& block) {
  return block.type == ContentBlock::Type::Opaque && block.raw_wire == Wire::OpenAIChat && block.raw.is_object();
}

Json textPart(const std::string& text) { return Json{{"type", "text"}, {"text", text}}; }

Json imagePart(const ImageSource& image) {
  return Json{{"type", "image_url"}, {"image_url", {{"url", urlForImage(image)}}}};
}

// A list of parts as message content: a lone text part is sent as a plain string.
Json contentFromParts(Json parts) {
  if (parts.size() == 1 && optionalString(parts[0], "type") == "text") return parts[0]["text"];
  return parts;
}

std::string joinTexts(const std::vector<ContentBlock>& blocks, ContentBlock::Type type, std::string_view separator) {
  std::string joined;
  bool first = true;
  for (const auto& block : blocks) {
    if (block.type != type || block.text.empty()) continue;
    if (!first) joined += separator;
    joined += block.text;
    first = false;
  }
  return joined;
}

// NOTE: Chat tool messages carry text only. Images a tool returned are moved to the user
// message that follows the tool messages, so the model still sees them.
Json toolMessage(const ContentBlock& result, Json& moved_images) {
  for (const auto& block : result.result) {
    if (block.type == ContentBlock::Type::Image) moved_images.push_back(imagePart(block.image));
  }
  return Json{{"role", "tool"},
              {"tool_call_id", result.tool_use_id},
              {"content", joinTexts(result.result, ContentBlock::Type::Text, "\n\n")}};
}

std::expected<void, ApiError> appendUserMessage(const Message& message, size_t index, Json& out) {
  Json parts = Json::array();
  for (const auto& block : message.content) {
    if (block.type == ContentBlock::Type::ToolResult) out.push_back(toolMessage(block, parts));
  }
  for (size_t j = 0; j < message.content.size(); ++j) {
    const ContentBlock& block = message.content[j];
    switch (block.type) {
      case ContentBlock::Type::Text:
        if (!block.text.empty()) parts.push_back(textPart(block.text));
        break;
      case ContentBlock::Type::Image: parts.push_back(imagePart(block.image)); break;
      case ContentBlock::Type::Opaque:
        if (!isOwnOpaque(block)) {
          // Documents and other content of another wire carry meaning the model would miss.
          return std::unexpected(ApiError::unsupportedField("this content block cannot be sent to an OpenAI Chat provider", blockParam(index, j)));
        }
        parts.push_back(block.raw);
        break;
      default: break;  // tool results went out above; thinking and tool calls are not user content
    }
  }
  if (!parts.empty()) out.push_back(Json{{"role", "user"}, {"content", contentFromParts(std::move(parts))}});
  return {};
}

void appendAssistantMessage(const Message& message, Json& out) {
  Json parts = Json::array();
  Json tool_calls = Json::array();
  bool has_raw_parts = false;
  for (const auto& block : message.content) {
    if (block.type == ContentBlock::Type::Text && !block.text.empty()) {
      parts.push_back(textPart(block.text));
    } else if (block.type == ContentBlock::Type::ToolUse) {
      tool_calls.push_back(Json{{"id", block.tool_id},
                                {"type", "function"},
                                {"function", {{"name", block.tool_name}, {"arguments", dumpToolArguments(block.tool_input)}}}});
    } else if (isOwnOpaque(block)) {
      // An assistant tool call of another type (custom tools) or a part kept from this wire.
      if (block.raw.contains("function") || block.raw.contains("custom")) {
        tool_calls.push_back(block.raw);
      } else {
        parts.push_back(block.raw);
        has_raw_parts = true;
      }
    }
    // NOTE: Opaque blocks of other wires (server tool calls and results) are history the Chat
    // model cannot replay; they are dropped.
  }
  Json assistant = {{"role", "assistant"}};
  if (has_raw_parts) {
    assistant["content"] = std::move(parts);
  } else if (!parts.empty()) {
    // Assistant text blocks are pieces of one answer: joined without a separator.
    std::string text;
    for (const auto& part : parts) text += part["text"].get<std::string>();
    assistant["content"] = text;
  } else {
    assistant["content"] = tool_calls.empty() ? Json("") : Json(nullptr);
  }
  const std::string reasoning = joinTexts(message.content, ContentBlock::Type::Thinking, "");
  if (!reasoning.empty()) assistant["reasoning_content"] = reasoning;
  if (!tool_calls.empty()) assistant["tool_calls"] = std::move(tool_calls);
  out.push_back(std::move(assistant));
}

Json toolsJson(const std::vector<Tool>& tools) {
  Json out = Json::array();
  for (const auto& tool : tools) {
    if (tool.raw_wire) {
      // NOTE: hosted tools of another provider cannot run here and are dropped.
      if (*tool.raw_wire == Wire::OpenAIChat && tool.raw.is_object()) out.push_back(tool.raw);
      continue;
    }
    Json function = {{"name", tool.name}};
    if (!tool.description.empty()) function["description"] = tool.description;
    if (tool.input_schema.is_object() && !tool.input_schema.empty()) function["parameters"] = tool.input_schema;
    if (tool.strict) function["strict"] = *tool.strict;
    out.push_back(Json{{"type", "function"}, {"function", std::move(function)}});
  }
  return out;
}

Json toolChoiceJson(const ToolChoice& choice) {
  switch (choice.mode) {
    case ToolChoice::Mode::Auto: return "auto";
    case ToolChoice::Mode::Any: return "required";
    case ToolChoice::Mode::None: return "none";
    case ToolChoice::Mode::Tool: return Json{{"type", "function"}, {"function", {{"name", choice.name}}}};
  }
  return "auto";
}

Json responseFormatJson(const ResponseFormat& format) {
  switch (format.kind) {
    case ResponseFormat::Kind::Text: return Json{{"type", "text"}};
    case ResponseFormat::Kind::JsonObject: return Json{{"type", "json_object"}};
    case ResponseFormat::Kind::JsonSchema: {
      Json schema = {{"name", format.name.empty() ? std::string("response") : format.name}};
      schema["schema"] = format.schema.is_null() ? Json::object() : format.schema;
      if (format.strict) schema["strict"] = *format.strict;
      return Json{{"type", "json_schema"}, {"json_schema", std::move(schema)}};
    }
  }
  return Json{{"type", "text"}};
}

void encodeSampling(const Request& request, const EncodeOptions& options, Json& body) {
  std::optional<int64_t> max_tokens = request.max_tokens;
  if (max_tokens && options.max_output) max_tokens = std::min(*max_tokens, *options.max_output);
  if (max_tokens) body["max_tokens"] = *max_tokens;
  if (request.temperature) body["temperature"] = std::clamp(*request.temperature, 0.0, 2.0);
  if (request.top_p) body["top_p"] = std::clamp(*request.top_p, 0.0, 1.0);
  if (!request.stop_sequences.empty()) body["stop"] = request.stop_sequences;
}

}  // namespace

std::expected<std::string, ApiError> encodeRequest(const Request& request, const EncodeOptions& options) {
  Json body = Json::object();
  body["model"] = options.upstream_model.empty() ? request.model : options.upstream_model;

  Json messages = Json::array();
  const std::string system = joinTexts(request.system, ContentBlock::Type::Text, "\n\n");
  if (!system.empty()) messages.push_back(Json{{"role", "system"}, {"content", system}});
  for (size_t i = 0; i < request.messages.size(); ++i) {
    const Message& message = request.messages[i];
    if (message.role == Role::Assistant) {
      appendAssistantMessage(message, messages);
    } else if (auto status = appendUserMessage(message, i, messages); !status) {
      return std::unexpected(status.error());
    }
  }
  body["messages"] = std::move(messages);

  Json tools = toolsJson(request.tools);
  if (!tools.empty()) {
    body["tools"] = std::move(tools);
    // Chat providers refuse tool_choice and parallel_tool_calls without tools.
    if (request.tool_choice) body["tool_choice"] = toolChoiceJson(*request.tool_choice);
    if (request.parallel_tool_calls) {
      body["parallel_tool_calls"] = *request.parallel_tool_calls;
    } else if (request.tool_choice && request.tool_choice->disable_parallel) {
      body["parallel_tool_calls"] = false;
    }
  }
  encodeSampling(request, options, body);
  if (request.response_format) body["response_format"] = responseFormatJson(*request.response_format);
  // NOTE: only an explicit effort is sent. A thinking budget (Anthropic, Gemini) has no faithful
  // effort equivalent, and a model without reasoning refuses the field, so it is dropped.
  if (request.reasoning && !request.reasoning->effort.empty()) body["reasoning_effort"] = request.reasoning->effort;
  if (request.user) body["user"] = *request.user;
  if (request.stream) {
    body["stream"] = true;
    body["stream_options"] = Json{{"include_usage", true}};  // the usage chunk is how usage is accounted
  }
  return dumpJsonText(body);
}

}  // namespace sluice::wire::openai_chat
