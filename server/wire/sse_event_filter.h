#pragma once
// Rewrites a server-sent event stream event by event as it passes, for the passthrough lane: the
// bytes of each complete event (its lines and the blank line that ends it) go through `filter`,
// and nothing else is changed. An incomplete event is held until its end arrives; one that grows
// past `max_event_bytes` is given up on: it and everything after it pass unchanged, so what is
// held never grows without bound (the caller must accept an unfiltered tail; see gaveUp()).
// Pure: bytes in, bytes out. Not thread-safe: one per stream.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::wire {

// Held per event at most, by default: an event this large is not a chunk of text.
inline constexpr size_t kMaxFilteredEventBytes = 16u << 20;

class SseEventFilter {
 public:
  using Filter = std::function<std::string(std::string_view event)>;
  explicit SseEventFilter(Filter filter, size_t max_event_bytes = kMaxFilteredEventBytes)
      : filter_(std::move(filter)), max_event_bytes_(max_event_bytes) {}

  // The bytes of every event completed by `bytes`, filtered.
  std::string feed(std::string_view bytes);
  // The end of the stream: whatever is held, filtered as one event.
  std::string finish();
  // True once an event passed the bound: from then on bytes pass unfiltered.
  bool gaveUp() const { return gave_up_; }

 private:
  Filter filter_;
  size_t max_event_bytes_;
  std::string pending_;
  size_t scanned_ = 0;  // pending_ holds no event end before this offset
  bool gave_up_ = false;
};

// Where the JSON of an event's data is, for events whose data is one `data:` line holding a JSON
// object (as OpenAI's streams write them): the offset and length of that object's text in
// `event` (leading spaces skipped, a trailing \r left out). nullopt for any other event.
struct DataSpan {
  size_t at = 0;
  size_t size = 0;
};
std::optional<DataSpan> jsonDataLine(std::string_view event);

}  // namespace sluice::wire
