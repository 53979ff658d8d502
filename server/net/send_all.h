#pragma once
// Writes pieces of bytes to a blocking socket in order, with one sendmsg(2) when the kernel takes
// them all at once (head and body of an HTTP message, a chunk and its framing). Used by the front
// end and the upstream client alike.

#include <chrono>
#include <initializer_list>
#include <string_view>

#include "server/net/fiber.h"

namespace sluice::net {

// For a non-blocking socket on a fiber: where it is registered, and how long one wait for room may
// take before sendAll gives up with EAGAIN.
struct SendWait {
  fiber::Registration& registration;
  std::chrono::milliseconds patience;
};

// 0 when every byte was written; otherwise the errno of the failed call (EAGAIN when the socket's
// send timeout passed, EPIPE or ECONNRESET when the peer is gone). Never raises SIGPIPE. Empty
// pieces are skipped; at most 8 pieces are written. With `wait`, a full non-blocking socket parks
// the fiber (fiber.h) until there is room.
int sendAll(int fd, std::initializer_list<std::string_view> pieces, const SendWait* wait = nullptr);

}  // namespace sluice::net
