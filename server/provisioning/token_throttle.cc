#include "server/provisioning/token_throttle.h"

#include <algorithm>
#include <iterator>

namespace sluice::provisioning {

void TokenThrottle::forgetOld(std::deque<TimePoint>& times, TimePoint now) const {
  while (!times.empty() && (times.front() + window_ <= now || times.front() > now + window_)) times.pop_front();
}

std::chrono::seconds TokenThrottle::retryAfter(const std::string& peer, TimePoint now) {
  std::lock_guard lock(mutex_);
  const auto found = failed_.find(peer);
  if (found == failed_.end()) return std::chrono::seconds(0);
  forgetOld(found->second, now);
  if (found->second.size() < failures_) return std::chrono::seconds(0);
  const auto wait = std::chrono::ceil<std::chrono::seconds>(found->second.front() + window_ - now);
  return std::max(wait, std::chrono::seconds(1));
}

void TokenThrottle::recordFailure(const std::string& peer, TimePoint now) {
  std::lock_guard lock(mutex_);
  if (failed_.size() >= max_peers_ && !failed_.contains(peer)) {
    for (auto it = failed_.begin(); it != failed_.end();) {
      forgetOld(it->second, now);
      it = it->second.empty() ? failed_.erase(it) : std::next(it);
    }
    if (failed_.size() >= max_peers_) failed_.clear();
  }
  auto& times = failed_[peer];
  forgetOld(times, now);
  times.push_back(now);
  while (times.size() > failures_) times.pop_front();
}

}  // namespace sluice::provisioning
