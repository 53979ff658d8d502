#include "cli/quota_explain.h"

#include <chrono>
#include <cstdio>
#include <ostream>

#include "server/identity/quota.h"

namespace sluice::cli {

namespace {

std::string usd(int64_t microdollars) {
  char text[48];
  std::snprintf(text, sizeof text, "$%lld.%02lld", static_cast<long long>(microdollars / 1'000'000),
                static_cast<long long>((microdollars % 1'000'000) / 10'000));
  return text;
}

// "$5000.00 cost, 600 requests" or "unlimited".
std::string limitText(const catalog::QuotaLimits& limits) {
  if (limits.unlimited()) return "unlimited";
  std::string text;
  const auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
  if (limits.max_cost_microdollars) add(usd(*limits.max_cost_microdollars) + " cost");
  if (limits.max_requests) add(std::to_string(*limits.max_requests) + " requests");
  if (limits.max_input_tokens) add(std::to_string(*limits.max_input_tokens) + " input tokens");
  if (limits.max_output_tokens) add(std::to_string(*limits.max_output_tokens) + " output tokens");
  return text;
}

nlohmann::json limitJson(const catalog::QuotaLimits& limits) {
  if (limits.unlimited()) return "unlimited";
  nlohmann::json out = nlohmann::json::object();
  if (limits.max_cost_microdollars) out["max_cost_microdollars"] = *limits.max_cost_microdollars;
  if (limits.max_requests) out["max_requests"] = *limits.max_requests;
  if (limits.max_input_tokens) out["max_input_tokens"] = *limits.max_input_tokens;
  if (limits.max_output_tokens) out["max_output_tokens"] = *limits.max_output_tokens;
  return out;
}

std::string spanText(const catalog::QuotaWindow& window) {
  if (window.period == catalog::QuotaPeriod::Seconds) return "fixed spans of " + std::to_string(window.seconds) + " s";
  return "calendar " + std::string(catalog::toString(window.period)) + " in " + window.timezone;
}

identity::QuotaSubject subjectOf(const QuotaWho& who) {
  identity::QuotaSubject subject;
  subject.user = who.member.value_or("");
  subject.project = who.project;
  subject.api_key_id = who.key.value_or("");
  subject.groups = who.groups;
  return subject;
}

// The counters of `window` the caller's requests count in, each with the limit that applies.
std::vector<identity::QuotaCounter> countersOf(const catalog::QuotaWindow& window, const QuotaWho& who) {
  catalog::Quotas one;
  one.windows.push_back(window);
  auto counters = identity::countersFor(one, subjectOf(who), std::chrono::system_clock::now());
  for (auto& counter : counters) counter.window = &window;  // `one` goes away
  return counters;
}

std::string modeOf(const catalog::Quotas& quotas, const catalog::QuotaWindow& window) {
  return window.mode.value_or(quotas.mode) == catalog::QuotaMode::Enforce ? "enforce" : "warn";
}

}  // namespace

void explainQuotas(const catalog::Catalog& catalog, const QuotaWho& who, std::ostream& out) {
  const auto& quotas = catalog.quotas;
  if (quotas.windows.empty()) return;
  out << "quotas, " << (quotas.mode == catalog::QuotaMode::Enforce ? "enforced" : "warn only")
      << " unless a window says otherwise:\n";
  for (const catalog::QuotaWindow& window : quotas.windows) {
    out << "  " << window.id << ": per " << catalog::toString(window.per) << ", " << spanText(window) << ", "
        << modeOf(quotas, window) << "\n";
    out << "       default " << limitText(window) << "\n";
    for (const catalog::QuotaOverride& entry : window.overrides) {
      out << "       " << catalog::toString(entry.kind) << "/" << entry.name << " " << limitText(entry.limits) << "\n";
    }
    if (!who.any()) continue;
    const auto counters = countersOf(window, who);
    if (counters.empty()) {
      out << "       this caller: not counted (the request names no " << catalog::toString(window.per) << ")\n";
    }
    for (const auto& counter : counters) {
      out << "       this caller: " << counter.scope_kind << " " << counter.scope_value << " gets "
          << limitText(counter.applied->limits) << " ("
          << (counter.applied->source == "default" ? "the window's default: no override names this counter"
                                                   : "override " + counter.applied->source)
          << ")\n";
    }
  }
}

nlohmann::json explainQuotasJson(const catalog::Catalog& catalog, const QuotaWho& who) {
  const auto& quotas = catalog.quotas;
  if (quotas.windows.empty()) return nullptr;
  nlohmann::json windows = nlohmann::json::array();
  for (const catalog::QuotaWindow& window : quotas.windows) {
    nlohmann::json entry = {{"id", window.id},
                            {"per", std::string(catalog::toString(window.per))},
                            {"mode", modeOf(quotas, window)},
                            {"default", limitJson(window)},
                            {"overrides", nlohmann::json::array()}};
    if (window.period == catalog::QuotaPeriod::Seconds) {
      entry["seconds"] = window.seconds;
    } else {
      entry["period"] = std::string(catalog::toString(window.period));
      entry["timezone"] = window.timezone;
    }
    for (const catalog::QuotaOverride& item : window.overrides) {
      entry["overrides"].push_back({{"subject", std::string(catalog::toString(item.kind)) + "/" + item.name},
                                    {"limit", limitJson(item.limits)}});
    }
    if (who.any()) {
      entry["applies"] = nlohmann::json::array();
      for (const auto& counter : countersOf(window, who)) {
        entry["applies"].push_back({{"scope", counter.scope_kind + "/" + counter.scope_value},
                                    {"limit", limitJson(counter.applied->limits)},
                                    {"source", counter.applied->source}});
      }
    }
    windows.push_back(std::move(entry));
  }
  return {{"mode", quotas.mode == catalog::QuotaMode::Enforce ? "enforce" : "warn"}, {"windows", windows}};
}

}  // namespace sluice::cli
