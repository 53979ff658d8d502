#include "server/wire/openai_chat/stop_reason.h"

namespace sluice::wire::openai_chat {

StopReason stopReasonFor(std::string_view finish_reason, bool has_tool_calls, bool has_refusal) {
  if (finish_reason == "length") return StopReason::MaxTokens;
  if (finish_reason == "tool_calls" || finish_reason == "function_call") return StopReason::ToolUse;
  if (finish_reason == "content_filter") return StopReason::Refusal;
  // DeepSeek's "insufficient_system_resource" and a router's "error" end the answer early.
  if (finish_reason == "insufficient_system_resource" || finish_reason == "error") return StopReason::Error;
  if (has_tool_calls) return StopReason::ToolUse;
  if (has_refusal) return StopReason::Refusal;
  return StopReason::EndTurn;
}

std::string finishReasonFor(StopReason reason) {
  switch (reason) {
    case StopReason::ToolUse: return "tool_calls";
    case StopReason::MaxTokens:
    case StopReason::ContextWindowExceeded: return "length";
    case StopReason::Refusal: return "content_filter";
    case StopReason::EndTurn:
    case StopReason::StopSequence:
    case StopReason::PauseTurn:
    case StopReason::Error: return "stop";
  }
  return "stop";
}

}  // namespace sluice::wire::openai_chat
