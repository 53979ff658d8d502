#pragma once
// Gemini finishReason -> neutral StopReason. Pure.

#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::gemini {

// STOP -> EndTurn, or ToolUse when the answer held a functionCall (Gemini has no tool-call finish
// reason); MAX_TOKENS -> MaxTokens; the filter reasons (SAFETY, RECITATION, LANGUAGE, BLOCKLIST,
// PROHIBITED_CONTENT, SPII, IMAGE_*) -> Refusal. Everything else (MALFORMED_FUNCTION_CALL,
// UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS, OTHER, NO_IMAGE, FINISH_REASON_UNSPECIFIED, unknown
// or absent) is treated as STOP.
StopReason stopReasonFor(std::string_view finish_reason, bool saw_function_call);

}  // namespace sluice::wire::gemini
