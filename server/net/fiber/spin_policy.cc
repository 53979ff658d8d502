#include "server/net/fiber/spin_policy.h"

#include <algorithm>

#include <sched.h>

#include "server/net/fiber/deadline.h"

namespace sluice::net::fiber {

namespace {

constexpr size_t kSpinMaxFibers = 2;  // wait() polls only with this many or fewer

}  // namespace

// epoll_wait, polled first for up to spin_ while waits keep ending within it: a score goes up for
// each wait that did (capped) and down faster for each that did not, and polling starts once two
// in a row did. Only a worker with one or two fibers polls: with more, events rarely leave it
// idle, and the gaps polling would fill are the ones other processes (on the same cores) need;
// polling there cost a tenth of the throughput at 16 connections.
int SpinPolicy::wait(int epoll_fd, epoll_event* events, int max_events, Clock::time_point next, size_t fibers) {
  if (spin_.count() <= 0 || millisUntil(next) == 0 || fibers == 0 || fibers > kSpinMaxFibers) {
    return ::epoll_wait(epoll_fd, events, max_events, millisUntil(next));
  }
  const auto idle_since = Clock::now();
  if (quick_waits_ >= 2) {
    const auto until = idle_since + spin_;
    do {
      if (const int count = ::epoll_wait(epoll_fd, events, max_events, 0); count != 0) {
        quick_waits_ = std::min(quick_waits_ + 1, 8);
        return count;
      }
      ::sched_yield();
    } while (Clock::now() < until);
  }
  const int count = ::epoll_wait(epoll_fd, events, max_events, millisUntil(next));
  if (count > 0 && Clock::now() - idle_since < spin_) {
    quick_waits_ = std::min(quick_waits_ + 1, 8);
  } else {
    quick_waits_ = std::max(quick_waits_ - 2, 0);
  }
  return count;
}

}  // namespace sluice::net::fiber
