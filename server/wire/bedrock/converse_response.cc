// decodeResponse and decodeError for the bedrock-converse wire (converse_codec.h), and the
// pieces the stream decoder shares: stop reasons, usage, answer blocks.

#include <utility>

#include "server/wire/anthropic/codec.h"
#include "server/wire/bedrock/converse_codec.h"
#include "server/wire/json_access.h"
#include "server/wire/json_parse.h"

namespace sluice::wire::converse {

StopReason stopReasonOf(std::string_view stop_reason) {
  if (stop_reason == "tool_use") return StopReason::ToolUse;
  if (stop_reason == "max_tokens") return StopReason::MaxTokens;
  if (stop_reason == "stop_sequence") return StopReason::StopSequence;
  if (stop_reason == "guardrail_intervened" || stop_reason == "content_filtered") return StopReason::Refusal;
  if (stop_reason == "model_context_window_exceeded") return StopReason::ContextWindowExceeded;
  return StopReason::EndTurn;  // end_turn, and any reason added later
}

Usage usageOf(const Json& usage) {
  Usage out;
  if (!usage.is_object()) return out;
  out.cache_read_tokens = int64Member(usage, "cacheReadInputTokens").value_or(0);
  out.cache_write_tokens = int64Member(usage, "cacheWriteInputTokens").value_or(0);
  out.input_tokens = int64Member(usage, "inputTokens").value_or(0) + out.cache_read_tokens + out.cache_write_tokens;
  out.output_tokens = int64Member(usage, "outputTokens").value_or(0);
  return out;
}

std::optional<ContentBlock> blockOf(const Json& block) {
  if (!block.is_object()) return std::nullopt;
  if (const auto text = optionalString(block, "text")) return ContentBlock::ofText(*text);
  if (const Json* use = objectMember(block, "toolUse")) {
    ContentBlock out;
    out.type = ContentBlock::Type::ToolUse;
    out.tool_id = stringMember(*use, "toolUseId");
    out.tool_name = stringMember(*use, "name");
    const Json* input = member(*use, "input");
    out.tool_input = input != nullptr && input->is_object() ? *input : Json::object();
    return out;
  }
  if (const Json* reasoning = objectMember(block, "reasoningContent")) {
    ContentBlock out;
    out.signature_wire = catalog::Wire::BedrockConverse;
    if (const Json* text = objectMember(*reasoning, "reasoningText")) {
      out.type = ContentBlock::Type::Thinking;
      out.text = stringMember(*text, "text");
      out.signature = stringMember(*text, "signature");
      return out;
    }
    if (const auto redacted = optionalString(*reasoning, "redactedContent")) {
      out.type = ContentBlock::Type::RedactedThinking;
      out.data = *redacted;
      return out;
    }
  }
  return std::nullopt;  // guardContent, citations, images in answers: not in the IR
}

std::expected<Response, ApiError> decodeResponse(std::string_view body) {
  const Json parsed = parseBounded(body);
  if (!parsed.is_object()) return std::unexpected(ApiError::upstreamInvalidResponse("Converse answer is not a JSON object"));
  const Json* output = objectMember(parsed, "output");
  const Json* message = output != nullptr ? objectMember(*output, "message") : nullptr;
  const Json* content = message != nullptr ? arrayMember(*message, "content") : nullptr;
  if (content == nullptr) {
    return std::unexpected(ApiError::upstreamInvalidResponse("Converse answer has no output.message.content"));
  }
  Response response;
  for (const Json& block : *content) {
    if (auto converted = blockOf(block)) response.content.push_back(std::move(*converted));
  }
  response.stop_reason = stopReasonOf(stringMember(parsed, "stopReason"));
  if (const Json* fields = objectMember(parsed, "additionalModelResponseFields")) {
    response.stop_sequence = stringMember(*fields, "stop_sequence");
  }
  if (const Json* usage = objectMember(parsed, "usage")) {
    response.usage = usageOf(*usage);
    response.usage_reported = true;
  }
  return response;
}

ApiError decodeError(int status, std::string_view body, std::optional<int> retry_after_seconds) {
  return anthropic::decodeError(status, body, retry_after_seconds);
}

}  // namespace sluice::wire::converse
