#pragma once
// QuotaCounters in PostgreSQL (table `quota_counters`, migrations/0003_identity.sql): reserve() is one
// transaction that upserts the rows, locks them in key order (SELECT … FOR UPDATE) and counts;
// a deadlock (impossible between reservers, see the .cc) is retried a few times.
//
// Thread-safe (each call leases its own connection). Throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/quota_counters.h"

namespace sluice::store {

class PgQuotaCounters : public QuotaCounters {
 public:
  explicit PgQuotaCounters(std::shared_ptr<ConnectionPool> pool);

  bool reserve(const std::vector<CounterKey>& keys, int64_t estimated_input_tokens,
               const std::function<bool(const std::vector<CounterTotals>&)>& admit) override;
  void add(const std::vector<CounterKey>& keys, const CounterTotals& delta) override;
  size_t prune(TimePoint before) override;
  std::vector<CounterRow> live(TimePoint now) override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
