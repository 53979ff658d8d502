#pragma once
// HTTP/1.1 framing for the gateway's own front end (RFC 9112), without sockets: the request head
// parser and the chunked body decoder work on bytes handed to them, so they are tested with
// strings. server/http/server_session.* feeds them from the connection.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::net::h1 {

struct HeadLimits {
  size_t max_head_bytes = 64u << 10;  // request line, fields and the blank line, all counted
  size_t max_fields = 100;
};

enum class HeadStatus {
  Incomplete,  // no blank line yet and still under the limit: read more
  Complete,
  TooLarge,   // answered with 431
  Malformed,  // answered with 400
};

// Views into the buffer given to parseRequestHead: valid while that buffer is.
struct RequestHead {
  std::string_view method;
  std::string_view target;
  std::string_view version;  // "HTTP/1.1" or "HTTP/1.0"
  std::vector<std::pair<std::string_view, std::string_view>> fields;  // values without surrounding blanks
};

struct HeadResult {
  HeadStatus status = HeadStatus::Incomplete;
  size_t consumed = 0;  // bytes of the head (with any blank lines before it) when Complete
  std::string reason;   // why, when TooLarge or Malformed
};

// Parses one request head from the start of `buffer`. Lines end in CRLF or a bare LF; blank lines
// before the request line are skipped (RFC 9112 §2.2). Rejects what a request smuggler relies on:
// obsolete line folding, a blank before the colon, control characters in a value, a request line
// without exactly three parts.
HeadResult parseRequestHead(std::string_view buffer, const HeadLimits& limits, RequestHead& out);

// A response head, as the upstream client reads it from a provider.
struct ResponseHead {
  std::string_view version;
  int status = 0;
  std::string_view reason;
  std::vector<std::pair<std::string_view, std::string_view>> fields;
};

// Parses one response head ("HTTP/1.1 200 OK" and fields) from the start of `buffer`, with the
// same line rules and limits as a request head. The reason phrase may be empty or missing.
HeadResult parseResponseHead(std::string_view buffer, const HeadLimits& limits, ResponseHead& out);

// Decodes a chunked message body (RFC 9112 §7.1) incrementally, handing out the data in place.
//
//   ChunkedDecoder decoder;
//   std::string_view data;
//   size_t used = decoder.feed(bytes, data);   // data: body bytes inside `bytes`, maybe empty
//
// feed() stops after each run of data so the caller can take it; call it again with the bytes
// after `used`. Chunk extensions are skipped; trailer fields are read and dropped.
class ChunkedDecoder {
 public:
  size_t feed(std::string_view in, std::string_view& data);
  bool done() const { return state_ == State::Done; }
  bool failed() const { return state_ == State::Failed; }
  const std::string& error() const { return error_; }

 private:
  enum class State { Size, Extension, SizeLf, Data, DataCr, DataLf, Trailer, TrailerLf, Done, Failed };
  size_t fail(std::string why, size_t used);

  State state_ = State::Size;
  uint64_t remaining_ = 0;
  size_t digits_ = 0;
  size_t extension_bytes_ = 0;
  size_t trailer_bytes_ = 0;
  size_t trailer_line_ = 0;
  std::string error_;
};

}  // namespace sluice::net::h1
