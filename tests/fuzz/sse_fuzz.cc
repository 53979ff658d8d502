// Fuzz target: the SSE parser fed in pieces; every event is re-framed and parsed again, which
// must give the same event back. Input: first byte picks the chunk size (1..256), rest is the body.
#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "server/wire/sse.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::wire;
  if (size < 1) return 0;
  const size_t chunk = static_cast<size_t>(data[0]) + 1;
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  SseParser parser;
  std::vector<SseEvent> events;
  for (size_t at = 0; at < body.size(); at += chunk) {
    auto got = parser.feed(body.substr(at, std::min(chunk, body.size() - at)));
    events.insert(events.end(), got.begin(), got.end());
  }
  auto tail = parser.finish();
  events.insert(events.end(), tail.begin(), tail.end());
  // Round trip: an event whose name has no line breaks must survive sseFrame + parse.
  for (const auto& event : events) {
    if (event.event.find_first_of("\r\n") != std::string::npos) continue;
    SseParser again;
    auto out = again.feed(sseFrame(event.event, event.data));
    auto rest = again.finish();
    out.insert(out.end(), rest.begin(), rest.end());
    if (event.data.empty() && out.empty()) continue;
    if (out.size() != 1 || out[0].data != event.data) std::abort();
  }
  return 0;
}
