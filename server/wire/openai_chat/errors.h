#pragma once
// The ApiErrors this codec produces, in one place so keys and statuses stay consistent.
// Keys are public API (tests and clients match on them).

#include <string>

#include "server/wire/api_error.h"
#include "server/wire/ir.h"

namespace sluice::wire::openai_chat {

// 400 "invalid_request": the client's body is malformed at `param` (e.g. "messages[2].role").
ApiError invalidRequest(std::string param, std::string message);

// 400 "unsupported_field": the request is well formed but cannot be expressed on the other side.
ApiError unsupportedField(std::string param, std::string message);

// 502 "upstream_invalid_response": the provider answered something that is not this wire.
ApiError invalidUpstreamResponse(std::string message);

// 502 "upstream_stream_truncated": the provider's stream ended before its terminal event.
ApiError upstreamStreamTruncated();

// An OpenAI-style error object {"message","type","param","code"} as an ApiError with `status`:
// key = code when it is a non-empty string, else type, else the wire's type for the status.
ApiError errorFromObject(const Json& error, int status);

// The HTTP status an error that arrived without one (inside a stream) most likely stands for,
// read from a numeric `code` or from the type/code names; 502 when nothing is recognised.
int statusForErrorObject(const Json& error);

}  // namespace sluice::wire::openai_chat
