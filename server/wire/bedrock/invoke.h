#pragma once
// Bedrock's InvokeModel / InvokeModelWithResponseStream for the Anthropic Messages wire: the path,
// the body Bedrock takes, and the streamed answer reframed from AWS event-stream `chunk` events
// (base64 Anthropic SSE event JSON) into the Anthropic SSE stream the rest of the gateway reads,
// event by event. Pure.

#include <optional>
#include <string>
#include <string_view>

#include "server/wire/bedrock/event_stream.h"

namespace sluice::wire::bedrock {

inline constexpr std::string_view kAnthropicVersion = "bedrock-2023-05-31";
inline constexpr std::string_view kEventStreamContentType = "application/vnd.amazon.eventstream";

// "/model/{id}/invoke" or "/model/{id}/invoke-with-response-stream", the id percent-encoded (a
// ':' or an ARN's '/' as %3A, %2F).
std::string invokePath(std::string_view model_id, bool stream);

// The Anthropic Messages body without `model` and `stream`, with `anthropic_version` set (the
// client's own kept if it sent one) and the `anthropic-beta` header's comma-separated values
// merged into `anthropic_beta`. Everything else (thinking signatures, cache_control, tool ids)
// is kept as sent. nullopt when the body is not a JSON object.
std::optional<std::string> invokeBody(std::string_view anthropic_body, std::string_view anthropic_beta_header);

// The Anthropic error type an event-stream exception stands for (throttlingException →
// rate_limit_error, serviceUnavailableException → overloaded_error, …).
std::string_view anthropicErrorType(std::string_view exception_type);

// Event-stream bytes in, Anthropic SSE text out. An exception message becomes an Anthropic
// `error` event (what an Anthropic stream says mid-answer); a framing error (bad CRC, a frame cut
// short, one too large) stops it and is reported by failure(), for the caller to treat as a
// transport failure.
class InvokeStreamReframer {
 public:
  explicit InvokeStreamReframer(size_t max_message_bytes = kMaxEventMessageBytes) : decoder_(max_message_bytes) {}
  std::string feed(std::string_view bytes);
  std::string finish();
  const std::optional<std::string>& failure() const { return decoder_.error() ? decoder_.error() : failure_; }

 private:
  std::string reframe(const EventMessage& message);
  EventStreamDecoder decoder_;
  std::optional<std::string> failure_;
};

}  // namespace sluice::wire::bedrock
