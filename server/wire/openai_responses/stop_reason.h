#pragma once
// Responses has no finish_reason: the stop is derived from the response's status,
// incomplete_details and the kinds of output it holds; and the other way round, a neutral stop
// becomes a status (+ incomplete reason) a Responses client understands.

#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::openai_responses {

// incomplete + max_output_tokens -> MaxTokens; incomplete + content_filter, or a refusal part ->
// Refusal; a function_call item -> ToolUse; anything else -> EndTurn.
// NOTE: truncation wins over a function call: a call cut off by max_output_tokens must not be run.
StopReason stopReasonFor(const Json& response, bool saw_function_call, bool saw_refusal);

struct ResponseStatus {
  std::string status;             // "completed" | "incomplete" | "failed"
  std::string incomplete_reason;  // "max_output_tokens" | "content_filter" | "" (not incomplete)
};

// MaxTokens and ContextWindowExceeded -> incomplete/max_output_tokens; Refusal ->
// incomplete/content_filter; Error -> failed; every other stop -> completed.
ResponseStatus statusFor(StopReason stop);

// The HTTP status an error code met inside a 200 answer stands for (rate_limit_exceeded and
// insufficient_quota 429, server_error 500, server_is_overloaded/slow_down 503, ...); 502 when
// the code says nothing more precise.
int httpStatusForCode(std::string_view code);

}  // namespace sluice::wire::openai_responses
