#include "server/store/audit_queries.h"

#include "server/store/audit_store.h"

namespace sluice::store {

namespace {

std::string likePrefix(const std::string& prefix) {
  std::string pattern;
  for (const char c : prefix) {
    if (c == '%' || c == '_' || c == '\\') pattern += '\\';
    pattern += c;
  }
  return pattern + "%";
}

TimePoint parseEpochMicros(const pqxx::field& field) {
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(std::chrono::microseconds(field.as<int64_t>())));
}

std::string text(const pqxx::field& field) { return field.is_null() ? std::string() : field.as<std::string>(); }

}  // namespace

std::vector<nlohmann::json> findRequestsByIdPrefix(pqxx::connection& connection, const std::string& prefix,
                                                   int limit) {
  pqxx::nontransaction query(connection);
  std::vector<nlohmann::json> rows;
  // `id` is COLLATE "C", so LIKE 'prefix%' is an index range on every partition's primary key.
  for (const auto& row : query.exec_params(
           "SELECT row_to_json(r)::text FROM (SELECT * FROM ai_requests WHERE id LIKE $1 "
           "ORDER BY created_at LIMIT $2) r",
           likePrefix(prefix), limit)) {
    rows.push_back(nlohmann::json::parse(row[0].as<std::string>()));
  }
  return rows;
}

std::vector<RequestSummary> listRequests(pqxx::connection& connection, const RequestFilter& filter) {
  pqxx::nontransaction query(connection);
  // Only the filters given appear in the statement, so each shape meets its own index.
  std::string sql =
      "SELECT id, (extract(epoch FROM created_at) * 1000000)::bigint, user_name, project, requested_model, model, "
      "served_provider, is_streaming, status, outcome, input_tokens, output_tokens, cost_microdollars, latency_ms "
      "FROM ai_requests WHERE created_at >= " + query.quote(formatTimestamp(filter.since)) + "::timestamptz";
  const auto add = [&](const char* column, const std::optional<std::string>& value) {
    if (value) sql += std::string(" AND ") + column + " = " + query.quote(*value);
  };
  add("user_name", filter.user);
  add("project", filter.project);
  add("model", filter.model);
  add("outcome", filter.outcome);
  sql += " ORDER BY created_at DESC LIMIT " + std::to_string(filter.limit);
  std::vector<RequestSummary> rows;
  for (const auto& row : query.exec(sql)) {
    RequestSummary summary;
    summary.id = row[0].as<std::string>();
    summary.created_at = parseEpochMicros(row[1]);
    summary.user = text(row[2]);
    summary.project = text(row[3]);
    summary.requested_model = text(row[4]);
    summary.model = text(row[5]);
    summary.served_provider = text(row[6]);
    summary.is_streaming = row[7].as<bool>();
    summary.status = row[8].as<int>();
    summary.outcome = row[9].as<std::string>();
    summary.input_tokens = row[10].as<int64_t>();
    summary.output_tokens = row[11].as<int64_t>();
    summary.cost_microdollars = row[12].as<int64_t>();
    if (!row[13].is_null()) summary.latency_ms = row[13].as<int64_t>();
    rows.push_back(std::move(summary));
  }
  return rows;
}

double UsageRow::cacheHitRatio() const {
  return input_tokens > 0 ? static_cast<double>(cache_read_tokens) / static_cast<double>(input_tokens) : 0.0;
}

std::vector<UsageRow> usageBy(pqxx::connection& connection, UsageDimension dimension, TimePoint since) {
  const char* rolled = "user_name";
  const char* raw = "coalesce(user_name, '')";
  const char* hourly = "ai_usage_hourly";
  const char* daily = "ai_usage_daily";
  switch (dimension) {
    case UsageDimension::User:
      break;
    case UsageDimension::Project:
      rolled = "project";
      raw = "coalesce(project, '')";
      break;
    case UsageDimension::Model:
      rolled = "model";
      raw = "coalesce(model, '')";
      break;
    case UsageDimension::Provider:
      rolled = "provider";
      raw = "coalesce(served_provider, '')";
      break;
    case UsageDimension::Route:
      rolled = "route_id";
      raw = "coalesce(route_id, '')";
      hourly = "ai_route_usage_hourly";
      daily = "ai_route_usage_daily";
      break;
    case UsageDimension::Deployment:
      rolled = "endpoint";
      raw = "coalesce(served_endpoint, '')";
      hourly = "ai_route_usage_hourly";
      daily = "ai_route_usage_daily";
      break;
  }
  // [since, first whole hour) from ai_requests, [first whole hour, first whole day) from the hourly
  // rollup, whole days from the daily one: exact, and a handful of rows per day of the window.
  const auto hour = std::chrono::floor<std::chrono::hours>(since);
  const TimePoint whole_hour = hour == since ? since : hour + std::chrono::hours(1);
  const auto day = std::chrono::floor<std::chrono::days>(since);
  const TimePoint whole_day = day == since ? since : day + std::chrono::days(1);
  const std::string measures =
      "requests, failed, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, "
      "cost_microdollars, cache_savings_microdollars";
  pqxx::nontransaction query(connection);
  const std::string sql =
      std::string("WITH combined AS (SELECT ") + rolled + " AS key, " + measures +
      " FROM " + daily + " WHERE day >= ($3::timestamptz AT TIME ZONE 'UTC')::date "
      "UNION ALL SELECT " + rolled + ", " + measures +
      " FROM " + hourly + " WHERE hour >= $2::timestamptz AND hour < $3::timestamptz "
      "UNION ALL SELECT " + raw + ", 1, (outcome <> 'ok')::int, input_tokens, output_tokens, cache_read_tokens, "
      "cache_write_tokens, reasoning_tokens, cost_microdollars, cache_savings_microdollars FROM ai_requests "
      "WHERE created_at >= $1::timestamptz AND created_at < $2::timestamptz AND NOT probe) "
      "SELECT key, sum(requests)::bigint, sum(failed)::bigint, sum(input_tokens)::bigint, sum(output_tokens)::bigint, "
      "sum(cache_read_tokens)::bigint, sum(cache_write_tokens)::bigint, sum(reasoning_tokens)::bigint, "
      "sum(cost_microdollars)::bigint, sum(cache_savings_microdollars)::bigint FROM combined GROUP BY key "
      "ORDER BY 9 DESC, 2 DESC, key";
  std::vector<UsageRow> rows;
  for (const auto& row : query.exec_params(sql, formatTimestamp(since), formatTimestamp(whole_hour), formatTimestamp(whole_day))) {
    UsageRow usage;
    usage.key = text(row[0]);
    usage.requests = row[1].as<int64_t>();
    usage.failed = row[2].as<int64_t>();
    usage.input_tokens = row[3].as<int64_t>();
    usage.output_tokens = row[4].as<int64_t>();
    usage.cache_read_tokens = row[5].as<int64_t>();
    usage.cache_write_tokens = row[6].as<int64_t>();
    usage.reasoning_tokens = row[7].as<int64_t>();
    usage.cost_microdollars = row[8].as<int64_t>();
    usage.cache_savings_microdollars = row[9].as<int64_t>();
    rows.push_back(std::move(usage));
  }
  return rows;
}

}  // namespace sluice::store
