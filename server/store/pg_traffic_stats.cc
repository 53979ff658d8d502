#include "server/store/pg_traffic_stats.h"

#include "server/store/audit_store.h"

namespace sluice::store {

namespace {

std::optional<double> optionalDouble(const pqxx::field& field) {
  if (field.is_null()) return std::nullopt;
  return field.as<double>();
}

}  // namespace

PgTrafficStats::PgTrafficStats(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

TrafficReport PgTrafficStats::report(TimePoint from, std::optional<TimePoint> until, int64_t bucket_seconds,
                                     int64_t slo_ms) {
  return pool_->run([&](pqxx::connection& connection) {
    TrafficReport report;
    {
      pqxx::nontransaction query(connection);
      // $2 and $3: the range, an index range on created_at over the partitions it touches.
      const std::string range = "created_at >= $2::timestamptz AND created_at < $3::timestamptz AND NOT probe";
      const std::string first = formatTimestamp(from);
      const std::string last = until ? formatTimestamp(*until) : "infinity";
      for (const auto& row : query.exec_params(
               "SELECT model, count(*), "
               "percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms), "
               "percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms), "
               "count(*) FILTER (WHERE latency_ms > $1), count(*) FILTER (WHERE outcome <> 'ok'), "
               "sum(input_tokens)::bigint, sum(output_tokens)::bigint, sum(cost_microdollars)::bigint, "
               "percentile_cont(0.5) WITHIN GROUP (ORDER BY ttfb_ms) "
               "FROM ai_requests WHERE " + range + " AND model IS NOT NULL GROUP BY model ORDER BY 2 DESC, 1",
               static_cast<int>(slo_ms), first, last)) {
        ModelTraffic model;
        model.model = row[0].as<std::string>();
        model.requests = row[1].as<int64_t>();
        model.p50_ms = optionalDouble(row[2]);
        model.p95_ms = optionalDouble(row[3]);
        model.over_slo = row[4].as<int64_t>();
        model.failed = row[5].as<int64_t>();
        model.input_tokens = row[6].as<int64_t>();
        model.output_tokens = row[7].as<int64_t>();
        model.cost_microdollars = row[8].as<int64_t>();
        model.ttfb_p50_ms = optionalDouble(row[9]);
        report.models.push_back(std::move(model));
      }
      for (const auto& row : query.exec_params(
               "SELECT (floor(extract(epoch FROM created_at) / $1) * $1)::bigint AS b, "
               "count(*), count(*) FILTER (WHERE outcome <> 'ok'), sum(input_tokens)::bigint, "
               "sum(output_tokens)::bigint, sum(cost_microdollars)::bigint "
               "FROM ai_requests WHERE " + range + " GROUP BY b ORDER BY b",
               bucket_seconds, first, last)) {
        report.series.push_back(TrafficBucket{row[0].as<int64_t>(), row[1].as<int64_t>(), row[2].as<int64_t>(),
                                              row[3].as<int64_t>(), row[4].as<int64_t>(), row[5].as<int64_t>()});
      }
    }
    for (const UsageDimension dimension : {UsageDimension::User, UsageDimension::Project, UsageDimension::Model,
                                           UsageDimension::Provider, UsageDimension::Route, UsageDimension::Deployment}) {
      report.cost[dimension] = usageBy(connection, dimension, from, until);
    }
    return report;
  });
}

std::vector<UsageRow> PgTrafficStats::usage(UsageDimension dimension, TimePoint since,
                                            std::optional<TimePoint> until) {
  return pool_->run([&](pqxx::connection& connection) { return usageBy(connection, dimension, since, until); });
}

DayOutcomes PgTrafficStats::todayOutcomes(TimePoint now) {
  return pool_->run([&](pqxx::connection& connection) {
    pqxx::nontransaction query(connection);
    const auto row = query.exec_params1(
        "SELECT count(*), count(*) FILTER (WHERE outcome <> 'ok'), count(*) FILTER (WHERE outcome = 'quota_exceeded'), "
        "count(*) FILTER (WHERE outcome IN ('upstream_error', 'upstream_timeout', 'all_deployments_failed', "
        "'no_deployment_available')) FROM ai_requests WHERE created_at >= $1::timestamptz AND NOT probe",
        formatTimestamp(std::chrono::floor<std::chrono::days>(now)));
    return DayOutcomes{row[0].as<int64_t>(), row[1].as<int64_t>(), row[2].as<int64_t>(), row[3].as<int64_t>()};
  });
}

std::map<std::string, RecentTraffic> PgTrafficStats::recentByModel() {
  return pool_->run([&](pqxx::connection& connection) {
    std::map<std::string, RecentTraffic> recent;
    pqxx::nontransaction query(connection);
    for (const auto& row : query.exec(
             "SELECT coalesce(model, ''), count(*), count(*) FILTER (WHERE outcome <> 'ok'), "
             "count(*) FILTER (WHERE served_endpoint IS NOT NULL AND endpoint IS NOT NULL "
             "AND served_endpoint <> endpoint) "
             "FROM ai_requests WHERE created_at >= now() - interval '15 minutes' AND NOT probe GROUP BY 1")) {
      recent[row[0].as<std::string>()] = RecentTraffic{row[1].as<int64_t>(), row[2].as<int64_t>(), row[3].as<int64_t>()};
    }
    return recent;
  });
}

std::vector<ToolCalls> PgTrafficStats::toolCalls(TimePoint since, int limit) {
  return pool_->run([&](pqxx::connection& connection) {
    std::vector<ToolCalls> calls;
    pqxx::nontransaction query(connection);
    for (const auto& row : query.exec_params(
             "SELECT substr(model, 5), coalesce(requested_model, ''), count(*), "
             "count(*) FILTER (WHERE outcome IN ('access_denied', 'quota_exceeded', 'data_protection_failed', "
             "'data_protection_blocked')), "
             "count(*) FILTER (WHERE outcome <> 'ok' OR error_key IN ('tool_error', 'mcp_error')), "
             "percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) "
             "FROM ai_requests WHERE created_at >= $1::timestamptz AND client_wire = 'mcp' AND model LIKE 'mcp:%' "
             "GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT $2",
             formatTimestamp(since), limit)) {
      ToolCalls entry;
      entry.server = row[0].as<std::string>();
      entry.tool = row[1].as<std::string>();
      entry.calls = row[2].as<int64_t>();
      entry.refused = row[3].as<int64_t>();
      entry.failed = row[4].as<int64_t>();
      if (!row[5].is_null()) entry.p50_ms = row[5].as<double>();
      calls.push_back(std::move(entry));
    }
    return calls;
  });
}

}  // namespace sluice::store
