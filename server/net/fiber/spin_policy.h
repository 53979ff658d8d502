#pragma once
// The --spin-us decision (Loop::Options::spin): whether a worker about to wait for events polls
// epoll for a while first, and for how long. Not thread-safe: one per worker, used on its thread.

#include <chrono>
#include <cstddef>

#include <sys/epoll.h>

#include "server/net/fiber.h"

namespace sluice::net::fiber {

class SpinPolicy {
 public:
  // `spin`: the longest poll; 0 or less never polls.
  explicit SpinPolicy(std::chrono::microseconds spin) : spin_(spin) {}

  // epoll_wait(epoll_fd, events, max_events) until `next` (kNever: no timeout), polled first when
  // the worker's recent waits ended within the spin and it runs `fibers` (1 or 2) fibers. Returns
  // what epoll_wait returns.
  int wait(int epoll_fd, epoll_event* events, int max_events, Clock::time_point next, size_t fibers);

 private:
  std::chrono::microseconds spin_;
  int quick_waits_ = 0;  // how many recent waits ended within spin_ (a score, capped)
};

}  // namespace sluice::net::fiber
