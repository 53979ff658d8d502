#pragma once
// The audit trail's traffic statistics the console shows: per model over a window (count, latency
// percentiles, failures, tokens, cost), a time series in buckets, cost by dimension (usageBy), and
// the last 15 minutes per model. Console probes are left out of all of them. The JSON the pages
// get is admin's (server/admin/analytics_api.cc, gateway_api.cc).
//
// Implementations: PgTrafficStats (tables ai_requests and the usage rollups). Thread-safe.
// Environment failures throw.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "server/store/audit_queries.h"

namespace sluice::store {

struct ModelTraffic {
  std::string model;
  int64_t requests = 0;
  std::optional<double> p50_ms;
  std::optional<double> p95_ms;
  int64_t over_slo = 0;  // requests with latency_ms above the SLO
  int64_t failed = 0;    // outcome other than ok
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cost_microdollars = 0;
  std::optional<double> ttfb_p50_ms;
};

struct TrafficBucket {
  int64_t start = 0;  // seconds since the epoch, a multiple of the bucket size
  int64_t requests = 0;
  int64_t failed = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cost_microdollars = 0;
};

struct TrafficReport {
  std::vector<ModelTraffic> models;  // busiest first, then by name
  std::vector<TrafficBucket> series;  // oldest first; empty buckets absent
  std::map<UsageDimension, std::vector<UsageRow>> cost;  // every dimension
};

struct RecentTraffic {
  int64_t requests = 0;
  int64_t failed = 0;
  int64_t failed_over = 0;  // served by another endpoint than the first tried
};

class TrafficStats {
 public:
  virtual ~TrafficStats() = default;
  // The requests of the last `seconds` (models, series in buckets of `bucket_seconds`) and the
  // cost since `since`, read on one connection.
  virtual TrafficReport report(int64_t seconds, int64_t bucket_seconds, int64_t slo_ms, TimePoint since) = 0;
  // usageBy(dimension, since).
  virtual std::vector<UsageRow> usage(UsageDimension dimension, TimePoint since) = 0;
  // The last 15 minutes by model ("" for requests without one).
  virtual std::map<std::string, RecentTraffic> recentByModel() = 0;
};

}  // namespace sluice::store
