#include "tools/mock-provider/converse_render.h"

#include <nlohmann/json.hpp>

#include "server/wire/bedrock/event_stream.h"
#include "server/wire/bedrock/invoke.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

ErrorSpec validation(const std::string& what) {
  ErrorSpec error;
  error.status = 400;
  error.type = "ValidationException";
  error.message = what;
  return error;
}

// One Converse content block as Anthropic's; nullopt for a cachePoint (no block of its own).
std::expected<std::optional<Json>, ErrorSpec> blockOf(const Json& block, bool& tool_blocks) {
  if (!block.is_object() || block.size() != 1) {
    return std::unexpected(validation("A content block must have exactly one member."));
  }
  const auto& [key, value] = *block.items().begin();
  if (key == "text" && value.is_string()) return Json{{"type", "text"}, {"text", value}};
  if (key == "cachePoint") return std::optional<Json>();
  if (key == "image" && value.is_object()) {
    const std::string format = value.value("format", "");
    if (format != "png" && format != "jpeg" && format != "gif" && format != "webp") {
      return std::unexpected(validation("The image format " + format + " is not supported."));
    }
    const Json* source = value.contains("source") ? &value["source"] : nullptr;
    if (source == nullptr || !source->contains("bytes") || !(*source)["bytes"].is_string()) {
      return std::unexpected(validation("The image source must carry bytes."));
    }
    return Json{{"type", "image"},
                {"source", {{"type", "base64"}, {"media_type", "image/" + format}, {"data", (*source)["bytes"]}}}};
  }
  if (key == "toolUse" && value.is_object()) {
    tool_blocks = true;
    return Json{{"type", "tool_use"}, {"id", value.value("toolUseId", "")}, {"name", value.value("name", "")},
                {"input", value.contains("input") ? value["input"] : Json::object()}};
  }
  if (key == "toolResult" && value.is_object()) {
    tool_blocks = true;
    Json content = Json::array();
    for (const Json& part : value.value("content", Json::array())) {
      if (part.contains("text")) content.push_back(Json{{"type", "text"}, {"text", part["text"]}});
      if (part.contains("json")) content.push_back(Json{{"type", "text"}, {"text", part["json"].dump()}});
    }
    return Json{{"type", "tool_result"}, {"tool_use_id", value.value("toolUseId", "")}, {"content", content},
                {"is_error", value.value("status", "success") == "error"}};
  }
  if (key == "reasoningContent") return std::optional<Json>();  // the mock's planner ignores past reasoning
  return std::unexpected(validation("The content block type " + key + " is not supported."));
}

std::string converseStopReason(const Json& stop_reason) {
  return stop_reason.is_string() ? stop_reason.get<std::string>() : "end_turn";
}

Json converseUsage(const Json& usage) {
  const int64_t input = usage.value("input_tokens", int64_t{0});
  const int64_t output = usage.value("output_tokens", int64_t{0});
  const int64_t read = usage.value("cache_read_input_tokens", int64_t{0});
  const int64_t write = usage.value("cache_creation_input_tokens", int64_t{0});
  Json out{{"inputTokens", input}, {"outputTokens", output}, {"totalTokens", input + output + read + write}};
  if (read > 0) out["cacheReadInputTokens"] = read;
  if (write > 0) out["cacheWriteInputTokens"] = write;
  return out;
}

std::string frame(const std::string& type, const Json& payload) {
  wire::bedrock::EventMessage message;
  const auto header = [](std::string name, std::string value) {
    wire::bedrock::EventHeader field;
    field.name = std::move(name);
    field.type = wire::bedrock::HeaderType::String;
    field.bytes = std::move(value);
    return field;
  };
  message.headers = {header(":event-type", type), header(":content-type", "application/json"),
                     header(":message-type", "event")};
  message.payload = payload.dump();
  return wire::bedrock::encodeEventMessage(message);
}

}  // namespace

