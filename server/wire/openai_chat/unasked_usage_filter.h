#pragma once
// The passthrough lane asks an OpenAI Chat provider for stream usage (stream_options.
// include_usage) even when the client did not, because the gateway must account every request.
// This filter gives such a client the stream it asked for: the usage-only chunk (`"choices": []`)
// is dropped and the `"usage": null` every other chunk then carries is removed; all other bytes
// pass unchanged, event by event. Pure: bytes in, bytes out.

#include <string>
#include <string_view>

namespace sluice::wire::openai_chat {

class UnaskedUsageFilter {
 public:
  // Returns the bytes of every event completed by `bytes` (an event ends at a blank line); an
  // incomplete event is held until its end arrives.
  std::string feed(std::string_view bytes);
  // The end of the stream: whatever is held, filtered as one event.
  std::string finish();

 private:
  std::string pending_;
};

// One SSE event (its lines and the blank line that ends it), filtered.
std::string filterUnaskedUsage(std::string_view event);

}  // namespace sluice::wire::openai_chat
