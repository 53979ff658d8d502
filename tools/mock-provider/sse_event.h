#pragma once
// One stream event before framing, and the byte framing of each wire. Pure.

#include <string>
#include <vector>

namespace sluice::mock {

struct SseEvent {
  std::string name;  // the `event:` name; empty for data-only wires
  std::string data;  // the `data:` payload (one line of JSON, or "[DONE]")
};

enum class Framing {
  NamedEvents,  // "event: <name>\ndata: <data>\n\n"       (Anthropic, OpenAI Responses)
  DataOnly,     // "data: <data>\n\n"                        (OpenAI Chat)
  DataCrlf,     // "data: <data>\r\n\r\n"                    (Gemini alt=sse)
  JsonArray,    // "[" <data> ",\r\n" <data> … "]"            (Gemini streamGenerateContent without alt=sse)
};

// One frame per event, each a complete write; concatenated they are the response body.
// JsonArray puts "[" before the first and "]" after the last ("[]" as one frame when empty).
std::vector<std::string> frameEvents(Framing framing, const std::vector<SseEvent>& events);

}  // namespace sluice::mock
