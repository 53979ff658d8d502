#include "server/dispatch/token_estimate.h"

namespace sluice::dispatch {

namespace {

int64_t blockBytes(const wire::ContentBlock& block) {
  using Type = wire::ContentBlock::Type;
  switch (block.type) {
    case Type::Text:
    case Type::Thinking: return static_cast<int64_t>(block.text.size());
    case Type::ToolResult: {
      int64_t total = 0;
      for (const auto& part : block.result) total += blockBytes(part);
      return total;
    }
    case Type::ToolUse: return static_cast<int64_t>(block.tool_name.size());
    case Type::Image:
    case Type::RedactedThinking:
    case Type::Opaque: return 0;
  }
  return 0;
}

}  // namespace

int64_t estimateInputTokens(const wire::Request& request) {
  int64_t bytes = 0;
  for (const auto& block : request.system) bytes += blockBytes(block);
  for (const auto& message : request.messages) {
    for (const auto& block : message.content) bytes += blockBytes(block);
  }
  for (const auto& tool : request.tools) {
    bytes += static_cast<int64_t>(tool.name.size() + tool.description.size());
    if (!tool.input_schema.is_null()) bytes += static_cast<int64_t>(tool.input_schema.dump().size());
  }
  return (bytes + 3) / 4;
}

}  // namespace sluice::dispatch
