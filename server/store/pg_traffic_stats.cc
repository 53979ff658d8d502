#include "server/store/pg_traffic_stats.h"

namespace sluice::store {

namespace {

std::optional<double> optionalDouble(const pqxx::field& field) {
  if (field.is_null()) return std::nullopt;
  return field.as<double>();
}

}  // namespace

PgTrafficStats::PgTrafficStats(std::shared_ptr<ConnectionPool> pool) : pool_(std::move(pool)) {}

TrafficReport PgTrafficStats::report(int64_t seconds, int64_t bucket_seconds, int64_t slo_ms, TimePoint since) {
  return pool_->run([&](pqxx::connection& connection) {
    TrafficReport report;
    {
      pqxx::nontransaction query(connection);
      const std::string range =
          "created_at >= now() - " + query.quote(std::to_string(seconds) + " seconds") + "::interval AND NOT probe";
      for (const auto& row : query.exec_params(
               "SELECT model, count(*), "
               "percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms), "
               "percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms), "
               "count(*) FILTER (WHERE latency_ms > $1), count(*) FILTER (WHERE outcome <> 'ok'), "
               "sum(input_tokens)::bigint, sum(output_tokens)::bigint, sum(cost_microdollars)::bigint, "
               "percentile_cont(0.5) WITHIN GROUP (ORDER BY ttfb_ms) "
               "FROM ai_requests WHERE " + range + " AND model IS NOT NULL GROUP BY model ORDER BY 2 DESC, 1",
               static_cast<int>(slo_ms))) {
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
      const std::string bucket = std::to_string(bucket_seconds);
      for (const auto& row : query.exec(
               "SELECT (floor(extract(epoch FROM created_at) / " + bucket + ") * " + bucket + ")::bigint AS b, "
               "count(*), count(*) FILTER (WHERE outcome <> 'ok'), sum(input_tokens)::bigint, "
               "sum(output_tokens)::bigint, sum(cost_microdollars)::bigint "
               "FROM ai_requests WHERE " + range + " GROUP BY b ORDER BY b")) {
        report.series.push_back(TrafficBucket{row[0].as<int64_t>(), row[1].as<int64_t>(), row[2].as<int64_t>(),
                                              row[3].as<int64_t>(), row[4].as<int64_t>(), row[5].as<int64_t>()});
      }
    }
    for (const UsageDimension dimension : {UsageDimension::User, UsageDimension::Project, UsageDimension::Model,
                                           UsageDimension::Provider, UsageDimension::Route, UsageDimension::Deployment}) {
      report.cost[dimension] = usageBy(connection, dimension, since);
    }
    return report;
  });
}

std::vector<UsageRow> PgTrafficStats::usage(UsageDimension dimension, TimePoint since) {
  return pool_->run([&](pqxx::connection& connection) { return usageBy(connection, dimension, since); });
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

}  // namespace sluice::store
