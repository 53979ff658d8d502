#pragma once
// Bedrock's InvokeModel as the mock answers it: the request body checked the way Bedrock checks
// it, AWS-shaped errors (`{"message"}` with the x-amzn-ErrorType name), and the Anthropic stream
// events framed as event-stream `chunk` events (an in-stream error as an `exception` event, a
// scripted bad frame with a corrupted CRC). Pure.

#include <expected>
#include <string>
#include <vector>

#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/script.h"
#include "tools/mock-provider/sse_event.h"

namespace sluice::mock {

// The error Bedrock answers `status` with: `type` is the x-amzn-ErrorType name
// (429 ThrottlingException, 503 ServiceUnavailableException, 400 ValidationException, …), or the
// script's error_type; the script's error_message replaces the message.
ErrorSpec bedrockErrorFor(int status, const Script& script);
// {"message": "..."}
std::string bedrockErrorBody(const ErrorSpec& error);

// The InvokeModel body checked as Bedrock checks it (a JSON object without `model` and `stream`,
// with anthropic_version "bedrock-2023-05-31"; a 400 ValidationException otherwise), turned into
// the Anthropic Messages body the mock's readers take (`model` = the path's id, `stream` when
// streaming).
std::expected<std::string, ErrorSpec> messagesBodyOf(const std::string& body, const std::string& model_id, bool stream);

// The Anthropic stream's events as event-stream frames, one per event.
std::vector<std::string> eventStreamFrames(const std::vector<SseEvent>& events, const Script& script);

}  // namespace sluice::mock
