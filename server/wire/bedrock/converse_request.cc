// encodeRequest for the bedrock-converse wire (converse_codec.h), and the client-side functions
// that exist to complete the codec interface.
//
// Dropped because Converse cannot express them (all optional): tool `strict`, other wires'
// hosted tools and opaque blocks, thinking signed by another wire (Anthropic's API, Gemini,
// OpenAI), parallel_tool_calls, tool_choice.disable_parallel, response_format (no Converse field),
// user, reasoning effort and summary. tool_choice none keeps the tools (Bedrock requires them
// when the history holds tool blocks) without a toolChoice.

#include <string>
#include <utility>

#include "server/wire/bedrock/converse_codec.h"
#include "server/wire/json_access.h"

namespace sluice::wire::converse {
namespace {

using catalog::Wire;

bool isClaude(std::string_view model) { return model.find("anthropic.") != std::string_view::npos ||
                                               model.find("claude") != std::string_view::npos; }

Json cachePoint() { return Json{{"cachePoint", {{"type", "default"}}}}; }

bool cached(const ContentBlock& block) { return block.cache_control.is_object() && !block.cache_control.empty(); }

std::expected<Json, ApiError> image(const ImageSource& source, const std::string& param) {
  if (source.kind != ImageSource::Kind::Base64) {
    return std::unexpected(ApiError::unsupportedField(
        "Bedrock Converse takes images as bytes, not by URL; send the image base64-encoded", param));
  }
  std::string format = source.media_type;
  if (const size_t slash = format.find('/'); slash != std::string::npos) format = format.substr(slash + 1);
  if (format == "jpg") format = "jpeg";
  if (format != "png" && format != "jpeg" && format != "gif" && format != "webp") {
    return std::unexpected(ApiError::unsupportedField(
        "Bedrock Converse takes png, jpeg, gif or webp images, not " + source.media_type, param));
  }
  return Json{{"image", {{"format", format}, {"source", {{"bytes", source.data}}}}}};
}

// One block of a message, appended to `out` (with a cachePoint after it when it was cached).
std::optional<ApiError> appendBlock(const ContentBlock& block, const std::string& param, Json& out) {
  switch (block.type) {
    case ContentBlock::Type::Text:
      if (block.text.empty()) return std::nullopt;  // Converse refuses an empty text block
      out.push_back(Json{{"text", block.text}});
      break;
    case ContentBlock::Type::Image: {
      auto encoded = image(block.image, param);
      if (!encoded) return encoded.error();
      out.push_back(std::move(*encoded));
      break;
    }
    case ContentBlock::Type::ToolUse:
      out.push_back(Json{{"toolUse", {{"toolUseId", block.tool_id}, {"name", block.tool_name},
                                      {"input", block.tool_input.is_object() ? block.tool_input : Json::object()}}}});
      break;
    case ContentBlock::Type::ToolResult: {
      Json content = Json::array();
      for (size_t i = 0; i < block.result.size(); ++i) {
        const ContentBlock& part = block.result[i];
        if (part.type == ContentBlock::Type::Text) {
          content.push_back(Json{{"text", part.text}});
        } else if (part.type == ContentBlock::Type::Image) {
          auto encoded = image(part.image, param + ".content[" + std::to_string(i) + "]");
          if (!encoded) return encoded.error();
          content.push_back(std::move(*encoded));
        }
      }
      if (content.empty()) content.push_back(Json{{"text", ""}});
      out.push_back(Json{{"toolResult", {{"toolUseId", block.tool_use_id}, {"content", std::move(content)},
                                         {"status", block.is_error ? "error" : "success"}}}});
      break;
    }
    case ContentBlock::Type::Thinking:
      // Only a signature Bedrock's Converse minted can be verified by the model behind it.
      if (block.signature_wire != Wire::BedrockConverse || block.signature.empty()) return std::nullopt;
      out.push_back(Json{{"reasoningContent", {{"reasoningText", {{"text", block.text}, {"signature", block.signature}}}}}});
      break;
    case ContentBlock::Type::RedactedThinking:
      if (block.signature_wire != Wire::BedrockConverse) return std::nullopt;
      out.push_back(Json{{"reasoningContent", {{"redactedContent", block.data}}}});
      break;
    case ContentBlock::Type::Opaque:
      return std::nullopt;  // another wire's block: nothing Converse can read
  }
  if (cached(block)) out.push_back(cachePoint());
  return std::nullopt;
}

std::expected<Json, ApiError> messages(const Request& request) {
  Json out = Json::array();
  for (size_t m = 0; m < request.messages.size(); ++m) {
    const Message& message = request.messages[m];
    Json content = Json::array();
    for (size_t b = 0; b < message.content.size(); ++b) {
      const std::string param = "messages[" + std::to_string(m) + "].content[" + std::to_string(b) + "]";
      if (auto error = appendBlock(message.content[b], param, content)) return std::unexpected(*error);
    }
    if (content.empty()) continue;  // Converse refuses a message without content
    const std::string role = message.role == Role::User ? "user" : "assistant";
    // Converse wants roles to alternate: same-role neighbours are one message.
    if (!out.empty() && out.back()["role"] == role) {
      for (auto& block : content) out.back()["content"].push_back(std::move(block));
    } else {
      out.push_back(Json{{"role", role}, {"content", std::move(content)}});
    }
  }
  return out;
}

Json toolConfig(const Request& request) {
  Json tools = Json::array();
  for (const Tool& tool : request.tools) {
    if (tool.raw_wire) continue;  // another provider's hosted tool
    Json spec{{"name", tool.name}};
    if (!tool.description.empty()) spec["description"] = tool.description;
    Json schema = tool.input_schema.is_object() && !tool.input_schema.empty()
                      ? tool.input_schema
                      : Json{{"type", "object"}, {"properties", Json::object()}};
    if (schema.is_object()) schema.erase("$schema");
    spec["inputSchema"] = Json{{"json", std::move(schema)}};
    tools.push_back(Json{{"toolSpec", std::move(spec)}});
    if (tool.cache_control.is_object() && !tool.cache_control.empty()) tools.push_back(cachePoint());
  }
  if (tools.empty()) return Json();
  Json config{{"tools", std::move(tools)}};
  if (request.tool_choice) {
    switch (request.tool_choice->mode) {
      case ToolChoice::Mode::Auto: config["toolChoice"] = Json{{"auto", Json::object()}}; break;
      case ToolChoice::Mode::Any: config["toolChoice"] = Json{{"any", Json::object()}}; break;
      case ToolChoice::Mode::Tool: config["toolChoice"] = Json{{"tool", {{"name", request.tool_choice->name}}}}; break;
      case ToolChoice::Mode::None: break;
    }
  }
  return config;
}

}  // namespace

std::expected<std::string, ApiError> encodeRequest(const Request& request, const EncodeOptions& options) {
  Json body = Json::object();
  auto encoded = messages(request);
  if (!encoded) return std::unexpected(encoded.error());
  body["messages"] = std::move(*encoded);

  Json system = Json::array();
  for (const ContentBlock& block : request.system) {
    if (block.type != ContentBlock::Type::Text || block.text.empty()) continue;
    system.push_back(Json{{"text", block.text}});
    if (cached(block)) system.push_back(cachePoint());
  }
  if (!system.empty()) body["system"] = std::move(system);

  Json inference = Json::object();
  int64_t max_tokens = request.max_tokens.value_or(options.default_max_tokens);
  if (options.max_output && max_tokens > *options.max_output) max_tokens = *options.max_output;
  inference["maxTokens"] = max_tokens;
  if (request.temperature) inference["temperature"] = *request.temperature;
  if (request.top_p) inference["topP"] = *request.top_p;
  if (!request.stop_sequences.empty()) inference["stopSequences"] = request.stop_sequences;
  body["inferenceConfig"] = std::move(inference);

  if (Json tools = toolConfig(request); !tools.is_null()) body["toolConfig"] = std::move(tools);

  // What Converse has no field for, in the model's own request fields (Claude's names).
  Json extra = Json::object();
  if (isClaude(options.upstream_model)) {
    if (request.reasoning && request.reasoning->enabled && request.reasoning->budget_tokens) {
      extra["thinking"] = Json{{"type", "enabled"}, {"budget_tokens", *request.reasoning->budget_tokens}};
    }
    if (request.top_k) extra["top_k"] = *request.top_k;
  }
  if (!extra.empty()) body["additionalModelRequestFields"] = std::move(extra);
  return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::expected<Request, ApiError> decodeRequest(std::string_view /*body*/) {
  return std::unexpected(ApiError::make(400, error_keys::kUnsupportedWire, "bedrock-converse is not a client wire"));
}

std::string encodeResponse(const Response& /*response*/, const ResponseContext& /*context*/) { return {}; }

std::unique_ptr<StreamEncoder> makeStreamEncoder(const ResponseContext& /*context*/) { return nullptr; }

}  // namespace sluice::wire::converse
