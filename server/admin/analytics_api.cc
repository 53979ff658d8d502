// The Analytics page: latency percentiles and SLO share per model, traffic over time, cost by
// dimension and the top spenders, cache hit ratio and savings per route and served deployment, and
// the same as CSV, over a preset (since=24h) or a UTC date range (from=…&until=…). Probes (console
// Test calls) are excluded everywhere.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <sstream>

#include "server/admin/api.h"
#include "server/admin/json_time.h"
#include "server/store/audit_queries.h"
#include "server/store/usage_range.h"
#include "server/text/csv_cell.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

constexpr int kMaxRangeDays = 400;
constexpr size_t kTopSpenders = 10;

struct Window {
  std::chrono::system_clock::time_point from;
  std::optional<std::chrono::system_clock::time_point> until;  // none: up to now
  long long seconds = 86400;
  long long bucket_seconds = 3600;
  int slo_ms = 5000;
  bool dated = false;  // from/until given rather than a preset
};

// Either a preset, since=1h..90d (default 24h), or a date range, from=2026-12-01 [until=2026-12-02]
// (UTC, half-open, at most 400 days). Buckets of about 1/48 of it, rounded to a friendly size.
std::expected<Window, Reply> windowOf(const Exchange& exchange, std::chrono::system_clock::time_point now) {
  Window window;
  const std::string from = exchange.param("from");
  const std::string until = exchange.param("until");
  if (!from.empty() || !until.empty()) {
    store::UsageRangeQuestion question;
    question.since_name = "since";
    question.from_name = "from";
    question.until_name = "until";
    question.max_span = std::chrono::days(kMaxRangeDays);
    if (!from.empty()) question.from = from;
    if (!until.empty()) question.until = until;
    const auto range = store::resolveUsageRange(question, now);
    if (!range) return std::unexpected(Reply::error(400, "bad_range", range.error()));
    window.from = range->from;
    window.until = range->until;
    window.dated = true;
    window.seconds = std::max<long long>(
        1, std::chrono::duration_cast<std::chrono::seconds>(range->until.value_or(now) - range->from).count());
  } else {
    const auto since = parseDurationSeconds(exchange.param("since", "24h"));
    if (!since) return std::unexpected(Reply::error(400, "bad_since", "since: a duration such as 1h, 24h, 7d"));
    window.seconds = std::clamp<long long>(*since, 300, 90LL * 86400);
    window.from = now - std::chrono::seconds(window.seconds);
  }
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

std::optional<store::UsageDimension> dimensionOf(const std::string& name) {
  if (name == "member" || name == "user") return store::UsageDimension::User;
  if (name == "project") return store::UsageDimension::Project;
  if (name == "group") return store::UsageDimension::Group;
  if (name == "model") return store::UsageDimension::Model;
  if (name == "provider") return store::UsageDimension::Provider;
  if (name == "route") return store::UsageDimension::Route;
  if (name == "deployment") return store::UsageDimension::Deployment;
  return std::nullopt;
}

json usageJson(const std::vector<store::UsageRow>& rows, size_t limit = SIZE_MAX) {
  json out = json::array();
  for (const auto& row : rows) {
    if (out.size() >= limit) break;
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
  const auto now = std::chrono::system_clock::now();
  auto window = windowOf(exchange, now);
  if (!window) return window.error();
  const store::TrafficReport report =
      context.traffic->report(window->from, window->until, window->bucket_seconds, window->slo_ms);
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
  // The costliest ten per member, project and model over the same range, for the "top spenders" table.
  json top = json::object();
  top["member"] = usageJson(report.cost.at(store::UsageDimension::User), kTopSpenders);
  top["project"] = usageJson(report.cost.at(store::UsageDimension::Project), kTopSpenders);
  top["model"] = usageJson(report.cost.at(store::UsageDimension::Model), kTopSpenders);
  const auto epoch = [](std::chrono::system_clock::time_point time) {
    return std::chrono::duration_cast<std::chrono::seconds>(time.time_since_epoch()).count();
  };
  return Reply::json({{"since_seconds", window->seconds},
                      {"from", epoch(window->from)},
                      {"to", epoch(window->until.value_or(now))},
                      {"dated", window->dated},
                      {"top_spenders", top},
                      {"bucket_seconds", window->bucket_seconds},
                      {"slo_ms", window->slo_ms},
                      {"models", models},
                      {"series", series},
                      {"cost_by", cost}});
}

Reply analyticsCsv(ConsoleContext& context, const Exchange& exchange) {
  if (!context.traffic) return Reply::error(503, "no_database", "this gateway has no database");
  auto window = windowOf(exchange, std::chrono::system_clock::now());
  if (!window) return window.error();
  const std::string by = exchange.param("by", "model");
  const auto dimension = dimensionOf(by);
  if (!dimension) return Reply::error(400, "bad_by", "by: member, project, group, model, provider, route or deployment");
  const auto rows = context.traffic->usage(*dimension, window->from, window->until);
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
    csv << text::csvCell(row.key) << ',' << row.requests << ',' << row.failed << ',' << row.input_tokens << ','
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
