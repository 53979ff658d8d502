// Fuzz target: the AWS event-stream decoder fed in pieces. Every message it accepts must encode
// back to a frame that decodes to the same message, and a one-shot decode of the same bytes must
// agree with the streaming one. Input: byte 0 picks the chunk size (1..256), byte 1 the frame
// limit (even: 64 KiB; odd: a small one, so oversized frames are refused), rest is the body.
#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "server/wire/bedrock/event_stream.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::wire::bedrock;
  if (size < 2) return 0;
  const size_t chunk = static_cast<size_t>(data[0]) + 1;
  const size_t limit = data[1] % 2 == 0 ? 64 * 1024 : 16 + static_cast<size_t>(data[1]) * 2;
  const std::string_view body(reinterpret_cast<const char*>(data + 2), size - 2);
  EventStreamDecoder decoder(limit);
  std::vector<EventMessage> messages;
  for (size_t at = 0; at < body.size(); at += chunk) {
    auto got = decoder.feed(body.substr(at, std::min(chunk, body.size() - at)));
    messages.insert(messages.end(), got.begin(), got.end());
  }
  const bool clean = decoder.finish();
  if (!clean && !decoder.error()) std::abort();
  size_t consumed = 0;
  for (const auto& message : messages) {
    const std::string frame = encodeEventMessage(message);
    if (body.substr(consumed, frame.size()) != frame) std::abort();  // the codec is exact
    consumed += frame.size();
    std::string error;
    auto again = decodeEventMessage(frame, error, limit);
    if (!again || again->payload != message.payload || again->headers.size() != message.headers.size()) {
      std::abort();
    }
  }
  if (clean && consumed != body.size()) std::abort();
  return 0;
}
