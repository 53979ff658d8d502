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
// "/model/{id}/converse" or "/model/{id}/converse-stream", the id encoded as above.
std::string conversePath(std::string_view model_id, bool stream);

// The Anthropic Messages body without `model` and `stream`, with `anthropic_version` set (the
// client's own kept if it sent one) and the `anthropic-beta` header's comma-separated values
// merged into `anthropic_beta`. Everything else (thinking signatures, cache_control, tool ids)
// is kept as sent. nullopt when the body is not a JSON object.
std::optional<std::string> invokeBody(std::string_view anthropic_body, std::string_view anthropic_beta_header);

// The Anthropic error type an event-stream exception stands for (throttlingException →
// rate_limit_error, serviceUnavailableException → overloaded_error, …).
std::string_view anthropicErrorType(std::string_view exception_type);

// An AWS error name as the `x-amzn-errortype` header ("ThrottlingException:http://internal…")
// or an event's `:exception-type` ("throttlingException") gives it, in the event's form:
// the part before ':', its first letter lower case; at most 64 characters.
std::string exceptionName(std::string_view raw);

// The HTTP status an exception stands for when it arrives as a stream's first event (AWS's own
// statuses for the same errors: throttlingException 429, serviceUnavailableException 503,
// validationException 400, modelTimeoutException 408, modelStreamErrorException 424, …; 500 for
// one it does not know).
int exceptionStatus(std::string_view exception_name);

// Bedrock's error answer (`{"message": "..."}` or `{"Message": ...}`, status, x-amzn-errortype)
// as the Anthropic error body the rest of the gateway reads: {"type":"error","error":{"type",
// "message"}}. The type comes from the error name, else from the status; the message is cut to
// 1 KiB; a body that is not JSON gives the name (or the status) as the message.
std::string anthropicErrorBody(int status, std::string_view error_type_header, std::string_view body);

// The frames Bedrock sends (the mock provider and the tests write them): a `chunk` event carrying
// one Anthropic event's JSON as base64 `bytes`, and an `exception` event.
std::string chunkFrame(std::string_view anthropic_event_json);
std::string exceptionFrame(std::string_view exception_name, std::string_view message);

// An exception event of the stream: its name and message (bounded).
struct StreamException {
  std::string name;
  std::string message;
};

// What a stream's events carry: InvokeModelWithResponseStream's `chunk` events (base64 Anthropic
// events, reframed as those events), or ConverseStream's events (messageStart, contentBlockDelta,
// ..., reframed as `event: <event type>` / `data: <payload>`, for the bedrock-converse codec).
enum class Framing { AnthropicChunks, ConverseEvents };

// Event-stream bytes in, SSE text out (Framing above). An exception message becomes an Anthropic
// `error` event (what an Anthropic stream says mid-answer); a framing error (bad CRC, a frame cut
// short, one too large) stops it and is reported by failure(), for the caller to treat as a
// transport failure.
class InvokeStreamReframer {
 public:
  explicit InvokeStreamReframer(Framing framing = Framing::AnthropicChunks,
                                size_t max_message_bytes = kMaxEventMessageBytes)
      : framing_(framing), decoder_(max_message_bytes) {}
  std::string feed(std::string_view bytes);
  std::string finish();
  const std::optional<std::string>& failure() const { return decoder_.error() ? decoder_.error() : failure_; }
  // The first exception event reframed, and how many chunk events came before it.
  const std::optional<StreamException>& exception() const { return exception_; }
  size_t chunksBeforeException() const { return chunks_before_exception_; }

 private:
  std::string reframe(const EventMessage& message);
  std::string reframeConverse(const EventMessage& message);
  Framing framing_;
  EventStreamDecoder decoder_;
  std::optional<std::string> failure_;
  std::optional<StreamException> exception_;
  size_t chunks_ = 0;
  size_t chunks_before_exception_ = 0;
};

}  // namespace sluice::wire::bedrock