std::expected<std::string, ErrorSpec> converseToMessagesBody(const std::string& body, const std::string& model_id,
                                                             bool stream) {
  const Json parsed = Json::parse(body, nullptr, false);
  if (!parsed.is_object()) return std::unexpected(validation("The request body is not a JSON object."));
  for (const auto& [key, value] : parsed.items()) {
    (void)value;
    static const std::vector<std::string> kKnown = {"messages", "system", "inferenceConfig", "toolConfig",
                                                    "additionalModelRequestFields", "guardrailConfig",
                                                    "additionalModelResponseFieldPaths", "promptVariables",
                                                    "requestMetadata", "performanceConfig"};
    if (std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end()) {
      return std::unexpected(validation("extraneous key [" + key + "] is not permitted"));
    }
  }
  if (!parsed.contains("messages") || !parsed["messages"].is_array() || parsed["messages"].empty()) {
    return std::unexpected(validation("A conversation must start with a user message."));
  }
  Json out{{"model", model_id}};
  bool tool_blocks = false;
  Json messages = Json::array();
  std::string expected = "user";
  for (const Json& message : parsed["messages"]) {
    const std::string role = message.value("role", "");
    if (role != expected) {
      return std::unexpected(validation("A conversation must alternate between user and assistant roles."));
    }
    expected = role == "user" ? "assistant" : "user";
    Json content = Json::array();
    for (const Json& block : message.value("content", Json::array())) {
      auto converted = blockOf(block, tool_blocks);
      if (!converted) return std::unexpected(converted.error());
      if (*converted) content.push_back(std::move(**converted));
    }
    if (content.empty()) return std::unexpected(validation("The content field in the Message object is empty."));
    messages.push_back(Json{{"role", role}, {"content", std::move(content)}});
  }
  out["messages"] = std::move(messages);
  if (parsed.contains("system")) {
    Json system = Json::array();
    for (const Json& block : parsed["system"]) {
      if (block.contains("text")) system.push_back(Json{{"type", "text"}, {"text", block["text"]}});
    }
    if (!system.empty()) out["system"] = std::move(system);
  }
  const Json inference = parsed.value("inferenceConfig", Json::object());
  out["max_tokens"] = inference.value("maxTokens", 4096);
  if (inference.contains("temperature")) out["temperature"] = inference["temperature"];
  if (inference.contains("topP")) out["top_p"] = inference["topP"];
  if (inference.contains("stopSequences")) out["stop_sequences"] = inference["stopSequences"];
  if (parsed.contains("toolConfig")) {
    Json tools = Json::array();
    for (const Json& tool : parsed["toolConfig"].value("tools", Json::array())) {
      if (!tool.contains("toolSpec")) continue;
      const Json& spec = tool["toolSpec"];
      Json entry{{"name", spec.value("name", "")}, {"input_schema", spec.value("inputSchema", Json::object()).value("json", Json::object())}};
      if (spec.contains("description")) entry["description"] = spec["description"];
      tools.push_back(std::move(entry));
    }
    out["tools"] = std::move(tools);
    if (parsed["toolConfig"].contains("toolChoice")) {
      const Json& choice = parsed["toolConfig"]["toolChoice"];
      if (choice.contains("any")) out["tool_choice"] = Json{{"type", "any"}};
      if (choice.contains("auto")) out["tool_choice"] = Json{{"type", "auto"}};
      if (choice.contains("tool")) out["tool_choice"] = Json{{"type", "tool"}, {"name", choice["tool"].value("name", "")}};
    }
  } else if (tool_blocks) {
    return std::unexpected(validation("The toolConfig field must be defined when using toolUse and toolResult content blocks."));
  }
  if (stream) out["stream"] = true;
  return out.dump();
}

