#pragma once
// Fibers on event loops. The gateway's client connections run as fibers (stackful coroutines,
// Boost.Context) on a few worker threads, each with its own epoll(7). Code written in the blocking
// style (the handlers, the upstream client) stays as it is: where it would block on a socket it
// calls waitFd(), which parks the fiber and lets its worker run the others until the socket is
// ready. Off a fiber (unit tests, helper threads) the same calls block the thread with poll(2).
//
// Why: a thread per connection sleeps twice per request (for the client, then for the provider),
// and on a loaded machine those switches were a quarter of the gateway's CPU. A worker that finds
// many sockets ready in one epoll_wait serves them all without sleeping.
//
// Rules for code that runs on a fiber:
//  - never hold a mutex across a wait: another fiber of the same worker may want it;
//  - a call that blocks for long without a socket of its own (PostgreSQL through libpqxx) goes
//    through blocking(), which runs it on a helper thread while the fiber waits;
//  - sleeps use sleepFor() / park(), never std::this_thread.
//
// Waits take a deadline and may return early: callers retry their system call and wait again.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

namespace sluice::net::fiber {

using Clock = std::chrono::steady_clock;
constexpr Clock::time_point kNever = Clock::time_point::max();

// True on a fiber run by a Loop.
bool active();
// The epoll fd of the worker running the calling fiber; -1 off a fiber.
int currentEpoll();

enum class Wait { Ready, Timeout, Interrupted };
enum class Want { Read, Write };

// The epoll a socket was last registered with; kept by the socket's owner next to the fd, so a
// socket that moves between workers (a pooled provider connection) is registered where it waits.
//
// `edge`: the socket belongs to one fiber for its whole life (a client connection). It is then
// registered once, edge-triggered for both directions, and a wait costs no system call. The owner
// must only wait after a read or write came back short of what it asked for or with EAGAIN: an
// edge-triggered socket reports new bytes, not bytes already there.
struct Registration {
  int epoll_fd = -1;
  bool edge = false;
};

// Until `fd` is ready for `want`, has an error or hang-up, or `deadline` passes. `interruptible`
// waits also end with Interrupted when the loop is interrupted (the gateway draining). Off a fiber:
// poll(2), never Interrupted.
Wait waitFd(int fd, Registration& registration, Want want, Clock::time_point deadline, bool interruptible = false);

// While the calling fiber waits on anything else, every readiness of its own edge-triggered
// socket `fd` (Registration::edge) calls `hook(argument)` on the worker, without resuming the
// fiber: how a request waiting on its provider notices its client hanging up. The hook must not
// block. Ends when the returned guard goes. Off a fiber: an inactive guard (the caller watches
// some other way).
class EdgeWatch {
 public:
  EdgeWatch() = default;
  EdgeWatch(EdgeWatch&& other) noexcept : task_(other.task_) { other.task_ = nullptr; }
  EdgeWatch& operator=(EdgeWatch&& other) noexcept;
  EdgeWatch(const EdgeWatch&) = delete;
  EdgeWatch& operator=(const EdgeWatch&) = delete;
  ~EdgeWatch();
  bool active() const { return task_ != nullptr; }

 private:
  friend EdgeWatch watchEdge(int, Registration&, void (*)(void*), void*);
  void* task_ = nullptr;
};
EdgeWatch watchEdge(int fd, Registration& registration, void (*hook)(void*), void* argument);

// A handle that wakes one parked fiber from any thread. It refers to one park: once the fiber has
// resumed (for any reason), wake() does nothing.
class Waker {
 public:
  Waker() = default;
  void wake() const;
  explicit operator bool() const { return worker_ != nullptr; }

