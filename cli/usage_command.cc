#include "cli/usage_command.h"

#include <cmath>
#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

#include "cli/duration.h"
#include "cli/table.h"
#include "cli/zone_option.h"
#include "server/store/audit_queries.h"
#include "server/store/audit_store.h"
#include "server/store/usage_range.h"

namespace sluice::cli {

namespace {

constexpr int kMaxTop = 10'000;

std::optional<store::UsageDimension> dimensionNamed(const std::string& by) {
  using store::UsageDimension;
  if (by == "user" || by == "member") return UsageDimension::User;
  if (by == "project") return UsageDimension::Project;
  if (by == "group") return UsageDimension::Group;
  if (by == "model") return UsageDimension::Model;
  if (by == "provider") return UsageDimension::Provider;
  if (by == "key") return UsageDimension::Key;
  if (by == "route") return UsageDimension::Route;
  if (by == "deployment") return UsageDimension::Deployment;
  return std::nullopt;
}

// 0.8333 → "83.3%"; a ratio of nothing → "-".
std::string percent(double ratio, bool any) {
  if (!any) return "-";
  char text[16];
  std::snprintf(text, sizeof text, "%.1f%%", ratio * 100.0);
  return text;
}

// Ratios in JSON and CSV: four decimals, enough for a share and stable in tests.
double roundedRatio(double ratio) { return std::round(ratio * 10000.0) / 10000.0; }

nlohmann::json measuresJson(const store::UsageRow& row) {
  return nlohmann::json{{"requests", row.requests},
                        {"failed", row.failed},
                        {"input_tokens", row.input_tokens},
                        {"output_tokens", row.output_tokens},
                        {"cache_read_tokens", row.cache_read_tokens},
                        {"cache_write_tokens", row.cache_write_tokens},
                        {"reasoning_tokens", row.reasoning_tokens},
                        {"cost_microdollars", row.cost_microdollars},
                        {"cost_usd", formatDollars(row.cost_microdollars).substr(1)},
                        {"cache_hit_ratio", roundedRatio(row.cacheHitRatio())},
                        {"cache_savings_microdollars", row.cache_savings_microdollars},
                        {"cache_savings_usd", formatDollars(row.cache_savings_microdollars).substr(1)}};
}

std::vector<std::string> cells(const std::string& key, const store::UsageRow& row, bool csv) {
  const auto count = [&](int64_t value) { return csv ? std::to_string(value) : groupThousands(value); };
  const auto money = [&](int64_t value) { return csv ? std::to_string(value) : formatDollars(value); };
  char ratio[16];
  std::snprintf(ratio, sizeof ratio, "%.4f", roundedRatio(row.cacheHitRatio()));
  return {key, count(row.requests), count(row.failed), count(row.input_tokens), count(row.output_tokens),
          count(row.cache_read_tokens), count(row.cache_write_tokens), count(row.reasoning_tokens),
          money(row.cost_microdollars), csv ? std::string(ratio) : percent(row.cacheHitRatio(), row.input_tokens > 0),
          money(row.cache_savings_microdollars)};
}

store::UsageRow sum(const std::vector<store::UsageRow>& rows) {
  store::UsageRow total;
  for (const auto& row : rows) {
    total.requests += row.requests;
    total.failed += row.failed;
    total.input_tokens += row.input_tokens;
    total.output_tokens += row.output_tokens;
    total.cache_read_tokens += row.cache_read_tokens;
    total.cache_write_tokens += row.cache_write_tokens;
    total.reasoning_tokens += row.reasoning_tokens;
    total.cost_microdollars += row.cost_microdollars;
    total.cache_savings_microdollars += row.cache_savings_microdollars;
  }
  return total;
}

}  // namespace

int usageReport(const std::string& database_url, const UsageOptions& options, OutputFormat format,
                std::chrono::system_clock::time_point now, std::ostream& out, std::ostream& err) {
  store::UsageRangeQuestion question;
  question.since = options.since;
  question.from = options.from;
  question.until = options.until;
  if (!question.since && !question.from) question.since = "30d";
  std::shared_ptr<const catalog::ZoneRules> zone;
  if (options.timezone) {
    auto loaded = loadZone(*options.timezone);
    if (!loaded) {
      err << "sluicectl: " << loaded.error() << "\n";
      return 2;
    }
    zone = std::move(*loaded);
    question.zone = zone.get();
  }
  question.duration = [](std::string_view text) -> std::optional<std::chrono::seconds> {
    const auto duration = parseDuration(text);
    return duration ? std::optional(*duration) : std::nullopt;
  };
  const auto range = store::resolveUsageRange(question, now);
  if (!range) {
    err << "sluicectl: " << range.error() << "\n";
    return 2;
  }
  const auto dimension = dimensionNamed(options.by);
  if (!dimension) {
    err << "sluicectl: --by must be member, project, group, model, provider, key, route or deployment (not '"
        << options.by.substr(0, 40) << "')\n";
    return 2;
  }
  if (options.top < 0 || options.top > kMaxTop) {
    err << "sluicectl: --top must be between 1 and " << kMaxTop << " (0 or none: every row)\n";
    return 2;
  }
  const std::string& by = options.by;
  return withDatabase(database_url, err, [&](pqxx::connection& connection) {
    auto rows = store::usageBy(connection, *dimension, range->from, range->until);
    const store::UsageRow total = sum(rows);
    const size_t all = rows.size();
    if (options.top > 0 && rows.size() > static_cast<size_t>(options.top)) rows.resize(static_cast<size_t>(options.top));
    const std::string until_text = range->until ? store::formatTimestamp(*range->until) : store::formatTimestamp(now);
    if (format == OutputFormat::Json) {
      nlohmann::json report = {{"by", by},
                               {"since", store::formatTimestamp(range->from)},
                               {"until", until_text},
                               {"rows", nlohmann::json::array()},
                               {"rows_in_all", all}};
      for (const auto& row : rows) {
        nlohmann::json item = measuresJson(row);
        item[by] = row.key;
        report["rows"].push_back(std::move(item));
      }
      report["total"] = measuresJson(total);
      out << report.dump(2) << "\n";
      return 0;
    }
    if (format == OutputFormat::Csv) {
      Table plain({by, "requests", "failed", "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens",
                   "reasoning_tokens", "cost_microdollars", "cache_hit_ratio", "cache_savings_microdollars"});
      for (const auto& row : rows) plain.addRow(cells(row.key, row, true));
      plain.printCsv(out);
      return 0;
    }
    std::string header = by;
    for (auto& c : header) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    Table table({header, "REQUESTS", "FAILED", "INPUT", "OUTPUT", "CACHE READ", "CACHE WRITE", "REASONING", "COST",
                 "CACHE HIT", "CACHE SAVED"},
                {false, true, true, true, true, true, true, true, true, true, true});
    for (const auto& row : rows) table.addRow(cells(row.key.empty() ? "(none)" : row.key, row, false));
    table.setTotals(cells("TOTAL", total, false));
    out << "usage by " << by << " from " << store::formatUsageMinute(range->from) << " to "
        << (range->until ? store::formatUsageMinute(*range->until) : "now") << " UTC (console probes excluded)";
    if (rows.size() < all) out << "; top " << rows.size() << " of " << all << ", the total counts all";
    out << "\n\n";
    table.print(out);
    return 0;
  });
}

}  // namespace sluice::cli
