// compute(): CPU-bound work (masking a large body) runs on a compute thread while its fiber waits,
// so the worker serves its other fibers meanwhile, and queued compute work never delays a
// blocking() call (PostgreSQL), which has its own helpers.

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "server/net/fiber.h"
#include "tests/support/wait_until.h"

namespace sluice::net::fiber {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

// Busy for `duration` of wall time (stands for masking: a core kept busy, no wait to park in).
void spin(std::chrono::milliseconds duration) {
  const auto end = SteadyClock::now() + duration;
  volatile unsigned sink = 0;
  while (SteadyClock::now() < end) sink = sink + 1;
}

BOOST_AUTO_TEST_SUITE(compute_pool)

BOOST_AUTO_TEST_CASE(compute_runs_off_the_worker_while_its_other_fibers_go_on) {
  Loop loop({1});
  std::atomic<bool> heavy_done{false};
  std::atomic<bool> light_done_first{false};
  std::thread::id worker_thread;
  std::thread::id compute_thread;
  loop.spawn([&] {
    worker_thread = std::this_thread::get_id();
    const int value = compute([&] {
      compute_thread = std::this_thread::get_id();
      spin(300ms);
      return 7;
    });
    BOOST_TEST(value == 7);
    heavy_done = true;
  });
  loop.spawn([&] {
    sleepFor(10ms);
    light_done_first = !heavy_done.load();
  });
  test::waitUntil([&] { return loop.fibers() == 0; }, 5000ms, "both fibers to finish");
  BOOST_TEST(light_done_first.load());
  BOOST_TEST((worker_thread != compute_thread));
  // What the body throws comes out on the fiber; off a fiber it runs right here.
  std::atomic<bool> threw{false};
  loop.spawn([&] {
    try {
      compute([]() -> int { throw std::runtime_error("a limit"); });
    } catch (const std::runtime_error&) {
      threw = true;
    }
  });
  test::waitUntil([&] { return loop.fibers() == 0; }, 5000ms, "the throwing fiber to finish");
  BOOST_TEST(threw.load());
  BOOST_TEST((compute([] { return std::this_thread::get_id(); }) == std::this_thread::get_id()));
}

BOOST_AUTO_TEST_CASE(queued_compute_work_does_not_delay_a_blocking_call) {
  Loop loop({2});
  // More compute jobs than there are CPUs: some wait in the compute queue.
  const int jobs = static_cast<int>(std::thread::hardware_concurrency()) * 2 + 2;
  std::atomic<int> computed{0};
  for (int i = 0; i < jobs; ++i) {
    loop.spawn([&] {
      compute([] { spin(400ms); });
      ++computed;
    });
  }
  std::atomic<double> blocking_ms{-1};
  loop.spawn([&] {
    sleepFor(50ms);  // the compute queue is full by now
    const auto started = SteadyClock::now();
    blocking([] {});
    blocking_ms = std::chrono::duration<double, std::milli>(SteadyClock::now() - started).count();
  });
  test::waitUntil([&] { return blocking_ms.load() >= 0; }, 10s, "the blocking call to return");
  BOOST_TEST(computed.load() < jobs);  // the compute work was still queued
  BOOST_TEST(blocking_ms.load() < 200.0);
  test::waitUntil([&] { return loop.fibers() == 0; }, 30s, "the compute jobs to finish");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
}  // namespace sluice::net::fiber
