// The Analytics page: latency percentiles and SLO share per model, traffic over time, cost by
// dimension, cache hit ratio and savings per route and served deployment, and the same as CSV. Probes (console Test calls) are excluded everywhere.
#include <algorithm>
#include <chrono>
#include <sstream>

#include <pqxx/pqxx>

#include "server/admin/api.h"
#include "server/admin/json_time.h"
#include "server/store/audit_queries.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

struct Window {
  long long seconds = 86400;
  long long bucket_seconds = 3600;
  int slo_ms = 5000;
};

// since: 1h..90d (default 24h); buckets of about 1/48 of it, rounded to a friendly size.
std::expected<Window, Reply> windowOf(const Exchange& exchange) {
  Window window;
  const auto since = parseDurationSeconds(exchange.param("since", "24h"));
  if (!since) return std::unexpected(Reply::error(400, "bad_since", "since: a duration such as 1h, 24h, 7d"));
  window.seconds = std::clamp<long long>(*since, 300, 90LL * 86400);
  constexpr long long kSizes[] = {60, 300, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400};
  window.bucket_seconds = kSizes[std::size(kSizes) - 1];
  for (const long long size : kSizes) {
    if (window.seconds / size <= 60) {
      window.bucket_seconds = size;
      break;
    }
  }
  try {
    window.slo_ms = std::clamp(std::stoi(exchange.param("slo_ms", "5000")), 500, 60000);
  } catch (const std::exception&) {
    return std::unexpected(Reply::error(400, "bad_slo_ms", "slo_ms: milliseconds, 500 to 60000"));
  }
  return window;
}

std::string csvField(const std::string& value) {
  if (value.find_first_of(",\"\n") == std::string::npos) return value;
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::optional<store::UsageDimension> dimensionOf(const std::string& name) {
  if (name == "member" || name == "user") return store::UsageDimension::User;
  if (name == "project") return store::UsageDimension::Project;
  if (name == "model") return store::UsageDimension::Model;
  if (name == "provider") return store::UsageDimension::Provider;
  if (name == "route") return store::UsageDimension::Route;
  if (name == "deployment") return store::UsageDimension::Deployment;
  return std::nullopt;
}

json usageJson(const std::vector<store::UsageRow>& rows) {
  json out = json::array();
  for (const auto& row : rows) {
    out.push_back({{"key", row.key},
                   {"requests", row.requests},
                   {"failed", row.failed},
                   {"input_tokens", row.input_tokens},
                   {"output_tokens", row.output_tokens},
                   {"cache_read_tokens", row.cache_read_tokens},
                   {"cache_write_tokens", row.cache_write_tokens},
                   {"cache_hit_ratio", row.cacheHitRatio()},
                   {"cost_microdollars", row.cost_microdollars},
                   {"cache_savings_microdollars", row.cache_savings_microdollars}});
  }
  return out;
}

}  // namespace

