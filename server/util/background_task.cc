#include "server/util/background_task.h"

namespace sluice::util {

BackgroundTask::BackgroundTask(Body body, FirstRun first_run, Duration first_wait)
    : body_(std::move(body)), first_run_(first_run), first_wait_(first_wait) {}

BackgroundTask::~BackgroundTask() { stop(); }

BackgroundTask::Body BackgroundTask::every(Duration period, std::function<void()> run) {
  return [period, run = std::move(run)] {
    run();
    return period;
  };
}

void BackgroundTask::start() {
  std::lock_guard lifecycle(lifecycle_mutex_);
  if (thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = false;
    woken_ = false;
    started_ = true;
  }
  thread_ = std::thread([this] { loop(); });
}

void BackgroundTask::wake() {
  {
    std::lock_guard lock(mutex_);
    if (!started_ || stopping_) return;
    woken_ = true;
  }
  changed_.notify_all();
}

void BackgroundTask::stop() {
  std::lock_guard lifecycle(lifecycle_mutex_);
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard lock(mutex_);
  started_ = false;
}

bool BackgroundTask::running() const {
  std::lock_guard lock(mutex_);
  return started_ && !stopping_;
}

void BackgroundTask::loop() {
  std::unique_lock lock(mutex_);
  Duration wait = first_wait_;
  bool run_now = first_run_ == FirstRun::AtStart;
  for (;;) {
    if (!run_now) {
      // NOTE: the wait is measured from the end of the last run, so a slow run delays the next.
      changed_.wait_for(lock, wait, [this] { return stopping_ || woken_; });
    }
    if (stopping_) return;
    woken_ = false;
    run_now = false;
    lock.unlock();
    wait = body_();
    lock.lock();
  }
}

}  // namespace sluice::util
