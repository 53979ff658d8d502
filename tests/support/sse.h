#pragma once
// Parses a server-sent-events body into events, for tests. Accepts "\n", "\r\n" and "\r" line
// ends (Gemini separates events with "\r\n\r\n"). Comment lines (":…") are skipped; several
// data lines of one event are joined with "\n"; a trailing event without its blank line is kept.

#include <string>
#include <string_view>
#include <vector>

namespace sluice::test {

struct ServerSentEvent {
  std::string event;  // the `event:` field, empty when absent
  std::string data;
};

std::vector<ServerSentEvent> parseSse(std::string_view body);

}  // namespace sluice::test
