#include "tools/mock-provider/request_info.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

const Json kNull = nullptr;

// obj[name] or obj[alt_name] (Gemini accepts camelCase and snake_case), or null.
const Json& field(const Json& obj, std::string_view name, std::string_view alt_name = {}) {
  if (!obj.is_object()) return kNull;
  if (auto it = obj.find(name); it != obj.end()) return *it;
  if (!alt_name.empty())
    if (auto it = obj.find(alt_name); it != obj.end()) return *it;
  return kNull;
}

std::string stringOr(const Json& value, std::string fallback = {}) {
  return value.is_string() ? value.get<std::string>() : fallback;
}

ErrorSpec badRequest(Wire wire, std::string message, std::optional<std::string> param = std::nullopt,
                     std::optional<std::string> code = std::nullopt) {
  ErrorSpec error;
  error.status = 400;
  error.message = std::move(message);
  switch (wire) {
    case Wire::Anthropic: error.type = "invalid_request_error"; break;
    case Wire::OpenAiChat:
    case Wire::OpenAiResponses:
      error.type = "invalid_request_error";
      error.param = std::move(param);
      error.code = std::move(code);
      break;
    case Wire::Gemini: error.type = "INVALID_ARGUMENT"; break;
  }
  return error;
}

// Text of a string or of a list of parts whose text sits under "text" (any part type).
std::string textOf(const Json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array())
    for (const auto& part : content)
      if (part.is_object() && part.contains("text") && field(part, "text").is_string()) text += field(part, "text").get<std::string>();
  return text;
}

// Every string leaf (a Gemini functionResponse.response object).
void appendStrings(const Json& value, std::string& out) {
  if (value.is_string()) out += value.get<std::string>();
  else if (value.is_structured())
    for (const auto& item : value) appendStrings(item, out);
}

std::expected<RequestInfo, ErrorSpec> inspectAnthropic(const Json& body, bool count_tokens) {
  RequestInfo info;
  if (!field(body, "model").is_string() || field(body, "model").get<std::string>().empty())
    return std::unexpected(badRequest(Wire::Anthropic, "model: Field required"));
  info.model = field(body, "model").get<std::string>();
  if (!count_tokens && !field(body, "max_tokens").is_number_integer())
    return std::unexpected(badRequest(Wire::Anthropic, "max_tokens: Field required"));
  if (!field(body, "messages").is_array()) return std::unexpected(badRequest(Wire::Anthropic, "messages: Field required"));

  info.stream = !count_tokens && field(body, "stream").is_boolean() && field(body, "stream").get<bool>();
  info.prompt_text += textOf(field(body, "system"));
  for (const auto& message : field(body, "messages")) {
    const Json& content = field(message, "content");
    if (content.is_string()) {
      info.prompt_text += content.get<std::string>();
      continue;
    }
    if (!content.is_array()) continue;
    for (const auto& block : content) {
      const std::string type = stringOr(field(block, "type"));
      if (type == "text") info.prompt_text += stringOr(field(block, "text"));
      else if (type == "tool_result") info.prompt_text += textOf(field(block, "content"));
    }
  }
  if (!field(body, "messages").empty()) {
    const Json& last = field(body, "messages").back();
    if (stringOr(field(last, "role")) == "user") {
      const Json& content = field(last, "content");
      if (content.is_array())
        for (const auto& block : content)
          if (stringOr(field(block, "type")) == "tool_result") info.last_turn_is_tool_result = true;
      if (!info.last_turn_is_tool_result) info.last_user_text = textOf(content);
    }
  }
  for (const auto& tool : field(body, "tools").is_array() ? field(body, "tools") : Json::array()) {
    const std::string type = stringOr(field(tool, "type"), "custom");
    if (type == "custom" && field(tool, "name").is_string())
      info.tools.push_back({field(tool, "name").get<std::string>(), field(tool, "input_schema")});
  }
  const std::string choice = stringOr(field(field(body, "tool_choice"), "type"), "auto");
  if (choice == "any") info.tool_choice = ToolChoice::Required;
  else if (choice == "none") info.tool_choice = ToolChoice::None;
  else if (choice == "tool") {
    info.tool_choice = ToolChoice::Named;
    info.tool_choice_name = stringOr(field(field(body, "tool_choice"), "name"));
  }
  const std::string thinking = stringOr(field(field(body, "thinking"), "type"));
  info.thinking_requested = thinking == "enabled" || thinking == "adaptive";
  return info;
}

