#pragma once
// The anthropic wire's codec. See server/wire/codec.h for the contract each function keeps.
// Pure; no function throws on any input.
//
// Client side (Claude Code and the Anthropic SDK on POST /v1/messages):
// - decodeRequest: 400 "invalid_json" for a body that is not JSON; 400 "invalid_request" with
//   `param` naming the field for a field of the wrong shape ("messages" when it is missing or not
//   an array). max_tokens may be missing (the encoder of the target wire supplies a default).
//   Unknown block types become Opaque blocks and typed server tools raw tools (raw_wire
//   Anthropic); unknown top-level fields are ignored. A top-level cache_control is placed on the
//   last block of the last message; a mid-conversation `system` message joins the system prompt;
//   output_config.effort becomes Reasoning::effort; text citations are dropped.
// - encodeResponse / makeStreamEncoder: ids "msg_..." (from ResponseContext::request_id when the
//   IR id is not one), model = ResponseContext::model, usage in Anthropic counting (input
//   excludes cached tokens). Thinking minted by another wire is shown with its signature wrapped
//   (server/wire/signature_envelope.h) so it comes back intact; other wires' Opaque
//   blocks are left out. The stream encoder numbers blocks 0, 1, 2... in start order, emits
//   message_start before anything else, closes open blocks before message_delta, and after an
//   Error event (rendered as `event: error`) emits nothing more.
//
// Provider side (an Anthropic endpoint):
// - encodeRequest: max_tokens = request's or default_max_tokens, clamped to max_output;
//   consecutive same-role turns merged, tool_result blocks first in their user turn; thinking
//   sent back only with an Anthropic signature, Opaque blocks and raw tools only when Anthropic's
//   own. Optional fields the API would refuse are dropped: temperature (clamped to [0, 1]) and
//   top_k when thinking is on, top_p when temperature is set, thinking when the tool choice is
//   forced, when max_tokens leaves no room for the 1024-token minimum budget, or when the last
//   tool-calling assistant turn has no thinking block; json_object response formats. A request
//   with no message left to send is refused: 400 "unsupported_field", param "messages".
// - decodeResponse / makeStreamDecoder: neutral usage (input = input_tokens + cache reads +
//   cache writes); a stream's message_delta usage is cumulative and authoritative. Bad output is
//   502 "upstream_invalid_response"; a stream without message_stop ends with a 502
//   "upstream_stream_truncated" Error event; `event: error` becomes an Error event with the
//   status of its type (overloaded_error -> 529).
// - decodeError: status kept, key = error.type, message = error.message; retry_after_seconds as given
//   (codec.h reads the header).

#include "server/wire/codec.h"

namespace sluice::wire::anthropic {

#include "server/wire/codec_functions.inl"

}  // namespace sluice::wire::anthropic
