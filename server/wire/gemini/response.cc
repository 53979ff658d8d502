// decodeResponse: a generateContent body -> neutral Response. The body goes through the same
// ChunkTranslator as a streamed chunk and the events are folded into one Response, so both paths
// agree on blocks, signatures and minted tool ids.

#include <map>
#include <utility>

#include "server/wire/gemini/chunk_translator.h"
#include "server/wire/json_parse.h"
#include "server/wire/gemini/codec.h"
#include "server/wire/json_access.h"

namespace sluice::wire::gemini {
namespace {

std::expected<Response, ApiError> fold(const std::vector<StreamEvent>& events) {
  Response response;
  std::map<int, size_t> block_at;       // event index -> position in response.content
  std::map<int, std::string> tool_json;  // event index -> streamed arguments text
  for (const StreamEvent& event : events) {
    switch (event.type) {
      case StreamEvent::Type::MessageStart:
        response.id = event.id;
        response.model = event.model;
        break;
      case StreamEvent::Type::BlockStart:
        block_at[event.index] = response.content.size();
        response.content.push_back(event.block);
        break;
      case StreamEvent::Type::BlockDelta: {
        const auto at = block_at.find(event.index);
        if (at == block_at.end()) break;
        ContentBlock& block = response.content[at->second];
        switch (event.delta_kind) {
          case StreamEvent::DeltaKind::Text:
          case StreamEvent::DeltaKind::Thinking: block.text += event.delta; break;
          case StreamEvent::DeltaKind::Signature: block.signature += event.delta; break;
          case StreamEvent::DeltaKind::ToolInputJson: tool_json[event.index] += event.delta; break;
        }
        break;
      }
      case StreamEvent::Type::BlockStop: {
        const auto at = block_at.find(event.index);
        if (at == block_at.end()) break;
        ContentBlock& block = response.content[at->second];
        if (block.type != ContentBlock::Type::ToolUse) break;
        const std::string& text = tool_json[event.index];
        Json input = text.empty() ? Json::object() : parseBounded(text);
        if (!input.is_object()) return std::unexpected(ApiError::upstreamInvalidResponse("functionCall.args of " + block.tool_name + " is not an object"));
        block.tool_input = std::move(input);
        break;
      }
      case StreamEvent::Type::MessageDelta:
        if (event.stop_reason) response.stop_reason = *event.stop_reason;
        response.stop_sequence = event.stop_sequence;
        response.usage = event.usage;
        response.usage_reported = event.usage_reported;
        break;
      case StreamEvent::Type::Error: return std::unexpected(event.error);
      case StreamEvent::Type::MessageStop:
      case StreamEvent::Type::Ping: break;
    }
  }
  return response;
}

bool looksLikeAnswer(const Json& body) {
  return member(body, "candidates") != nullptr || member(body, "promptFeedback") != nullptr ||
         member(body, "usageMetadata") != nullptr || member(body, "error") != nullptr;
}

}  // namespace

std::expected<Response, ApiError> decodeResponse(std::string_view body) {
  const Json parsed = parseBounded(body);
  std::vector<StreamEvent> events;
  ChunkTranslator translator;
  if (parsed.is_object()) {
    if (!looksLikeAnswer(parsed)) return std::unexpected(ApiError::upstreamInvalidResponse("gemini answer has no candidates"));
    translator.take(parsed, events);
  } else if (parsed.is_array() && !parsed.empty()) {
    // streamGenerateContent without alt=sse: the chunks as one JSON array.
    for (const Json& chunk : parsed) translator.take(chunk, events);
  } else {
    return std::unexpected(ApiError::upstreamInvalidResponse("gemini answer is not a JSON object"));
  }
  translator.finish(/*require_finish_reason=*/false, events);
  return fold(events);
}

}  // namespace sluice::wire::gemini
