#pragma once
// Bedrock's Converse and ConverseStream as the mock answers them: the request checked the way
// Bedrock checks it (ValidationException otherwise) and turned into the Anthropic Messages body the
// mock's planner reads; the Anthropic answer the mock plans turned into Converse's answer, and its
// stream events into ConverseStream's events framed as event-stream messages. Pure. Written from
// Bedrock's API reference, independently of the gateway's codec (server/wire/bedrock/converse_*).

#include <expected>
#include <string>
#include <vector>

#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/script.h"
#include "tools/mock-provider/sse_event.h"

namespace sluice::mock {

// A Converse body as the Anthropic Messages body for `model_id` (streamed or not); a 400
// ValidationException for what Bedrock refuses: not an object, a `model` key, no messages, a
// message not user/assistant or not alternating from user, an unknown content block, toolUse or
// toolResult blocks without toolConfig, an image format Bedrock does not take.
std::expected<std::string, ErrorSpec> converseToMessagesBody(const std::string& body, const std::string& model_id,
                                                             bool stream);

// An Anthropic message (JSON) as Converse's answer.
std::string converseAnswerOf(const std::string& anthropic_message);

// The Anthropic stream's events as ConverseStream's event-stream frames (an `error` event as an
// exception frame; the script's bad_frame_after corrupts a frame's CRC).
std::vector<std::string> converseStreamFrames(const std::vector<SseEvent>& events, const Script& script);

}  // namespace sluice::mock
