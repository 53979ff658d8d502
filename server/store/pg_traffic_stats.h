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

  TrafficReport report(TimePoint from, std::optional<TimePoint> until, int64_t bucket_seconds,
                       int64_t slo_ms) override;
  std::vector<UsageRow> usage(UsageDimension dimension, TimePoint since,
                              std::optional<TimePoint> until = std::nullopt) override;
  DayOutcomes todayOutcomes(TimePoint now) override;
  std::map<std::string, RecentTraffic> recentByModel() override;
  std::vector<ToolCalls> toolCalls(TimePoint since, int limit) override;

 private:
  std::shared_ptr<ConnectionPool> pool_;
};

}  // namespace sluice::store
