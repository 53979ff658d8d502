#pragma once
// The server side of one client connection, in place of Poco's HTTPServerSession: a read buffer
// the connection keeps from request to request, the request and response objects the handlers
// see (Poco's HTTPServerRequest and HTTPServerResponse interfaces), and their body streams.
//
// Per request it makes the system calls HTTP needs and no others: one read for a request that
// arrives whole, one write for a whole answer (head and body together), one write per streamed
// event. The peer's and our own address are only looked up when asked for.
//
// Not thread-safe: a connection belongs to one thread. (The client watch only polls the fd.)

#include <atomic>
#include <chrono>
#include <initializer_list>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/Net/SocketAddress.h>

#include "server/net/fiber.h"
#include "server/net/http1.h"

namespace sluice::http {
namespace h1 = net::h1;

// How long a read waits. The connection gives the socket a short receive timeout (a tick); a read
// that sees a tick pass keeps waiting until `silence` has passed without a byte or, when
// `interruptible` (between requests), until `*stop` is set: the gateway draining. So waiting for
// the next request is one blocking recv(2), not a poll(2) and then a recv(2).
// On a fiber (a non-blocking socket, net/fiber.h) a read that finds nothing parks the fiber until
// the socket is readable or `silence` has passed; an interruptible wait also ends when the loop
// is interrupted (draining).
struct ReadLimits {
  std::chrono::milliseconds silence{120000};
  bool interruptible = false;
  const std::atomic<bool>* stop = nullptr;
};

// The socket and the bytes read from it but not yet used.
class ClientSocket {
 public:
  explicit ClientSocket(int fd) : fd_(fd) { registration_.edge = true; }
  int fd() const { return fd_; }
  void setReadLimits(ReadLimits limits) { limits_ = limits; }
  net::fiber::Registration& registration() { return registration_; }
  // On a fiber: how long a write waits for the client to make room before the client counts as gone.
  void setSendPatience(std::chrono::milliseconds patience) { send_patience_ = patience; }

  std::string_view buffered() const { return {buffer_.data() + begin_, end_ - begin_}; }
  void consume(size_t n) { begin_ += n; }
  // Reads what arrived after the buffered bytes, waiting as the read limits say. Returns the bytes
  // read; 0 at end of stream, when interrupted, or on an error or timeout (then broken()).
  size_t fill();
  // Reads up to `n` bytes straight into `out`, bypassing the buffer (which must be empty).
  size_t readInto(char* out, size_t n);

  // Writes every byte of the pieces, in order, with as few system calls as the kernel allows.
  // False (and broken()) when the peer is gone.
  bool write(std::initializer_list<std::string_view> pieces);
  bool write(std::string_view bytes) { return write({bytes}); }

  bool broken() const { return broken_; }
  bool eof() const { return eof_; }
  // Between requests: gives back a buffer a large request grew.
  void trim();

 private:
  size_t receive(char* out, size_t n);

  int fd_;
  ReadLimits limits_;
  std::chrono::milliseconds send_patience_{120000};
  net::fiber::Registration registration_;
  std::string buffer_;
  size_t begin_ = 0;
  size_t end_ = 0;
  bool broken_ = false;
  bool eof_ = false;
  bool drained_ = false;  // the last read came back short: nothing more was there
};

// The request body as an istream: Content-Length, chunked, or none. Reads straight from the
// connection's buffer and then from the socket.
class BodyReader : public std::streambuf {
 public:
  enum class Framing { None, Length, Chunked };
  BodyReader(ClientSocket& socket, Framing framing, uint64_t length);

  bool complete() const;  // every byte of the body has been read
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
  h1::ChunkedDecoder chunked_;
  bool failed_ = false;
};

// The response body as an ostream: the head goes out with the first bytes, each flush is one
// write (a chunk when chunked), and finish() ends the body.
class BodyWriter : public std::streambuf {
 public:
  enum class Framing { Length, Chunked, Close };
  BodyWriter(ClientSocket& socket, std::string head, Framing framing, uint64_t length, bool head_only);
  ~BodyWriter() override;

  // Sends what is pending and the end of a chunked body. False when the client is gone or the
  // body did not match its Content-Length (the connection must then close).
  bool finish();

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
};

class ServerResponse;

class ServerRequest : public Poco::Net::HTTPServerRequest {
 public:
  // Takes the method, target, version and fields of `head` (copied; the views may go after).
  ServerRequest(ClientSocket& socket, ServerResponse& response, const Poco::Net::HTTPServerParams& params,
                const h1::RequestHead& head);
  ~ServerRequest() override;

  std::istream& stream() override;
  const Poco::Net::SocketAddress& clientAddress() const override;
  const Poco::Net::SocketAddress& serverAddress() const override;
  const Poco::Net::HTTPServerParams& serverParams() const override { return params_; }
  Poco::Net::HTTPServerResponse& response() const override;
  bool secure() const override { return false; }

  int fd() const { return socket_.fd(); }
  net::fiber::Registration& registration() { return socket_.registration(); }
  // Malformed framing (both Content-Length and chunked, a bad length): answer 400 and close.
  const std::string& framingError() const { return framing_error_; }
  BodyReader& body() { return *reader_; }

 private:
  ClientSocket& socket_;
  ServerResponse& response_;
  const Poco::Net::HTTPServerParams& params_;
  std::string framing_error_;
  std::unique_ptr<BodyReader> reader_;
  std::unique_ptr<std::istream> stream_;
  mutable std::optional<Poco::Net::SocketAddress> client_address_;
  mutable std::optional<Poco::Net::SocketAddress> server_address_;
};

class ServerResponse : public Poco::Net::HTTPServerResponse {
 public:
  explicit ServerResponse(ClientSocket& socket) : socket_(socket) {}
  ~ServerResponse() override;

  void sendContinue() override;
  std::ostream& send() override;
  void sendFile(const std::string& path, const std::string& media_type) override;
  void sendBuffer(const void* buffer, std::size_t length) override;
  void redirect(const std::string& uri, HTTPStatus status = HTTP_FOUND) override;
  void requireAuthentication(const std::string& realm) override;
  bool sent() const override { return sent_; }

  void setHeadOnly(bool head_only) { head_only_ = head_only; }
  // Ends the body. False when the connection cannot carry another request.
  bool finish();

 private:
  std::string renderHead() const;

  ClientSocket& socket_;
  bool sent_ = false;
  bool head_only_ = false;
  bool ok_ = true;
  std::unique_ptr<BodyWriter> writer_;
  std::unique_ptr<std::ostream> stream_;
};

}  // namespace sluice::http
