#pragma once
// One client connection's socket and the bytes read from it but not yet used: the read buffer the
// connection keeps from request to request. Per request it makes the system calls HTTP needs and
// no others: one read for a request that arrives whole, one write per answer or streamed event.
//
// Not thread-safe: a connection belongs to one thread. (The client watch only polls the fd.)

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <Poco/Net/SocketAddress.h>

#include "server/http/client_tls.h"
#include "server/net/fiber.h"

namespace sluice::http {

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

// Deadlines, not idle timers: a head must arrive whole by a deadline however its bytes trickle,
// and a body must keep up a minimum rate. A read that reaches either stops and says so
// (overdue()); the socket is not broken, so the connection can still answer 408.
enum class Overdue {
  None,
  Head,  // the deadline set by setDeadline() passed
  Body,  // the body fell below the minimum rate (startBody())
};

// A body's minimum rate: after `grace`, every `bytes_per_second` bytes read buy one more second.
// 0 bytes per second: no minimum.
struct BodyRate {
  uint64_t bytes_per_second = 0;
  std::chrono::milliseconds grace{10000};
};

// The socket and the bytes read from it but not yet used.
class ClientSocket {
 public:
  explicit ClientSocket(int fd) : fd_(fd) { registration_.edge = true; }
  ~ClientSocket();
  int fd() const { return fd_; }
  // The peer's and the local address (getpeername/getsockname), asked once per connection: every
  // request on it reads them (admission, the audit row's client address).
  const Poco::Net::SocketAddress& peerAddress() const;
  const Poco::Net::SocketAddress& localAddress() const;

  // Serves TLS on the socket (client_tls.h): the handshake must complete by `deadline`; from then
  // on every read and write goes through the session. Call once, before any read or write.
  std::expected<void, HandshakeFailure> startTls(const ServerTls& server, bool require_certificate,
                                                 std::chrono::steady_clock::time_point deadline);
  bool tls() const { return tls_ != nullptr; }
  // The verified client certificate's names; nullopt without TLS or when the client sent none.
  const std::optional<identity::CertificateNames>& certificate() const;
  // No more writes: over TLS, close_notify first; then the socket's write side is shut down.
  void shutdownWrite();
  void setReadLimits(ReadLimits limits) { limits_ = limits; }
  net::fiber::Registration& registration() { return registration_; }
  // On a fiber: how long a write waits for the client to make room before the client counts as gone.
  void setSendPatience(std::chrono::milliseconds patience) { send_patience_ = patience; }

  // Reads stop at `deadline` (time_point::max(): none) with overdue() == Head.
  void setDeadline(std::chrono::steady_clock::time_point deadline) { deadline_ = deadline; }
  // From now until endBody(), reads stop with overdue() == Body once the bytes read since fall
  // behind `rate` (grace + bytes / rate after now). Bytes already buffered are not counted.
  void startBody(BodyRate rate);
  void endBody() { body_rate_ = 0; }
  // Why the last read stopped at a deadline; None otherwise. While not None, reads return 0 and
  // writes fail (a handler's answer to a truncated body is not sent); clearOverdue() lets the
  // connection write its own answer.
  Overdue overdue() const { return overdue_; }
  void clearOverdue();

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
  size_t receiveTls(char* out, size_t n, std::chrono::steady_clock::time_point until, Overdue reason);
  size_t lastRead(char* out, size_t n);
  bool writeTls(std::initializer_list<std::string_view> pieces);

  int fd_;
  ReadLimits limits_;
  std::chrono::milliseconds send_patience_{120000};
  std::chrono::steady_clock::time_point deadline_ = std::chrono::steady_clock::time_point::max();
  uint64_t body_rate_ = 0;  // bytes per second; 0 when no body is being timed
  uint64_t body_bytes_ = 0;
  std::chrono::steady_clock::time_point body_start_{};
  Overdue overdue_ = Overdue::None;
  net::fiber::Registration registration_;
  std::string buffer_;
  size_t begin_ = 0;
  size_t end_ = 0;
  bool broken_ = false;
  bool eof_ = false;
  bool drained_ = false;  // the last read came back short: nothing more was there
  size_t read_this_turn_ = 0;  // bytes read on a fiber since it last waited or yielded
  mutable std::optional<Poco::Net::SocketAddress> peer_address_;
  mutable std::optional<Poco::Net::SocketAddress> local_address_;
  std::unique_ptr<ClientTls> tls_;
};

}  // namespace sluice::http
