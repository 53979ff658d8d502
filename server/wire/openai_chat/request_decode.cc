// Client body (POST /v1/chat/completions) -> neutral Request.
//
// Shape decisions:
// - system/developer messages are hoisted, in order, into Request.system wherever they appear.
// - Consecutive `tool` messages become ToolResult blocks of ONE user message, and a user message
//   right after them joins that message (results first, then the text), which is the shape
//   Anthropic requires and the one request_encode.cc writes back as tool + user messages.
// - assistant `reasoning_content` (DeepSeek style) becomes a Thinking block without signature,
//   placed before the text and the tool calls.
// - Parts this IR does not model (input_audio, file, ...) are kept as Opaque blocks of this wire.
// - A tool call id carrying a Gemini signature (tool_call_id.h) is unwrapped, on the call and on
//   the tool message alike: the plain id goes into the IR, the signature into a Gemini Thinking
//   block right before its call.
#include "server/wire/openai_chat/codec.h"

#include <string>

#include "server/wire/openai_chat/errors.h"
#include "server/wire/openai_chat/image_url.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/openai_chat/tool_arguments.h"
#include "server/wire/openai_chat/tool_call_id.h"

namespace sluice::wire::openai_chat {

namespace {

using Status = std::expected<void, ApiError>;

std::string at(const std::string& param, size_t index) { return param + "[" + std::to_string(index) + "]"; }

// Text of a {"type":"text","text":...} part; an error naming `param` when it is not a string.
std::expected<std::string, ApiError> partText(const Json& part, const std::string& param) {
  const Json* text = member(part, "text");
  if (text == nullptr || !text->is_string()) return std::unexpected(ApiError::invalidRequest("text must be a string", param + ".text"));
  return text->get<std::string>();
}

std::expected<ContentBlock, ApiError> imageBlock(const Json& part, const std::string& param) {
  const Json* image_url = member(part, "image_url");
  std::optional<std::string> url;
  if (image_url != nullptr && image_url->is_string()) {
    url = image_url->get<std::string>();
  } else if (image_url != nullptr) {
    url = optionalString(*image_url, "url");
  }
  if (!url) return std::unexpected(ApiError::invalidRequest("image_url.url must be a string", param + ".image_url.url"));
  auto image = imageFromUrl(*url);
  if (!image) {
    return std::unexpected(
        ApiError::invalidRequest("image_url.url must be an http(s) URL or a base64 data URL", param + ".image_url.url"));
  }
  ContentBlock block;
  block.type = ContentBlock::Type::Image;
  block.image = std::move(*image);
  return block;
}

// Content that may only hold text: a string, or an array of text parts (system, developer, tool).
// `allow_images` also accepts image_url parts (tool results may carry images).
Status appendTextContent(const Json& content, const std::string& param, bool allow_images,
                         std::vector<ContentBlock>& out) {
  if (content.is_null()) return {};
  if (content.is_string()) {
    if (!content.get_ref<const std::string&>().empty()) out.push_back(ContentBlock::ofText(content.get<std::string>()));
    return {};
  }
  if (!content.is_array()) return std::unexpected(ApiError::invalidRequest("content must be a string or an array of parts", param));
  for (size_t j = 0; j < content.size(); ++j) {
    const Json& part = content[j];
    const std::string part_param = at(param, j);
    const auto type = optionalString(part, "type");
    if (type == "text") {
      auto text = partText(part, part_param);
      if (!text) return std::unexpected(text.error());
      if (!text->empty()) out.push_back(ContentBlock::ofText(std::move(*text)));
    } else if (allow_images && type == "image_url") {
      auto image = imageBlock(part, part_param);
      if (!image) return std::unexpected(image.error());
      out.push_back(std::move(*image));
    } else {
      return std::unexpected(ApiError::unsupportedField("only text parts are accepted here", part_param));
    }
  }
  return {};
}

// User content: a string or parts (text, image_url; anything else kept as Opaque).
Status appendUserContent(const Json& content, const std::string& param, std::vector<ContentBlock>& out) {
  if (content.is_null() || content.is_string()) return appendTextContent(content, param, false, out);
  if (!content.is_array()) return std::unexpected(ApiError::invalidRequest("content must be a string or an array of parts", param));
  for (size_t j = 0; j < content.size(); ++j) {
    const Json& part = content[j];
    const std::string part_param = at(param, j);
    if (!part.is_object()) return std::unexpected(ApiError::invalidRequest("a content part must be an object", part_param));
    const auto type = optionalString(part, "type");
    if (type == "text") {
      auto text = partText(part, part_param);
      if (!text) return std::unexpected(text.error());
      if (!text->empty()) out.push_back(ContentBlock::ofText(std::move(*text)));
    } else if (type == "image_url") {
      auto image = imageBlock(part, part_param);
      if (!image) return std::unexpected(image.error());
      out.push_back(std::move(*image));
    } else {
      out.push_back(ContentBlock::ofOpaque(part, catalog::Wire::OpenAIChat));
    }
  }
  return {};
}

Status appendAssistant(const Json& message, const std::string& param, Message& out) {
  if (const auto reasoning = optionalString(message, "reasoning_content"); reasoning && !reasoning->empty()) {
    ContentBlock thinking;
    thinking.type = ContentBlock::Type::Thinking;
    thinking.text = *reasoning;
    out.content.push_back(std::move(thinking));
  }
  const Json* content = member(message, "content");
  if (content != nullptr && content->is_array()) {
    for (size_t j = 0; j < content->size(); ++j) {
      const Json& part = (*content)[j];
      const std::string part_param = at(param + ".content", j);
      const auto type = optionalString(part, "type");
      if (type == "text" || type == "refusal") {
        const auto text = optionalString(part, *type);
        if (!text) return std::unexpected(ApiError::invalidRequest(*type + " must be a string", part_param + "." + *type));
        if (!text->empty()) out.content.push_back(ContentBlock::ofText(*text));
      } else {
        out.content.push_back(ContentBlock::ofOpaque(part, catalog::Wire::OpenAIChat));
      }
    }
  } else if (content != nullptr) {
    if (!content->is_string()) return std::unexpected(ApiError::invalidRequest("content must be a string, null or parts", param + ".content"));
    if (!content->get_ref<const std::string&>().empty()) out.content.push_back(ContentBlock::ofText(content->get<std::string>()));
  }
  const Json* tool_calls = member(message, "tool_calls");
  if (tool_calls == nullptr) return {};
  if (!tool_calls->is_array()) return std::unexpected(ApiError::invalidRequest("tool_calls must be an array", param + ".tool_calls"));
  for (size_t j = 0; j < tool_calls->size(); ++j) {
    const Json& call = (*tool_calls)[j];
    const std::string call_param = at(param + ".tool_calls", j);
    const auto type = optionalString(call, "type").value_or("function");
    if (type != "function") {
      out.content.push_back(ContentBlock::ofOpaque(call, catalog::Wire::OpenAIChat));
      continue;
    }
    const auto raw_id = optionalString(call, "id");
    if (!raw_id) return std::unexpected(ApiError::invalidRequest("a tool call needs a string id", call_param + ".id"));
    auto id = parseToolCallId(*raw_id, call_param + ".id");
    if (!id) return std::unexpected(id.error());
    const Json* function = member(call, "function");
    const auto name = function ? optionalString(*function, "name") : std::nullopt;
    if (!name) return std::unexpected(ApiError::invalidRequest("a tool call needs a function name", call_param + ".function.name"));
    std::optional<Json> input = Json::object();
    if (const Json* arguments = function ? member(*function, "arguments") : nullptr) {
      if (!arguments->is_string()) {
        return std::unexpected(ApiError::invalidRequest("arguments must be a JSON string", call_param + ".function.arguments"));
      }
      input = parseToolArguments(arguments->get_ref<const std::string&>());
      if (!input) {
        return std::unexpected(
            ApiError::invalidRequest("arguments must hold a JSON object", call_param + ".function.arguments"));
      }
    }
    if (!id->signature.empty()) {
      ContentBlock signature;
      signature.type = ContentBlock::Type::Thinking;
      signature.signature = std::move(id->signature);
      signature.signature_wire = catalog::Wire::Gemini;
      out.content.push_back(std::move(signature));
    }
    ContentBlock block;
    block.type = ContentBlock::Type::ToolUse;
    block.tool_id = std::move(id->id);
    block.tool_name = *name;
    block.tool_input = std::move(*input);
    out.content.push_back(std::move(block));
  }
  return {};
}

std::expected<ContentBlock, ApiError> toolResult(const Json& message, const std::string& param) {
  const auto raw_id = optionalString(message, "tool_call_id");
  if (!raw_id) return std::unexpected(ApiError::invalidRequest("a tool message needs a string tool_call_id", param + ".tool_call_id"));
  auto id = parseToolCallId(*raw_id, param + ".tool_call_id");
  if (!id) return std::unexpected(id.error());
  ContentBlock block;
  block.type = ContentBlock::Type::ToolResult;
  block.tool_use_id = std::move(id->id);
  if (const Json* content = member(message, "content")) {
    if (auto status = appendTextContent(*content, param + ".content", true, block.result); !status) {
      return std::unexpected(status.error());
    }
  }
  return block;
}

Status decodeMessages(const Json& messages, Request& request) {
  bool after_tool = false;  // the previous chat message was a `tool` message
  for (size_t i = 0; i < messages.size(); ++i) {
    const Json& message = messages[i];
    const std::string param = at("messages", i);
    if (!message.is_object()) return std::unexpected(ApiError::invalidRequest("a message must be an object", param));
    const auto role = optionalString(message, "role");
    if (!role) return std::unexpected(ApiError::invalidRequest("a message needs a string role", param + ".role"));
    const Json* content = member(message, "content");
    const bool was_after_tool = after_tool;
    after_tool = false;
    if (*role == "system" || *role == "developer") {
      if (content != nullptr) {
        if (auto status = appendTextContent(*content, param + ".content", false, request.system); !status) return status;
      }
    } else if (*role == "user") {
      if (!was_after_tool) request.messages.push_back(Message{Role::User, {}});
      if (content != nullptr) {
        if (auto status = appendUserContent(*content, param + ".content", request.messages.back().content); !status) {
          return status;
        }
      }
    } else if (*role == "assistant") {
      request.messages.push_back(Message{Role::Assistant, {}});
      if (auto status = appendAssistant(message, param, request.messages.back()); !status) return status;
    } else if (*role == "tool") {
      auto block = toolResult(message, param);
      if (!block) return std::unexpected(block.error());
      if (!was_after_tool) request.messages.push_back(Message{Role::User, {}});
      request.messages.back().content.push_back(std::move(*block));
      after_tool = true;
    } else if (*role == "function") {
      return std::unexpected(ApiError::unsupportedField("the deprecated function role is not supported; use tool", param + ".role"));
    } else {
      return std::unexpected(ApiError::invalidRequest("unknown role '" + *role + "'", param + ".role"));
    }
  }
  return {};
}

Status decodeTools(const Json& tools, Request& request) {
  if (!tools.is_array()) return std::unexpected(ApiError::invalidRequest("tools must be an array", "tools"));
  for (size_t i = 0; i < tools.size(); ++i) {
    const Json& entry = tools[i];
    const std::string param = at("tools", i);
    if (!entry.is_object()) return std::unexpected(ApiError::invalidRequest("a tool must be an object", param));
    Tool tool;
    if (optionalString(entry, "type").value_or("function") != "function") {
      // Custom and hosted tools: kept verbatim for this wire only.
      const auto type = optionalString(entry, "type").value_or("");
      const Json* custom = member(entry, type);
      tool.name = optionalString(entry, "name").value_or(custom ? optionalString(*custom, "name").value_or(type) : type);
      tool.raw = entry;
      tool.raw_wire = catalog::Wire::OpenAIChat;
      request.tools.push_back(std::move(tool));
      continue;
    }
    const Json* function = member(entry, "function");
    if (function == nullptr || !function->is_object()) {
      return std::unexpected(ApiError::invalidRequest("a function tool needs a function object", param + ".function"));
    }
    const auto name = optionalString(*function, "name");
    if (!name || name->empty()) return std::unexpected(ApiError::invalidRequest("a function tool needs a name", param + ".function.name"));
    tool.name = *name;
    tool.description = optionalString(*function, "description").value_or("");
    if (const Json* parameters = member(*function, "parameters")) {
      if (!parameters->is_object()) {
        return std::unexpected(ApiError::invalidRequest("parameters must be a JSON Schema object", param + ".function.parameters"));
      }
      tool.input_schema = *parameters;
    }
    tool.strict = boolMember(*function, "strict");
    request.tools.push_back(std::move(tool));
  }
  return {};
}

std::expected<ToolChoice, ApiError> decodeToolChoice(const Json& value) {
  ToolChoice choice;
  if (value.is_string()) {
    const auto& mode = value.get_ref<const std::string&>();
    if (mode == "auto") return choice;
    if (mode == "none") choice.mode = ToolChoice::Mode::None;
    else if (mode == "required") choice.mode = ToolChoice::Mode::Any;
    else return std::unexpected(ApiError::invalidRequest("tool_choice must be none, auto, required or a function", "tool_choice"));
    return choice;
  }
  const auto type = optionalString(value, "type");
  if (type == "function" || type == "custom") {
    const Json* named = member(value, *type);
    const auto name = named ? optionalString(*named, "name") : std::nullopt;
    if (!name) return std::unexpected(ApiError::invalidRequest("a forced tool needs a name", "tool_choice." + *type + ".name"));
    choice.mode = ToolChoice::Mode::Tool;
    choice.name = *name;
    return choice;
  }
  if (type == "allowed_tools") {
    // NOTE: the subset of allowed tools cannot be expressed by the other wires; only its mode is kept.
    const Json* allowed = member(value, "allowed_tools");
    const auto mode = allowed ? optionalString(*allowed, "mode") : std::nullopt;
    if (mode == "required") choice.mode = ToolChoice::Mode::Any;
    return choice;
  }
  return std::unexpected(ApiError::invalidRequest("tool_choice must be none, auto, required or a function", "tool_choice"));
}

std::expected<ResponseFormat, ApiError> decodeResponseFormat(const Json& value) {
  ResponseFormat format;
  const auto type = optionalString(value, "type");
  if (type == "text") return format;
  if (type == "json_object") {
    format.kind = ResponseFormat::Kind::JsonObject;
    return format;
  }
  if (type == "json_schema") {
    const Json* schema = member(value, "json_schema");
    if (schema == nullptr || !schema->is_object()) {
      return std::unexpected(ApiError::invalidRequest("json_schema must be an object", "response_format.json_schema"));
    }
    format.kind = ResponseFormat::Kind::JsonSchema;
    format.name = optionalString(*schema, "name").value_or("");
    if (const Json* body = member(*schema, "schema")) format.schema = *body;
    format.strict = boolMember(*schema, "strict");
    return format;
  }
  return std::unexpected(ApiError::invalidRequest("response_format.type must be text, json_object or json_schema", "response_format.type"));
}

// A field that must be a number when present.
std::expected<std::optional<double>, ApiError> numberField(const Json& body, const char* key) {
  const Json* value = member(body, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) return std::unexpected(ApiError::invalidRequest(std::string(key) + " must be a number", key));
  return value->get<double>();
}

std::expected<std::optional<int64_t>, ApiError> integerField(const Json& body, const char* key) {
  const Json* value = member(body, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number_integer()) return std::unexpected(ApiError::invalidRequest(std::string(key) + " must be an integer", key));
  return value->get<int64_t>();
}

Status decodeSampling(const Json& body, Request& request) {
  auto max_completion = integerField(body, "max_completion_tokens");
  if (!max_completion) return std::unexpected(max_completion.error());
  auto max_tokens = integerField(body, "max_tokens");
  if (!max_tokens) return std::unexpected(max_tokens.error());
  request.max_tokens = *max_completion ? *max_completion : *max_tokens;

  auto temperature = numberField(body, "temperature");
  if (!temperature) return std::unexpected(temperature.error());
  request.temperature = *temperature;  // the client's value; encoders clamp to their range
  auto top_p = numberField(body, "top_p");
  if (!top_p) return std::unexpected(top_p.error());
  request.top_p = *top_p;

  auto n = integerField(body, "n");
  if (!n) return std::unexpected(n.error());
  if (*n && **n > 1) return std::unexpected(ApiError::unsupportedField("only one choice (n = 1) can be requested", "n"));

  if (const Json* stop = member(body, "stop")) {
    if (stop->is_string()) {
      request.stop_sequences.push_back(stop->get<std::string>());
    } else if (stop->is_array()) {
      for (size_t i = 0; i < stop->size(); ++i) {
        if (!(*stop)[i].is_string()) return std::unexpected(ApiError::invalidRequest("stop must hold strings", at("stop", i)));
        request.stop_sequences.push_back((*stop)[i].get<std::string>());
      }
    } else {
      return std::unexpected(ApiError::invalidRequest("stop must be a string or an array of strings", "stop"));
    }
  }
  return {};
}

Status decodeOptions(const Json& body, Request& request) {
  if (const Json* stream = member(body, "stream")) {
    if (!stream->is_boolean()) return std::unexpected(ApiError::invalidRequest("stream must be a boolean", "stream"));
    request.stream = stream->get<bool>();
  }
  if (const Json* tools = member(body, "tools")) {
    if (auto status = decodeTools(*tools, request); !status) return status;
  }
  if (const Json* tool_choice = member(body, "tool_choice")) {
    auto choice = decodeToolChoice(*tool_choice);
    if (!choice) return std::unexpected(choice.error());
    request.tool_choice = *choice;
  }
  if (const Json* parallel = member(body, "parallel_tool_calls")) {
    if (!parallel->is_boolean()) return std::unexpected(ApiError::invalidRequest("parallel_tool_calls must be a boolean", "parallel_tool_calls"));
    request.parallel_tool_calls = parallel->get<bool>();
  }
  if (member(body, "functions") != nullptr || member(body, "function_call") != nullptr) {
    const char* field = member(body, "functions") != nullptr ? "functions" : "function_call";
    return std::unexpected(ApiError::unsupportedField("the deprecated functions API is not supported; use tools", field));
  }
  if (const Json* format = member(body, "response_format")) {
    auto decoded = decodeResponseFormat(*format);
    if (!decoded) return std::unexpected(decoded.error());
    request.response_format = std::move(*decoded);
  }
  if (const Json* effort = member(body, "reasoning_effort")) {
    if (!effort->is_string()) return std::unexpected(ApiError::invalidRequest("reasoning_effort must be a string", "reasoning_effort"));
    Reasoning reasoning;
    reasoning.effort = effort->get<std::string>();
    reasoning.enabled = reasoning.effort != "none";
    request.reasoning = std::move(reasoning);
  }
  if (const Json* user = member(body, "user")) {
    if (!user->is_string()) return std::unexpected(ApiError::invalidRequest("user must be a string", "user"));
    request.user = user->get<std::string>();
  }
  return {};
}

// The request once its body is known to be a JSON object.
std::expected<Request, ApiError> decodeObject(const Json& parsed) {

  Request request;
  const Json* model = member(parsed, "model");
  if (model == nullptr || !model->is_string()) return std::unexpected(ApiError::invalidRequest("model must be a string", "model"));
  request.model = model->get<std::string>();

  const Json* messages = member(parsed, "messages");
  if (messages == nullptr) return std::unexpected(ApiError::invalidRequest("messages is required", "messages"));
  if (!messages->is_array()) return std::unexpected(ApiError::invalidRequest("messages must be an array", "messages"));
  if (auto status = decodeMessages(*messages, request); !status) return std::unexpected(status.error());
  if (auto status = decodeSampling(parsed, request); !status) return std::unexpected(status.error());
  if (auto status = decodeOptions(parsed, request); !status) return std::unexpected(status.error());
  return request;
}

}  // namespace

std::expected<Request, ApiError> decodeRequest(std::string_view body) {
  return decodeObjectBody(body, decodeObject);
}

}  // namespace sluice::wire::openai_chat
