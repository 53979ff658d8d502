#pragma once
// Writes pieces of bytes to a blocking socket in order, with one sendmsg(2) when the kernel takes
// them all at once (head and body of an HTTP message, a chunk and its framing). Used by the front
// end and the upstream client alike.

#include <initializer_list>
#include <string_view>

namespace sluice::net {

// 0 when every byte was written; otherwise the errno of the failed call (EAGAIN when the socket's
// send timeout passed, EPIPE or ECONNRESET when the peer is gone). Never raises SIGPIPE. Empty
// pieces are skipped; at most 8 pieces are written.
int sendAll(int fd, std::initializer_list<std::string_view> pieces);

}  // namespace sluice::net
