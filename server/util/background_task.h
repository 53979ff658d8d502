#pragma once
// A function run again and again on a thread of its own, with a wait between runs: the shape of
// the gateway's housekeeping (audit partitions, the catalog watch, quota pruning, the memory
// keeper). Replaces the hand-rolled "thread + condition variable + stop flag" loop.
//
// Contract:
//  - start() starts the thread. With FirstRun::AtStart the body runs at once, otherwise after the
//    first wait. Each run returns how long to wait before the next (so a failure may retry
//    sooner); every() makes a body with a fixed period.
//  - wake() ends the current wait now (the body runs at once); a wake() during a run makes one
//    more run right after it. Before start() or after stop() it does nothing.
//  - stop() returns once the thread has ended: at once when it is waiting (never the rest of a
//    period), after the run in progress otherwise. Idempotent; start() may start it again. Must
//    not be called from the body. The destructor stops.
//  - The body must not throw (it catches and logs its own failures): an exception ends the
//    process (std::terminate), as from any thread.
//
// Thread-safety: every member may be called from any thread but the task's own.

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace sluice::util {

class BackgroundTask {
 public:
  using Clock = std::chrono::steady_clock;
  using Duration = Clock::duration;
  // One run; returns the wait before the next.
  using Body = std::function<Duration()>;
  enum class FirstRun { AtStart, AfterWait };

  // `first_wait`: with FirstRun::AfterWait, the wait before the first run.
  explicit BackgroundTask(Body body, FirstRun first_run = FirstRun::AtStart, Duration first_wait = Duration::zero());
  ~BackgroundTask();
  BackgroundTask(const BackgroundTask&) = delete;
  BackgroundTask& operator=(const BackgroundTask&) = delete;

  // A body that runs `run` and then waits `period`.
  static Body every(Duration period, std::function<void()> run);

  void start();
  void wake();
  void stop();
  // Between start() and stop().
  bool running() const;

 private:
  void loop();

  Body body_;
  FirstRun first_run_;
  Duration first_wait_;
  std::mutex lifecycle_mutex_;  // start() and stop(), one at a time; guards thread_
  std::thread thread_;
  mutable std::mutex mutex_;    // the flags below; the thread waits on changed_ with it
  std::condition_variable changed_;
  bool started_ = false;
  bool stopping_ = false;
  bool woken_ = false;
};

}  // namespace sluice::util
