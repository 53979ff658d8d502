#include "server/identity/quota_store.h"

#include <algorithm>
#include <tuple>

namespace sluice::identity {

namespace {

auto orderKey(const QuotaCounter& c) {
  return std::tie(c.scope_kind, c.scope_value, c.window->id, c.span.start);
}

}  // namespace

QuotaStore::QuotaStore(std::shared_ptr<store::QuotaCounters> counters) : counters_(std::move(counters)) {}

Reservation QuotaStore::reserve(const catalog::Quotas& quotas, const QuotaSubject& subject,
                                int64_t estimated_input_tokens, TimePoint now, catalog::QuotaUnit unit) {
  Reservation reservation;
  reservation.estimated_input_tokens = estimated_input_tokens;
  std::vector<QuotaCounter> counters = countersFor(quotas, subject, now, unit);
  if (counters.empty()) return reservation;
  // Checked in the catalog's order (the first exceeded window is reported); locked in key order.
  std::vector<const QuotaCounter*> locking;
  for (const auto& counter : counters) locking.push_back(&counter);
  std::sort(locking.begin(), locking.end(), [](auto* a, auto* b) { return orderKey(*a) < orderKey(*b); });
  std::vector<store::CounterKey> keys;
  for (const QuotaCounter* counter : locking) {
    keys.push_back(store::CounterKey{counter->scope_kind, counter->scope_value, counter->window->id,
                                     counter->span.start, counter->span.end});
  }
  std::optional<QuotaBreach> breach;
  std::vector<AlertDue> alerts;
  const bool admitted = counters_->reserve(keys, estimated_input_tokens, [&](const std::vector<store::CounterTotals>& totals) {
    breach.reset();  // a retried transaction decides again
    alerts.clear();
    bool refuse = false;
    for (const QuotaCounter& counter : counters) {
      QuotaUsage used;
      for (size_t i = 0; i < locking.size(); ++i) {
        if (locking[i] != &counter) continue;
        used.requests = totals[i].requests;
        used.input_tokens = totals[i].input_tokens;
        used.output_tokens = totals[i].output_tokens;
        used.cost_microdollars = totals[i].cost_microdollars;
      }
      if (alert_observer_) {
        for (AlertDue& due : alertsDue(counter, used)) alerts.push_back(std::move(due));
      }
      auto found = checkCounter(counter, used, estimated_input_tokens);
      if (!found) continue;
      // A window's own mode wins over the quotas' one: a `warn` window is recorded, never refuses.
      if (counter.window->mode.value_or(quotas.mode) == catalog::QuotaMode::Enforce) {
        breach = std::move(found);
        refuse = true;
        break;
      }
      if (!breach) breach = std::move(found);
    }
    return !refuse;
  });
  reservation.breach = std::move(breach);
  if (alert_observer_ && !alerts.empty()) alert_observer_(std::move(alerts));
  if (!admitted) {
    reservation.admitted = false;
    return reservation;
  }
  reservation.counted = std::move(keys);
  return reservation;
}

void QuotaStore::settle(const Reservation& reservation, const QuotaUsage& usage) {
  counters_->add(reservation.counted, store::CounterTotals{0, usage.input_tokens - reservation.estimated_input_tokens,
                                                           usage.output_tokens, usage.cost_microdollars});
}

void QuotaStore::release(const Reservation& reservation) {
  counters_->add(reservation.counted, store::CounterTotals{-1, -reservation.estimated_input_tokens, 0, 0});
}

size_t QuotaStore::prune(TimePoint before) { return counters_->prune(before); }

}  // namespace sluice::identity
