#pragma once
// OpenAI-style error objects read as ApiErrors (the plain request and response errors are
// ApiError's named factories, api_error.h).

#include <string>

#include "server/wire/api_error.h"
#include "server/wire/ir.h"

namespace sluice::wire::openai_chat {

// An OpenAI-style error object {"message","type","param","code"} as an ApiError with `status`:
// key = code when it is a non-empty string, else type, else the wire's type for the status.
ApiError errorFromObject(const Json& error, int status);

// The HTTP status an error that arrived without one (inside a stream) most likely stands for,
// read from a numeric `code` or from the type/code names; 502 when nothing is recognised.
int statusForErrorObject(const Json& error);

}  // namespace sluice::wire::openai_chat
