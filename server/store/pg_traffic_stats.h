#pragma once
// TrafficStats in PostgreSQL: the statements the console's analytics and gateway pages ran, each
// call on one leased connection. Thread-safe (the pool is); throws pqxx errors / PoolExhausted.

#include <memory>

#include "server/store/connection_pool.h"
#include "server/store/traffic_stats.h"

namespace sluice::store {

class PgTrafficStats : public TrafficStats {
 public:
  explicit PgTrafficStats(std::shared_ptr<ConnectionPool> pool);

  TrafficReport report(int64_t seconds, int64_t bucket_seconds, int64_t slo_ms, TimePoint since) override;
  std::vector<UsageRow> usage(UsageDimension dimension, TimePoint since) override;
  std::map<std::string, RecentTraffic> recentByModel() override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
