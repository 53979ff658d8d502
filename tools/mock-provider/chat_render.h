#pragma once
// OpenAI Chat Completions bodies and stream chunks for an Answer (WIRE_FORMATS.md §2). Pure.
// Thinking is not shown on this wire: only usage.completion_tokens_details.reasoning_tokens.

#include <string>
#include <vector>

#include "tools/mock-provider/answer.h"
#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/sse_event.h"

namespace sluice::mock {

// A chat.completion object with one choice.
std::string renderChatCompletion(const Answer& answer);

// chat.completion.chunk events: the role first (with content "", or with the first tool-call
// fragment when there is no text), content deltas word by word, the tool call (id, type and
// name in its first fragment, then argument fragments, all with index 0), a finish_reason chunk
// with delta {}, then — when include_usage — a chunk with choices [] and the usage (every earlier
// chunk carries "usage": null), then "[DONE]".
std::vector<SseEvent> renderChatStream(const Answer& answer, bool include_usage);

// data: {"error":{message,type,param,code}} (no [DONE] after it).
std::vector<SseEvent> renderChatStreamError(const ErrorSpec& error);

}  // namespace sluice::mock
