#include "tools/mock-provider/sse_event.h"

namespace sluice::mock {

std::vector<std::string> frameEvents(Framing framing, const std::vector<SseEvent>& events) {
  std::vector<std::string> frames;
  frames.reserve(events.size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    const SseEvent& event = events[i];
    switch (framing) {
      case Framing::NamedEvents:
        frames.push_back((event.name.empty() ? "" : "event: " + event.name + "\n") + "data: " + event.data + "\n\n");
        break;
      case Framing::DataOnly: frames.push_back("data: " + event.data + "\n\n"); break;
      case Framing::DataCrlf: frames.push_back("data: " + event.data + "\r\n\r\n"); break;
      case Framing::JsonArray:
        frames.push_back((i == 0 ? "[" : ",\r\n") + event.data + (i + 1 == events.size() ? "]" : ""));
        break;
    }
  }
  if (framing == Framing::JsonArray && frames.empty()) frames.push_back("[]");
  return frames;
}

}  // namespace sluice::mock
