// The waits of server/net/fiber.h: on a fiber they park it on its worker; elsewhere they block
// the thread (poll(2), sleeps).
#include <cerrno>
#include <thread>

#include <poll.h>

#include "server/net/fiber.h"
#include "server/net/fiber/deadline.h"
#include "server/net/fiber/worker.h"

namespace sluice::net::fiber {

bool active() { return current_worker != nullptr && current_worker->currentTask() != nullptr; }

int currentEpoll() { return active() ? current_worker->epollFd() : -1; }

Wait waitFd(int fd, Registration& registration, Want want, Clock::time_point deadline, bool interruptible) {
  if (!active()) {
    pollfd item{fd, static_cast<short>(want == Want::Read ? POLLIN : POLLOUT), 0};
    for (;;) {
      const int ready = ::poll(&item, 1, millisUntil(deadline));
      if (ready > 0) return Wait::Ready;
      if (ready == 0) return Wait::Timeout;
      if (errno != EINTR) return Wait::Ready;  // the caller's own call reports the error
    }
  }
  Worker& worker = *current_worker;
  if (interruptible && worker.interrupted()) return Wait::Interrupted;
  if (deadline != kNever && deadline <= Clock::now()) return Wait::Timeout;
  if (registration.edge) return worker.waitEdge(fd, registration, deadline, interruptible);
  if (!worker.arm(fd, registration, want)) return Wait::Ready;
  return worker.park(deadline, interruptible);
}

Wait park(Clock::time_point deadline) {
  if (!active()) {
    if (deadline != kNever) std::this_thread::sleep_until(deadline);
    return Wait::Timeout;
  }
  return current_worker->park(deadline, false);
}

void yieldTurn() {
  // A deadline already reached: the worker polls its epoll without waiting, runs what that made
  // ready (accepting new connections among it), and then wakes this fiber as a timer.
  if (active()) current_worker->park(Clock::now(), false);
}

void sleepUntil(Clock::time_point deadline) {
  if (!active()) {
    std::this_thread::sleep_until(deadline);
    return;
  }
  while (Clock::now() < deadline) current_worker->park(deadline, false);
}

}  // namespace sluice::net::fiber
