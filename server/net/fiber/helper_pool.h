#pragma once
// The helper threads that run blocking() bodies while their fibers wait: started as needed up to
// a limit, each ending after a while idle. Thread-safe.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

#include "server/net/fiber.h"

namespace sluice::net::fiber {

class HelperPool {
 public:
  // The process's pool for blocking() bodies; never destroyed (helper threads may outlive main's
  // locals).
  static HelperPool& instance();
  // The pool for compute() bodies: one thread per CPU, each at nice +kComputeNice.
  static HelperPool& compute();
  static constexpr int kComputeNice = 5;

  // Raises the most threads running at once to `limit` (at least 1); never lowers it.
  void setLimit(int limit);
  // Runs `*job` on a helper thread, then wakes `waker`. `*job` must not throw and must stay alive
  // until the waker is used.
  void run(const std::function<void()>* job, Waker waker);

 private:
  struct Job {
    const std::function<void()>* job;
    Waker waker;
  };
  void loop();

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Job> jobs_;
  int threads_ = 0;
  int idle_ = 0;
  int limit_ = 4;
  int nice_ = 0;  // added to each thread's scheduling priority
};

}  // namespace sluice::net::fiber
