#include "server/admin/sign_in_throttle.h"

#include <algorithm>
#include <iterator>

namespace sluice::admin {

void SignInThrottle::forgetOld(std::deque<TimePoint>& times, TimePoint now) const {
  // A failure stamped after `now` (the clock went back) is kept: it ages out once time catches up.
  while (!times.empty() && now - times.front() >= policy_.window) times.pop_front();
}

std::chrono::seconds SignInThrottle::retryAfter(const std::string& peer, TimePoint now) {
  std::lock_guard lock(mutex_);
  const auto found = failures_.find(peer);
  if (found == failures_.end()) return std::chrono::seconds{0};
  forgetOld(found->second, now);
  if (found->second.size() < policy_.failures) {
    if (found->second.empty()) failures_.erase(found);
    return std::chrono::seconds{0};
  }
  ++refused_;
  const auto wait = found->second.front() + policy_.window - now;
  const auto seconds = std::chrono::ceil<std::chrono::seconds>(wait);
  return std::clamp(seconds, std::chrono::seconds{1}, policy_.window);
}

void SignInThrottle::recordFailure(const std::string& peer, TimePoint now) {
  std::lock_guard lock(mutex_);
  if (failures_.size() >= policy_.max_peers && !failures_.contains(peer)) {
    for (auto it = failures_.begin(); it != failures_.end();) {
      forgetOld(it->second, now);
      it = it->second.empty() ? failures_.erase(it) : std::next(it);
    }
    // NOTE: a flood of distinct addresses within one window empties the table; it costs the
    // flood's own lookups, never memory.
    if (failures_.size() >= policy_.max_peers) failures_.clear();
  }
  auto& times = failures_[peer];
  forgetOld(times, now);
  times.push_back(now);
  // Only the newest `failures` matter: the oldest of them says when the peer may try again.
  while (times.size() > policy_.failures) times.pop_front();
}

uint64_t SignInThrottle::refused() const {
  std::lock_guard lock(mutex_);
  return refused_;
}

}  // namespace sluice::admin
