#pragma once
// Rows for callers refused without a valid key, rate-limited per peer address. Such a refusal
// costs the caller nothing (no key, no body read), so without a bound a flood from one address
// becomes a flood of audit rows. Each address may leave `rows_per_window` rows per window; the
// refusals beyond are not written one by one but counted, and when the address's window ends one
// summary row says how many there were (outcome `unauthenticated`, error_key
// `unauthenticated_rows_suppressed`). Nothing is lost: every refusal is a row or is counted in one.
//
//   RefusalThrottle throttle({.rows_per_window = 10, .window = 10s});
//   if (!throttle.admit(peer, now)) ledger.suppressRow();   // counted, summarised later
//   for (auto& summary : throttle.due(now)) sink.submit(RefusalThrottle::summaryRow(summary, id));
//
// The table of addresses is bounded (max_peers); beyond it new addresses share one entry, named
// kOtherPeers. Pure (the caller passes the time); thread-safe.

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/audit/record.h"

namespace sluice::audit {

class RefusalThrottle {
 public:
  using SteadyClock = std::chrono::steady_clock;
  struct Options {
    uint32_t rows_per_window = 10;  // 0: no limit, every refusal is a row
    std::chrono::milliseconds window{10000};
    size_t max_peers = 4096;
  };
  // The refusals of one address in one window that were counted instead of written.
  struct Summary {
    std::string peer;
    uint64_t suppressed = 0;
    SteadyClock::time_point from{};  // the window's start
    SteadyClock::time_point to{};    // its end
  };
  static constexpr std::string_view kOtherPeers = "(other addresses)";

  explicit RefusalThrottle(Options options) : options_(options) {}

  // True: write this refusal's row. False: it is counted into the address's summary instead.
  bool admit(std::string_view peer, SteadyClock::time_point now);
  // Summaries of the windows that ended by `now` with refusals counted; those entries go.
  std::vector<Summary> due(SteadyClock::time_point now);
  // Every window's summary now, ended or not (at shutdown).
  std::vector<Summary> drainAll();

  // Refusals counted instead of written, since start.
  uint64_t suppressedTotal() const;
  size_t peers() const;

  // The row that stands for `summary`: created at its window's start, completed at its end.
  static Record summaryRow(const Summary& summary, std::string id, TimePoint wall_now, SteadyClock::time_point now);

 private:
  struct Window {
    SteadyClock::time_point start{};
    uint32_t written = 0;
    uint64_t suppressed = 0;
  };

  Options options_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Window> windows_;
  uint64_t suppressed_total_ = 0;
};

}  // namespace sluice::audit
