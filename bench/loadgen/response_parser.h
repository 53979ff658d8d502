#pragma once
// Incremental parser of HTTP/1.1 responses on a kept-alive connection: status line, headers,
// then a body framed by Content-Length, by chunked encoding, or by the connection closing.
// Bytes are fed as they arrive; decoded body bytes are handed to a callback at once, so a
// streaming client can time every event. Not thread-safe; one per connection.

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace sluice::bench {

class ResponseParser {
 public:
  enum class Result { NeedMore, Complete, Malformed };
  using OnBody = std::function<void(std::string_view decoded)>;

  explicit ResponseParser(OnBody on_body) : on_body_(std::move(on_body)) {}

  // Starts a new response (call before each request's bytes arrive).
  void reset();
  // Consumes bytes. `used` is set to how many were consumed: on Complete the rest belongs to
  // the next response (pipelining is not used, so normally none).
  Result feed(std::string_view bytes, size_t& used);
  // The peer closed the connection: completes a body framed by the close, else Malformed.
  Result finishOnClose();

  int status() const { return status_; }
  bool keepAlive() const { return keep_alive_; }
  bool headersDone() const { return state_ != State::Head; }
  size_t bodyBytes() const { return body_bytes_; }

 private:
  enum class State { Head, Body, UntilClose, ChunkSize, ChunkData, ChunkDataEnd, Trailers, Done };
  bool parseHead();

  OnBody on_body_;
  State state_ = State::Head;
  std::string head_;
  std::string line_;
  int status_ = 0;
  bool keep_alive_ = true;
  size_t remaining_ = 0;
  size_t body_bytes_ = 0;
};

}  // namespace sluice::bench
