#pragma once
// finish_reason <-> the neutral StopReason.

#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::openai_chat {

// The neutral reason for a provider's finish_reason. Providers that answer "stop" although the
// message holds tool calls (some OpenAI-compatible servers do) still give ToolUse; a "stop" after
// a refusal gives Refusal. Unknown and missing reasons read as EndTurn (tool calls: ToolUse).
StopReason stopReasonFor(std::string_view finish_reason, bool has_tool_calls, bool has_refusal);

// The client-facing finish_reason: tool_use -> "tool_calls", max_tokens and a full context window
// -> "length", refusal -> "content_filter", everything else -> "stop".
// NOTE: Chat cannot say which stop sequence matched; StopSequence becomes a plain "stop".
std::string finishReasonFor(StopReason reason);

}  // namespace sluice::wire::openai_chat
