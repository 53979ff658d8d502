#pragma once
// The IR conversation as Gemini `contents`: roles user/model (assistant -> model), consecutive
// same-role turns merged so turns alternate, tool results as functionResponse parts in user
// turns, Gemini thought signatures back on the part they came with. Pure.

#include <expected>
#include <vector>

#include "server/wire/api_error.h"
#include "server/wire/ir.h"

namespace sluice::wire::gemini {

// The value of "contents". Refuses with 400 "unsupported_field" when a tool result names a
// tool_use_id no earlier tool call has (Gemini needs the function's name; param
// "messages[i].content[j].tool_use_id"), or when nothing expressible is left ("messages").
std::expected<Json, ApiError> encodeContents(const std::vector<Message>& messages);

// The dummy signature Gemini documents for function calls whose real signature is unknown
// (history written by another model or a client that dropped it).
inline constexpr const char* kSkipSignatureValidator = "skip_thought_signature_validator";

}  // namespace sluice::wire::gemini
