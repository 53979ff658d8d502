#pragma once
// The database's reachability as the background check (server/boot/readiness.h) last saw it:
// what GET /readyz reports, so a probe never opens a PostgreSQL connection on a request's thread.
// Thread-safe: the check records, any request thread reads.

#include <chrono>
#include <mutex>

namespace sluice::http {

class DatabaseReadiness {
 public:
  using Clock = std::chrono::steady_clock;
  enum class State { Unchecked, Reachable, Unreachable };
  struct Verdict {
    State state = State::Unchecked;
    Clock::time_point checked_at{};  // of the last check; meaningless while Unchecked
  };

  void record(bool reachable, Clock::time_point now) {
    const std::lock_guard lock(mutex_);
    verdict_ = {reachable ? State::Reachable : State::Unreachable, now};
  }
  Verdict verdict() const {
    const std::lock_guard lock(mutex_);
    return verdict_;
  }

 private:
  mutable std::mutex mutex_;
  Verdict verdict_;
};

}  // namespace sluice::http
