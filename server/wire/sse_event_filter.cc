#include "server/wire/sse_event_filter.h"

#include <algorithm>

namespace sluice::wire {

namespace {

// The end of the first complete event in `text` at or after `from` (just past its blank line),
// or npos.
size_t eventEnd(std::string_view text, size_t from) {
  for (size_t i = from; i < text.size(); ++i) {
    if (text[i] != '\n') continue;
    if (i + 1 < text.size() && text[i + 1] == '\n') return i + 2;
    if (i + 2 < text.size() && text[i + 1] == '\r' && text[i + 2] == '\n') return i + 3;
  }
  return std::string_view::npos;
}

}  // namespace

std::string SseEventFilter::feed(std::string_view bytes) {
  if (gave_up_) return std::string(bytes);
  pending_.append(bytes);
  std::string out;
  size_t start = 0;
  for (;;) {
    const size_t end = eventEnd(pending_, std::max(start, scanned_));
    if (end == std::string_view::npos) break;
    out += filter_(std::string_view(pending_).substr(start, end - start));
    start = end;
    scanned_ = end;
  }
  pending_.erase(0, start);
  // An end ("\n\n" or "\n\r\n") may straddle what came next: look again from two bytes back.
  scanned_ = pending_.size() > 2 ? pending_.size() - 2 : 0;
  if (pending_.size() > max_event_bytes_) {
    gave_up_ = true;
    out += pending_;
    pending_.clear();
    scanned_ = 0;
  }
  return out;
}

std::string SseEventFilter::finish() {
  std::string out = pending_.empty() || gave_up_ ? std::move(pending_) : filter_(pending_);
  pending_.clear();
  scanned_ = 0;
  return out;
}

std::optional<DataSpan> jsonDataLine(std::string_view event) {
  const size_t data_at = event.starts_with("data:") ? 0 : event.find("\ndata:");
  if (data_at == std::string_view::npos) return std::nullopt;
  size_t at = data_at + (data_at == 0 ? 5 : 6);
  const size_t line_end = event.find('\n', at);
  size_t end = line_end == std::string_view::npos ? event.size() : line_end;
  if (end > at && event[end - 1] == '\r') --end;
  while (at < end && event[at] == ' ') ++at;
  if (at == end || event[at] != '{') return std::nullopt;
  return DataSpan{at, end - at};
}

}  // namespace sluice::wire
