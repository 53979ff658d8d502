#pragma once
// Quota usage counters (one per scope value, window and window start), shared by every replica.
// The domain rules (which windows apply, whether a request fits, enforce or warn) are
// identity::QuotaStore's (server/identity/quota_store.h); this is only the counting.
//
// Implementations: PgQuotaCounters (table `quota_counters`), tests/fakes/fake_quota_counters.h.
// Thread-safe. Environment failures (PostgreSQL down, a busy pool) throw.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sluice::store {

using TimePoint = std::chrono::system_clock::time_point;

// Names one counter row. Whole seconds: the rows keep window bounds to the second.
struct CounterKey {
  std::string scope_kind;
  std::string scope_value;
  std::string window_id;
  TimePoint window_start;
  TimePoint window_end;
};

// What a counter has counted, or a change to it.
struct CounterTotals {
  int64_t requests = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cost_microdollars = 0;
};

// One counter and what it holds.
struct CounterRow {
  CounterKey key;
  CounterTotals totals;
};

class QuotaCounters {
 public:
  virtual ~QuotaCounters() = default;

  // Atomically, against every other reserve() and add() on the same rows: creates the counters of
  // `keys` that do not exist yet (zero), locks them, and calls `admit` with their totals (aligned
  // with `keys`). When `admit` returns true, each counter counts one request and
  // `estimated_input_tokens` more; when false, none changes (the rows created stay, empty).
  // Returns what `admit` returned. Precondition: `keys` distinct and sorted by (scope_kind,
  // scope_value, window_id, window_start): the lock order, so concurrent reservers never
  // deadlock. `admit` may be called more than once (a retried transaction): it must only decide.
  virtual bool reserve(const std::vector<CounterKey>& keys, int64_t estimated_input_tokens,
                       const std::function<bool(const std::vector<CounterTotals>&)>& admit) = 0;

  // Adds `delta` to each counter of `keys` (in reserve()'s order), all in one transaction; a
  // counter that no longer exists is skipped.
  virtual void add(const std::vector<CounterKey>& keys, const CounterTotals& delta) = 0;

  // Deletes counters whose window ended before `before`; returns how many.
  virtual size_t prune(TimePoint before) = 0;

  // The counters whose window ends after `now`, by scope kind, scope value, window id and window
  // start (the console's Members page).
  virtual std::vector<CounterRow> live(TimePoint now) = 0;
};

}  // namespace sluice::store
