#pragma once
// Turns an Answer into what goes on the wire for a route: one JSON body, or framed stream events
// with an optional in-stream error injected. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/mock-provider/answer.h"
#include "tools/mock-provider/error_spec.h"
#include "tools/mock-provider/route.h"
#include "tools/mock-provider/sse_event.h"

namespace sluice::mock {

struct RenderOptions {
  bool stream = false;
  bool gemini_sse = true;          // streamGenerateContent with alt=sse; false: one JSON array
  bool include_usage = false;      // OpenAI Chat stream_options.include_usage
  std::optional<int> error_after;  // replace the stream from event N on with the wire's error events
  ErrorSpec stream_error;
};

struct Rendered {
  std::string content_type;
  bool stream = false;
  std::string body;                 // when !stream
  std::vector<std::string> frames;  // when stream: each one write, flushed
};

Framing framingFor(const Route& route, bool gemini_sse);

// The stream's events before framing. With error_after = N (clamped to the last event), the first
// N events are kept and the wire's error events follow (Anthropic `error`; Chat data {"error"};
// Responses `error` + `response.failed`; Gemini data {"error"}).
std::vector<SseEvent> streamEvents(const Route& route, const Answer& answer, const RenderOptions& options);

Rendered renderAnswer(const Route& route, const Answer& answer, const RenderOptions& options);

// The count-tokens answer: Anthropic {"input_tokens"}, Gemini {"totalTokens",…}.
Rendered renderCountTokens(const Route& route, std::int64_t tokens);

}  // namespace sluice::mock