void readOpenAiToolChoice(const Json& choice, RequestInfo& info) {
  if (choice.is_string()) {
    const auto name = choice.get<std::string>();
    if (name == "none") info.tool_choice = ToolChoice::None;
    else if (name == "required") info.tool_choice = ToolChoice::Required;
  } else if (choice.is_object() && stringOr(field(choice, "type")) == "function") {
    info.tool_choice = ToolChoice::Named;
    // Chat nests the name under "function"; Responses keeps it flat.
    info.tool_choice_name = stringOr(field(choice, "name"), stringOr(field(field(choice, "function"), "name")));
  }
}

std::expected<RequestInfo, ErrorSpec> inspectChat(const Json& body) {
  RequestInfo info;
  if (!field(body, "model").is_string() || field(body, "model").get<std::string>().empty())
    return std::unexpected(badRequest(Wire::OpenAiChat, "you must provide a model parameter"));
  info.model = field(body, "model").get<std::string>();
  if (!field(body, "messages").is_array())
    return std::unexpected(badRequest(Wire::OpenAiChat, "Missing required parameter: 'messages'.", "messages",
                                      "missing_required_parameter"));
  info.stream = field(body, "stream").is_boolean() && field(body, "stream").get<bool>();
  const Json& include = field(field(body, "stream_options"), "include_usage");
  info.include_usage = include.is_boolean() && include.get<bool>();
  for (const auto& message : field(body, "messages")) info.prompt_text += textOf(field(message, "content"));
  if (!field(body, "messages").empty()) {
    const Json& last = field(body, "messages").back();
    const std::string role = stringOr(field(last, "role"));
    if (role == "user") info.last_user_text = textOf(field(last, "content"));
    else if (role == "tool") info.last_turn_is_tool_result = true;
  }
  for (const auto& tool : field(body, "tools").is_array() ? field(body, "tools") : Json::array()) {
    const Json& function = field(tool, "function");
    if (stringOr(field(tool, "type")) == "function" && field(function, "name").is_string())
      info.tools.push_back({field(function, "name").get<std::string>(), field(function, "parameters")});
  }
  readOpenAiToolChoice(field(body, "tool_choice"), info);
  const Json& effort = field(body, "reasoning_effort");
  info.thinking_requested = effort.is_string() && effort.get<std::string>() != "none";
  return info;
}

std::expected<RequestInfo, ErrorSpec> inspectResponses(const Json& body) {
  RequestInfo info;
  if (!field(body, "model").is_string() || field(body, "model").get<std::string>().empty())
    return std::unexpected(badRequest(Wire::OpenAiResponses, "Missing required parameter: 'model'.", "model",
                                      "missing_required_parameter"));
  info.model = field(body, "model").get<std::string>();
  info.stream = field(body, "stream").is_boolean() && field(body, "stream").get<bool>();
  info.prompt_text += stringOr(field(body, "instructions"));
  const Json& input = field(body, "input");
  if (input.is_string()) {
    info.prompt_text += input.get<std::string>();
    info.last_user_text = input.get<std::string>();
  } else if (input.is_array()) {
    for (const auto& item : input) {
      const std::string type = stringOr(field(item, "type"), "message");
      if (type == "message") info.prompt_text += textOf(field(item, "content"));
      else if (type == "function_call_output") info.prompt_text += textOf(field(item, "output"));
    }
    if (!input.empty()) {
      const Json& last = input.back();
      const std::string type = stringOr(field(last, "type"), "message");
      if (type == "function_call_output") info.last_turn_is_tool_result = true;
      else if (type == "message" && stringOr(field(last, "role")) == "user")
        info.last_user_text = textOf(field(last, "content"));
    }
  }
  for (const auto& tool : field(body, "tools").is_array() ? field(body, "tools") : Json::array()) {
    if (stringOr(field(tool, "type")) == "function" && field(tool, "name").is_string())
      info.tools.push_back({field(tool, "name").get<std::string>(), field(tool, "parameters")});
  }
  readOpenAiToolChoice(field(body, "tool_choice"), info);
  const Json& reasoning = field(body, "reasoning");
  info.thinking_requested = reasoning.is_object() && stringOr(field(reasoning, "effort")) != "none";
  return info;
}

