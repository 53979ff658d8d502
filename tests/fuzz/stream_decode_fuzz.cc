// Fuzz target: a provider stream decoder fed in pieces, then its events re-encoded for every
// client wire. Input: first byte picks the wire, second byte the chunk size (1..256), rest is
// the streamed body.
#include <algorithm>
#include <string_view>
#include <vector>

#include "tests/fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice;
  if (size < 2) return 0;
  const auto wire = fuzz::wireFrom(data[0]);
  const size_t chunk = static_cast<size_t>(data[1]) + 1;
  const std::string_view body(reinterpret_cast<const char*>(data + 2), size - 2);

  auto decoder = wire::makeStreamDecoder(wire);
  if (!decoder) return 0;
  std::vector<wire::StreamEvent> events;
  for (size_t at = 0; at < body.size(); at += chunk) {
    auto got = decoder->feed(body.substr(at, std::min(chunk, body.size() - at)));
    events.insert(events.end(), std::make_move_iterator(got.begin()), std::make_move_iterator(got.end()));
  }
  auto tail = decoder->finish();
  events.insert(events.end(), std::make_move_iterator(tail.begin()), std::make_move_iterator(tail.end()));

  const auto context = fuzz::fuzzContext();
  for (auto target : fuzz::kClientWires) {
    auto encoder = wire::makeStreamEncoder(target, context);
    if (!encoder) continue;
    for (const auto& event : events) (void)encoder->encode(event);
    (void)encoder->finish();
  }
  return 0;
}
