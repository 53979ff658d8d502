// Fuzz target: the HTTP/1.1 framing the front end and the upstream client read from the network.
// Input: the first byte picks a piece size (1..256), the rest is the bytes. Properties:
//  - a request or response head that parses Complete uses no more than the buffer, its views lie
//    inside it, and it parses the same with more bytes after it;
//  - the chunked decoder gives the same body, end and failure whether fed whole or in pieces.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "server/net/http1.h"

namespace {

using namespace sluice::net::h1;

void inside(std::string_view outer, std::string_view part) {
  if (part.empty()) return;
  if (part.data() < outer.data() || part.data() + part.size() > outer.data() + outer.size()) std::abort();
}

template <typename Head, typename Parse>
void checkHead(std::string_view bytes, Parse parse) {
  HeadLimits limits;
  limits.max_head_bytes = 4096;
  limits.max_fields = 32;
  Head head;
  const HeadResult result = parse(bytes, limits, head);
  if (result.status != HeadStatus::Complete) return;
  if (result.consumed == 0 || result.consumed > bytes.size()) std::abort();
  for (const auto& [name, value] : head.fields) {
    inside(bytes, name);
    inside(bytes, value);
    if (name.empty()) std::abort();
  }
  const std::string longer = std::string(bytes) + "GET / HTTP/1.1\r\n";
  Head again;
  const HeadResult more = parse(longer, limits, again);
  if (more.status != HeadStatus::Complete || more.consumed != result.consumed ||
      again.fields.size() != head.fields.size()) {
    std::abort();
  }
}

struct Decoded {
  std::string body;
  bool done = false;
  bool failed = false;
  size_t used = 0;
};

Decoded decode(std::string_view bytes, size_t piece) {
  ChunkedDecoder decoder;
  Decoded out;
  size_t at = 0;
  while (at < bytes.size() && !decoder.done() && !decoder.failed()) {
    // The caller's buffer holds what arrived so far: at most `piece` more bytes each time.
    const std::string_view window = bytes.substr(at, std::min(piece, bytes.size() - at));
    std::string_view data;
    const size_t used = decoder.feed(window, data);
    if (used > window.size()) std::abort();
    inside(window, data);
    out.body += data;
    at += used;
    if (used == 0 && !decoder.done() && !decoder.failed()) std::abort();  // no progress on bytes
  }
  out.done = decoder.done();
  out.failed = decoder.failed();
  out.used = at;
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const size_t piece = static_cast<size_t>(data[0]) + 1;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  checkHead<RequestHead>(bytes, [](std::string_view b, const HeadLimits& l, RequestHead& h) {
    return parseRequestHead(b, l, h);
  });
  checkHead<ResponseHead>(bytes, [](std::string_view b, const HeadLimits& l, ResponseHead& h) {
    return parseResponseHead(b, l, h);
  });
  const Decoded whole = decode(bytes, bytes.size() + 1);
  const Decoded pieces = decode(bytes, piece);
  if (whole.body != pieces.body || whole.done != pieces.done || whole.failed != pieces.failed) std::abort();
  if (whole.done && whole.used != pieces.used) std::abort();
  return 0;
}
