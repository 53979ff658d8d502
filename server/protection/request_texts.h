#pragma once
// The texts of a request the masker reads, in the order placeholders are numbered: system blocks,
// tools (descriptions, schemas, and the JSON of tools kept as the client wrote them), the response
// format's schema, messages, the end-user id. Internal to server/protection (masker.cc). Pure.
//
// A walk calls `visit.text(std::string&)` on each text and `visit.credential(std::string&)` on each
// value that is a credential whatever it looks like (a tool's `headers` values, `authorization`),
// and stops at the first that returns false, or at JSON nested past wire::kMaxJsonDepth.
//
// What is not text: ids, type tags, signatures, tool names, a schema's keywords other than its
// prose and values; file and media payloads: the members kPayloadKeys names, and a real data URL
// (data:<type>/<subtype>[;params][;base64],...) under a media key ("url", "image", ...). Any other
// string starting "data:" is text like the rest.

#include <array>
#include <string>
#include <string_view>

#include "server/wire/ir.h"
#include "server/wire/json_parse.h"

namespace sluice::protection::texts {

// True for a data URL: "data:", a MIME type "type/subtype", parameters ";name=value" or ";base64",
// then ",". Only the header is read (at most 256 bytes).
bool isDataUrl(std::string_view s);

// Members of an Opaque block's JSON that are not text: ids, type tags, signatures, file and media
// payloads (base64, file ids). "data" is text only beside "type": "text" (an Anthropic plain-text
// document source).
bool isPayloadKey(std::string_view key);
// Members whose string may be a media payload: skipped when it is a data URL, text otherwise.
bool isMediaKey(std::string_view key);

// Tool results nest blocks; deeper than this is not a real request.
inline constexpr int kMaxBlockDepth = 8;

template <typename Visit>
bool walkOpaque(wire::Json& value, std::string_view key, int depth, Visit& visit) {
  if (depth > wire::kMaxJsonDepth) return false;
  if (value.is_string()) {
    std::string& text = value.get_ref<wire::Json::string_t&>();
    if (isMediaKey(key) && isDataUrl(text)) return true;
    return visit.text(text);
  }
  if (value.is_array()) {
    for (wire::Json& element : value) {
      if (!walkOpaque(element, key, depth + 1, visit)) return false;
    }
    return true;
  }
  if (!value.is_object()) return true;
  const auto type = value.find("type");
  const bool text_data =
      type != value.end() && type->is_string() && type->get_ref<const wire::Json::string_t&>() == "text";
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string& member = it.key();
    if (isPayloadKey(member) || (member == "data" && !text_data)) continue;
    if (member == "data" && it->is_string()) {
      if (!visit.text(it->get_ref<wire::Json::string_t&>())) return false;  // a text document's text
      continue;
    }
    if (!walkOpaque(*it, member, depth + 1, visit)) return false;
  }
  return true;
}

// Every string of `value` (any depth), for a schema's values (enum, const, default, examples).
template <typename Visit>
bool walkValues(wire::Json& value, int depth, Visit& visit) {
  if (depth > wire::kMaxJsonDepth) return false;
  if (value.is_string()) return visit.text(value.get_ref<wire::Json::string_t&>());
  if (value.is_array() || value.is_object()) {
    for (wire::Json& element : value) {
      if (!walkValues(element, depth + 1, visit)) return false;
    }
  }
  return true;
}

// A JSON Schema (a tool's input, a response format): its prose ("description", "title") and its
// values ("enum", "const", "default", "examples"); never its keywords, types or patterns.
template <typename Visit>
bool walkSchema(wire::Json& value, int depth, Visit& visit) {
  if (depth > wire::kMaxJsonDepth) return false;
  if (value.is_array()) {
    for (wire::Json& element : value) {
      if (!walkSchema(element, depth + 1, visit)) return false;
    }
    return true;
  }
  if (!value.is_object()) return true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string& member = it.key();
    if (member == "enum" || member == "const" || member == "default" || member == "examples") {
      if (!walkValues(*it, depth + 1, visit)) return false;
    } else if (it->is_string()) {
      if ((member == "description" || member == "title") && !visit.text(it->get_ref<wire::Json::string_t&>())) {
        return false;
      }
    } else if (!walkSchema(*it, depth + 1, visit)) {
      return false;
    }
  }
  return true;
}

// A tool kept as the client wrote it (hosted, custom, MCP): every string is text except its type
// and name, its schemas are schemas, and `headers` values and `authorization` are credentials.
template <typename Visit>
bool walkTool(wire::Json& value, std::string_view key, int depth, Visit& visit) {
  if (depth > wire::kMaxJsonDepth) return false;
  if (value.is_string()) {
    std::string& text = value.get_ref<wire::Json::string_t&>();
    if (key == "authorization" || key == "authorization_token") return visit.credential(text);
    if (isMediaKey(key) && isDataUrl(text)) return true;
    return visit.text(text);
  }
  if (value.is_array()) {
    for (wire::Json& element : value) {
      if (!walkTool(element, key, depth + 1, visit)) return false;
    }
    return true;
  }
  if (!value.is_object()) return true;
  for (auto it = value.begin(); it != value.end(); ++it) {
    const std::string& member = it.key();
    if (member == "type" || member == "name" || member == "cache_control") continue;
    if (member == "input_schema" || member == "parameters" || member == "schema") {
      if (!walkSchema(*it, depth + 1, visit)) return false;
    } else if (member == "headers" && it->is_object()) {
      for (wire::Json& header : *it) {
        if (header.is_string() && !visit.credential(header.get_ref<wire::Json::string_t&>())) return false;
      }
    } else if (!walkTool(*it, member, depth + 1, visit)) {
      return false;
    }
  }
  return true;
}

template <typename Visit>
bool walkBlock(wire::ContentBlock& block, int depth, Visit& visit) {
  using Type = wire::ContentBlock::Type;
  switch (block.type) {
    case Type::Text:
    case Type::Thinking:
      return visit.text(block.text);
    case Type::ToolUse:
      return walkValues(block.tool_input, 0, visit);
    case Type::ToolResult:
      if (depth >= kMaxBlockDepth) return false;
      for (wire::ContentBlock& part : block.result) {
        if (!walkBlock(part, depth + 1, visit)) return false;
      }
      return true;
    case Type::Opaque:
      return walkOpaque(block.raw, {}, 0, visit);
    case Type::Image:
    case Type::RedactedThinking:
      return true;
  }
  return true;
}

// The request's texts in the numbering order.
template <typename Visit>
bool walkRequest(wire::Request& request, Visit& visit) {
  for (wire::ContentBlock& block : request.system) {
    if (!walkBlock(block, 0, visit)) return false;
  }
  for (wire::Tool& tool : request.tools) {
    // A tool kept raw goes out as its JSON (its description is read there, once).
    if (tool.raw.is_object()) {
      if (!walkTool(tool.raw, {}, 0, visit)) return false;
      continue;
    }
    if (!visit.text(tool.description) || !walkSchema(tool.input_schema, 0, visit)) return false;
  }
  if (request.response_format && !walkSchema(request.response_format->schema, 0, visit)) return false;
  for (wire::Message& message : request.messages) {
    for (wire::ContentBlock& block : message.content) {
      if (!walkBlock(block, 0, visit)) return false;
    }
  }
  if (request.user && !visit.text(*request.user)) return false;
  return true;
}

}  // namespace sluice::protection::texts
