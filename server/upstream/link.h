#pragma once
// One connection to a provider: the socket, its TLS session when https, the bytes read and not
// yet used, and the socket timeouts it was last given (set again only when they change: each is a
// system call, and a kept-alive connection carries them from request to request). Internal to the
// upstream client; a Link belongs to one exchange at a time (or to the pool).
//
// On a fiber (net/fiber.h) the socket is non-blocking and every wait parks the fiber; elsewhere it
// blocks with SO_SNDTIMEO / SO_RCVTIMEO.

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include <openssl/types.h>

#include "server/net/fiber.h"
#include "server/upstream/transport.h"

namespace sluice::upstream {

// What an I/O call ended with, when it moved no bytes.
enum IoError : int { kClosed = 1, kTimedOut, kReset, kTlsError };

// The TransportError for an IoError; `answering`: the body had begun (a close is then mid-answer).
TransportError transportError(int error, bool answering);

struct Link {
  int fd = -1;
  SSL* ssl = nullptr;
  int send_ms = -1;  // the socket's own timeouts, as last set (blocking mode)
  int receive_ms = -1;
  int send_wait_ms = 0;  // the timeouts this exchange wants (a wait's patience on a fiber)
  int receive_wait_ms = 0;
  bool nonblocking = false;  // on a fiber the socket is non-blocking and waits park the fiber
  bool sent = false;         // a request just went out: its answer cannot be there yet
  net::fiber::Registration registration;
  std::string buffer;
  size_t begin = 0;
  size_t end = 0;
  std::chrono::steady_clock::time_point idle_since{};

  Link() = default;
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  ~Link();  // frees the TLS session and closes the socket

  // Non-blocking with fiber waits on a fiber, blocking with socket timeouts elsewhere.
  void useFibers(bool on);
  // The patience of later writes and reads; 0 waits without end.
  void sendTimeout(int ms);
  void receiveTimeout(int ms);

  // On a fiber: waits for the socket; false when `ms` passed first (0 waits without end).
  bool await(net::fiber::Want want, int ms);

  std::string_view buffered() const { return {buffer.data() + begin, end - begin}; }
  void consume(size_t n) { begin += n; }

  // Reads what arrives into `out` (at most `n` bytes): the byte count, or 0 with `error` set.
  size_t read(char* out, size_t n, int& error);
  // Reads more into the buffer, growing it when little room is left: as read().
  size_t fill(int& error);
  // Writes the head and the body, in order; false with `error` set when the connection failed.
  bool write(std::string_view head, std::string_view body, int& error);
};

}  // namespace sluice::upstream
