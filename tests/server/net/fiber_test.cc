#include <boost/test/unit_test.hpp>

#include <atomic>
#include <cassert>
#include <chrono>
#include <cstring>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/net/fiber.h"
#include "server/net/send_all.h"
#include "tests/support/wait_until.h"

namespace sluice::net::fiber {
namespace {

using namespace std::chrono_literals;
using sluice::test::pollUntil;
using sluice::test::waitUntil;

struct SocketPair {
  int fds[2] = {-1, -1};
  SocketPair() {
    BOOST_REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) == 0);
  }
  ~SocketPair() {
    for (const int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
  }
  void closeSide(int i) {
    ::close(fds[i]);
    fds[i] = -1;
  }
};

// Waits (on the test's own thread) until every fiber of `loop` has finished.
bool settle(const Loop& loop, std::chrono::milliseconds limit = 5000ms) {
  return pollUntil([&] { return loop.fibers() == 0; }, limit, 2ms);
}

// Returns (on the test's own thread) once every fiber already running on a worker of `loop` has
// yielded, i.e. is parked in a wait: one fiber spawned now per worker can only start then, as a
// worker runs one fiber at a time. Spawns go to the workers in turn, so the workers() spawns in a
// row reach each worker once; nothing else may spawn meanwhile.
void untilEveryWorkerYields(Loop& loop) {
  auto started = std::make_shared<std::atomic<int>>(0);
  for (int i = 0; i < loop.workers(); ++i) loop.spawn([started] { ++*started; });
  waitUntil([&] { return started->load() == loop.workers(); }, 5000ms,
            "a fiber to start on every worker (the running fibers to park)");
}

// On a fiber of a one-worker `loop`: runs `then` on a new fiber, which can only start once the
// calling fiber has yielded, that is once it is parked in the next wait it makes.
void onceParked(Loop& loop, std::function<void()> then) {
  assert(loop.workers() == 1);
  loop.spawn(std::move(then));
}

// Runs `body` on a fiber of `loop` and waits for it.
template <class Body>
void onFiber(Loop& loop, Body body) {
  std::promise<void> done;
  loop.spawn([&] {
    try {
      body();
      done.set_value();
    } catch (...) {
      done.set_exception(std::current_exception());
    }
  });
  auto finished = done.get_future();
  BOOST_REQUIRE(finished.wait_for(10s) == std::future_status::ready);
  finished.get();
}

BOOST_AUTO_TEST_SUITE(fiber)

BOOST_AUTO_TEST_CASE(a_fiber_knows_it_is_one_and_a_thread_does_not) {
  BOOST_TEST(!active());
  BOOST_TEST(currentEpoll() == -1);
  Loop loop({1});
  bool inside = false;
  int epoll_fd = -1;
  onFiber(loop, [&] {
    inside = active();
    epoll_fd = currentEpoll();
  });
  BOOST_TEST(inside);
  BOOST_TEST(epoll_fd >= 0);
  BOOST_TEST(settle(loop));
}

BOOST_AUTO_TEST_CASE(many_fibers_wait_on_their_sockets_at_once_on_one_worker) {
  Loop loop({1});
  constexpr int kFibers = 200;
  std::vector<std::unique_ptr<SocketPair>> pairs;
  for (int i = 0; i < kFibers; ++i) pairs.push_back(std::make_unique<SocketPair>());
  std::atomic<int> parked{0};
  std::atomic<int> answered{0};
  std::set<std::thread::id> threads;
  std::mutex threads_mutex;
  for (int i = 0; i < kFibers; ++i) {
    loop.spawn([&, i] {
      {
        std::lock_guard lock(threads_mutex);
        threads.insert(std::this_thread::get_id());
      }
      Registration registration;
      char byte = 0;
      ++parked;
      for (;;) {
        const ssize_t n = ::recv(pairs[i]->fds[0], &byte, 1, 0);
        if (n == 1) break;
        BOOST_REQUIRE(errno == EAGAIN);
        BOOST_REQUIRE(waitFd(pairs[i]->fds[0], registration, Want::Read, Clock::now() + 5s) == Wait::Ready);
      }
      if (byte == static_cast<char>('a' + i % 26)) ++answered;
    });
  }
  waitUntil([&] { return parked.load() == kFibers; }, 5000ms, "every fiber to start");
  untilEveryWorkerYields(loop);  // every one of them is waiting, none is blocking the worker
  BOOST_TEST(answered.load() == 0);
  for (int i = kFibers - 1; i >= 0; --i) {
    const char byte = static_cast<char>('a' + i % 26);
    BOOST_REQUIRE(::send(pairs[i]->fds[1], &byte, 1, 0) == 1);
  }
  BOOST_TEST(settle(loop));
  BOOST_TEST(answered.load() == kFibers);
  BOOST_TEST(threads.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_wait_ends_at_its_deadline_and_the_socket_stays_usable) {
  Loop loop({1});
  SocketPair pair;
  onFiber(loop, [&] {
    Registration registration;
    const auto started = Clock::now();
    BOOST_TEST((waitFd(pair.fds[0], registration, Want::Read, started + 50ms) == Wait::Timeout));
    BOOST_TEST((Clock::now() - started >= 50ms));
    BOOST_TEST((waitFd(pair.fds[0], registration, Want::Read, Clock::now() - 1ms) == Wait::Timeout));
    BOOST_REQUIRE(::send(pair.fds[1], "x", 1, 0) == 1);
    BOOST_TEST((waitFd(pair.fds[0], registration, Want::Read, Clock::now() + 5s) == Wait::Ready));
  });
}

// With polling before sleep on (Options::spin), a ping-pong with a thread answering at once is
// served throughout, deadlines still end waits on time, and a fiber sleeping far longer than the
// poll budget turns the polling off and still wakes.
BOOST_AUTO_TEST_CASE(polling_before_sleep_serves_quick_answers_and_keeps_deadlines) {
  Loop::Options options;
  options.workers = 1;
  options.spin = 200us;
  Loop loop(options);
  SocketPair pair;
  std::atomic<bool> stop{false};
  std::thread echo([&] {
    char byte = 0;
    while (!stop.load()) {
      pollfd item{pair.fds[1], POLLIN, 0};
      if (::poll(&item, 1, 20) <= 0) continue;
      if (::recv(pair.fds[1], &byte, 1, 0) == 1) ::send(pair.fds[1], &byte, 1, 0);
    }
  });
  onFiber(loop, [&] {
    Registration registration;
    for (int i = 0; i < 2000; ++i) {
      const char sent = static_cast<char>('a' + i % 26);
      BOOST_REQUIRE(::send(pair.fds[0], &sent, 1, 0) == 1);
      char got = 0;
      while (::recv(pair.fds[0], &got, 1, 0) != 1) {
        BOOST_REQUIRE((waitFd(pair.fds[0], registration, Want::Read, Clock::now() + 5s) == Wait::Ready));
      }
      BOOST_REQUIRE_EQUAL(got, sent);
    }
    // Quick answers have turned polling on; a deadline still ends the wait, not much after.
    const auto started = Clock::now();
    BOOST_TEST((waitFd(pair.fds[0], registration, Want::Read, started + 30ms) == Wait::Timeout));
    const auto waited = Clock::now() - started;
    BOOST_TEST((waited >= 30ms && waited < 30ms + 50ms));
    sleepFor(20ms);
    BOOST_REQUIRE(::send(pair.fds[0], "z", 1, 0) == 1);
    char got = 0;
    while (::recv(pair.fds[0], &got, 1, 0) != 1) {
      BOOST_REQUIRE((waitFd(pair.fds[0], registration, Want::Read, Clock::now() + 5s) == Wait::Ready));
    }
    BOOST_TEST(got == 'z');
  });
  stop = true;
  echo.join();
}

BOOST_AUTO_TEST_CASE(a_peer_hanging_up_wakes_a_reader) {
  Loop loop({1});
  SocketPair pair;
  std::promise<void> parked;
  std::thread closer([&] {
    parked.get_future().wait();
    pair.closeSide(1);
  });
  onFiber(loop, [&] {
    Registration registration;
    onceParked(loop, [&] { parked.set_value(); });
    BOOST_TEST((waitFd(pair.fds[0], registration, Want::Read, Clock::now() + 5s) == Wait::Ready));
    char byte;
    BOOST_TEST(::recv(pair.fds[0], &byte, 1, 0) == 0);
  });
  closer.join();
}

BOOST_AUTO_TEST_CASE(a_waker_from_another_thread_ends_a_park_and_a_stale_one_does_nothing) {
  Loop loop({1});
  std::promise<Waker> handed;
  std::thread waker_thread([&] {
    const Waker waker = handed.get_future().get();
    waker.wake();
  });
  Waker stale;
  onFiber(loop, [&] {
    const Waker waker = currentWaker();
    onceParked(loop, [&, waker] { handed.set_value(waker); });
    const auto started = Clock::now();
    BOOST_TEST((park(Clock::now() + 5s) == Wait::Ready));
    BOOST_TEST((Clock::now() - started < 4s));
    // A park that times out: its waker, used afterwards, must not end a later park.
    stale = currentWaker();
    BOOST_TEST((park(Clock::now() + 10ms) == Wait::Timeout));
  });
  waker_thread.join();
  onFiber(loop, [&] {
    stale.wake();
    BOOST_TEST((park(Clock::now() + 50ms) == Wait::Timeout));
  });
  BOOST_TEST(settle(loop));
}

BOOST_AUTO_TEST_CASE(interrupt_ends_interruptible_waits_only) {
  Loop loop({2});
  SocketPair first;
  SocketPair second;
  std::atomic<int> waiting{0};
  std::atomic<int> interrupted{0};
  std::atomic<int> timed_out{0};
  loop.spawn([&] {
    Registration registration;
    ++waiting;
    if (waitFd(first.fds[0], registration, Want::Read, Clock::now() + 10s, true) == Wait::Interrupted) ++interrupted;
  });
  loop.spawn([&] {
    Registration registration;
    ++waiting;
    if (waitFd(second.fds[0], registration, Want::Read, Clock::now() + 300ms, false) == Wait::Timeout) ++timed_out;
  });
  waitUntil([&] { return waiting.load() == 2; }, 5000ms, "both fibers to start");
  untilEveryWorkerYields(loop);  // both are in their waits: the interrupt ends one that is parked
  loop.interrupt();
  BOOST_TEST(settle(loop));
  BOOST_TEST(interrupted.load() == 1);
  BOOST_TEST(timed_out.load() == 1);
  // From now on an interruptible wait ends at once.
  onFiber(loop, [&] {
    Registration registration;
    BOOST_TEST((waitFd(first.fds[0], registration, Want::Read, Clock::now() + 10s, true) == Wait::Interrupted));
  });
}

BOOST_AUTO_TEST_CASE(blocking_runs_elsewhere_while_the_worker_serves_other_fibers) {
  Loop loop({1, 256u << 10, 2});
  std::atomic<bool> slow_done{false};
  std::atomic<bool> quick_done_first{false};
  std::thread::id worker_thread;
  std::thread::id helper_thread;
  loop.spawn([&] {
    worker_thread = std::this_thread::get_id();
    const int value = blocking([&] {
      helper_thread = std::this_thread::get_id();
      std::this_thread::sleep_for(200ms);  // stands for a blocking call (PostgreSQL, DNS): the point
      return 42;
    });
    BOOST_TEST(value == 42);
    slow_done = true;
  });
  loop.spawn([&] {
    sleepFor(10ms);
    quick_done_first = !slow_done.load();
  });
  BOOST_TEST(settle(loop));
  BOOST_TEST(slow_done.load());
  BOOST_TEST(quick_done_first.load());
  BOOST_TEST((worker_thread != helper_thread));
  // What the body throws comes out of blocking() on the fiber.
  onFiber(loop, [&] {
    BOOST_CHECK_THROW(blocking([]() -> int { throw std::runtime_error("no database"); }), std::runtime_error);
    blocking([] {});
  });
  // Off a fiber it runs right here.
  const auto here = std::this_thread::get_id();
  BOOST_TEST((blocking([] { return std::this_thread::get_id(); }) == here));
}

BOOST_AUTO_TEST_CASE(send_all_parks_on_a_full_socket_until_a_fiber_reads) {
  Loop loop({1});
  SocketPair pair;
  const int small = 4096;
  ::setsockopt(pair.fds[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  const std::string body(1 << 20, 'z');
  std::string received;
  std::atomic<int> sent_result{-1};
  loop.spawn([&] {
    Registration registration;
    const SendWait wait{registration, 5000ms};
    sent_result = sendAll(pair.fds[0], {body}, &wait);
    ::shutdown(pair.fds[0], SHUT_WR);
  });
  loop.spawn([&] {
    Registration registration;
    char buffer[1024];
    for (;;) {
      const ssize_t n = ::recv(pair.fds[1], buffer, sizeof buffer, 0);
      if (n > 0) {
        received.append(buffer, static_cast<size_t>(n));
        continue;
      }
      if (n == 0) break;
      BOOST_REQUIRE(errno == EAGAIN);
      BOOST_REQUIRE(waitFd(pair.fds[1], registration, Want::Read, Clock::now() + 5s) == Wait::Ready);
    }
  });
  BOOST_TEST(settle(loop));
  BOOST_TEST(sent_result.load() == 0);
  BOOST_TEST((received == body));
}

BOOST_AUTO_TEST_CASE(send_all_gives_up_with_eagain_when_nobody_reads) {
  Loop loop({1});
  SocketPair pair;
  const std::string body(8 << 20, 'z');
  onFiber(loop, [&] {
    Registration registration;
    const SendWait wait{registration, 50ms};
    BOOST_TEST(sendAll(pair.fds[0], {body}, &wait) == EAGAIN);
  });
}

BOOST_AUTO_TEST_CASE(an_edge_triggered_socket_wakes_its_fiber_without_rearming) {
  Loop loop({1});
  SocketPair pair;
  std::atomic<int> rounds{0};
  std::atomic<bool> peer_failed{false};
  std::promise<void> ready_for_more;
  auto more = ready_for_more.get_future();
  std::thread peer([&] {
    more.wait();
    for (int i = 0; i < 50; ++i) {
      // Fine polls: fifty rounds of ping-pong. (Off the test's thread: no waitUntil.)
      if (!pollUntil([&] { return rounds.load() == i; }, 5s, 100us)) {
        peer_failed = true;  // the fiber stopped reading
        return;
      }
      if (::send(pair.fds[1], "ping", 4, 0) != 4) peer_failed = true;
    }
  });
  onFiber(loop, [&] {
    Registration registration;
    registration.edge = true;
    char buffer[64];
    ready_for_more.set_value();
    while (rounds.load() < 50) {
      const ssize_t n = ::recv(pair.fds[0], buffer, sizeof buffer, 0);
      if (n > 0) {
        ++rounds;
        continue;
      }
      BOOST_REQUIRE(errno == EAGAIN);
      BOOST_REQUIRE(waitFd(pair.fds[0], registration, Want::Read, Clock::now() + 5s) == Wait::Ready);
    }
  });
  peer.join();
  BOOST_TEST(!peer_failed.load());
  BOOST_TEST(rounds.load() == 50);
}

struct HookState {
  int fd = -1;
  std::atomic<int> calls{0};
  std::atomic<bool> saw_close{false};
  static void call(void* self) {
    auto* state = static_cast<HookState*>(self);
    ++state->calls;
    char byte;
    if (::recv(state->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) state->saw_close = true;
  }
};

BOOST_AUTO_TEST_CASE(an_edge_watch_reports_the_client_hanging_up_while_the_fiber_waits_elsewhere) {
  Loop loop({1});
  SocketPair client;
  SocketPair provider;
  HookState state;
  state.fd = client.fds[0];
  std::promise<void> watching;
  std::thread hang_up([&] {
    watching.get_future().wait();
    client.closeSide(1);
  });
  onFiber(loop, [&] {
    Registration client_registration;
    client_registration.edge = true;
    {
      const EdgeWatch watch = watchEdge(client.fds[0], client_registration, &HookState::call, &state);
      BOOST_TEST(watch.active());
      onceParked(loop, [&] { watching.set_value(); });  // hang up while this fiber waits on the provider
      Registration provider_registration;
      // Waiting on the provider, which never answers; the hook sees the client leave meanwhile.
      const auto deadline = Clock::now() + 2s;
      while (!state.saw_close.load() && Clock::now() < deadline) {
        waitFd(provider.fds[0], provider_registration, Want::Read, Clock::now() + 20ms);
      }
    }
    BOOST_TEST(state.saw_close.load());
    char byte;
    BOOST_TEST(::recv(client.fds[0], &byte, 1, 0) == 0);
  });
  hang_up.join();
  // Off a fiber the watch is inactive: the caller uses another way.
  Registration registration;
  registration.edge = true;
  BOOST_TEST(!watchEdge(client.fds[0], registration, &HookState::call, &state).active());
}

BOOST_AUTO_TEST_CASE(serve_runs_each_connection_on_a_fiber_spread_over_the_workers) {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  BOOST_REQUIRE(listener >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  BOOST_REQUIRE(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
  BOOST_REQUIRE(::listen(listener, 128) == 0);
  socklen_t length = sizeof address;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length);

  std::mutex mutex;
  std::set<std::thread::id> worker_threads;
  {
    Loop loop({2});
    loop.serve(listener, [&](int fd) {
      {
        std::lock_guard lock(mutex);
        worker_threads.insert(std::this_thread::get_id());
      }
      BOOST_REQUIRE((::fcntl(fd, F_GETFL) & O_NONBLOCK) != 0);
      Registration registration;
      registration.edge = true;
      char buffer[256];
      for (;;) {  // echo until the client closes
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n == 0) return;
        if (n < 0) {
          if (errno != EAGAIN) return;
          if (waitFd(fd, registration, Want::Read, Clock::now() + 5s) != Wait::Ready) return;
          continue;
        }
        const SendWait wait{registration, 5000ms};
        if (sendAll(fd, {std::string_view(buffer, static_cast<size_t>(n))}, &wait) != 0) return;
      }
    });
    constexpr int kClients = 16;
    std::vector<std::thread> clients;
    std::atomic<int> echoed{0};
    for (int c = 0; c < kClients; ++c) {
      clients.emplace_back([&, c] {
        const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) return;
        bool all = true;
        for (int round = 0; round < 20; ++round) {
          const std::string message = "client " + std::to_string(c) + " round " + std::to_string(round);
          if (::send(fd, message.data(), message.size(), 0) != static_cast<ssize_t>(message.size())) all = false;
          std::string back;
          char buffer[256];
          while (back.size() < message.size()) {
            const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0) break;
            back.append(buffer, static_cast<size_t>(n));
          }
          all = all && back == message;
        }
        if (all) ++echoed;
        ::close(fd);
      });
    }
    for (auto& client : clients) client.join();
    BOOST_TEST(echoed.load() == kClients);
    waitUntil([&] { return loop.connections() == 0u; }, 5000ms, "every connection's handler to return");
    loop.stopAccepting();
  }
  BOOST_TEST(worker_threads.size() == 2u);
  ::close(listener);
}

BOOST_AUTO_TEST_CASE(sleeping_fibers_do_not_hold_up_the_others) {
  Loop loop({1});
  std::atomic<int> order{0};
  std::atomic<int> sleeper_finished_at{-1};
  std::atomic<int> quick_finished_at{-1};
  loop.spawn([&] {
    sleepFor(100ms);
    sleeper_finished_at = order++;
  });
  loop.spawn([&] {
    sleepFor(1ms);
    quick_finished_at = order++;
  });
  BOOST_TEST(settle(loop));
  BOOST_TEST(quick_finished_at.load() == 0);
  BOOST_TEST(sleeper_finished_at.load() == 1);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::net::fiber