Reply analytics(ConsoleContext& context, const Exchange& exchange) {
  if (!context.pool) return Reply::error(503, "no_database", "this gateway has no database");
  auto window = windowOf(exchange);
  if (!window) return window.error();
  const auto now = std::chrono::system_clock::now();
  const auto since = now - std::chrono::seconds(window->seconds);
  return context.pool->run([&](pqxx::connection& connection) {
    json models = json::array();
    json series = json::array();
    {
      pqxx::nontransaction query(connection);
      const std::string range = "created_at >= now() - " +
                                query.quote(std::to_string(window->seconds) + " seconds") + "::interval AND NOT probe";
      for (const auto& row : query.exec_params(
               "SELECT model, count(*), "
               "percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms), "
               "percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms), "
               "count(*) FILTER (WHERE latency_ms > $1), count(*) FILTER (WHERE outcome <> 'ok'), "
               "sum(input_tokens)::bigint, sum(output_tokens)::bigint, sum(cost_microdollars)::bigint, "
               "percentile_cont(0.5) WITHIN GROUP (ORDER BY ttfb_ms) "
               "FROM ai_requests WHERE " + range + " AND model IS NOT NULL GROUP BY model ORDER BY 2 DESC, 1",
               window->slo_ms)) {
        const auto requests = row[1].as<int64_t>();
        const auto over = row[4].as<int64_t>();
        models.push_back({{"model", row[0].as<std::string>()},
                          {"requests", requests},
                          {"p50_ms", row[2].is_null() ? json(nullptr) : json(row[2].as<double>())},
                          {"p95_ms", row[3].is_null() ? json(nullptr) : json(row[3].as<double>())},
                          {"over_slo", over},
                          {"over_slo_share", requests ? static_cast<double>(over) / static_cast<double>(requests) : 0.0},
                          {"failed", row[5].as<int64_t>()},
                          {"input_tokens", row[6].as<int64_t>()},
                          {"output_tokens", row[7].as<int64_t>()},
                          {"cost_microdollars", row[8].as<int64_t>()},
                          {"ttfb_p50_ms", row[9].is_null() ? json(nullptr) : json(row[9].as<double>())}});
      }
      const std::string bucket = std::to_string(window->bucket_seconds);
      for (const auto& row : query.exec(
               "SELECT (floor(extract(epoch FROM created_at) / " + bucket + ") * " + bucket + ")::bigint AS b, "
               "count(*), count(*) FILTER (WHERE outcome <> 'ok'), sum(input_tokens)::bigint, "
               "sum(output_tokens)::bigint, sum(cost_microdollars)::bigint "
               "FROM ai_requests WHERE " + range + " GROUP BY b ORDER BY b")) {
        series.push_back({{"t", row[0].as<int64_t>()},
                          {"requests", row[1].as<int64_t>()},
                          {"failed", row[2].as<int64_t>()},
                          {"input_tokens", row[3].as<int64_t>()},
                          {"output_tokens", row[4].as<int64_t>()},
                          {"cost_microdollars", row[5].as<int64_t>()}});
      }
    }
    json cost = json::object();
    cost["member"] = usageJson(store::usageBy(connection, store::UsageDimension::User, since));
    cost["project"] = usageJson(store::usageBy(connection, store::UsageDimension::Project, since));
    cost["model"] = usageJson(store::usageBy(connection, store::UsageDimension::Model, since));
    cost["provider"] = usageJson(store::usageBy(connection, store::UsageDimension::Provider, since));
    cost["route"] = usageJson(store::usageBy(connection, store::UsageDimension::Route, since));
    cost["deployment"] = usageJson(store::usageBy(connection, store::UsageDimension::Deployment, since));
    const long long now_s = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    return Reply::json({{"since_seconds", window->seconds},
                        {"from", now_s - window->seconds},
                        {"to", now_s},
                        {"bucket_seconds", window->bucket_seconds},
                        {"slo_ms", window->slo_ms},
                        {"models", models},
                        {"series", series},
                        {"cost_by", cost}});
  });
}

Reply analyticsCsv(ConsoleContext& context, const Exchange& exchange) {
  if (!context.pool) return Reply::error(503, "no_database", "this gateway has no database");
  auto window = windowOf(exchange);
  if (!window) return window.error();
  const std::string by = exchange.param("by", "model");
  const auto dimension = dimensionOf(by);
  if (!dimension) return Reply::error(400, "bad_by", "by: member, project, model, provider, route or deployment");
  const auto since = std::chrono::system_clock::now() - std::chrono::seconds(window->seconds);
  const auto rows = context.pool->run(
      [&](pqxx::connection& connection) { return store::usageBy(connection, *dimension, since); });
  std::ostringstream csv;
  csv << by << ",requests,failed,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,reasoning_tokens,"
      << "cost_usd,cache_hit_ratio,cache_savings_usd\n";
  for (const auto& row : rows) {
    char cost[32];
    std::snprintf(cost, sizeof cost, "%.6f", static_cast<double>(row.cost_microdollars) / 1e6);
    char ratio[16];
    std::snprintf(ratio, sizeof ratio, "%.4f", row.cacheHitRatio());
    char savings[32];
    std::snprintf(savings, sizeof savings, "%.6f", static_cast<double>(row.cache_savings_microdollars) / 1e6);
    csv << csvField(row.key) << ',' << row.requests << ',' << row.failed << ',' << row.input_tokens << ','
        << row.output_tokens << ',' << row.cache_read_tokens << ',' << row.cache_write_tokens << ','
        << row.reasoning_tokens << ',' << cost << ',' << ratio << ',' << savings << '\n';
  }
  Reply reply;
  reply.content_type = "text/csv; charset=utf-8";
  reply.body = csv.str();
  reply.headers.emplace_back("Content-Disposition", "attachment; filename=\"sluice-cost-by-" + by + ".csv\"");
  return reply;
}

}  // namespace sluice::admin
