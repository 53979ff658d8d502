#include "server/wire/anthropic/content_block.h"

#include "server/wire/json_access.h"
#include "server/wire/signature_envelope.h"

namespace sluice::wire::anthropic {

namespace {

using Result = std::expected<ContentBlock, ApiError>;

// Reads a string field. Absent: "" (or a 400 when `required` and strict). Present but not a
// string: 400 when strict, "" when lenient.
std::expected<std::string, ApiError> stringField(const Json& block, const char* key, const std::string& path,
                                                 Strictness strictness, bool required) {
  const Json* value = member(block, key);
  if (value == nullptr) {
    if (required && strictness == Strictness::Strict) {
      return std::unexpected(ApiError::invalidRequest("'" + path + "." + key + "' is required", path + "." + key));
    }
    return std::string();
  }
  if (!value->is_string()) {
    if (strictness == Strictness::Strict) {
      return std::unexpected(ApiError::invalidRequest("'" + path + "." + key + "' must be a string", path + "." + key));
    }
    return std::string();
  }
  return value->get<std::string>();
}

Result decodeImage(const Json& block, const std::string& path, Strictness strictness) {
  const Json* source = member(block, "source");
  if (source == nullptr || !source->is_object()) {
    if (strictness == Strictness::Strict) {
      return std::unexpected(ApiError::invalidRequest("'" + path + ".source' must be an object", path + ".source"));
    }
    return ContentBlock::ofOpaque(block, catalog::Wire::Anthropic);
  }
  const std::string source_type = stringMember(*source, "type");
  ContentBlock out;
  out.type = ContentBlock::Type::Image;
  if (source_type == "base64") {
    out.image.kind = ImageSource::Kind::Base64;
    auto media_type = stringField(*source, "media_type", path + ".source", strictness, true);
    if (!media_type) return std::unexpected(media_type.error());
    auto data = stringField(*source, "data", path + ".source", strictness, true);
    if (!data) return std::unexpected(data.error());
    out.image.media_type = std::move(*media_type);
    out.image.data = std::move(*data);
  } else if (source_type == "url") {
    out.image.kind = ImageSource::Kind::Url;
    auto url = stringField(*source, "url", path + ".source", strictness, true);
    if (!url) return std::unexpected(url.error());
    out.image.url = std::move(*url);
  } else {
    return ContentBlock::ofOpaque(block, catalog::Wire::Anthropic);  // a file id or a source type added later: only Anthropic can read it
  }
  return out;
}

Result decodeToolResult(const Json& block, const std::string& path, Strictness strictness) {
  ContentBlock out;
  out.type = ContentBlock::Type::ToolResult;
  auto id = stringField(block, "tool_use_id", path, strictness, true);
  if (!id) return std::unexpected(id.error());
  out.tool_use_id = std::move(*id);
  if (const Json* is_error = member(block, "is_error"); is_error != nullptr) {
    if (is_error->is_boolean()) {
      out.is_error = is_error->get<bool>();
    } else if (strictness == Strictness::Strict) {
      return std::unexpected(ApiError::invalidRequest("'" + path + ".is_error' must be a boolean", path + ".is_error"));
    }
  }
  const Json* content = member(block, "content");
  if (content == nullptr) return out;
  if (content->is_string()) {
    ContentBlock text;
    text.text = content->get<std::string>();
    out.result.push_back(std::move(text));
    return out;
  }
  if (!content->is_array()) {
    if (strictness == Strictness::Strict) {
      return std::unexpected(
          ApiError::invalidRequest("'" + path + ".content' must be a string or an array of blocks", path + ".content"));
    }
    return out;
  }
  for (size_t i = 0; i < content->size(); ++i) {
    auto inner = decodeBlock((*content)[i], path + ".content[" + std::to_string(i) + "]", strictness);
    if (!inner) return std::unexpected(inner.error());
    out.result.push_back(std::move(*inner));
  }
  return out;
}

Result decodeThinking(const Json& block, const std::string& path, Strictness strictness, bool redacted) {
  ContentBlock out;
  out.type = redacted ? ContentBlock::Type::RedactedThinking : ContentBlock::Type::Thinking;
  auto text = stringField(block, redacted ? "data" : "thinking", path, strictness, redacted);
  if (!text) return std::unexpected(text.error());
  if (redacted) {
    UnwrappedSignature data = unwrapSignature(catalog::Wire::Anthropic, *text);
    out.data = std::move(data.payload);
    out.signature_wire = data.wire;
    out.reasoning_id = std::move(data.reasoning_id);
    return out;
  }
  out.text = std::move(*text);
  auto signature = stringField(block, "signature", path, strictness, false);
  if (!signature) return std::unexpected(signature.error());
  if (!signature->empty()) {
    // NOTE: a thinking block without a signature can be verified by no provider; leaving
    // signature_wire unset makes every provider encoder drop it.
    UnwrappedSignature unwrapped = unwrapSignature(catalog::Wire::Anthropic, *signature);
    out.signature = std::move(unwrapped.payload);
    out.signature_wire = unwrapped.wire;
    out.reasoning_id = std::move(unwrapped.reasoning_id);
  }
  return out;
}

Result decodeKnown(const Json& block, const std::string& type, const std::string& path, Strictness strictness) {
  if (type == "text") {
    auto text = stringField(block, "text", path, strictness, true);
    if (!text) return std::unexpected(text.error());
    ContentBlock out;
    out.text = std::move(*text);
    return out;
  }
  if (type == "image") return decodeImage(block, path, strictness);
  if (type == "tool_use") {
    ContentBlock out;
    out.type = ContentBlock::Type::ToolUse;
    auto id = stringField(block, "id", path, strictness, true);
    if (!id) return std::unexpected(id.error());
    auto name = stringField(block, "name", path, strictness, true);
    if (!name) return std::unexpected(name.error());
    out.tool_id = std::move(*id);
    out.tool_name = std::move(*name);
    const Json* input = member(block, "input");
    if (input != nullptr && input->is_object()) {
      out.tool_input = *input;
    } else if (input != nullptr && strictness == Strictness::Strict) {
      return std::unexpected(ApiError::invalidRequest("'" + path + ".input' must be an object", path + ".input"));
    }
    return out;
  }
  if (type == "tool_result") return decodeToolResult(block, path, strictness);
  if (type == "thinking") return decodeThinking(block, path, strictness, false);
  if (type == "redacted_thinking") return decodeThinking(block, path, strictness, true);
  return ContentBlock::ofOpaque(block, catalog::Wire::Anthropic);
}

Json encodeImage(const ImageSource& image) {
  Json source = Json::object();
  if (image.kind == ImageSource::Kind::Url) {
    source["type"] = "url";
    source["url"] = image.url;
  } else {
    source["type"] = "base64";
    source["media_type"] = image.media_type;
    source["data"] = image.data;
  }
  return Json{{"type", "image"}, {"source", std::move(source)}};
}

Json encodeToolResult(const ContentBlock& block, Audience audience) {
  Json out{{"type", "tool_result"}, {"tool_use_id", block.tool_use_id}};
  const bool plain_text = block.result.size() == 1 && block.result[0].type == ContentBlock::Type::Text &&
                          block.result[0].cache_control.is_null();
  if (plain_text) {
    out["content"] = block.result[0].text;
  } else if (!block.result.empty()) {
    Json content = Json::array();
    for (const ContentBlock& inner : block.result) {
      if (auto encoded = encodeBlock(inner, audience)) content.push_back(std::move(*encoded));
    }
    out["content"] = std::move(content);
  }
  if (block.is_error) out["is_error"] = true;
  return out;
}

}  // namespace

std::expected<ContentBlock, ApiError> decodeBlock(const Json& block, const std::string& path, Strictness strictness) {
  if (!block.is_object()) {
    if (strictness == Strictness::Strict) return std::unexpected(ApiError::invalidRequest("'" + path + "' must be an object", path));
    return ContentBlock::ofOpaque(block, catalog::Wire::Anthropic);
  }
  const Json* type = member(block, "type");
  if (type == nullptr || !type->is_string()) {
    if (strictness == Strictness::Strict) {
      return std::unexpected(ApiError::invalidRequest("'" + path + ".type' must be a string", path + ".type"));
    }
    return ContentBlock::ofOpaque(block, catalog::Wire::Anthropic);
  }
  auto decoded = decodeKnown(block, type->get<std::string>(), path, strictness);
  if (!decoded) return decoded;
  if (decoded->type != ContentBlock::Type::Opaque) {
    if (const Json* cache_control = member(block, "cache_control"); cache_control != nullptr) {
      decoded->cache_control = *cache_control;
    }
  }
  return decoded;
}

std::optional<Json> encodeBlock(const ContentBlock& block, Audience audience) {
  std::optional<Json> out;
  switch (block.type) {
    case ContentBlock::Type::Text:
      out = Json{{"type", "text"}, {"text", block.text}};
      break;
    case ContentBlock::Type::Image:
      out = encodeImage(block.image);
      break;
    case ContentBlock::Type::ToolUse:
      out = Json{{"type", "tool_use"},
                 {"id", block.tool_id},
                 {"name", block.tool_name},
                 {"input", block.tool_input.is_object() ? block.tool_input : Json::object()}};
      break;
    case ContentBlock::Type::ToolResult:
      out = encodeToolResult(block, audience);
      break;
    case ContentBlock::Type::Thinking:
      if (audience == Audience::Provider) {
        if (block.signature_wire != catalog::Wire::Anthropic) return std::nullopt;
        out = Json{{"type", "thinking"}, {"thinking", block.text}, {"signature", block.signature}};
      } else {
        out = Json{{"type", "thinking"},
                   {"thinking", block.text},
                   {"signature", wrapSignature(catalog::Wire::Anthropic, block.signature_wire, block.reasoning_id, block.signature)}};
      }
      break;
    case ContentBlock::Type::RedactedThinking:
      if (audience == Audience::Provider) {
        if (block.signature_wire && *block.signature_wire != catalog::Wire::Anthropic) return std::nullopt;
        out = Json{{"type", "redacted_thinking"}, {"data", block.data}};
      } else {
        out = Json{{"type", "redacted_thinking"},
                   {"data", wrapSignature(catalog::Wire::Anthropic, block.signature_wire, block.reasoning_id, block.data)}};
      }
      break;
    case ContentBlock::Type::Opaque:
      if (block.raw_wire != catalog::Wire::Anthropic || !block.raw.is_object()) return std::nullopt;
      return block.raw;
  }
  if (out && audience == Audience::Provider && !block.cache_control.is_null()) (*out)["cache_control"] = block.cache_control;
  return out;
}

}  // namespace sluice::wire::anthropic
