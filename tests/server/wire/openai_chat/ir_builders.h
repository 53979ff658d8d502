#pragma once
// Small builders for IR values in tests.

#include <string>

#include "server/wire/ir.h"

namespace sluice::wire::openai_chat::testing {

inline ContentBlock text(std::string value) {
  ContentBlock block;
  block.type = ContentBlock::Type::Text;
  block.text = std::move(value);
  return block;
}

inline ContentBlock thinking(std::string value, std::string signature = {},
                             std::optional<catalog::Wire> wire = std::nullopt) {
  ContentBlock block;
  block.type = ContentBlock::Type::Thinking;
  block.text = std::move(value);
  block.signature = std::move(signature);
  block.signature_wire = wire;
  return block;
}

inline ContentBlock toolUse(std::string id, std::string name, Json input) {
  ContentBlock block;
  block.type = ContentBlock::Type::ToolUse;
  block.tool_id = std::move(id);
  block.tool_name = std::move(name);
  block.tool_input = std::move(input);
  return block;
}

inline ContentBlock toolResult(std::string id, std::vector<ContentBlock> result) {
  ContentBlock block;
  block.type = ContentBlock::Type::ToolResult;
  block.tool_use_id = std::move(id);
  block.result = std::move(result);
  return block;
}

inline ContentBlock imageBase64(std::string media_type, std::string data) {
  ContentBlock block;
  block.type = ContentBlock::Type::Image;
  block.image.kind = ImageSource::Kind::Base64;
  block.image.media_type = std::move(media_type);
  block.image.data = std::move(data);
  return block;
}

inline ContentBlock imageUrl(std::string url) {
  ContentBlock block;
  block.type = ContentBlock::Type::Image;
  block.image.kind = ImageSource::Kind::Url;
  block.image.url = std::move(url);
  return block;
}

inline Tool functionTool(std::string name, std::string description, Json schema) {
  Tool tool;
  tool.name = std::move(name);
  tool.description = std::move(description);
  tool.input_schema = std::move(schema);
  return tool;
}

}  // namespace sluice::wire::openai_chat::testing
