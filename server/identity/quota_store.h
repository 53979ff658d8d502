#pragma once
// Quota usage counted in shared counters (store::QuotaCounters: PostgreSQL in the server), so a
// budget holds across replicas.
//
// reserve() runs before the upstream call: atomically, it creates the request's counters if
// needed, locks them (always in key order, so concurrent reservers never deadlock), checks every
// window (quota.h checkCounter) and, when admitted, counts the request (requests + 1, input
// tokens + the estimate). settle() runs after: it corrects input tokens to the actual count and
// adds output tokens and cost. A window is therefore overrun by at most what the requests in
// flight spend. Mode (a window's own `mode`, else catalog Quotas::mode):
//   enforce: a request that would exceed any window is refused and counted nowhere;
//   warn:    it is admitted and counted; the breach is returned so the caller records it.
//
// Thread-safe (the counters are). Throws what the counters throw when PostgreSQL fails
// (store/database_failure.h tells which failure); the caller decides whether to fail open or closed.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "server/identity/budget_alerts.h"
#include "server/identity/quota.h"
#include "server/store/quota_counters.h"

namespace sluice::identity {

// One counter a reservation was counted in.
using CounterRef = store::CounterKey;

struct Reservation {
  bool admitted = true;
  // The first window found exceeded: why the request was refused (enforce), or the breach to
  // record (warn). nullopt when every window had room.
  std::optional<QuotaBreach> breach;
  std::vector<CounterRef> counted;  // empty when refused or when no window applies
  int64_t estimated_input_tokens = 0;
};

class QuotaStore {
 public:
  // Told, after each reservation, the `alerts:` its counters have reached (budget_alerts.h),
  // whether the request was admitted or refused; never called with an empty list. Must not block
  // (it runs on the request path) nor throw.
  using AlertObserver = std::function<void(std::vector<AlertDue>)>;

  explicit QuotaStore(std::shared_ptr<store::QuotaCounters> counters);
  // Set once at boot, before the first reserve().
  void observeAlerts(AlertObserver observer) { alert_observer_ = std::move(observer); }

  // No window applying to `subject` → admitted without touching the counters.
  // Only the windows that count `unit` (a model request, or an MCP tool call) are asked.
  Reservation reserve(const catalog::Quotas& quotas, const QuotaSubject& subject, int64_t estimated_input_tokens,
                      TimePoint now, catalog::QuotaUnit unit = catalog::QuotaUnit::Requests);
  // After the call: actual tokens and cost (usage.requests is ignored), all counters in one
  // transaction. A refused or empty reservation is a no-op.
  void settle(const Reservation& reservation, const QuotaUsage& usage);
  // Un-counts an admitted request that was never sent (refused later, client gone before dispatch).
  void release(const Reservation& reservation);
  // Deletes counters of windows that ended before `before`; returns how many.
  size_t prune(TimePoint before);

 private:
  std::shared_ptr<store::QuotaCounters> counters_;
  AlertObserver alert_observer_;
};

}  // namespace sluice::identity
