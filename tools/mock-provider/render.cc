#include "tools/mock-provider/render.h"

#include <algorithm>

#include "tools/mock-provider/anthropic_render.h"
#include "tools/mock-provider/chat_render.h"
#include "tools/mock-provider/gemini_render.h"
#include "tools/mock-provider/responses_render.h"

namespace sluice::mock {

Framing framingFor(const Route& route, bool gemini_sse) {
  switch (route.wire) {
    case Wire::Anthropic:
    case Wire::OpenAiResponses: return Framing::NamedEvents;
    case Wire::OpenAiChat: return Framing::DataOnly;
    case Wire::Gemini: return gemini_sse ? Framing::DataCrlf : Framing::JsonArray;
  }
  return Framing::DataOnly;
}

std::vector<SseEvent> streamEvents(const Route& route, const Answer& answer, const RenderOptions& options) {
  std::vector<SseEvent> events;
  switch (route.wire) {
    case Wire::Anthropic: events = renderAnthropicStream(answer); break;
    case Wire::OpenAiChat: events = renderChatStream(answer, options.include_usage); break;
    case Wire::OpenAiResponses: events = renderResponsesStream(answer); break;
    case Wire::Gemini: events = renderGeminiStream(answer); break;
  }
  if (!options.error_after || events.empty()) return events;

  const auto keep = static_cast<std::size_t>(std::min<std::int64_t>(*options.error_after, events.size() - 1));
  events.resize(keep);
  std::vector<SseEvent> error;
  switch (route.wire) {
    case Wire::Anthropic: error = renderAnthropicStreamError(options.stream_error); break;
    case Wire::OpenAiChat: error = renderChatStreamError(options.stream_error); break;
    case Wire::OpenAiResponses:
      error = renderResponsesStreamError(answer, options.stream_error, static_cast<int>(keep));
      break;
    case Wire::Gemini: error = renderGeminiStreamError(options.stream_error); break;
  }
  events.insert(events.end(), error.begin(), error.end());
  return events;
}

Rendered renderAnswer(const Route& route, const Answer& answer, const RenderOptions& options) {
  Rendered out;
  if (options.stream) {
    out.stream = true;
    const Framing framing = framingFor(route, options.gemini_sse);
    out.content_type = framing == Framing::JsonArray ? "application/json; charset=UTF-8"
                       : route.wire == Wire::Gemini  ? "text/event-stream"
                                                     : "text/event-stream; charset=utf-8";
    out.frames = frameEvents(framing, streamEvents(route, answer, options));
    return out;
  }
  out.content_type = "application/json";
  switch (route.wire) {
    case Wire::Anthropic: out.body = renderAnthropicMessage(answer); break;
    case Wire::OpenAiChat: out.body = renderChatCompletion(answer); break;
    case Wire::OpenAiResponses: out.body = renderResponse(answer); break;
    case Wire::Gemini: out.body = renderGenerateContent(answer); break;
  }
  return out;
}

Rendered renderCountTokens(const Route& route, std::int64_t tokens) {
  Rendered out;
  out.content_type = "application/json";
  out.body = route.wire == Wire::Gemini ? renderGeminiCountTokens(tokens) : renderAnthropicCountTokens(tokens);
  return out;
}

}  // namespace sluice::mock
