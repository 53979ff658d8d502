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
  if (filter.endpoint) {
    if (*filter.endpoint == "chat") {
      sql += " AND route_match NOT LIKE 'endpoint:%'";
    } else {
      // The name escaped for LIKE: a member cannot widen it with % or _.
      std::string pattern = "endpoint:";
      for (const char c : *filter.endpoint) {
        if (c == '%' || c == '_' || c == '\\') pattern += '\\';
        pattern += c;
      }
      sql += " AND (route_match = " + query.quote(pattern) + " OR route_match LIKE " + query.quote(pattern + ";%") + ")";
    }
  }
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

namespace {

// [since, until) cut into the pieces each table answers exactly: raw requests at the ragged
// edges, hourly rollup rows for the whole hours of the edge days, daily rows for whole days.
// A piece whose start is not before its end matches nothing. "infinity" is an open end.
struct UsageSegments {
  std::string raw_from, raw_until, raw2_from, raw2_until;
  std::string hour_from, hour_until, hour2_from, hour2_until;
  std::string day_from, day_until;
};

UsageSegments cutRange(TimePoint since, std::optional<TimePoint> until, bool raw_only) {
  const auto ceilTo = [](TimePoint time, auto unit) {
    const auto floor = std::chrono::floor<decltype(unit)>(time);
    return floor == time ? time : TimePoint(floor + unit);
  };
  const std::string from = formatTimestamp(since);
  const std::string end = until ? formatTimestamp(*until) : "infinity";
  if (raw_only || (until && *until <= since)) return {from, end, from, from, from, from, from, from, from, from};
  const TimePoint h1 = ceilTo(since, std::chrono::hours(1));
  const TimePoint d1 = ceilTo(since, std::chrono::days(1));
  if (!until) {
    return {from, formatTimestamp(h1), from, from, formatTimestamp(h1), formatTimestamp(d1), from, from,
            formatTimestamp(d1), "infinity"};
  }
  const TimePoint h2 = std::chrono::floor<std::chrono::hours>(*until);
  const TimePoint d2 = std::chrono::floor<std::chrono::days>(*until);
  if (h1 >= h2) return {from, end, from, from, from, from, from, from, from, from};
  if (d1 >= d2) {
    return {from, formatTimestamp(h1), formatTimestamp(h2), end, formatTimestamp(h1), formatTimestamp(h2),
            from, from, from, from};
  }
  return {from, formatTimestamp(h1), formatTimestamp(h2), end, formatTimestamp(h1), formatTimestamp(d1),
          formatTimestamp(d2), formatTimestamp(h2), formatTimestamp(d1), formatTimestamp(d2)};
}

}  // namespace

std::vector<UsageRow> usageBy(pqxx::connection& connection, UsageDimension dimension, TimePoint since,
                              std::optional<TimePoint> until) {
  const char* rolled = "t.user_name";
  const char* raw = "coalesce(t.user_name, '')";
  const char* hourly = "ai_usage_hourly";
  const char* daily = "ai_usage_daily";
  const char* join = "";
  switch (dimension) {
    case UsageDimension::User:
      break;
    case UsageDimension::Project:
      rolled = "t.project";
      raw = "coalesce(t.project, '')";
      break;
    case UsageDimension::Model:
      rolled = "t.model";
      raw = "coalesce(t.model, '')";
      break;
    case UsageDimension::Provider:
      rolled = "t.provider";
      raw = "coalesce(t.served_provider, '')";
      break;
    case UsageDimension::Route:
      rolled = "t.route_id";
      raw = "coalesce(t.route_id, '')";
      hourly = "ai_route_usage_hourly";
      daily = "ai_route_usage_daily";
      break;
    case UsageDimension::Deployment:
      rolled = "t.endpoint";
      raw = "coalesce(t.served_endpoint, '')";
      hourly = "ai_route_usage_hourly";
      daily = "ai_route_usage_daily";
      break;
    case UsageDimension::Group:
      rolled = raw = "g.name";
      join = " LEFT JOIN members m ON m.name = t.user_name COLLATE \"C\" CROSS JOIN LATERAL "
             "unnest(CASE WHEN cardinality(m.groups) > 0 THEN m.groups ELSE ARRAY['']::text[] END) AS g(name)";
      break;
    case UsageDimension::Key:
      rolled = raw = "coalesce(t.api_key_id, '')";
      break;
  }
  const UsageSegments cut = cutRange(since, until, dimension == UsageDimension::Key);
  const std::string measures =
      "t.requests, t.failed, t.input_tokens, t.output_tokens, t.cache_read_tokens, t.cache_write_tokens, "
      "t.reasoning_tokens, t.cost_microdollars, t.cache_savings_microdollars";
  const std::string raw_measures =
      "1 AS requests, (t.outcome <> 'ok')::int AS failed, t.input_tokens, t.output_tokens, t.cache_read_tokens, t.cache_write_tokens, "
      "t.reasoning_tokens, t.cost_microdollars, t.cache_savings_microdollars";
  pqxx::nontransaction query(connection);
  // Key has no rollup: only the ai_requests part (its segments then span the whole range).
  const std::string rollups =
      dimension == UsageDimension::Key
          ? std::string()
          : std::string("SELECT ") + rolled + " AS key, " + measures + " FROM " + daily + " t" + join +
                " WHERE t.day >= ($9::timestamptz AT TIME ZONE 'UTC')::date"
                " AND t.day < ($10::timestamptz AT TIME ZONE 'UTC')::date"
                " UNION ALL SELECT " + rolled + ", " + measures + " FROM " + hourly + " t" + join +
                " WHERE (t.hour >= $5::timestamptz AND t.hour < $6::timestamptz)"
                " OR (t.hour >= $7::timestamptz AND t.hour < $8::timestamptz) UNION ALL ";
  const std::string sql =
      "WITH combined AS (" + rollups + "SELECT " + raw + " AS key, " + raw_measures + " FROM ai_requests t" + join +
      " WHERE NOT t.probe AND ((t.created_at >= $1::timestamptz AND t.created_at < $2::timestamptz)"
      " OR (t.created_at >= $3::timestamptz AND t.created_at < $4::timestamptz))"
      ") SELECT key, sum(requests)::bigint, sum(failed)::bigint, sum(input_tokens)::bigint, sum(output_tokens)::bigint, "
      "sum(cache_read_tokens)::bigint, sum(cache_write_tokens)::bigint, sum(reasoning_tokens)::bigint, "
      "sum(cost_microdollars)::bigint, sum(cache_savings_microdollars)::bigint FROM combined GROUP BY key "
      "ORDER BY 9 DESC, 2 DESC, key";
  const pqxx::result result =
      dimension == UsageDimension::Key
          ? query.exec_params(sql, cut.raw_from, cut.raw_until, cut.raw2_from, cut.raw2_until)
          : query.exec_params(sql, cut.raw_from, cut.raw_until, cut.raw2_from, cut.raw2_until, cut.hour_from,
                              cut.hour_until, cut.hour2_from, cut.hour2_until, cut.day_from, cut.day_until);
  std::vector<UsageRow> rows;
  for (const auto& row : result) {
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
