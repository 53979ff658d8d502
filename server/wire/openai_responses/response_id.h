#pragma once
// A Responses answer relayed on the passthrough lane, shown with the gateway's response id in place
// of the provider's: the gateway keeps the conversation, so the id a client continues from is one
// the gateway minted (mintId("resp", request id), as the translating encoders mint it), never one
// a provider chose. Only that id changes; every other byte passes as it came. Pure.

#include <optional>
#include <string>
#include <string_view>

#include "server/wire/sse_event_filter.h"

namespace sluice::wire::openai_responses {

// A whole response object's text with its top-level `id` set to `id`; nullopt when the text is not
// one JSON object the member scan walks (json_scan.h).
std::optional<std::string> withResponseId(std::string_view response_json, std::string_view id);

// One SSE event of a Responses stream with the id of the `response` object its data carries set to
// `id` (response.created, .in_progress, .completed, .incomplete, .failed, .queued); any other
// event, or one that does not walk, unchanged.
std::string eventWithResponseId(std::string_view event, std::string_view id);

// The same over a whole stream.
class ResponseIdFilter : public SseEventFilter {
 public:
  explicit ResponseIdFilter(std::string id)
      : SseEventFilter([id = std::move(id)](std::string_view event) { return eventWithResponseId(event, id); }) {}
};

}  // namespace sluice::wire::openai_responses
