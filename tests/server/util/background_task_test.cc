#define BOOST_TEST_MODULE util_tests
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "server/util/background_task.h"
#include "tests/support/wait_until.h"

using namespace std::chrono_literals;
using sluice::util::BackgroundTask;
using sluice::test::waitUntil;

namespace {

// A body that counts its runs and returns a wait chosen by the test; with hold(), a run blocks
// until release() so the test can act while the body runs.
struct FakeBody {
  std::atomic<int> runs{0};
  std::atomic<bool> in_run{false};
  BackgroundTask::Duration wait = std::chrono::hours(1);
  std::mutex mutex;
  std::condition_variable released;
  bool holding = false;

  BackgroundTask::Body body() {
    return [this] {
      in_run = true;
      {
        std::unique_lock lock(mutex);
        released.wait(lock, [this] { return !holding; });
      }
      ++runs;
      in_run = false;
      return wait;
    };
  }
  void hold() {
    std::lock_guard lock(mutex);
    holding = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex);
      holding = false;
    }
    released.notify_all();
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(background_task)

BOOST_AUTO_TEST_CASE(runs_at_start_and_again_after_the_wait_the_body_returns) {
  FakeBody fake;
  fake.wait = 1ms;
  BackgroundTask task(fake.body());
  task.start();
  BOOST_TEST(task.running());
  waitUntil([&] { return fake.runs >= 5; }, 900ms, "five runs one millisecond apart");
}

BOOST_AUTO_TEST_CASE(wake_runs_the_body_now_instead_of_after_the_period) {
  FakeBody fake;
  BackgroundTask task(fake.body());
  task.start();
  waitUntil([&] { return fake.runs == 1; }, 900ms, "the run at start");
  task.wake();
  waitUntil([&] { return fake.runs == 2; }, 900ms, "the run the wake asked for");
}

BOOST_AUTO_TEST_CASE(after_wait_first_run_waits_before_the_first_run) {
  FakeBody fake;
  BackgroundTask task(fake.body(), BackgroundTask::FirstRun::AfterWait, std::chrono::hours(1));
  task.start();
  task.wake();
  waitUntil([&] { return fake.runs == 1; }, 900ms, "the woken first run");
  BackgroundTask quick(fake.body(), BackgroundTask::FirstRun::AfterWait, 1ms);
  quick.start();
  waitUntil([&] { return fake.runs == 2; }, 900ms, "the first run after a short wait");
}

BOOST_AUTO_TEST_CASE(stop_returns_without_waiting_out_the_period) {
  FakeBody fake;
  BackgroundTask task(fake.body());
  task.start();
  waitUntil([&] { return fake.runs == 1; }, 900ms, "the run at start");
  const auto began = std::chrono::steady_clock::now();
  task.stop();
  BOOST_TEST((std::chrono::steady_clock::now() - began < 500ms));
  BOOST_TEST(!task.running());
  task.wake();  // stopped: nothing runs
  task.stop();  // idempotent
  BOOST_TEST(fake.runs == 1);
}

BOOST_AUTO_TEST_CASE(stop_waits_for_the_run_in_progress) {
  FakeBody fake;
  fake.hold();
  BackgroundTask task(fake.body());
  task.start();
  waitUntil([&] { return fake.in_run.load(); }, 900ms, "the run at start to begin");
  std::atomic<bool> stopped{false};
  std::thread stopper([&] {
    task.stop();
    stopped = true;
  });
  BOOST_TEST(!stopped);  // the body is still held
  fake.release();
  stopper.join();
  BOOST_TEST(fake.runs == 1);
}

BOOST_AUTO_TEST_CASE(a_wake_during_a_run_makes_one_more_run) {
  FakeBody fake;
  fake.hold();
  BackgroundTask task(fake.body());
  task.start();
  waitUntil([&] { return fake.in_run.load(); }, 900ms, "the run at start to begin");
  task.wake();
  task.wake();
  fake.release();
  waitUntil([&] { return fake.runs == 2; }, 900ms, "the run the wakes asked for");
}

BOOST_AUTO_TEST_CASE(starts_again_after_stop_and_the_destructor_stops) {
  FakeBody fake;
  {
    BackgroundTask task(fake.body());
    task.wake();  // not started: nothing runs
    task.start();
    task.start();  // already running: no second thread
    waitUntil([&] { return fake.runs == 1; }, 900ms, "the run at start");
    task.stop();
    task.start();
    waitUntil([&] { return fake.runs == 2; }, 900ms, "the run at the second start");
  }  // the destructor joins without waiting out the hour
  BOOST_TEST(fake.runs == 2);
}

BOOST_AUTO_TEST_CASE(every_runs_the_function_then_returns_the_period) {
  int calls = 0;
  const auto body = BackgroundTask::every(42ms, [&] { ++calls; });
  BOOST_TEST((body() == BackgroundTask::Duration(42ms)));
  BOOST_TEST(calls == 1);
}

BOOST_AUTO_TEST_SUITE_END()
