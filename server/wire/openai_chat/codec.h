#pragma once
// The openai_chat wire's codec. See server/wire/codec.h for the contract each function keeps.
// Pure; no function throws on any input.
//
// Client side (OpenCode and the OpenAI SDK on POST /v1/chat/completions):
// - decodeRequest: 400 "invalid_json" for a body that is not JSON; 400 "invalid_request" with
//   `param` naming the field for a field of the wrong shape (e.g. "messages" when missing,
//   "messages[1].tool_calls[0].function.arguments" for arguments that are not a JSON object);
//   400 "unsupported_field" for what no other wire can express (n > 1, the deprecated
//   functions/function_call API, role "function"). system/developer messages are hoisted into
//   Request.system wherever they stand; consecutive tool messages (and a user message right after
//   them) make one user message, results first; reasoning_content is a Thinking block without
//   signature; parts and tools this IR does not model are kept as Opaque / raw for this wire.
//   max_completion_tokens wins over max_tokens; temperature is kept as sent.
// - encodeResponse / makeStreamEncoder: id "chatcmpl-<request id>", model = ResponseContext::model,
//   created = ResponseContext::created. Thinking text is shown as reasoning_content; a Gemini
//   signature that belongs to a call rides in that call's id (tool_call_id.h), and decodeRequest
//   unwraps it again (400 "invalid_request" for an oversized or malformed one); other
//   signatures, redacted thinking and other wires' Opaque blocks are left out. The stream is a role chunk,
//   content / reasoning_content / tool_calls deltas (tool_calls[].index counts calls 0, 1, 2...; a
//   call without arguments gets "{}"), a finish_reason chunk, a usage chunk (choices []) when usage
//   is known, then [DONE]; an Error event is a {"error":{...}} chunk then [DONE], and nothing after.
//
// Provider side (OpenAI and OpenAI-compatible endpoints such as DeepSeek):
// - encodeRequest: system blocks -> one leading system message (texts joined by a blank line);
//   ToolResult blocks -> tool messages right after the assistant turn (their images follow in a
//   user message); Thinking -> reasoning_content (signatures dropped); max_tokens clamped to
//   max_output and sent as `max_tokens`; temperature clamped to [0, 2], top_p to [0, 1]; streams ask
//   for stream_options.include_usage. top_k, cache_control, is_error and thinking budgets are
//   dropped; tool_choice and parallel_tool_calls are sent only with tools. A user block of another
//   wire (a document, ...) is refused: 400 "unsupported_field", param messages[i].content[j].
// - decodeResponse / makeStreamDecoder: usage per usage_json.h (input includes cached tokens;
//   cache reads from cached_tokens or DeepSeek's prompt_cache_hit_tokens); finish_reason per
//   stop_reason.h. Streams get synthesised blocks (thinking, text, one per tool call), the
//   MessageDelta is held until the usage chunk or [DONE]; a {"error":...} chunk is an Error event;
//   Azure's filter-only first chunk is skipped; a stream that ends before finish_reason yields a
//   502 "upstream_stream_truncated" Error. Bad output -> 502 "upstream_invalid_response".
// - decodeError: status kept, key = error.code, else error.type; message = error.message;
//   param kept; retry_after_seconds as given (codec.h reads the header).

#include "server/wire/codec.h"

namespace sluice::wire::openai_chat {

#include "server/wire/codec_functions.inl"

}  // namespace sluice::wire::openai_chat