 private:
  friend Waker currentWaker();
  void* worker_ = nullptr;
  uint64_t token_ = 0;
};

// The waker of the calling fiber's next park(). Precondition: active().
Waker currentWaker();
// Parks the calling fiber until its waker is used (Ready), or `deadline` (Timeout). Off a fiber:
// sleeps until the deadline and returns Timeout.
Wait park(Clock::time_point deadline);

void sleepUntil(Clock::time_point deadline);
template <class Rep, class Period>
void sleepFor(std::chrono::duration<Rep, Period> duration) {
  sleepUntil(Clock::now() + std::chrono::duration_cast<Clock::duration>(duration));
}

// Lets the worker's other runnable fibers, its sockets' events and its new connections have one
// turn before the calling fiber goes on: a fiber that keeps finding bytes ready (a large body on
// a fast link) would otherwise keep its worker to itself. Off a fiber: returns at once.
void yieldTurn();

// Runs `job` on a helper thread while the calling fiber waits. Precondition: active().
void offload(const std::function<void()>& job);
// Runs `job` on a compute thread while the calling fiber waits. Precondition: active().
void offloadCompute(const std::function<void()>& job);

namespace detail {
// Runs `body` through `run` (offload or offloadCompute), returning what it returns or throwing
// what it throws.
template <class Body>
auto runWaiting(void (*run)(const std::function<void()>&), Body& body) -> decltype(body()) {
  using Result = decltype(body());
  std::exception_ptr error;
  if constexpr (std::is_void_v<Result>) {
    run([&] {
      try {
        body();
      } catch (...) {
        error = std::current_exception();
      }
    });
    if (error) std::rethrow_exception(error);
  } else {
    std::optional<Result> result;
    run([&] {
      try {
        result.emplace(body());
      } catch (...) {
        error = std::current_exception();
      }
    });
    if (error) std::rethrow_exception(error);
    return std::move(*result);
  }
}
}  // namespace detail

// Runs `body` and returns what it returns (or throws what it throws). On a fiber it runs on a
// helper thread while the fiber waits, so a long blocking call does not stop the worker's other
// fibers; elsewhere it runs right here.
template <class Body>
auto blocking(Body&& body) -> decltype(body()) {
  if (!active()) return body();
  return detail::runWaiting(offload, body);
}

// The same for work that keeps a CPU busy (masking a large request body): on a fiber it runs on a
// compute thread while the fiber waits, so the worker's other fibers (and /healthz) go on. The
// compute threads are a pool of their own, one per CPU at a lower scheduling priority than the
// workers, apart from blocking()'s helpers: queued CPU work never delays a PostgreSQL call, and
// never takes a core from an event loop that has something to do. Elsewhere it runs right here.
template <class Body>
auto compute(Body&& body) -> decltype(body()) {
  if (!active()) return body();
  return detail::runWaiting(offloadCompute, body);
}

// Runs `hook` on each worker thread whenever its fibers have all run and it is about to wait for
// events, and once more as it stops: where per-thread buffers (log lines) are written out, so a
// loaded worker writes many at once and an idle one has nothing left pending. Thread-safe; at most
// 8 hooks.
void addIdleHook(void (*hook)());

class Worker;

// A set of worker threads, each an epoll loop running fibers.
class Loop {
 public:
  struct Options {
    int workers = 2;
    size_t stack_bytes = 256u << 10;  // per fiber, with a guard page below it
    int helper_threads = 4;           // most blocking() calls running at once (each ends after 2 s idle)
    // Before a worker sleeps in epoll_wait it may poll for up to this long, yielding the CPU to
    // anything else runnable between polls, when its recent waits ended that soon: a socket
    // answering within microseconds (a provider on the same host, the next request of a client in
    // a loop) is then served without the wake-up from sleep, which on a virtual machine costs more
    // than the polling. Waits that end later turn it off by themselves, so slow providers cost
    // nothing. 0: never.
    std::chrono::microseconds spin{0};
  };
  explicit Loop(Options options);
  // Stops the workers. Fibers still parked then are abandoned (the process is ending).
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  // Accepts connections on `listen_fd` (made non-blocking) on every worker and runs
  // `handler(fd)` for each on a new fiber, the connections spread over the workers in turn. The
  // loop closes the fd when the handler returns. Call once.
  void serve(int listen_fd, std::function<void(int fd)> handler);
  // Stops accepting; connections already accepted go on.
  void stopAccepting();
  // Ends every interruptible wait now and from now on (the gateway is draining).
  void interrupt();
  // Runs `body` on a new fiber on one of the workers (in turn).
  void spawn(std::function<void()> body);

  // Fibers started by serve() whose handler has not returned.
  size_t connections() const { return connections_.load(std::memory_order_relaxed); }
  // Every fiber not yet finished, serve()'s and spawn()'s.
  size_t fibers() const { return fibers_.load(std::memory_order_relaxed); }
  int workers() const { return static_cast<int>(workers_.size()); }

 private:
  friend class Worker;
  Worker& nextWorker();

  Options options_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<size_t> next_{0};
  std::atomic<size_t> connections_{0};
  std::atomic<size_t> fibers_{0};
  std::atomic<bool> interrupted_{false};
  int listen_fd_ = -1;
  std::function<void(int)> handler_;
};

}  // namespace sluice::net::fiber
