#pragma once
// The audit trail's read side, for `sluicectl audit`, `requests list` and `usage` (and the console).
// Every function throws pqxx errors when PostgreSQL fails; none writes.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <pqxx/pqxx>

namespace sluice::store {

using TimePoint = std::chrono::system_clock::time_point;

// The rows whose id starts with `prefix` (at most `limit`, oldest first), each as a JSON object
// keyed by column name (attempts as an array). Empty when none matches.
std::vector<nlohmann::json> findRequestsByIdPrefix(pqxx::connection& connection, const std::string& prefix,
                                                   int limit = 2);

struct RequestFilter {
  TimePoint since;
  std::optional<std::string> user;
  std::optional<std::string> project;
  std::optional<std::string> model;      // the resolved model (column `model`)
  std::optional<std::string> outcome;
  int limit = 100;
  // The endpoint's name as route_match leads with it ("mcp", "embeddings", "count_tokens", …);
  // "chat" is the three chat endpoints (their route_match has no endpoint segment).
  std::optional<std::string> endpoint = std::nullopt;
};

struct RequestSummary {
  std::string id;
  TimePoint created_at;
  std::string user;
  std::string project;
  std::string requested_model;
  std::string model;
  std::string served_provider;
  bool is_streaming = false;
  int status = 0;
  std::string outcome;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cost_microdollars = 0;
  std::optional<int64_t> latency_ms;
};

// Requests since filter.since matching every given filter, newest first, at most filter.limit.
std::vector<RequestSummary> listRequests(pqxx::connection& connection, const RequestFilter& filter);

// Provider is the served provider; Route the catalog route; Deployment the served endpoint
// ("provider/endpoint"); Group each of the member's groups (as the members table holds them now,
// so a member in two groups counts in both, and one without any under ""); Key the API key id.
enum class UsageDimension { User, Project, Model, Provider, Route, Deployment, Group, Key };

struct UsageRow {
  std::string key;   // "" when the dimension was empty (unauthenticated, nothing served, …)
  int64_t requests = 0;
  int64_t failed = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cache_read_tokens = 0;
  int64_t cache_write_tokens = 0;
  int64_t reasoning_tokens = 0;
  int64_t cost_microdollars = 0;
  int64_t cache_savings_microdollars = 0;

  // The share of prompt tokens read from a cache: cache_read_tokens / input_tokens (input_tokens
  // counts every prompt token, cached ones included; wire::Usage). 0 when there were none.
  double cacheHitRatio() const;
};

// Totals per dimension value for the requests since `since` (probes excluded), costliest first.
// Whole days come from ai_usage_daily, whole hours of the first day from ai_usage_hourly, the part
// of the first hour after `since` from ai_requests: exact to the microsecond and cheap at any size.
// Route and Deployment read ai_route_usage_daily and ai_route_usage_hourly the same way, Group joins
// the user rollups to members. With `until`, only requests before it count ([since, until)); the
// part of its last hour comes from ai_requests, the rest of its last day from the hourly rollup.
// Key has no rollup: it reads ai_requests for the whole range (callers bound the range).
std::vector<UsageRow> usageBy(pqxx::connection& connection, UsageDimension dimension, TimePoint since,
                              std::optional<TimePoint> until = std::nullopt);

}  // namespace sluice::store
