#pragma once
// Server-sent events framing: an incremental parser (bytes split anywhere, \n, \r\n or \r line
// ends, comments, multi-line data) and the writer. Pure.

#include <string>
#include <string_view>
#include <vector>

namespace sluice::wire {

struct SseEvent {
  std::string event;  // "" when the event had no `event:` line
  std::string data;   // data lines joined with '\n'
};

class SseParser {
 public:
  // Returns every event completed by these bytes (an event ends at a blank line).
  std::vector<SseEvent> feed(std::string_view bytes);
  // The stream ended: an event whose blank line never came is returned if it has data.
  std::vector<SseEvent> finish();

 private:
  void takeLine(std::string_view line, std::vector<SseEvent>& out);
  std::string line_;
  bool last_was_cr_ = false;
  SseEvent pending_;
  bool has_data_ = false;
  bool has_event_ = false;
};

// "event: NAME\ndata: DATA\n\n" (no event line when name is empty); DATA with line breaks is
// written as one `data:` line per line, which a parser joins back with '\n'.
std::string sseFrame(std::string_view event, std::string_view data);

}  // namespace sluice::wire
