// Neutral Request -> Responses request body for a Responses provider.
// The gateway keeps no state, so every call sends `store: false` and the whole history as input
// items; reasoning items travel back with their encrypted_content, which is why
// `include: ["reasoning.encrypted_content"]` is asked for whenever reasoning is in play.

#include <algorithm>
#include <string>

#include "server/wire/openai_responses/codec.h"
#include "server/wire/openai_responses/items.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"

namespace sluice::wire::openai_responses {

namespace {

// The Responses API rejects max_output_tokens below this.
constexpr int64_t kMinOutputTokens = 16;

std::string guessImageType(const std::string& base64) {
  if (base64.starts_with("/9j/")) return "image/jpeg";
  if (base64.starts_with("R0lGOD")) return "image/gif";
  if (base64.starts_with("UklGR")) return "image/webp";
  return "image/png";
}

Json imagePart(const ImageSource& image) {
  std::string url = image.url;
  if (image.kind == ImageSource::Kind::Base64) {
    url = "data:" + (image.media_type.empty() ? guessImageType(image.data) : image.media_type) + ";base64," + image.data;
  }
  return {{"type", "input_image"}, {"image_url", url}, {"detail", "auto"}};
}

bool isResponsesOpaque(const ContentBlock& block) {
  return block.raw_wire == catalog::Wire::OpenAIResponses && block.raw.is_object();
}

bool isReplayableReasoning(const ContentBlock& block) {
  // NOTE: without encrypted_content a reasoning item could only be found by id in the provider's
  // storage, and every call here is store:false, so such items are left out.
  return block.type == ContentBlock::Type::Thinking && block.signature_wire == catalog::Wire::OpenAIResponses &&
         !block.signature.empty();
}

// The text of a tool result as one string; images, when any, make it a list of parts.
Json toolOutput(const ContentBlock& block) {
  const bool has_image = std::any_of(block.result.begin(), block.result.end(),
                                     [](const ContentBlock& part) { return part.type == ContentBlock::Type::Image; });
  if (!has_image) {
    std::string text;
    for (const auto& part : block.result) {
      if (part.type != ContentBlock::Type::Text) continue;
      if (!text.empty()) text += "\n";
      text += part.text;
    }
    return text;
  }
  Json parts = Json::array();
  for (const auto& part : block.result) {
    if (part.type == ContentBlock::Type::Text) parts.push_back({{"type", "input_text"}, {"text", part.text}});
    if (part.type == ContentBlock::Type::Image) parts.push_back(imagePart(part.image));
  }
  return parts;
}

// Walks the conversation and writes input items, keeping the order of blocks: text and images
// gather into one message item until a call, a result or a reasoning item interrupts them.
class InputWriter {
 public:
  void write(const Message& message) {
    for (const auto& block : message.content) writeBlock(message.role, block);
    flush();
  }

  Json take() {
    flush();
    return std::move(items_);
  }

 private:
  void writeBlock(Role role, const ContentBlock& block) {
    switch (block.type) {
      case ContentBlock::Type::Text:
        addPart(role, {{"type", role == Role::Assistant ? "output_text" : "input_text"}, {"text", block.text}});
        return;
      case ContentBlock::Type::Image:
        // NOTE: assistant turns cannot carry images on this wire; such an image is dropped.
        if (role == Role::User) addPart(role, imagePart(block.image));
        return;
      case ContentBlock::Type::ToolUse:
        flush();
        items_.push_back({{"type", "function_call"},
                          {"call_id", block.tool_id},
                          {"name", block.tool_name},
                          {"arguments", argumentsText(block)}});
        if (!block.tool_namespace.empty()) items_.back()["namespace"] = block.tool_namespace;
        return;
      case ContentBlock::Type::ToolResult:
        // NOTE: is_error has no field here; the result text itself must say it failed.
        flush();
        items_.push_back({{"type", "function_call_output"}, {"call_id", block.tool_use_id}, {"output", toolOutput(block)}});
        return;
      case ContentBlock::Type::Thinking:
        if (!isReplayableReasoning(block)) return;  // other wires' signatures mean nothing here
        flush();
        items_.push_back(reasoningItem(block.reasoning_id, block.text, block.signature));
        return;
      case ContentBlock::Type::RedactedThinking: return;
      case ContentBlock::Type::Opaque:
        if (!isResponsesOpaque(block)) return;
        if (isContentPartType(stringMember(block.raw, "type"))) {
          addPart(role, block.raw);
        } else {
          flush();
          items_.push_back(block.raw);
        }
        return;
    }
  }

  void addPart(Role role, Json part) {
    if (!parts_.empty() && role != role_) flush();
    role_ = role;
    parts_.push_back(std::move(part));
  }

  void flush() {
    if (parts_.empty()) return;
    items_.push_back({{"type", "message"}, {"role", role_ == Role::Assistant ? "assistant" : "user"}, {"content", parts_}});
    parts_ = Json::array();
  }

