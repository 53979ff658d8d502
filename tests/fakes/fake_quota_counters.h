#pragma once
// QuotaCounters in memory, with PgQuotaCounters' contract: reserve() creates, checks and counts
// under one lock (so it is atomic against every other call, as the row locks make the real one),
// a refused reservation keeps the empty counters it created, add() skips counters that are gone,
// prune() deletes counters whose window ended before the given time, live() lists those whose
// window ends after it.
//
// For tests: what each counter holds, how many calls reached it, and a switch that makes every
// call throw as an unreachable database would. Thread-safe.

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "server/store/quota_counters.h"

namespace sluice::fakes {

class FakeQuotaCounters : public store::QuotaCounters {
 public:
  bool reserve(const std::vector<store::CounterKey>& keys, int64_t estimated_input_tokens,
               const std::function<bool(const std::vector<store::CounterTotals>&)>& admit) override;
  void add(const std::vector<store::CounterKey>& keys, const store::CounterTotals& delta) override;
  size_t prune(store::TimePoint before) override;
  std::vector<store::CounterRow> live(store::TimePoint now) override;

  // The counter of this window's scope value (any window start); nullopt when there is none.
  std::optional<store::CounterTotals> totals(const std::string& scope_kind, const std::string& scope_value,
                                             const std::string& window_id) const;
  size_t counters() const;
  // reserve(), add(), prune() and live() calls that reached the store (a failing one included).
  size_t calls() const;
  // While true, every call throws std::runtime_error("database unreachable") and changes nothing.
  void setFailing(bool failing);

 private:
  using Key = std::tuple<std::string, std::string, std::string, store::TimePoint>;
  struct Counter {
    store::TimePoint window_end;
    store::CounterTotals totals;
  };
  void enter();  // under mutex_: counts the call, throws when failing

  mutable std::mutex mutex_;
  std::map<Key, Counter> counters_;
  size_t calls_ = 0;
  bool failing_ = false;
};

}  // namespace sluice::fakes
