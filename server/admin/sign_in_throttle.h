#pragma once
// Failed console sign-ins, counted per peer address, so that guessing keys at /admin/login costs
// the guesser time instead of costing the gateway a database lookup per guess.
//
// A peer that failed `failures` times within the last `window` is refused until the oldest of
// those failures is `window` old: retryAfter() says how long. Successful sign-ins are not counted
// and do not clear earlier failures. Time is only the `now` passed in.
//
// NOTE: the peer is the socket's address, never X-Forwarded-For (a client writes that header
// itself). Behind a reverse proxy every sign-in comes from the proxy's address and shares one
// budget: a guesser there slows down everyone's sign-in, not the gateway.
//
// Memory: at most `max_peers` addresses are remembered; past it, those with no failure inside the
// window are dropped, then all of them.
//
// Thread-safe.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

namespace sluice::admin {

struct SignInThrottlePolicy {
  size_t failures = 5;
  std::chrono::seconds window{60};
  size_t max_peers = 10'000;
};

class SignInThrottle {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  explicit SignInThrottle(SignInThrottlePolicy policy = {}) : policy_(policy) {}

  // Zero when `peer` may try to sign in at `now`; else the whole seconds to wait (at least 1),
  // and the refusal is counted.
  std::chrono::seconds retryAfter(const std::string& peer, TimePoint now);
  // A sign-in from `peer` failed at `now` (a key that does not authenticate).
  void recordFailure(const std::string& peer, TimePoint now);
  // Sign-ins refused by retryAfter() since start.
  uint64_t refused() const;

 private:
  void forgetOld(std::deque<TimePoint>& times, TimePoint now) const;

  SignInThrottlePolicy policy_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::deque<TimePoint>> failures_;  // by peer, oldest first
  uint64_t refused_ = 0;
};

}  // namespace sluice::admin
