#include "server/audit/refusal_throttle.h"

#include "server/wire/error_keys.h"

namespace sluice::audit {

bool RefusalThrottle::admit(std::string_view peer, SteadyClock::time_point now) {
  if (options_.rows_per_window == 0) return true;
  std::lock_guard lock(mutex_);
  auto it = windows_.find(std::string(peer));
  if (it == windows_.end()) {
    // Full: the addresses beyond the bound share one entry, so the table cannot grow with them.
    const std::string key = windows_.size() < options_.max_peers ? std::string(peer) : std::string(kOtherPeers);
    it = windows_.try_emplace(key, Window{now, 0, 0}).first;
  }
  Window& window = it->second;
  if (now - window.start >= options_.window && window.suppressed == 0) window = Window{now, 0, 0};
  if (window.written < options_.rows_per_window && now - window.start < options_.window) {
    ++window.written;
    return true;
  }
  // Over the bound, or a window that ended with refusals counted and waits for due(): counted.
  ++window.suppressed;
  ++suppressed_total_;
  return false;
}

std::vector<RefusalThrottle::Summary> RefusalThrottle::due(SteadyClock::time_point now) {
  std::vector<Summary> summaries;
  std::lock_guard lock(mutex_);
  for (auto it = windows_.begin(); it != windows_.end();) {
    const Window& window = it->second;
    if (now - window.start < options_.window) {
      ++it;
      continue;
    }
    if (window.suppressed > 0) {
      summaries.push_back({it->first, window.suppressed, window.start, std::max(now, window.start + options_.window)});
    }
    it = windows_.erase(it);
  }
  return summaries;
}

std::vector<RefusalThrottle::Summary> RefusalThrottle::drainAll() {
  std::vector<Summary> summaries;
  std::lock_guard lock(mutex_);
  for (const auto& [peer, window] : windows_) {
    if (window.suppressed > 0) summaries.push_back({peer, window.suppressed, window.start, SteadyClock::now()});
  }
  windows_.clear();
  return summaries;
}

uint64_t RefusalThrottle::suppressedTotal() const {
  std::lock_guard lock(mutex_);
  return suppressed_total_;
}

size_t RefusalThrottle::peers() const {
  std::lock_guard lock(mutex_);
  return windows_.size();
}

Record RefusalThrottle::summaryRow(const Summary& summary, std::string id, TimePoint wall_now,
                                   SteadyClock::time_point now) {
  Record row;
  row.id = std::move(id);
  row.created_at = wall_now - std::chrono::duration_cast<std::chrono::milliseconds>(now - summary.from);
  row.completed_at = wall_now - std::chrono::duration_cast<std::chrono::milliseconds>(now - std::min(now, summary.to));
  row.latency_ms = std::chrono::duration_cast<std::chrono::milliseconds>(row.completed_at - row.created_at).count();
  row.status = 401;
  row.outcome = std::string(outcome::kUnauthenticated);
  row.error_key = std::string(wire::error_keys::kUnauthenticatedRowsSuppressed);
  row.route_match = "suppressed:" + std::to_string(summary.suppressed);
  row.client_address = summary.peer.substr(0, 64);
  row.error_message = std::to_string(summary.suppressed) +
                      " further requests without a valid key from " + summary.peer.substr(0, 64) +
                      " in this window were counted here instead of one row each";
  return row;
}

}  // namespace sluice::audit