std::expected<RequestInfo, ErrorSpec> inspectGemini(const Route& route, const Json& body) {
  RequestInfo info;
  info.model = route.model;
  info.stream = route.endpoint == Endpoint::StreamGenerateContent;
  const Json& contents = field(body, "contents");
  if (!contents.is_array() && route.endpoint != Endpoint::GeminiCountTokens)
    return std::unexpected(badRequest(Wire::Gemini, "* GenerateContentRequest.contents: contents is not specified"));
  info.prompt_text += textOf(field(field(body, "systemInstruction", "system_instruction"), "parts"));
  const Json all_contents = contents.is_array() ? contents : Json::array();
  for (const auto& content : all_contents) {
    const Json& parts = field(content, "parts");
    if (!parts.is_array()) continue;
    for (const auto& part : parts) {
      if (field(part, "text").is_string()) info.prompt_text += field(part, "text").get<std::string>();
      appendStrings(field(field(part, "functionResponse", "function_response"), "response"), info.prompt_text);
    }
  }
  if (!all_contents.empty()) {
    const Json& last = all_contents.back();
    if (stringOr(field(last, "role"), "user") == "user") {
      const Json& parts = field(last, "parts");
      if (parts.is_array())
        for (const auto& part : parts)
          if (!field(part, "functionResponse", "function_response").is_null()) info.last_turn_is_tool_result = true;
      if (!info.last_turn_is_tool_result) info.last_user_text = textOf(parts);
    }
  }
  for (const auto& tool : field(body, "tools").is_array() ? field(body, "tools") : Json::array()) {
    const Json& declarations = field(tool, "functionDeclarations", "function_declarations");
    if (!declarations.is_array()) continue;
    for (const auto& declaration : declarations) {
      if (!field(declaration, "name").is_string()) continue;
      Json schema = field(declaration, "parametersJsonSchema", "parameters_json_schema");
      if (schema.is_null()) schema = field(declaration, "parameters");
      info.tools.push_back({field(declaration, "name").get<std::string>(), schema});
    }
  }
  const Json& config =
      field(field(body, "toolConfig", "tool_config"), "functionCallingConfig", "function_calling_config");
  const std::string mode = stringOr(field(config, "mode"), "AUTO");
  if (mode == "NONE") info.tool_choice = ToolChoice::None;
  else if (mode == "ANY") {
    const Json& allowed = field(config, "allowedFunctionNames", "allowed_function_names");
    if (allowed.is_array() && allowed.size() == 1 && allowed[0].is_string()) {
      info.tool_choice = ToolChoice::Named;
      info.tool_choice_name = allowed[0].get<std::string>();
    } else {
      info.tool_choice = ToolChoice::Required;
    }
  }
  const Json& include = field(field(field(body, "generationConfig", "generation_config"), "thinkingConfig", "thinking_config"),
                              "includeThoughts", "include_thoughts");
  info.thinking_requested = include.is_boolean() && include.get<bool>();
  return info;
}

std::string invalidJsonMessage(Wire wire) {
  switch (wire) {
    case Wire::Anthropic: return "There was an error parsing the body of your request: it is not valid JSON";
    case Wire::OpenAiChat:
    case Wire::OpenAiResponses:
      return "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP "
             "library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)";
    case Wire::Gemini: return "Invalid JSON payload received. Unexpected token.";
  }
  return "invalid JSON";
}

}  // namespace

std::expected<RequestInfo, ErrorSpec> inspectRequest(const Route& route, std::string_view body) {
  const Json root = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object()) return std::unexpected(badRequest(route.wire, invalidJsonMessage(route.wire)));
  // `root` is const: operator[] on a missing key is not allowed, so work on a mutable copy
  // only where `field(body, "x")` is used on keys checked to exist (or to read null from).
  Json copy = root;
  switch (route.wire) {
    case Wire::Anthropic: return inspectAnthropic(root, route.endpoint == Endpoint::CountTokens);
    case Wire::OpenAiChat: return inspectChat(root);
    case Wire::OpenAiResponses: return inspectResponses(root);
    case Wire::Gemini: return inspectGemini(route, root);
  }
  return std::unexpected(badRequest(route.wire, "unsupported endpoint"));
}

}  // namespace sluice::mock
