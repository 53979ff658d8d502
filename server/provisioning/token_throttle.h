#pragma once
// Wrong SCIM bearer tokens, counted per peer address, so that guessing the token costs the
// guesser time: a peer that presented a wrong token `failures` times within `window` is refused
// (429) until the oldest of those failures is `window` old. Right tokens are never counted. Time
// is only the `now` passed in. At most `max_peers` addresses are remembered (past it, those with
// no failure in the window are forgotten, then all). The peer is the socket's address, never
// X-Forwarded-For. Thread-safe.

#include <chrono>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

namespace sluice::provisioning {

class TokenThrottle {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  TokenThrottle(size_t failures = 10, std::chrono::seconds window = std::chrono::seconds(60), size_t max_peers = 10'000)
      : failures_(failures), window_(window), max_peers_(max_peers) {}

  // Zero when `peer` may present a token at `now`; else the whole seconds to wait (at least 1).
  std::chrono::seconds retryAfter(const std::string& peer, TimePoint now);
  // `peer` presented a wrong (or no) token at `now`.
  void recordFailure(const std::string& peer, TimePoint now);

 private:
  void forgetOld(std::deque<TimePoint>& times, TimePoint now) const;

  size_t failures_;
  std::chrono::seconds window_;
  size_t max_peers_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::deque<TimePoint>> failed_;  // by peer, oldest first
};

}  // namespace sluice::provisioning
