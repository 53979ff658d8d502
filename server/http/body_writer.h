#pragma once
// A response body as an ostream: the head goes out with the first bytes, each flush is one write
// (a chunk when chunked), and finish() ends the body. Not thread-safe: belongs to the
// connection's thread.

#include <cstdint>
#include <ios>
#include <memory>
#include <streambuf>
#include <string>
#include <string_view>

#include "server/util/body_tap.h"
#include "server/http/client_socket.h"

namespace sluice::http {

class BodyWriter : public std::streambuf {
 public:
  enum class Framing { Length, Chunked, Close };
  // `head`: the rendered response head, sent with the first body bytes. `length`: the announced
  // Content-Length when Framing::Length. `head_only`: an answer to HEAD, whose body is dropped.
  // `socket` must outlive this.
  BodyWriter(ClientSocket& socket, std::string head, Framing framing, uint64_t length, bool head_only);
  ~BodyWriter() override;  // finishes the body when finish() was not called

  // Sends what is pending and the end of a chunked body. False when the client is gone or the
  // body did not match its Content-Length (the connection must then close).
  bool finish();
  // Shown every run of body bytes written from now on; may be null. Must outlive this.
  void setTap(util::BodyTap* tap) { tap_ = tap; }

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* data, std::streamsize n) override;
  int sync() override;

 private:
  // Sends `first` then `second` as one run of body bytes (one chunk), after the head if unsent.
  bool emit(std::string_view first, std::string_view second, bool last);

  ClientSocket& socket_;
  std::string head_;  // not yet sent when non-empty
  Framing framing_;
  uint64_t length_;
  uint64_t written_ = 0;
  bool head_only_;
  bool finished_ = false;
  bool ok_ = true;
  std::unique_ptr<char[]> buffer_;
  util::BodyTap* tap_ = nullptr;
};

}  // namespace sluice::http
