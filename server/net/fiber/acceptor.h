#pragma once
// One worker's share of the listening socket (Loop::serve): registered with the worker's epoll
// (EPOLLEXCLUSIVE, so one worker wakes per connection), accepting a batch per readiness, and
// backing off for a moment when the process runs out of descriptors.
// Not thread-safe: used on its worker's thread, except setListen() (see there).

#include <cerrno>
#include <cstdint>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "server/net/fiber.h"

namespace sluice::net::fiber {

class Acceptor {
 public:
  // The epoll data of the listening socket's events.
  static constexpr uint64_t kToken = ~uint64_t{0} - 2;

  // Remembers `listen_fd`. Called off the worker's thread before the message that makes the
  // worker call start(); the worker's inbox lock orders the two.
  void setListen(int listen_fd);
  // Registers the listening socket with `epoll_fd`, unless it is already or there is none.
  void start(int epoll_fd);
  // Unregisters it and forgets it: no more connections, no pending back-off.
  void stop(int epoll_fd);

  bool accepting() const { return accepting_; }
  // When a back-off ends (kNever: none pending); the worker wakes by then and calls resumeIfDue().
  Clock::time_point resumeAt() const { return resume_at_; }
  // Registers the listening socket again once a back-off has ended at `now`.
  void resumeIfDue(int epoll_fd, Clock::time_point now);

  // On the listening socket's readiness: accepts up to kBatch connections (non-blocking,
  // TCP_NODELAY) and calls on_connection(fd) for each, which takes ownership of the fd.
  template <class OnConnection>
  void acceptBatch(int epoll_fd, OnConnection&& on_connection) {
    for (int i = 0; i < kBatch; ++i) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) backOff(epoll_fd);
        return;
      }
      const int on = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
      on_connection(fd);
    }
  }

 private:
  static constexpr int kBatch = 32;  // connections accepted per readiness

  // Out of descriptors: stops listening for a moment instead of spinning on the ready socket.
  void backOff(int epoll_fd);

  int listen_fd_ = -1;
  epoll_event listen_event_{};
  bool accepting_ = false;
  Clock::time_point resume_at_ = kNever;
};

}  // namespace sluice::net::fiber
