// Responses request body (what Codex and Responses-API clients send) -> neutral Request.
// State: with a database the gateway is the store and inlines `previous_response_id` and
// `item_reference` before this decoder sees the body (server/responses/conversation.h); what still
// reaches it (no database, or --responses-retention-days 0), and what points at state no gateway
// keeps (conversation, stored prompts, background runs), is refused with 400 unsupported_field,
// since a translated or failed-over request could not honour it.

#include <string>

#include "server/wire/openai_responses/codec.h"
#include "server/wire/openai_responses/items.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"
#include "server/wire/signature_envelope.h"

namespace sluice::wire::openai_responses {

namespace {

using Failure = std::optional<ApiError>;

// Appends to the last message when it has the same role, so consecutive items of one role
// (a message, then its function calls) form one neutral turn.
void append(std::vector<Message>& messages, Role role, ContentBlock block) {
  if (messages.empty() || messages.back().role != role) messages.push_back(Message{role, {}});
  messages.back().content.push_back(std::move(block));
}

// "data:image/png;base64,AAAA" -> Base64 image; http(s) URLs -> Url image.
Failure decodeImageUrl(const std::string& url, const std::string& param, ContentBlock& block) {
  block.type = ContentBlock::Type::Image;
  if (url.starts_with("data:")) {
    const auto comma = url.find(',');
    const auto marker = url.find(";base64");
    if (comma == std::string::npos || marker == std::string::npos || marker > comma) {
      return ApiError::invalidRequest("image data URLs must be base64 encoded (data:<media type>;base64,<data>)", param);
    }
    block.image.kind = ImageSource::Kind::Base64;
    block.image.media_type = url.substr(5, marker - 5);
    block.image.data = url.substr(comma + 1);
    return std::nullopt;
  }
  if (url.starts_with("http://") || url.starts_with("https://")) {
    block.image.kind = ImageSource::Kind::Url;
    block.image.url = url;
    return std::nullopt;
  }
  return ApiError::invalidRequest("image_url must be an http(s) URL or a base64 data URL", param);
}

Failure decodeImagePart(const Json& part, const std::string& path, ContentBlock& block) {
  if (member(part, "file_id") != nullptr) {
    return ApiError::unsupportedField("input_image by file_id is not supported: files live in one provider's storage; send the "
                       "image as a URL or a data URL", path + ".file_id");
  }
  const Json* url = member(part, "image_url");
  if (url != nullptr && url->is_object()) url = member(*url, "url");
  if (url == nullptr || !url->is_string()) return ApiError::invalidRequest("input_image needs an image_url", path + ".image_url");
  return decodeImageUrl(url->get<std::string>(), path + ".image_url", block);
}

// One content part of a user or assistant message (or of a function_call_output).
Failure decodePart(const Json& part, const std::string& path, std::vector<ContentBlock>& out) {
  if (!part.is_object()) return ApiError::invalidRequest("content parts must be objects", path);
  const std::string type = stringMember(part, "type");
  if (type == "input_text" || type == "output_text" || type == "text" || type == "refusal") {
    const Json* text = member(part, type == "refusal" ? "refusal" : "text");
    if (text == nullptr || !text->is_string()) return ApiError::invalidRequest("a " + type + " part needs a string", path);
    if (!text->get<std::string>().empty()) out.push_back(ContentBlock::ofText(text->get<std::string>()));
    return std::nullopt;
  }
  if (type == "input_image") {
    ContentBlock block;
    if (Failure failure = decodeImagePart(part, path, block)) return failure;
    out.push_back(std::move(block));
    return std::nullopt;
  }
  if (type == "input_file" && member(part, "file_id") != nullptr) {
    return ApiError::unsupportedField("input_file by file_id is not supported: files live in one provider's storage; send "
                       "file_data or file_url", path + ".file_id");
  }
  // NOTE: files, audio and part types this IR does not model travel as Opaque parts: a Responses
  // provider receives them unchanged, other wires cannot express them and drop them.
  out.push_back(ContentBlock::ofOpaque(part, catalog::Wire::OpenAIResponses));
  return std::nullopt;
}

Failure decodeContent(const Json& content, const std::string& path, std::vector<ContentBlock>& out) {
  if (content.is_string()) {
    if (!content.get<std::string>().empty()) out.push_back(ContentBlock::ofText(content.get<std::string>()));
    return std::nullopt;
  }
  if (!content.is_array()) return ApiError::invalidRequest("content must be a string or an array of parts", path);
  for (size_t index = 0; index < content.size(); ++index) {
    if (Failure failure = decodePart(content[index], path + "[" + std::to_string(index) + "]", out)) return failure;
  }
  return std::nullopt;
}

Failure decodeMessage(const Json& item, const std::string& path, Request& request) {
  const std::string role = stringMember(item, "role");
  const Json* content = member(item, "content");
  if (content == nullptr) return ApiError::invalidRequest("a message needs content", path + ".content");
  std::vector<ContentBlock> blocks;
  if (Failure failure = decodeContent(*content, path + ".content", blocks)) return failure;
  if (role == "system" || role == "developer") {
    for (size_t index = 0; index < blocks.size(); ++index) {
      if (blocks[index].type != ContentBlock::Type::Text) {
        return ApiError::unsupportedField("system and developer messages may hold only text", path + ".content[" + std::to_string(index) + "]");
      }
      request.system.push_back(std::move(blocks[index]));
    }
    return std::nullopt;
  }
  Role neutral;
  if (role == "user") {
    neutral = Role::User;
  } else if (role == "assistant") {
    neutral = Role::Assistant;
  } else {
    return ApiError::invalidRequest("message role must be user, assistant, system or developer", path + ".role");
  }
  for (auto& block : blocks) append(request.messages, neutral, std::move(block));
  return std::nullopt;
}

Failure decodeFunctionCall(const Json& item, const std::string& path, Request& request) {
  ContentBlock block;
  block.type = ContentBlock::Type::ToolUse;
  block.tool_id = stringMember(item, "call_id");
  block.tool_name = stringMember(item, "name");
  block.tool_namespace = stringMember(item, "namespace");
  if (block.tool_id.empty()) return ApiError::invalidRequest("a function_call needs a call_id", path + ".call_id");
  if (block.tool_name.empty()) return ApiError::invalidRequest("a function_call needs a name", path + ".name");
  auto arguments = parseArguments(item);
  if (!arguments) return ApiError::invalidRequest("function_call arguments must be a JSON object", path + ".arguments");
  block.tool_input = std::move(*arguments);
  append(request.messages, Role::Assistant, std::move(block));
  return std::nullopt;
}

Failure decodeFunctionCallOutput(const Json& item, const std::string& path, Request& request) {
  ContentBlock block;
  block.type = ContentBlock::Type::ToolResult;
  block.tool_use_id = stringMember(item, "call_id");
  if (block.tool_use_id.empty()) return ApiError::invalidRequest("a function_call_output needs a call_id", path + ".call_id");
  const Json* output = member(item, "output");
  if (output == nullptr) {
    // An empty result: the call ran and said nothing.
  } else if (output->is_string() || output->is_array()) {
    if (Failure failure = decodeContent(*output, path + ".output", block.result)) return failure;
  } else {
    block.result.push_back(ContentBlock::ofText(dumpJsonText(*output)));
  }
  append(request.messages, Role::User, std::move(block));
  return std::nullopt;
}

Failure decodeItem(const Json& item, const std::string& path, Request& request) {
  if (!item.is_object()) return ApiError::invalidRequest("input items must be objects", path);
  const std::string type = stringMember(item, "type", member(item, "role") != nullptr ? "message" : "");
  if (type == "message") return decodeMessage(item, path, request);
  if (type == "function_call") return decodeFunctionCall(item, path, request);
  if (type == "function_call_output") return decodeFunctionCallOutput(item, path, request);
  if (type == "reasoning") {
    ContentBlock block = thinkingFromReasoning(item);
    // A signature another provider minted, shown to this client in an envelope: back to its wire.
    if (UnwrappedSignature unwrapped = unwrapSignature(catalog::Wire::OpenAIResponses, block.signature); unwrapped.wrapped) {
      block.signature = std::move(unwrapped.payload);
      block.signature_wire = unwrapped.wire;
      block.reasoning_id = std::move(unwrapped.reasoning_id);
    }
    append(request.messages, Role::Assistant, std::move(block));
    return std::nullopt;
  }
  if (type == "item_reference") {
    return ApiError::unsupportedField("item_reference points at stored items, and this gateway keeps no responses (it "
                       "runs without a database or with --responses-retention-days 0), so send the items themselves", path);
  }
  if (type.empty()) return ApiError::invalidRequest("an input item needs a type or a role", path);
  // Hosted-tool calls and their outputs (web_search_call, custom_tool_call_output, ...): kept for
  // a Responses provider. Outputs answer the model, so they belong to the user's turn.
  append(request.messages, type.ends_with("_output") ? Role::User : Role::Assistant, ContentBlock::ofOpaque(item, catalog::Wire::OpenAIResponses));
  return std::nullopt;
}

Failure decodeInput(const Json& body, Request& request) {
  const Json* input = member(body, "input");
  if (input == nullptr) return ApiError::invalidRequest("input is required", "input");
  if (input->is_string()) {
    if (!input->get<std::string>().empty()) append(request.messages, Role::User, ContentBlock::ofText(input->get<std::string>()));
    return std::nullopt;
  }
  if (!input->is_array()) return ApiError::invalidRequest("input must be a string or an array of items", "input");
  for (size_t index = 0; index < input->size(); ++index) {
    if (Failure failure = decodeItem((*input)[index], "input[" + std::to_string(index) + "]", request)) return failure;
  }
  return std::nullopt;
}

Failure decodeTools(const Json& body, Request& request) {
  const Json* tools = member(body, "tools");
  if (tools == nullptr) return std::nullopt;
  if (!tools->is_array()) return ApiError::invalidRequest("tools must be an array", "tools");
  for (size_t index = 0; index < tools->size(); ++index) {
    const Json& entry = (*tools)[index];
    const std::string path = "tools[" + std::to_string(index) + "]";
    if (!entry.is_object()) return ApiError::invalidRequest("tools must be objects", path);
    const std::string type = stringMember(entry, "type");
    Tool tool;
    if (type == "function") {
      tool.name = stringMember(entry, "name");
      if (tool.name.empty()) return ApiError::invalidRequest("a function tool needs a name", path + ".name");
      tool.description = stringMember(entry, "description");
      if (const Json* parameters = member(entry, "parameters")) {
        if (!parameters->is_object()) return ApiError::invalidRequest("parameters must be a JSON Schema object", path + ".parameters");
        tool.input_schema = *parameters;
      } else {
        tool.input_schema = {{"type", "object"}, {"properties", Json::object()}};
      }
      if (const Json* strict = member(entry, "strict"); strict != nullptr && strict->is_boolean()) {
        tool.strict = strict->get<bool>();
      }
    } else {
      // Hosted and custom tools (web_search, file_search, custom, ...) only a Responses provider runs.
      tool.name = stringMember(entry, "name", type);
      tool.description = stringMember(entry, "description");
      tool.raw = entry;
      tool.raw_wire = catalog::Wire::OpenAIResponses;
    }
    request.tools.push_back(std::move(tool));
  }
  return std::nullopt;
}

Failure decodeToolChoice(const Json& body, Request& request) {
  const Json* choice = member(body, "tool_choice");
  if (choice == nullptr) return std::nullopt;
  ToolChoice neutral;
  if (choice->is_string()) {
    const std::string mode = choice->get<std::string>();
    if (mode == "auto") {
      neutral.mode = ToolChoice::Mode::Auto;
    } else if (mode == "none") {
      neutral.mode = ToolChoice::Mode::None;
    } else if (mode == "required") {
      neutral.mode = ToolChoice::Mode::Any;
    } else {
      return ApiError::invalidRequest("tool_choice must be none, auto, required or an object", "tool_choice");
    }
  } else if (choice->is_object()) {
    const std::string type = stringMember(*choice, "type");
    if (type == "function" || type == "custom") {
      neutral.mode = ToolChoice::Mode::Tool;
      neutral.name = stringMember(*choice, "name");
      if (neutral.name.empty()) return ApiError::invalidRequest("a forced tool needs a name", "tool_choice.name");
    } else if (type == "allowed_tools") {
      // NOTE: the allowed subset is dropped; only whether a call is required survives.
      neutral.mode = stringMember(*choice, "mode") == "required" ? ToolChoice::Mode::Any : ToolChoice::Mode::Auto;
    } else {
      // NOTE: forcing a hosted tool cannot be said neutrally; the model may still pick it.
      neutral.mode = ToolChoice::Mode::Auto;
    }
  } else {
    return ApiError::invalidRequest("tool_choice must be a string or an object", "tool_choice");
  }
  request.tool_choice = neutral;
  return std::nullopt;
}

Failure decodeTextFormat(const Json& body, Request& request) {
  const Json* text = member(body, "text");
  if (text == nullptr) return std::nullopt;
  if (!text->is_object()) return ApiError::invalidRequest("text must be an object", "text");
  const Json* format = member(*text, "format");
  if (format == nullptr) return std::nullopt;
  if (!format->is_object()) return ApiError::invalidRequest("text.format must be an object", "text.format");
  const std::string type = stringMember(*format, "type");
  ResponseFormat neutral;
  if (type == "text") {
    neutral.kind = ResponseFormat::Kind::Text;
  } else if (type == "json_object") {
    neutral.kind = ResponseFormat::Kind::JsonObject;
  } else if (type == "json_schema") {
    neutral.kind = ResponseFormat::Kind::JsonSchema;
    neutral.name = stringMember(*format, "name");
    const Json* schema = member(*format, "schema");
    if (schema == nullptr || !schema->is_object()) return ApiError::invalidRequest("a json_schema format needs a schema", "text.format.schema");
    neutral.schema = *schema;
    if (const Json* strict = member(*format, "strict"); strict != nullptr && strict->is_boolean()) {
      neutral.strict = strict->get<bool>();
    }
  } else {
    return ApiError::invalidRequest("text.format.type must be text, json_object or json_schema", "text.format.type");
  }
  request.response_format = std::move(neutral);
  return std::nullopt;
}

Failure decodeReasoning(const Json& body, Request& request) {
  const Json* reasoning = member(body, "reasoning");
  if (reasoning == nullptr) return std::nullopt;
  if (!reasoning->is_object()) return ApiError::invalidRequest("reasoning must be an object", "reasoning");
  Reasoning neutral;
  neutral.effort = stringMember(*reasoning, "effort");
  neutral.summary = stringMember(*reasoning, "summary", stringMember(*reasoning, "generate_summary"));
  neutral.enabled = neutral.effort != "none";
  request.reasoning = std::move(neutral);
  return std::nullopt;
}

Failure decodeNumber(const Json& body, const char* key, std::optional<double>& out) {
  const Json* value = member(body, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_number()) return ApiError::invalidRequest(std::string(key) + " must be a number", key);
  out = value->get<double>();
  return std::nullopt;
}

Failure decodeScalars(const Json& body, Request& request) {
  if (const Json* model = member(body, "model")) {
    if (!model->is_string()) return ApiError::invalidRequest("model must be a string", "model");
    request.model = model->get<std::string>();
  }
  if (const Json* stream = member(body, "stream")) {
    if (!stream->is_boolean()) return ApiError::invalidRequest("stream must be a boolean", "stream");
    request.stream = stream->get<bool>();
  }
  if (member(body, "max_output_tokens") != nullptr) {
    request.max_tokens = intMember(body, "max_output_tokens");
    if (!request.max_tokens) return ApiError::invalidRequest("max_output_tokens must be an integer", "max_output_tokens");
  }
  if (Failure failure = decodeNumber(body, "temperature", request.temperature)) return failure;
  if (Failure failure = decodeNumber(body, "top_p", request.top_p)) return failure;
  if (const Json* parallel = member(body, "parallel_tool_calls")) {
    if (!parallel->is_boolean()) return ApiError::invalidRequest("parallel_tool_calls must be a boolean", "parallel_tool_calls");
    request.parallel_tool_calls = parallel->get<bool>();
  }
  const std::string user = stringMember(body, "user", stringMember(body, "safety_identifier"));
  if (!user.empty()) request.user = user;
  return std::nullopt;
}

Failure refuseState(const Json& body) {
  for (const char* key : {"previous_response_id", "conversation", "prompt"}) {
    if (member(body, key) != nullptr) {
      return ApiError::unsupportedField(std::string(key) +
                             " refers to stored state this gateway does not keep (previous_response_id needs a "
                             "database and --responses-retention-days above 0), so send the whole conversation in "
                             "input", key);
    }
  }
  if (const Json* background = member(body, "background"); background != nullptr && background->is_boolean() &&
                                                           background->get<bool>()) {
    return ApiError::unsupportedField("background responses need provider-side storage; the gateway is stateless", "background");
  }
  return std::nullopt;
}

// The request once its body is known to be a JSON object.
std::expected<Request, ApiError> decodeObject(const Json& parsed) {
  Request request;
  if (Failure failure = refuseState(parsed)) return std::unexpected(*failure);
  if (Failure failure = decodeScalars(parsed, request)) return std::unexpected(*failure);
  if (const Json* instructions = member(parsed, "instructions")) {
    if (!instructions->is_string()) return std::unexpected(ApiError::invalidRequest("instructions must be a string", "instructions"));
    if (!instructions->get<std::string>().empty()) request.system.push_back(ContentBlock::ofText(instructions->get<std::string>()));
  }
  for (auto step : {decodeInput, decodeTools, decodeToolChoice, decodeTextFormat, decodeReasoning}) {
    if (Failure failure = step(parsed, request)) return std::unexpected(*failure);
  }
  return request;
}

}  // namespace

std::expected<Request, ApiError> decodeRequest(std::string_view body) {
  return decodeObjectBody(body, decodeObject);
}

}  // namespace sluice::wire::openai_responses
