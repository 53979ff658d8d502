// Cancel (declared in transport.h): a flag, the socket to shut down, and whoever waits.
#include "server/upstream/transport.h"

#include <sys/socket.h>

namespace sluice::upstream {

void Cancel::cancel() {
  std::lock_guard lock(mutex_);
  cancelled_.store(true, std::memory_order_release);
  // Shutting the socket down (not closing it: the exchange owns the fd) ends a blocked read at once.
  if (fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
  woken_.notify_all();
  if (waker_) waker_.wake();
}

bool Cancel::waitFor(std::chrono::milliseconds duration) {
  if (net::fiber::active()) {
    const auto deadline = net::fiber::Clock::now() + duration;
    {
      std::lock_guard lock(mutex_);
      if (cancelled_.load(std::memory_order_acquire)) return false;
      waker_ = net::fiber::currentWaker();
    }
    net::fiber::park(deadline);
    std::lock_guard lock(mutex_);
    waker_ = {};
    return !cancelled_.load(std::memory_order_acquire);
  }
  std::unique_lock lock(mutex_);
  return !woken_.wait_for(lock, duration, [this] { return cancelled_.load(std::memory_order_acquire); });
}

void Cancel::attach(int fd) {
  std::lock_guard lock(mutex_);
  fd_ = fd;
  if (cancelled_.load(std::memory_order_acquire) && fd_ >= 0) ::shutdown(fd_, SHUT_RDWR);
}

void Cancel::detach() {
  std::lock_guard lock(mutex_);
  fd_ = -1;
}

}  // namespace sluice::upstream
