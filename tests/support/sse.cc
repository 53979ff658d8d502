#include "tests/support/sse.h"

namespace sluice::test {

std::vector<ServerSentEvent> parseSse(std::string_view body) {
  std::vector<ServerSentEvent> events;
  ServerSentEvent current;
  bool has_data = false;
  bool has_field = false;
  auto dispatch = [&] {
    if (has_field) events.push_back(current);
    current = {};
    has_data = false;
    has_field = false;
  };
  std::size_t pos = 0;
  while (pos <= body.size()) {
    std::size_t end = body.find_first_of("\r\n", pos);
    const bool last = end == std::string_view::npos;
    const std::string_view line = body.substr(pos, last ? body.size() - pos : end - pos);
    if (line.empty()) {
      if (last) break;
      dispatch();
    } else if (line.front() != ':') {
      const auto colon = line.find(':');
      const std::string_view name = line.substr(0, colon);
      std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
      if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      if (name == "event") {
        current.event = std::string(value);
        has_field = true;
      } else if (name == "data") {
        if (has_data) current.data += '\n';
        current.data += value;
        has_data = true;
        has_field = true;
      }
    }
    if (last) break;
    pos = end + (body[end] == '\r' && end + 1 < body.size() && body[end + 1] == '\n' ? 2 : 1);
  }
  dispatch();
  return events;
}

}  // namespace sluice::test