std::string converseAnswerOf(const std::string& anthropic_message) {
  const Json message = Json::parse(anthropic_message, nullptr, false);
  Json content = Json::array();
  for (const Json& block : message.value("content", Json::array())) {
    const std::string type = block.value("type", "");
    if (type == "text") content.push_back(Json{{"text", block.value("text", "")}});
    if (type == "tool_use") {
      content.push_back(Json{{"toolUse", {{"toolUseId", block.value("id", "")}, {"name", block.value("name", "")},
                                          {"input", block.value("input", Json::object())}}}});
    }
    if (type == "thinking") {
      content.push_back(Json{{"reasoningContent", {{"reasoningText", {{"text", block.value("thinking", "")},
                                                                      {"signature", block.value("signature", "")}}}}}});
    }
  }
  Json answer{{"output", {{"message", {{"role", "assistant"}, {"content", std::move(content)}}}}},
              {"stopReason", converseStopReason(message.value("stop_reason", Json()))},
              {"usage", converseUsage(message.value("usage", Json::object()))},
              {"metrics", {{"latencyMs", 1}}}};
  if (message.contains("stop_sequence") && message["stop_sequence"].is_string()) {
    answer["additionalModelResponseFields"] = Json{{"stop_sequence", message["stop_sequence"]}};
  }
  return answer.dump();
}

std::vector<std::string> converseStreamFrames(const std::vector<SseEvent>& events, const Script& script) {
  std::vector<std::string> frames;
  Json usage = Json::object();
  for (const SseEvent& event : events) {
    const Json data = Json::parse(event.data, nullptr, false);
    if (event.name == "error") {
      std::string message = "The model stream failed.";
      if (data.is_object() && data.contains("error") && data["error"].is_object() && data["error"].contains("message")) {
        message = data["error"]["message"].get<std::string>();
      }
      frames.push_back(wire::bedrock::exceptionFrame(script.error_type.value_or("modelStreamErrorException"), message));
      break;  // Bedrock ends the stream with its exception
    }
    if (!data.is_object()) continue;
    const int64_t index = data.value("index", int64_t{0});
    if (event.name == "message_start") {
      usage = data["message"].value("usage", Json::object());
      frames.push_back(frame("messageStart", Json{{"role", "assistant"}}));
    } else if (event.name == "content_block_start") {
      const Json& block = data["content_block"];
      if (block.value("type", "") == "tool_use") {
        frames.push_back(frame("contentBlockStart",
                               Json{{"contentBlockIndex", index},
                                    {"start", {{"toolUse", {{"toolUseId", block.value("id", "")}, {"name", block.value("name", "")}}}}}}));
      }
    } else if (event.name == "content_block_delta") {
      const Json& delta = data["delta"];
      const std::string type = delta.value("type", "");
      Json converse;
      if (type == "text_delta") converse = Json{{"text", delta.value("text", "")}};
      if (type == "input_json_delta") converse = Json{{"toolUse", {{"input", delta.value("partial_json", "")}}}};
      if (type == "thinking_delta") converse = Json{{"reasoningContent", {{"text", delta.value("thinking", "")}}}};
      if (type == "signature_delta") converse = Json{{"reasoningContent", {{"signature", delta.value("signature", "")}}}};
      if (!converse.is_null()) frames.push_back(frame("contentBlockDelta", Json{{"contentBlockIndex", index}, {"delta", converse}}));
    } else if (event.name == "content_block_stop") {
      frames.push_back(frame("contentBlockStop", Json{{"contentBlockIndex", index}}));
    } else if (event.name == "message_delta") {
      if (data.contains("usage")) usage["output_tokens"] = data["usage"].value("output_tokens", int64_t{0});
      Json stop{{"stopReason", converseStopReason(data["delta"].value("stop_reason", Json()))}};
      if (data["delta"].contains("stop_sequence") && data["delta"]["stop_sequence"].is_string()) {
        stop["additionalModelResponseFields"] = Json{{"stop_sequence", data["delta"]["stop_sequence"]}};
      }
      frames.push_back(frame("messageStop", stop));
    } else if (event.name == "message_stop") {
      frames.push_back(frame("metadata", Json{{"usage", converseUsage(usage)}, {"metrics", {{"latencyMs", 1}}}}));
    }
  }
  if (script.bad_frame_after && static_cast<size_t>(*script.bad_frame_after) < frames.size()) {
    std::string& bad = frames[static_cast<size_t>(*script.bad_frame_after)];
    bad.back() = char(bad.back() ^ 0x5a);  // the message CRC no longer matches
  }
  return frames;
}

}  // namespace sluice::mock
