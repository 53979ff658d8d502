#include "server/wire/anthropic/stop_reason.h"

namespace sluice::wire::anthropic {

StopReason stopReasonFromWire(std::string_view text) {
  if (text == "max_tokens") return StopReason::MaxTokens;
  if (text == "stop_sequence") return StopReason::StopSequence;
  if (text == "tool_use") return StopReason::ToolUse;
  if (text == "refusal") return StopReason::Refusal;
  if (text == "pause_turn") return StopReason::PauseTurn;
  if (text == "model_context_window_exceeded") return StopReason::ContextWindowExceeded;
  // NOTE: "end_turn" and any value added after this codec was written: ending the turn is the
  // reading a client can always act on.
  return StopReason::EndTurn;
}

std::string_view stopReasonToWire(StopReason reason) {
  switch (reason) {
    case StopReason::EndTurn: return "end_turn";
    case StopReason::MaxTokens: return "max_tokens";
    case StopReason::StopSequence: return "stop_sequence";
    case StopReason::ToolUse: return "tool_use";
    case StopReason::Refusal: return "refusal";
    case StopReason::PauseTurn: return "pause_turn";
    case StopReason::ContextWindowExceeded: return "model_context_window_exceeded";
    case StopReason::Error: return "end_turn";  // NOTE: the wire has no error stop; the turn did end
  }
  return "end_turn";
}

}  // namespace sluice::wire::anthropic
