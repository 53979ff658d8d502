#include "server/http/client_socket.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <sys/socket.h>

#include "server/net/read_buffer.h"
#include "server/net/send_all.h"

namespace sluice::http {

namespace {

constexpr size_t kReadChunk = 4096;
constexpr size_t kKeepBuffer = 64u << 10;  // a larger read buffer is given back between requests

}  // namespace

size_t ClientSocket::receive(char* out, size_t n) {
  if (broken_ || eof_) return 0;
  const auto started = std::chrono::steady_clock::now();
  if (drained_ && net::fiber::active()) {
    // The socket was empty after the last read: wait for more before asking for it (on a fiber
    // the socket is edge-triggered, so the wait needs no system call of its own).
    drained_ = false;
    const auto waited = net::fiber::waitFd(fd_, registration_, net::fiber::Want::Read, started + limits_.silence,
                                           limits_.interruptible);
    if (waited == net::fiber::Wait::Interrupted) return 0;
    if (waited == net::fiber::Wait::Timeout) {
      broken_ = true;
      return 0;
    }
  }
  for (;;) {
    const ssize_t got = ::recv(fd_, out, n, 0);
    if (got > 0) {
      drained_ = static_cast<size_t>(got) < n;
      return static_cast<size_t>(got);
    }
    if (got == 0) {
      eof_ = true;
      return 0;
    }
    if (errno == EINTR) continue;
    if ((errno == EAGAIN || errno == EWOULDBLOCK) && net::fiber::active()) {
      // A non-blocking socket on a fiber: park until it is readable.
      const auto waited = net::fiber::waitFd(fd_, registration_, net::fiber::Want::Read, started + limits_.silence,
                                             limits_.interruptible);
      if (waited == net::fiber::Wait::Ready) continue;
      if (waited == net::fiber::Wait::Interrupted) return 0;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      // A tick of the socket's receive timeout.
      if (limits_.interruptible && limits_.stop != nullptr && limits_.stop->load()) return 0;
      if (std::chrono::steady_clock::now() - started < limits_.silence) continue;
    }
    broken_ = true;  // reset, or silent for too long
    return 0;
  }
}

size_t ClientSocket::fill() {
  if (broken_ || eof_) return 0;
  net::makeReadRoom(buffer_, begin_, end_, kReadChunk / 2, kReadChunk);
  const size_t got = receive(buffer_.data() + end_, buffer_.size() - end_);
  end_ += got;
  return got;
}

size_t ClientSocket::readInto(char* out, size_t n) { return receive(out, n); }

bool ClientSocket::write(std::initializer_list<std::string_view> pieces) {
  if (broken_) return false;
  const net::SendWait wait{registration_, send_patience_};
  if (net::sendAll(fd_, pieces, &wait) != 0) broken_ = true;
  return !broken_;
}

void ClientSocket::trim() {
  if (begin_ == end_) {
    begin_ = end_ = 0;
    if (buffer_.capacity() > kKeepBuffer) std::string().swap(buffer_);
  }
}

}  // namespace sluice::http
