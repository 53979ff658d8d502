#pragma once
// A request body as an istream: Content-Length, chunked, or none (the framing decided by
// net::h1::bodyFraming when the request head arrived). Reads straight from the connection's
// buffer and then from the socket. Not thread-safe: belongs to the connection's thread.

#include <cstdint>
#include <ios>
#include <streambuf>

#include "server/http/client_socket.h"
#include "server/net/http1.h"

namespace sluice::http {

class BodyReader : public std::streambuf {
 public:
  enum class Framing { None, Length, Chunked };
  // `length`: the body's size when Framing::Length, ignored otherwise. `socket` must outlive this.
  BodyReader(ClientSocket& socket, Framing framing, uint64_t length);

  bool complete() const;  // every byte of the body has been read
  // The client went away mid-body, went silent, or sent malformed chunked framing.
  bool failed() const { return failed_; }
  // Reads and drops the rest of the body, up to `limit` bytes; true when the body then ended.
  bool skipRest(size_t limit);

 protected:
  int_type underflow() override;
  std::streamsize xsgetn(char* out, std::streamsize n) override;
  std::streamsize showmanyc() override;

 private:
  bool next();  // makes the next run of body bytes the get area; false at the end

  ClientSocket& socket_;
  Framing framing_;
  uint64_t remaining_;
  net::h1::ChunkedDecoder chunked_;
  bool failed_ = false;
};

}  // namespace sluice::http
