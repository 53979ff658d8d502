#pragma once
// The room rule of a buffer read into at its end and consumed from its front, shared by the
// client's socket (http/client_socket.cc) and a provider's connection (upstream/link.cc).

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

namespace sluice::net {

// The unread bytes are buffer[begin, end). Makes at least `min_free` bytes of room after `end`:
// an emptied buffer starts over at 0, unread bytes move to the front, and only then does the
// buffer grow (to `first_size`, else twice its size).
inline void makeReadRoom(std::string& buffer, size_t& begin, size_t& end, size_t min_free, size_t first_size) {
  if (begin == end) begin = end = 0;
  if (buffer.size() - end >= min_free) return;
  if (begin > 0) {
    std::memmove(buffer.data(), buffer.data() + begin, end - begin);
    end -= begin;
    begin = 0;
  }
  if (buffer.size() - end < min_free) buffer.resize(std::max(first_size, buffer.size() * 2));
}

}  // namespace sluice::net
