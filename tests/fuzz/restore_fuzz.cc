// Fuzz target: the stream restorer, between a provider's stream and the client, over a mapping of
// a few placeholders. Byte 0 sets the piece size (1..64, from its low 6 bits) and the shape (bits
// 6-7). Shape 0: the rest as text deltas of one block, then its stop; the text sent must equal
// restoreText of the whole (aborts otherwise). Other shapes: each piece is one event whose first
// byte picks its type, block index and delta kind (text, thinking, tool-input JSON, signature),
// blocks opened and stopped in any order. The replay also holds it to a CPU cost per byte.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "server/protection/placeholder.h"
#include "server/protection/restorer.h"

namespace {

using namespace sluice;
using Event = wire::StreamEvent;

const protection::Mapping& mapping() {
  static const protection::Mapping m = [] {
    protection::Mapping out;
    out.assign(protection::Kind::Email, 1, "ann@example.com");
    out.assign(protection::Kind::Password, 2, "p\"a\\ss\nword");
    out.assign(protection::Kind::ApiKey, 1, "sk-proj-AbCdEf0123456789GhIjKlMnOp");
    out.assign(protection::Kind::UrlCredentials, 99999, "u:p");
    return out;
  }();
  return m;
}

Event delta(int index, Event::DeltaKind kind, std::string_view text) {
  Event event;
  event.type = Event::Type::BlockDelta;
  event.index = index;
  event.delta_kind = kind;
  event.delta = std::string(text);
  return event;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t piece = (data[0] & 63u) + 1;
  const int shape = data[0] >> 6;
  const std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  protection::StreamRestorer restorer(mapping());
  std::vector<Event> out;
  if (shape == 0) {
    // What the client is sent, collected as it goes (the events themselves are not kept: a large
    // input in 1-byte pieces would hold a vector of a million events).
    std::string sent;
    const auto collect = [&] {
      for (const Event& event : out) sent += event.delta;
      out.clear();
    };
    for (size_t at = 0; at < body.size(); at += piece) {
      restorer.feed(delta(0, Event::DeltaKind::Text, body.substr(at, piece)), out);
      collect();
    }
    Event stop;
    stop.type = Event::Type::BlockStop;
    restorer.feed(stop, out);
    collect();
    if (sent != protection::restoreText(body, mapping())) std::abort();
    return 0;
  }
  for (size_t at = 0; at < body.size(); at += piece) {
    const std::string_view chunk = body.substr(at, piece);
    const uint8_t b = static_cast<uint8_t>(chunk[0]);
    // Shape 3 spreads events over up to 8,192 blocks (the next byte widens the index).
    const int wide = chunk.size() > 1 ? static_cast<uint8_t>(chunk[1]) << 5 : 0;
    const int index = shape == 3 ? (b >> 3) | wide : (b >> 3) % 4;
    Event event;
    switch (b & 7) {
      case 0: event = delta(index, Event::DeltaKind::Text, chunk.substr(1)); break;
      case 1: event = delta(index, Event::DeltaKind::ToolInputJson, chunk.substr(1)); break;
      case 2: event = delta(index, Event::DeltaKind::Thinking, chunk.substr(1)); break;
      case 3: event = delta(index, Event::DeltaKind::Signature, chunk.substr(1)); break;
      case 4:
        event.type = Event::Type::BlockStart;
        event.index = index;
        event.block = wire::ContentBlock::ofText(std::string(chunk.substr(1)));
        break;
      case 5: event.type = Event::Type::BlockStop; event.index = index; break;
      case 6: event.type = Event::Type::MessageDelta; break;
      default: event = delta(index, Event::DeltaKind::Text, chunk); break;
    }
    restorer.feed(std::move(event), out);
    out.clear();
  }
  Event stop;
  stop.type = Event::Type::MessageStop;
  restorer.feed(stop, out);
  if (restorer.heldBytes() != 0) std::abort();  // every tail goes out before the message ends
  return 0;
}
