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

struct DayOutcomes {
  int64_t requests = 0;
  int64_t failed = 0;             // outcome other than ok
  int64_t quota_refused = 0;      // quota_exceeded
  int64_t provider_failed = 0;    // the deployments failed or could not be reached
};

// MCP tool calls (and reads, prompts) by server and tool over a window (docs/mcp.md).
struct ToolCalls {
  std::string server;  // the provider (the row's model without its "mcp:" prefix)
  std::string tool;    // the tool or prompt name, or the resource URI
  int64_t calls = 0;
  int64_t refused = 0;     // outcome access_denied, quota_exceeded or data_protection_*
  int64_t failed = 0;      // another outcome than ok, or served with tool_error / mcp_error
  std::optional<double> p50_ms;
};

class TrafficStats {
 public:
  virtual ~TrafficStats() = default;
  // The requests in [from, until) (until none: up to now): models, series in buckets of
  // `bucket_seconds`, and the cost per dimension, read on one connection.
  virtual TrafficReport report(TimePoint from, std::optional<TimePoint> until, int64_t bucket_seconds,
                               int64_t slo_ms) = 0;
  // usageBy(dimension, since, until).
  virtual std::vector<UsageRow> usage(UsageDimension dimension, TimePoint since,
                                      std::optional<TimePoint> until = std::nullopt) = 0;
  // Today's (UTC) requests: how many, and how many failed, with quota refusals (outcome
  // quota_exceeded) and provider failures (upstream_error, upstream_timeout, all_deployments_failed,
  // no_deployment_available) counted apart.
  virtual DayOutcomes todayOutcomes(TimePoint now) = 0;
  // The last 15 minutes by model ("" for requests without one).
  virtual std::map<std::string, RecentTraffic> recentByModel() = 0;
  // MCP calls since `since`, by server and tool, busiest first, at most `limit` pairs.
  virtual std::vector<ToolCalls> toolCalls(TimePoint since, int limit) = 0;
};

}  // namespace sluice::store
