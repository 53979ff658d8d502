// The Analytics page: latency percentiles and SLO share per model, traffic over time, cost by
// dimension, cache hit ratio and savings per route and served deployment, and the same as CSV. Probes (console Test calls) are excluded everywhere.
#include <algorithm>
#include <chrono>
#include <sstream>

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
  if (!context.traffic) return Reply::error(503, "no_database", "this gateway has no database");
  auto window = windowOf(exchange);
  if (!window) return window.error();
  const auto now = std::chrono::system_clock::now();
  const auto since = now - std::chrono::seconds(window->seconds);
  const store::TrafficReport report =
      context.traffic->report(window->seconds, window->bucket_seconds, window->slo_ms, since);
  json models = json::array();
  for (const store::ModelTraffic& model : report.models) {
    const auto optional = [](const std::optional<double>& value) { return value ? json(*value) : json(nullptr); };
    models.push_back({{"model", model.model},
                      {"requests", model.requests},
                      {"p50_ms", optional(model.p50_ms)},
                      {"p95_ms", optional(model.p95_ms)},
                      {"over_slo", model.over_slo},
                      {"over_slo_share", model.requests ? static_cast<double>(model.over_slo) /
                                                              static_cast<double>(model.requests)
                                                        : 0.0},
                      {"failed", model.failed},
                      {"input_tokens", model.input_tokens},
                      {"output_tokens", model.output_tokens},
                      {"cost_microdollars", model.cost_microdollars},
                      {"ttfb_p50_ms", optional(model.ttfb_p50_ms)}});
  }
  json series = json::array();
  for (const store::TrafficBucket& bucket : report.series) {
    series.push_back({{"t", bucket.start},
                      {"requests", bucket.requests},
                      {"failed", bucket.failed},
                      {"input_tokens", bucket.input_tokens},
                      {"output_tokens", bucket.output_tokens},
                      {"cost_microdollars", bucket.cost_microdollars}});
  }
  json cost = json::object();
  cost["member"] = usageJson(report.cost.at(store::UsageDimension::User));
  cost["project"] = usageJson(report.cost.at(store::UsageDimension::Project));
  cost["model"] = usageJson(report.cost.at(store::UsageDimension::Model));
  cost["provider"] = usageJson(report.cost.at(store::UsageDimension::Provider));
  cost["route"] = usageJson(report.cost.at(store::UsageDimension::Route));
  cost["deployment"] = usageJson(report.cost.at(store::UsageDimension::Deployment));
  const long long now_s = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  return Reply::json({{"since_seconds", window->seconds},
                      {"from", now_s - window->seconds},
                      {"to", now_s},
                      {"bucket_seconds", window->bucket_seconds},
                      {"slo_ms", window->slo_ms},
                      {"models", models},
                      {"series", series},
                      {"cost_by", cost}});
}

Reply analyticsCsv(ConsoleContext& context, const Exchange& exchange) {
  if (!context.traffic) return Reply::error(503, "no_database", "this gateway has no database");
  auto window = windowOf(exchange);
  if (!window) return window.error();
  const std::string by = exchange.param("by", "model");
  const auto dimension = dimensionOf(by);
  if (!dimension) return Reply::error(400, "bad_by", "by: member, project, model, provider, route or deployment");
  const auto since = std::chrono::system_clock::now() - std::chrono::seconds(window->seconds);
  const auto rows = context.traffic->usage(*dimension, since);
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
