#pragma once
// HTTP/1.1 framing (RFC 9112), without sockets: the head parsers, the body-framing rules and the
// chunked body decoder work on bytes handed to them, so they are tested with strings. The front
// end (server/http/server_request.cc) and the upstream client (server/upstream/) feed them from
// their connections, so both ends frame bodies by the same rules.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
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

// Parses one request head from the start of `buffer`. Lines end in CRLF: a bare LF is Malformed
// (RFC 9112 §2.2 allows tolerating it, but a front proxy that does not splits the head elsewhere:
// request smuggling). Blank lines before the request line are skipped (§2.2). Rejects what a request smuggler relies on:
// obsolete line folding, a blank before the colon, control characters in a value, a request line
// without exactly three parts, more than one Host field (RFC 9112 §3.2).
HeadResult parseRequestHead(std::string_view buffer, const HeadLimits& limits, RequestHead& out);

// A response head, as the upstream client reads it from a provider.
struct ResponseHead {
  std::string_view version;
  int status = 0;
  std::string_view reason;
  std::vector<std::pair<std::string_view, std::string_view>> fields;
};

// Parses one response head ("HTTP/1.1 200 OK" and fields) from the start of `buffer`, with the
// same limits as a request head; a line may end in a bare LF (§2.2: tolerated from providers).
// The reason phrase may be empty or missing.
HeadResult parseResponseHead(std::string_view buffer, const HeadLimits& limits, ResponseHead& out);

// ASCII case-insensitive equality, as field names, schemes and transfer codings compare (no locale).
bool equalsNoCase(std::string_view a, std::string_view b);

// Which side sent a message: their bodies are framed by different rules (RFC 9112 §6.3).
enum class Message { Request, Response };

// How a message body is delimited.
struct BodyFraming {
  enum class Kind {
    None,     // no body: a request with neither field, or Content-Length: 0
    Length,   // exactly `length` bytes
    Chunked,  // the chunked coding (ChunkedDecoder) ends it
    Close,    // a response read until the provider closes the connection
  };
  Kind kind = Kind::None;
  uint64_t length = 0;  // Kind::Length only; never 0
  // Transfer-Encoding names a coding besides chunked (gzip, ...): the body bytes are still coded.
  bool coded = false;
  // The connection cannot carry another message after this one (Kind::Close, or a response whose
  // Transfer-Encoding overrode a Content-Length).
  bool close = false;
};

// Decides how the body of a message with these header `fields` is framed, from its
// Transfer-Encoding and Content-Length fields (every other field is ignored), after RFC 9112
// §6.1 and §6.3. Repeated fields count as one comma-separated list; empty list elements are
// skipped; names and codings compare without case.
//  - Transfer-Encoding whose final coding is chunked: Kind::Chunked.
//  - more than one Transfer-Encoding field line in a request: an error (a proxy reading only one
//    of them would frame the body differently); a response's lines are one list.
//  - Transfer-Encoding whose final coding is not chunked: an error for a request (answer 400);
//    a response is read until close.
//  - Transfer-Encoding beside Content-Length: an error for a request; for a response the
//    Transfer-Encoding wins and `close` is set.
//  - chunked applied twice, an empty Transfer-Encoding or a malformed coding: an error.
//  - Content-Length alone: digits only; repeated identical values ("5, 5") are one value,
//    differing ones are an error.
//  - Neither: a request has no body; a response is read until close.
// The error is a reason for the log or the 400's message. A response that has no body whatever
// its fields (to HEAD, 1xx, 204, 304: §6.3 rules 1-2) is the caller's to recognise first.
// Pure; never throws on bad input.
std::expected<BodyFraming, std::string> bodyFraming(
    Message message, std::span<const std::pair<std::string_view, std::string_view>> fields);

// Decodes a chunked message body (RFC 9112 §7.1) incrementally, handing out the data in place.
//
//   ChunkedDecoder decoder;
//   std::string_view data;
//   size_t used = decoder.feed(bytes, data);   // data: body bytes inside `bytes`, maybe empty
//
// feed() stops after each run of data so the caller can take it; call it again with the bytes
// after `used`. Chunk extensions are skipped; trailer fields are read and dropped. A request's
// body (the default) must end every line in CRLF, a bare LF fails it; a response's body
// (Message::Response) may end lines in a bare LF (RFC 9112 §2.2, §7.1).
class ChunkedDecoder {
 public:
  explicit ChunkedDecoder(Message message = Message::Request) : bare_lf_(message == Message::Response) {}
  size_t feed(std::string_view in, std::string_view& data);
  bool done() const { return state_ == State::Done; }
  bool failed() const { return state_ == State::Failed; }
  const std::string& error() const { return error_; }

 private:
  enum class State { Size, Extension, SizeLf, Data, DataCr, DataLf, Trailer, TrailerLf, Done, Failed };
  size_t fail(std::string why, size_t used);

  bool bare_lf_;
  State state_ = State::Size;
  uint64_t remaining_ = 0;
  size_t digits_ = 0;
  size_t extension_bytes_ = 0;
  size_t trailer_bytes_ = 0;
  size_t trailer_line_ = 0;
  std::string error_;
};

}  // namespace sluice::net::h1
