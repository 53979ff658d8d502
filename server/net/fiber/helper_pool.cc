#include "server/net/fiber/helper_pool.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "server/net/fiber/worker.h"

namespace sluice::net::fiber {

namespace {

constexpr auto kHelperIdle = std::chrono::seconds(2);

}  // namespace

HelperPool& HelperPool::instance() {
  static HelperPool* helpers = new HelperPool();  // never destroyed: threads may outlive main's locals
  return *helpers;
}

HelperPool& HelperPool::compute() {
  static HelperPool* computers = [] {
    auto* pool = new HelperPool();  // never destroyed, as instance()
    pool->limit_ = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    pool->nice_ = kComputeNice;
    return pool;
  }();
  return *computers;
}

void HelperPool::setLimit(int limit) {
  std::lock_guard lock(mutex_);
  limit_ = std::max(limit_, std::max(limit, 1));
}

void HelperPool::run(const std::function<void()>* job, Waker waker) {
  std::unique_lock lock(mutex_);
  jobs_.push_back({job, waker});
  if (idle_ == 0 && threads_ < limit_) {
    ++threads_;
    std::thread([this] { loop(); }).detach();
  } else {
    ready_.notify_one();
  }
}

void HelperPool::loop() {
  // The thread's own priority (a Linux thread is a process to setpriority); a failure leaves it
  // at the workers' priority, which is only less polite.
  if (nice_ != 0) (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), nice_);
  std::unique_lock lock(mutex_);
  for (;;) {
    ++idle_;
    // A helper idle for a while ends (its stack goes with it); the next job starts another.
    const bool has_job = ready_.wait_for(lock, kHelperIdle, [this] { return !jobs_.empty(); });
    --idle_;
    if (!has_job) {
      --threads_;
      return;
    }
    const Job job = jobs_.front();
    jobs_.pop_front();
    lock.unlock();
    (*job.job)();  // blocking() catches what the body throws
    job.waker.wake();
    lock.lock();
  }
}

void offload(const std::function<void()>& job) {
  HelperPool::instance().run(&job, currentWaker());
  Worker::current()->park(kNever, false);
}

void offloadCompute(const std::function<void()>& job) {
  HelperPool::compute().run(&job, currentWaker());
  Worker::current()->park(kNever, false);
}

}  // namespace sluice::net::fiber
