#pragma once
// Anthropic stop_reason strings <-> the neutral StopReason.

#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::anthropic {

// "end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "pause_turn",
// "model_context_window_exceeded". An unknown value (the set may grow) reads as EndTurn.
StopReason stopReasonFromWire(std::string_view text);

// The Anthropic spelling. StopReason::Error has none and is sent as "end_turn".
std::string_view stopReasonToWire(StopReason reason);

}  // namespace sluice::wire::anthropic
