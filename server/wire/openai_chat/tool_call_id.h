#pragma once
// Chat has no field for a reasoning signature, yet every Chat client echoes the id the gateway
// gave a tool call byte for byte: as the assistant message's tool_calls[].id and as the tool
// message's tool_call_id. A Gemini thoughtSignature that belongs to a functionCall part therefore
// travels in that call's id, as the signature envelope (server/wire/signature_envelope.h) with
// the call's own id in the reasoning-id slot:
//
//   sluice:gemini:<plain id>:<thoughtSignature>     e.g. "sluice:gemini:call_0f3a...:EqUCCqIC..."
//
// The request decoder unwraps it: the IR gets the plain id on the call AND on its result, and a
// Gemini Thinking block holding the signature right before the call, which is where the Gemini
// encoder looks for a call's signature. A history sent to any other provider thus carries only
// the plain, short id (a minted Gemini id is "call_" + 24 hex digits), the same for the call and
// its result; the same answer streamed or not gives the same ids.
//
// Only Gemini signatures are carried (the only ones a provider checks on a call); a call without
// one keeps its plain id. Pure.

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>

#include "server/wire/ir.h"

namespace sluice::wire::openai_chat {

// How every id that carries a Gemini signature starts.
inline constexpr std::string_view kGeminiIdPrefix = "sluice:gemini:";

// Upper bound on a tool call id a client may send (envelope included): a hostile client cannot
// make the gateway carry a huge id to a provider. A signature too long to fit is not carried (the
// call keeps its plain id; see toolCallIdFor).
inline constexpr std::size_t kMaxToolCallIdBytes = 32 * 1024;
// Upper bound on the plain id inside an envelope.
inline constexpr std::size_t kMaxPlainToolCallIdBytes = 128;

// The id to show a Chat client for `tool_id`: the envelope when `gemini_signature` is non-empty
// and the envelope fits kMaxToolCallIdBytes, else `tool_id` unchanged.
std::string toolCallIdFor(std::string_view tool_id, std::string_view gemini_signature);

struct ChatToolCallId {
  std::string id;         // the plain id
  std::string signature;  // the Gemini thoughtSignature it carried; "" when none
};

// The inverse of toolCallIdFor for an id a client sent (`param` names it in errors). Anything that
// is not a Gemini envelope is a plain id, returned as it is. 400 "invalid_request" naming `param`
// for an id longer than kMaxToolCallIdBytes, or for a Gemini envelope whose plain id is empty or
// longer than kMaxPlainToolCallIdBytes or whose signature is empty or not base64 (standard or
// URL-safe alphabet).
std::expected<ChatToolCallId, ApiError> parseToolCallId(std::string_view id, const std::string& param);

// A Chat request body (the passthrough lane, which forwards the client's own JSON to a Chat
// provider): every messages[].tool_calls[].id and messages[].tool_call_id that carries a Gemini
// signature is replaced by its plain id, so the call and its result keep one short id. The
// refusal parseToolCallId gives for a malformed or oversized id.
std::expected<void, ApiError> stripToolCallSignatures(Json& body);

// Tracks, over a response's blocks in order, the Gemini signature waiting for the next call: a
// Thinking block signed by Gemini sets it (Gemini signs the part after a thought run, and the
// Gemini decoders put a call's signature block right before the call); any other block clears
// it, a ToolUse takes it. NOTE: signatures not followed by a call (a text answer's trailing
// signature) have no carrier in Chat and are dropped; Gemini does not require them.
class PendingCallSignature {
 public:
  // A block (or, streaming, a block start) in answer order.
  void see(const ContentBlock& block);
  // A streamed Signature delta of the current Thinking block.
  void appendSignature(std::string_view piece);
  // The signature for the ToolUse being started now, and clears it.
  std::string takeForCall();

 private:
  bool in_gemini_thinking_ = false;
  std::string current_;    // the signature of the Thinking block being read
  std::string signature_;  // the one waiting for a call
};

}  // namespace sluice::wire::openai_chat
