// Anthropic Messages request (what Claude Code and the Anthropic SDK send) -> IR Request.

#include "server/wire/anthropic/codec.h"
#include "server/wire/json_parse.h"
#include "server/wire/anthropic/content_block.h"
#include "server/wire/json_access.h"

namespace sluice::wire::anthropic {

namespace {

template <typename T>
using Expected = std::expected<T, ApiError>;

Expected<std::optional<double>> numberField(const Json& root, const char* key) {
  const Json* value = member(root, key);
  if (value == nullptr) return std::optional<double>();
  if (!value->is_number()) return std::unexpected(ApiError::invalidRequest(std::string("'") + key + "' must be a number", key));
  return std::optional<double>(value->get<double>());
}

Expected<std::optional<int64_t>> integerField(const Json& root, const char* key) {
  const Json* value = member(root, key);
  if (value == nullptr) return std::optional<int64_t>();
  auto number = asInteger(*value);
  if (!number) return std::unexpected(ApiError::invalidRequest(std::string("'") + key + "' must be an integer", key));
  return std::optional<int64_t>(*number);
}

Expected<std::vector<ContentBlock>> decodeContent(const Json& content, const std::string& path) {
  std::vector<ContentBlock> blocks;
  if (content.is_string()) {
    ContentBlock text;
    text.text = content.get<std::string>();
    blocks.push_back(std::move(text));
    return blocks;
  }
  if (!content.is_array()) return std::unexpected(ApiError::invalidRequest("'" + path + "' must be a string or an array of blocks", path));
  for (size_t i = 0; i < content.size(); ++i) {
    auto block = decodeBlock(content[i], path + "[" + std::to_string(i) + "]", Strictness::Strict);
    if (!block) return std::unexpected(block.error());
    blocks.push_back(std::move(*block));
  }
  return blocks;
}

// `system` (string or text blocks) and mid-conversation system messages both land here.
Expected<void> appendSystem(const Json& value, const std::string& path, std::vector<ContentBlock>& system) {
  if (value.is_string()) {
    if (!value.get_ref<const Json::string_t&>().empty()) {
      ContentBlock text;
      text.text = value.get<std::string>();
      system.push_back(std::move(text));
    }
    return {};
  }
  auto blocks = decodeContent(value, path);
  if (!blocks) return std::unexpected(blocks.error());
  for (size_t i = 0; i < blocks->size(); ++i) {
    if ((*blocks)[i].type != ContentBlock::Type::Text) {
      const std::string at = path + "[" + std::to_string(i) + "]";
      return std::unexpected(ApiError::invalidRequest("'" + at + "' must be a text block", at));
    }
    system.push_back(std::move((*blocks)[i]));
  }
  return {};
}

Expected<void> decodeMessages(const Json& root, Request& request) {
  const Json* messages = member(root, "messages");
  if (messages == nullptr || !messages->is_array()) {
    return std::unexpected(ApiError::invalidRequest("'messages' must be an array of messages", "messages"));
  }
  for (size_t i = 0; i < messages->size(); ++i) {
    const std::string path = "messages[" + std::to_string(i) + "]";
    const Json& message = (*messages)[i];
    if (!message.is_object()) return std::unexpected(ApiError::invalidRequest("'" + path + "' must be an object", path));
    const std::string role = stringMember(message, "role");
    const Json* content = member(message, "content");
    if (content == nullptr) return std::unexpected(ApiError::invalidRequest("'" + path + ".content' is required", path + ".content"));
    if (role == "system") {
      // NOTE: the IR has one system prompt; a mid-conversation system message joins it (its
      // position in the conversation is lost).
      auto appended = appendSystem(*content, path + ".content", request.system);
      if (!appended) return std::unexpected(appended.error());
      continue;
    }
    if (role != "user" && role != "assistant") {
      return std::unexpected(ApiError::invalidRequest("'" + path + ".role' must be \"user\" or \"assistant\"", path + ".role"));
    }
    auto blocks = decodeContent(*content, path + ".content");
    if (!blocks) return std::unexpected(blocks.error());
    request.messages.push_back(Message{role == "user" ? Role::User : Role::Assistant, std::move(*blocks)});
  }
  // A top-level cache_control asks Anthropic to place the breakpoint on the last cacheable block
  // itself; the IR only knows per-block marks, so it is placed there explicitly.
  if (const Json* cache_control = member(root, "cache_control"); cache_control != nullptr && cache_control->is_object()) {
    if (!request.messages.empty() && !request.messages.back().content.empty()) {
      ContentBlock& last = request.messages.back().content.back();
      if (last.cache_control.is_null()) last.cache_control = *cache_control;
    }
  }
  return {};
}

Expected<Tool> decodeTool(const Json& entry, const std::string& path) {
  if (!entry.is_object()) return std::unexpected(ApiError::invalidRequest("'" + path + "' must be an object", path));
  Tool tool;
  const Json* type = member(entry, "type");
  if (type != nullptr && type->is_string() && type->get_ref<const Json::string_t&>() != "custom") {
    // A server tool (web_search_*, code_execution_*, bash_*, ...): only Anthropic runs it.
    tool.name = stringMember(entry, "name");
    tool.raw = entry;
    tool.raw_wire = catalog::Wire::Anthropic;
    return tool;
  }
  const Json* name = member(entry, "name");
  if (name == nullptr || !name->is_string()) return std::unexpected(ApiError::invalidRequest("'" + path + ".name' must be a string", path + ".name"));
  tool.name = name->get<std::string>();
  tool.description = stringMember(entry, "description");
  if (const Json* schema = member(entry, "input_schema"); schema != nullptr) {
    if (!schema->is_object()) {
      return std::unexpected(ApiError::invalidRequest("'" + path + ".input_schema' must be an object", path + ".input_schema"));
    }
    tool.input_schema = *schema;
  }
  if (const Json* strict = member(entry, "strict"); strict != nullptr && strict->is_boolean()) tool.strict = strict->get<bool>();
  if (const Json* cache_control = member(entry, "cache_control"); cache_control != nullptr) {
    tool.cache_control = *cache_control;
  }
  return tool;
}

Expected<void> decodeTools(const Json& root, Request& request) {
  if (const Json* tools = member(root, "tools"); tools != nullptr) {
    if (!tools->is_array()) return std::unexpected(ApiError::invalidRequest("'tools' must be an array", "tools"));
    for (size_t i = 0; i < tools->size(); ++i) {
      auto tool = decodeTool((*tools)[i], "tools[" + std::to_string(i) + "]");
      if (!tool) return std::unexpected(tool.error());
      request.tools.push_back(std::move(*tool));
    }
  }
  const Json* choice = member(root, "tool_choice");
  if (choice == nullptr) return {};
  if (!choice->is_object()) return std::unexpected(ApiError::invalidRequest("'tool_choice' must be an object", "tool_choice"));
  ToolChoice tool_choice;
  const std::string type = stringMember(*choice, "type");
  if (type == "auto") {
    tool_choice.mode = ToolChoice::Mode::Auto;
  } else if (type == "any") {
    tool_choice.mode = ToolChoice::Mode::Any;
  } else if (type == "none") {
    tool_choice.mode = ToolChoice::Mode::None;
  } else if (type == "tool") {
    tool_choice.mode = ToolChoice::Mode::Tool;
    tool_choice.name = stringMember(*choice, "name");
    if (tool_choice.name.empty()) return std::unexpected(ApiError::invalidRequest("'tool_choice.name' must name a tool", "tool_choice.name"));
  } else {
    return std::unexpected(
        ApiError::invalidRequest("'tool_choice.type' must be one of auto, any, tool, none", "tool_choice.type"));
  }
  if (const Json* disable = member(*choice, "disable_parallel_tool_use"); disable != nullptr && disable->is_boolean()) {
    tool_choice.disable_parallel = disable->get<bool>();
    request.parallel_tool_calls = !tool_choice.disable_parallel;
  }
  request.tool_choice = std::move(tool_choice);
  return {};
}

Expected<void> decodeThinking(const Json& root, Request& request) {
  if (const Json* thinking = member(root, "thinking"); thinking != nullptr) {
    if (!thinking->is_object()) return std::unexpected(ApiError::invalidRequest("'thinking' must be an object", "thinking"));
    const std::string type = stringMember(*thinking, "type");
    Reasoning reasoning;
    if (type == "enabled") {
      auto budget = integerField(*thinking, "budget_tokens");
      if (!budget) {
        return std::unexpected(ApiError::invalidRequest("'thinking.budget_tokens' must be an integer", "thinking.budget_tokens"));
      }
      reasoning.budget_tokens = *budget;
    } else if (type == "disabled") {
      reasoning.enabled = false;
    } else if (type != "adaptive") {
      return std::unexpected(
          ApiError::invalidRequest("'thinking.type' must be one of enabled, adaptive, disabled", "thinking.type"));
    }
    request.reasoning = std::move(reasoning);
  }
  // output_config (and the older top-level output_format): effort and structured output.
  const Json* output_config = member(root, "output_config");
  if (output_config != nullptr && !output_config->is_object()) {
    return std::unexpected(ApiError::invalidRequest("'output_config' must be an object", "output_config"));
  }
  const std::string effort = output_config ? stringMember(*output_config, "effort") : "";
  if (!effort.empty()) {
    // NOTE: effort without `thinking` reads as reasoning on at that effort (the OpenAI reading).
    if (!request.reasoning) request.reasoning = Reasoning{};
    request.reasoning->effort = effort;
  }
  const Json* format = output_config ? member(*output_config, "format") : nullptr;
  if (format == nullptr) format = member(root, "output_format");
  if (format != nullptr && format->is_object() && stringMember(*format, "type") == "json_schema") {
    ResponseFormat response_format;
    response_format.kind = ResponseFormat::Kind::JsonSchema;
    if (const Json* schema = member(*format, "schema")) response_format.schema = *schema;
    request.response_format = std::move(response_format);
  }
  return {};
}

Expected<void> decodeSampling(const Json& root, Request& request) {
  auto max_tokens = integerField(root, "max_tokens");
  if (!max_tokens) return std::unexpected(max_tokens.error());
  request.max_tokens = *max_tokens;
  auto temperature = numberField(root, "temperature");
  if (!temperature) return std::unexpected(temperature.error());
  request.temperature = *temperature;
  auto top_p = numberField(root, "top_p");
  if (!top_p) return std::unexpected(top_p.error());
  request.top_p = *top_p;
  auto top_k = integerField(root, "top_k");
  if (!top_k) return std::unexpected(top_k.error());
  request.top_k = *top_k;
  if (const Json* stops = member(root, "stop_sequences"); stops != nullptr) {
    if (!stops->is_array()) return std::unexpected(ApiError::invalidRequest("'stop_sequences' must be an array of strings", "stop_sequences"));
    for (const Json& stop : *stops) {
      if (!stop.is_string()) return std::unexpected(ApiError::invalidRequest("'stop_sequences' must be an array of strings", "stop_sequences"));
      request.stop_sequences.push_back(stop.get<std::string>());
    }
  }
  if (const Json* stream = member(root, "stream"); stream != nullptr) {
    if (!stream->is_boolean()) return std::unexpected(ApiError::invalidRequest("'stream' must be a boolean", "stream"));
    request.stream = stream->get<bool>();
  }
  if (const Json* metadata = member(root, "metadata"); metadata != nullptr) {
    const std::string user = stringMember(*metadata, "user_id");
    if (!user.empty()) request.user = user;
  }
  return {};
}

// The request once its body is known to be a JSON object.
std::expected<Request, ApiError> decodeObject(const Json& root) {
  Request request;
  if (const Json* model = member(root, "model"); model != nullptr) {
    if (!model->is_string()) return std::unexpected(ApiError::invalidRequest("'model' must be a string", "model"));
    request.model = model->get<std::string>();
  }
  if (const Json* system = member(root, "system"); system != nullptr) {
    auto appended = appendSystem(*system, "system", request.system);
    if (!appended) return std::unexpected(appended.error());
  }
  for (auto step : {decodeMessages, decodeTools, decodeThinking, decodeSampling}) {
    auto done = step(root, request);
    if (!done) return std::unexpected(done.error());
  }
  return request;
}

}  // namespace

std::expected<Request, ApiError> decodeRequest(std::string_view body) {
  return decodeObjectBody(body, decodeObject);
}

}  // namespace sluice::wire::anthropic