  Json items_ = Json::array();
  Json parts_ = Json::array();
  Role role_ = Role::User;
};

Json toolsJson(const Request& request) {
  Json tools = Json::array();
  for (const auto& tool : request.tools) {
    if (tool.raw_wire.has_value()) {
      // A hosted tool runs only on the wire that defined it.
      if (*tool.raw_wire == catalog::Wire::OpenAIResponses && tool.raw.is_object()) tools.push_back(tool.raw);
      continue;
    }
    Json entry = {{"type", "function"}, {"name", tool.name}};
    if (!tool.description.empty()) entry["description"] = tool.description;
    entry["parameters"] = tool.input_schema.is_object() ? tool.input_schema : Json::object();
    // NOTE: Responses treats a missing strict as true, which rejects most hand-written schemas;
    // only a caller that asked for strict gets it.
    entry["strict"] = tool.strict.value_or(false);
    tools.push_back(std::move(entry));
  }
  return tools;
}

Json toolChoiceJson(const Request& request, const ToolChoice& choice) {
  switch (choice.mode) {
    case ToolChoice::Mode::Auto: return "auto";
    case ToolChoice::Mode::Any: return "required";
    case ToolChoice::Mode::None: return "none";
    case ToolChoice::Mode::Tool: break;
  }
  for (const auto& tool : request.tools) {
    if (tool.name == choice.name && tool.raw_wire == catalog::Wire::OpenAIResponses &&
        stringMember(tool.raw, "type") == "custom") {
      return {{"type", "custom"}, {"name", choice.name}};
    }
  }
  return {{"type", "function"}, {"name", choice.name}};
}

// An effort for callers that gave a thinking budget instead (Anthropic, Gemini).
std::string effortForBudget(int64_t budget) {
  if (budget < 4096) return "low";
  if (budget < 16384) return "medium";
  return "high";
}

std::optional<Json> reasoningJson(const Reasoning& reasoning) {
  Json out = Json::object();
  if (!reasoning.effort.empty()) {
    out["effort"] = reasoning.effort;
  } else if (!reasoning.enabled) {
    return std::nullopt;  // NOTE: "none" is not accepted by every model; leaving it out is safer
  } else if (reasoning.budget_tokens) {
    out["effort"] = effortForBudget(*reasoning.budget_tokens);
  }
  // NOTE: summaries need a verified organisation, so one is asked for only when the caller did.
  if (!reasoning.summary.empty()) out["summary"] = reasoning.summary;
  return out;
}

Json textFormatJson(const ResponseFormat& format) {
  switch (format.kind) {
    case ResponseFormat::Kind::Text: return {{"type", "text"}};
    case ResponseFormat::Kind::JsonObject: return {{"type", "json_object"}};
    case ResponseFormat::Kind::JsonSchema: break;
  }
  Json out = {{"type", "json_schema"}, {"name", format.name.empty() ? "response" : format.name}, {"schema", format.schema}};
  if (format.strict) out["strict"] = *format.strict;
  return out;
}

bool wantsEncryptedReasoning(const Request& request) {
  if (request.reasoning && request.reasoning->enabled) return true;
  for (const auto& message : request.messages) {
    for (const auto& block : message.content) {
      if (isReplayableReasoning(block)) return true;
    }
  }
  return false;
}

}  // namespace

std::expected<std::string, ApiError> encodeRequest(const Request& request, const EncodeOptions& options) {
  Json body = Json::object();
  body["model"] = options.upstream_model.empty() ? request.model : options.upstream_model;

  std::string instructions;
  for (const auto& block : request.system) {
    if (block.type != ContentBlock::Type::Text || block.text.empty()) continue;
    if (!instructions.empty()) instructions += "\n\n";
    instructions += block.text;
  }
  if (!instructions.empty()) body["instructions"] = instructions;

  InputWriter writer;
  for (const auto& message : request.messages) writer.write(message);
  body["input"] = writer.take();

  Json tools = toolsJson(request);
  if (!tools.empty()) {
    body["tools"] = std::move(tools);
    if (request.tool_choice) body["tool_choice"] = toolChoiceJson(request, *request.tool_choice);
    if (request.parallel_tool_calls) {
      body["parallel_tool_calls"] = *request.parallel_tool_calls;
    } else if (request.tool_choice && request.tool_choice->disable_parallel) {
      body["parallel_tool_calls"] = false;
    }
  }

  if (request.max_tokens) {
    int64_t limit = *request.max_tokens;
    if (options.max_output) limit = std::min(limit, *options.max_output);
    body["max_output_tokens"] = std::max(limit, kMinOutputTokens);
  }
  if (request.temperature) body["temperature"] = *request.temperature;
  if (request.top_p) body["top_p"] = *request.top_p;
  // NOTE: top_k and stop_sequences have no Responses field and are dropped.
  if (request.reasoning) {
    if (auto reasoning = reasoningJson(*request.reasoning)) body["reasoning"] = std::move(*reasoning);
  }
  if (request.response_format) body["text"] = {{"format", textFormatJson(*request.response_format)}};
  if (request.user) body["user"] = *request.user;
  body["store"] = false;
  if (wantsEncryptedReasoning(request)) body["include"] = Json::array({"reasoning.encrypted_content"});
  body["stream"] = request.stream;
  return dumpJsonText(body);
}

}  // namespace sluice::wire::openai_responses
