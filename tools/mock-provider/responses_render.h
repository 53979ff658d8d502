#pragma once
// OpenAI Responses bodies and stream events for an Answer (WIRE_FORMATS.md §3). Pure.

#include <string>
#include <vector>

#include "tools/mock-provider/answer.h"
#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/sse_event.h"

namespace sluice::mock {

// A response object: output [reasoning?, message?, function_call?], usage, status "completed"
// (or "incomplete" with incomplete_details for a length or content-filter finish).
std::string renderResponse(const Answer& answer);

// Named events whose data carries "type" and "sequence_number" (0, 1, 2, …): response.created,
// response.in_progress, then per output item output_item.added … output_item.done (reasoning:
// reasoning_summary_part.added, reasoning_summary_text.delta*, .done, reasoning_summary_part.done;
// message: content_part.added, output_text.delta*, output_text.done, content_part.done;
// function_call: function_call_arguments.delta*, function_call_arguments.done), then
// response.completed (or response.incomplete). No [DONE].
std::vector<SseEvent> renderResponsesStream(const Answer& answer);

// `error` {"type":"error","code","message","param","sequence_number"} then `response.failed`
// with status "failed" and error {code,message}; numbering continues from `next_sequence`.
std::vector<SseEvent> renderResponsesStreamError(const Answer& answer, const ErrorSpec& error, int next_sequence);

}  // namespace sluice::mock
