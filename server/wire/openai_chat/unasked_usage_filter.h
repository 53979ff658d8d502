#pragma once
// The passthrough lane asks an OpenAI Chat provider for stream usage (stream_options.
// include_usage) even when the client did not, because the gateway must account every request.
// This filter gives such a client the stream it asked for: the usage-only chunk (`"choices": []`)
// is dropped and the `"usage": null` every other chunk then carries is removed; all other bytes
// pass unchanged, event by event. Pure: bytes in, bytes out.

#include <string>
#include <string_view>

#include "server/wire/sse_event_filter.h"

namespace sluice::wire::openai_chat {

// One SSE event (its lines and the blank line that ends it), filtered.
std::string filterUnaskedUsage(std::string_view event);

// The filter over a whole stream: every complete event filtered, an incomplete one held until its
// end arrives (and an oversized one passed as it is: SseEventFilter).
class UnaskedUsageFilter : public SseEventFilter {
 public:
  UnaskedUsageFilter() : SseEventFilter(filterUnaskedUsage) {}
};

}  // namespace sluice::wire::openai_chat
