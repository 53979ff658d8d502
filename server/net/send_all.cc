#include "server/net/send_all.h"

#include <cerrno>

#include <sys/socket.h>
#include <sys/uio.h>

namespace sluice::net {

int sendAll(int fd, std::initializer_list<std::string_view> list, const SendWait* wait) {
  constexpr int kMaxPieces = 8;
  iovec pieces[kMaxPieces];
  int count = 0;
  for (const std::string_view piece : list) {
    if (piece.empty() || count == kMaxPieces) continue;
    pieces[count].iov_base = const_cast<char*>(piece.data());
    pieces[count].iov_len = piece.size();
    ++count;
  }
  iovec* next = pieces;
  while (count > 0) {
    msghdr message{};
    message.msg_iov = next;
    message.msg_iovlen = static_cast<size_t>(count);
    const ssize_t n = ::sendmsg(fd, &message, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait != nullptr && fiber::active()) {
        const auto deadline = fiber::Clock::now() + wait->patience;
        if (fiber::waitFd(fd, wait->registration, fiber::Want::Write, deadline) != fiber::Wait::Timeout) continue;
        return EAGAIN;
      }
      return errno;
    }
    auto sent = static_cast<size_t>(n);
    while (count > 0 && sent >= next->iov_len) {
      sent -= next->iov_len;
      ++next;
      --count;
    }
    if (count > 0) {
      next->iov_base = static_cast<char*>(next->iov_base) + sent;
      next->iov_len -= sent;
    }
  }
  return 0;
}

}  // namespace sluice::net
