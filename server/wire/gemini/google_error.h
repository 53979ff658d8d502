#pragma once
// Google RPC error bodies ({"error":{"code","message","status","details"}}) -> neutral ApiError.
// Shared by decodeError, decodeResponse and the stream decoder. Pure; never throws.

#include <optional>
#include <string_view>

#include "server/wire/api_error.h"
#include "server/wire/ir.h"

namespace sluice::wire::gemini {

// `error_object` is the value of the top-level "error" member. status = `http_status` when it
// is an error status (>= 400), else error.code when that is one, else 502. key = error.status
// ("RESOURCE_EXHAUSTED", ...), or the wire's name for the status when absent. message =
// error.message. param = the first details[].fieldViolations[].field when given.
// retry_after_seconds = details[] RetryInfo.retryDelay ("34s" -> 34, "1.5s" -> 2, rounded up),
// at most wire::kMaxRetryAfter, else `retry_after_seconds` (the answer's Retry-After header, read
// by wire::parseRetryAfter).
ApiError apiErrorFromGoogle(int http_status, const Json& error_object, std::optional<int> retry_after_seconds);

// Whole seconds, rounded up, from a protobuf Duration in JSON ("34s", "0.5s", {"seconds":3}).
std::optional<int> durationSeconds(const Json& duration);

}  // namespace sluice::wire::gemini
