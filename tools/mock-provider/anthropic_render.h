#pragma once
// Anthropic Messages bodies and stream events for an Answer (WIRE_FORMATS.md §1). Pure.

#include <cstdint>
#include <string>
#include <vector>

#include "tools/mock-provider/answer.h"
#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/sse_event.h"

namespace sluice::mock {

// {"id","type":"message","role","model","content":[thinking?, text?, tool_use?],"stop_reason",…,"usage"}.
std::string renderAnthropicMessage(const Answer& answer);

// message_start (input usage, output_tokens 1), per block content_block_start / deltas /
// content_block_stop with a ping after the first block start, message_delta (cumulative usage),
// message_stop. Text and thinking stream word by word; a thinking block ends with an empty
// thinking_delta and one signature_delta; tool input streams as input_json_delta fragments
// (a single "" for no arguments).
std::vector<SseEvent> renderAnthropicStream(const Answer& answer);

// `event: error` {"type":"error","error":{type,message}}.
std::vector<SseEvent> renderAnthropicStreamError(const ErrorSpec& error);

// {"input_tokens": N}.
std::string renderAnthropicCountTokens(std::int64_t input_tokens);

}  // namespace sluice::mock
