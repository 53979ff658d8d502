#pragma once
// Anthropic error objects ({"type":"error","error":{"type","message"}}) as neutral ApiErrors.
// Used for HTTP error answers, for a 200 answer that is an error body, and for `event: error`
// inside a stream.

#include <string_view>

#include "server/wire/api_error.h"
#include "server/wire/ir.h"

namespace sluice::wire::anthropic {

// The HTTP status Anthropic uses for an error type ("overloaded_error" -> 529,
// "rate_limit_error" -> 429, ...); 500 for a type this codec does not know.
int statusForErrorType(std::string_view type);

// The ApiError a parsed error body describes, with the given status: key = error.type,
// message = error.message. A body of another shape gives key `fallback_key` and a message naming
// the status.
ApiError errorFromBody(const Json& body, int status, std::string_view fallback_key);

}  // namespace sluice::wire::anthropic
