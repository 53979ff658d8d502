#pragma once
// The gemini wire's codec (generativelanguage API, also Vertex AI's publisher models). See
// server/wire/codec.h for the contract each function keeps. Gemini is a provider wire only:
// decodeRequest refuses with 400 "unsupported_wire", encodeResponse returns "" and
// makeStreamEncoder returns nullptr.
//
// encodeRequest: system -> systemInstruction; messages -> contents (user/model, same-role turns
// merged); tool results find their function name through the call with the same id earlier in
// the history (none -> 400 "unsupported_field", param messages[i].content[j].tool_use_id); Gemini
// thought signatures go back on the part that followed them; more than 5 stop sequences -> 400
// "unsupported_field" (param stop_sequences). Details in request_encode.cc / request_contents.cc.
//
// decodeResponse / makeStreamDecoder: see chunk_translator.h for the block layout; function calls
// without an id get mintToolCallId() ids (tool_ids.h); usage per usage_totals.h; finishReason per
// stop_reason.h. A stream has no terminal event: finish() ends it normally when a finishReason (or
// a prompt block) was seen, else with a 502 "upstream_stream_truncated" Error. Bad provider output
// -> 502 "upstream_invalid_response"; an {"error":...} body or chunk -> its ApiError.
//
// decodeError: Google RPC error body -> ApiError (key = error.status, retry from RetryInfo, else
// retry_after_seconds as given by codec.h, which reads the header); see google_error.h.

#include "server/wire/codec.h"

namespace sluice::wire::gemini {

#include "server/wire/codec_functions.inl"

}  // namespace sluice::wire::gemini
