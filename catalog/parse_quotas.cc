// gateway.yaml `quotas:`: the mode and the windows, each with its limits (the default), its
// per-subject overrides, and a span of `seconds` or a calendar `period` in a `timezone`.
#include <map>
#include <string>

#include "catalog/parsers.h"
#include "catalog/zone_rules.h"

namespace sluice::catalog {

namespace {

constexpr int64_t kMinWindowSeconds = 60;
constexpr int64_t kMaxWindowSeconds = 31 * 24 * 3600;
constexpr size_t kMaxOverrides = 1000;

// The max_* entries of `fields` into `limits`; whether there was any.
bool readLimits(YamlReader& reader, const Fields& fields, const std::string& owner, QuotaLimits& limits) {
  bool any_limit = false;
  for (const Entry& e : fields.entries()) {
    if (!e.key.starts_with("max_")) continue;
    any_limit = true;
    std::string what = e.key + " of " + owner;
    if (e.key == "max_cost_usd") {
      limits.max_cost_microdollars = reader.usdMicros(e, what);
      if (limits.max_cost_microdollars == 0) {
        reader.error(e.value_at, what + " must be a positive number of US dollars, got '0'");
      }
    } else {
      auto value = reader.integer(e, what, 1);
      (e.key == "max_requests"       ? limits.max_requests
       : e.key == "max_input_tokens" ? limits.max_input_tokens
       : e.key == "max_tool_calls"   ? limits.max_tool_calls
                                     : limits.max_output_tokens) = value;
    }
  }
  return any_limit;
}

// `overrides: { project/research: { max_cost_usd: 5000 }, member/ceo: unlimited }`.
void readOverrides(YamlReader& reader, const Entry& entry, const std::string& owner, QuotaWindow& window) {
  const std::string what = "overrides of " + owner;
  if (!entry.value.IsMap()) {
    reader.error(entry.value_at, what + " must be a mapping of project/NAME, group/NAME, member/NAME or key/ID "
                                        "to limits or unlimited, got " + describeNode(entry.value));
    return;
  }
  Fields fields = reader.fields(entry, what);
  for (const Entry& e : fields.entries()) {
    if (window.overrides.size() >= kMaxOverrides) {
      reader.error(e.key_at, what + " has more than " + std::to_string(kMaxOverrides) + " entries");
      return;
    }
    QuotaOverride entry_override;
    entry_override.where = e.key_at;
    const size_t slash = e.key.find('/');
    const std::string kind = slash == std::string::npos ? e.key : e.key.substr(0, slash);
    const std::map<std::string, QuotaSubjectKind, std::less<>> kinds = {{"project", QuotaSubjectKind::Project},
                                                                        {"group", QuotaSubjectKind::Group},
                                                                        {"member", QuotaSubjectKind::Member},
                                                                        {"key", QuotaSubjectKind::Key}};
    const auto found = kinds.find(kind);
    if (slash == std::string::npos || found == kinds.end()) {
      reader.error(e.key_at, "override '" + e.key + "' of " + owner +
                                 " must name project/NAME, group/NAME, member/NAME or key/ID");
      continue;
    }
    entry_override.kind = found->second;
    entry_override.name = e.key.substr(slash + 1);
    if (!checkName(reader, {entry_override.name, e.key_at}, std::string(kind))) continue;
    for (const QuotaOverride& earlier : window.overrides) {
      if (earlier.kind == entry_override.kind && earlier.name == entry_override.name) {
        reader.error(e.key_at, "duplicate override '" + e.key + "' of " + owner + "; first at line " +
                                   std::to_string(earlier.where.line));
      }
    }
    const std::string subject = "override '" + e.key + "' of " + owner;
    if (e.value.IsScalar()) {
      if (reader.string(e, subject) != "unlimited") {
        reader.error(e.value_at, subject + " must be unlimited or a mapping of limits (" +
                                     "max_requests, max_input_tokens, max_output_tokens, max_cost_usd)");
        continue;
      }
    } else {
      Fields limits =
          reader.fields(e, subject, {"max_requests", "max_input_tokens", "max_output_tokens", "max_cost_usd",
                                     "max_tool_calls"});
      if (!limits.ok()) continue;
      if (!readLimits(reader, limits, subject, entry_override.limits)) {
        reader.error(e.value_at, subject + " needs at least one of max_requests, max_input_tokens, "
                                           "max_output_tokens, max_cost_usd, max_tool_calls, or the word unlimited");
        continue;
      }
    }
    window.overrides.push_back(std::move(entry_override));
  }
}

// A counter of many members has one limit whoever calls, so only an override naming such a
// counter applies there (server/identity/quota.h limitsFor); a key's override only to a key's.
void checkOverrideKinds(YamlReader& reader, const std::string& owner, const QuotaWindow& window) {
  for (const QuotaOverride& entry : window.overrides) {
    const bool fits = window.per == QuotaScope::Project        ? entry.kind == QuotaSubjectKind::Project
                      : window.per == QuotaScope::Group        ? entry.kind == QuotaSubjectKind::Group
                      : window.per == QuotaScope::Organisation ? false
                      : window.per == QuotaScope::User         ? entry.kind != QuotaSubjectKind::Key
                                                               : true;
    if (fits) continue;
    const std::string what = std::string(toString(entry.kind)) + "/" + entry.name;
    reader.error(entry.where, "override '" + what + "' of " + owner + " never applies: a per: " +
                                  std::string(toString(window.per)) +
                                  (window.per == QuotaScope::Organisation
                                       ? " window has one counter; set its max_ limits instead"
                                       : window.per == QuotaScope::User
                                             ? " window counts members; name member/, group/ or project/"
                                             : " window's counters are " + std::string(toString(window.per)) +
                                                   "s; name " + std::string(toString(window.per)) + "/NAME"));
  }
}

void readSpan(YamlReader& reader, const Fields& fields, const Location& at, const std::string& owner,
              QuotaWindow& window) {
  const Entry* seconds = fields.find("seconds");
  const Entry* period = fields.find("period");
  const Entry* timezone = fields.find("timezone");
  if (seconds && period) {
    reader.error(period->key_at, owner + " has both seconds and period; a window has one or the other");
    return;
  }
  if (seconds) {
    window.seconds = reader.integer(*seconds, "seconds of " + owner, kMinWindowSeconds, kMaxWindowSeconds)
                         .value_or(0);
    if (timezone) reader.error(timezone->key_at, "timezone of " + owner + " applies to a period, not to seconds");
    return;
  }
  if (!period) {
    reader.error(at, owner + " needs seconds or period: day, week or month");
    return;
  }
  window.period = reader.choice<QuotaPeriod>(*period, "period of " + owner,
                                             {{"day", QuotaPeriod::Day},
                                              {"week", QuotaPeriod::Week},
                                              {"month", QuotaPeriod::Month}})
                      .value_or(QuotaPeriod::Day);
  window.timezone_at = period->value_at;
  if (timezone) {
    window.timezone_at = timezone->value_at;
    const std::string name = reader.string(*timezone, "timezone of " + owner).value_or("UTC");
    if (!isZoneName(name)) {
      reader.error(timezone->value_at, "timezone of " + owner + " must be an IANA name such as "
                                       "Europe/Paris or UTC, got '" + name.substr(0, 64) + "'");
    } else {
      window.timezone = name;
    }
  }
}

// `unit: requests | tool_calls`, or tool_calls implied by max_tool_calls; a window counts model
// requests or tool calls, so its limits (and its overrides') are of that unit only.
void readUnit(YamlReader& reader, const Fields& fields, const std::string& owner, QuotaWindow& window) {
  const auto counts_models = [](const QuotaLimits& limits) {
    return limits.max_requests || limits.max_input_tokens || limits.max_output_tokens || limits.max_cost_microdollars;
  };
  bool tool_limits = window.max_tool_calls.has_value();
  bool model_limits = counts_models(window);
  for (const QuotaOverride& entry : window.overrides) {
    tool_limits = tool_limits || entry.limits.max_tool_calls.has_value();
    model_limits = model_limits || counts_models(entry.limits);
  }
  std::optional<QuotaUnit> written;
  Location where = window.where;
  if (const Entry* unit = fields.find("unit")) {
    written = reader.choice<QuotaUnit>(*unit, "unit of " + owner,
                                       {{"requests", QuotaUnit::Requests}, {"tool_calls", QuotaUnit::ToolCalls}});
    where = unit->value_at;
  }
  window.unit = written.value_or(tool_limits ? QuotaUnit::ToolCalls : QuotaUnit::Requests);
  if (window.unit == QuotaUnit::ToolCalls && model_limits) {
    reader.error(where, owner + " counts tool calls: its limits (and its overrides') are max_tool_calls only");
  } else if (window.unit == QuotaUnit::Requests && tool_limits) {
    reader.error(where, owner + " counts model requests: max_tool_calls needs a window of its own (unit: tool_calls)");
  }
}

QuotaWindow readWindow(YamlReader& reader, const YAML::Node& node, const Location& at, size_t index) {
  QuotaWindow window;
  window.where = at;
  std::string owner = ownerName(node, "quota window", index);
  Fields fields = reader.fields(node, at, owner,
                                {"id", "per", "seconds", "period", "timezone", "mode", "max_requests",
                                 "max_input_tokens", "max_output_tokens", "max_cost_usd", "max_tool_calls", "unit",
                                 "overrides", "alerts"});
  if (!fields.ok()) return window;
  if (const Entry* id = fields.find("id")) {
    window.id = reader.string(*id, "id of " + owner).value_or("");
    window.where = id->key_at;
    checkName(reader, {window.id, id->value_at}, "quota window");
  } else {
    reader.error(at, owner + " needs id");
  }
  if (const Entry* per = fields.find("per")) {
    window.per = reader.choice<QuotaScope>(*per, "per of " + owner,
                                           {{"user", QuotaScope::User},
                                            {"project", QuotaScope::Project},
                                            {"group", QuotaScope::Group},
                                            {"api_key", QuotaScope::ApiKey},
                                            {"organisation", QuotaScope::Organisation}})
                     .value_or(QuotaScope::User);
  } else {
    reader.error(at, owner + " needs per: user, project, group, api_key or organisation");
  }
  readSpan(reader, fields, at, owner, window);
  if (const Entry* mode = fields.find("mode")) {
    window.mode = reader.choice<QuotaMode>(*mode, "mode of " + owner,
                                           {{"warn", QuotaMode::Warn}, {"enforce", QuotaMode::Enforce}});
  }
  const bool any_limit = readLimits(reader, fields, owner, window);
  const Entry* overrides = fields.find("overrides");
  if (overrides) {
    readOverrides(reader, *overrides, owner, window);
    checkOverrideKinds(reader, owner, window);
  }
  if (const Entry* alerts = fields.find("alerts")) readAlerts(reader, *alerts, owner, window);
  if (!any_limit && !overrides) {
    reader.error(at, owner + " needs at least one of max_requests, max_input_tokens, "
                             "max_output_tokens, max_cost_usd, max_tool_calls, or overrides");
  }
  readUnit(reader, fields, owner, window);
  return window;
}

}  // namespace

void readQuotas(YamlReader& reader, const Entry& entry, Quotas& quotas) {
  Fields fields = reader.fields(entry, "quotas", {"mode", "windows"});
  if (const Entry* mode = fields.find("mode")) {
    quotas.mode = reader.choice<QuotaMode>(*mode, "mode of quotas",
                                           {{"warn", QuotaMode::Warn}, {"enforce", QuotaMode::Enforce}})
                      .value_or(QuotaMode::Warn);
  }
  const Entry* windows = fields.find("windows");
  if (windows == nullptr || windows->value.IsNull()) return;
  if (!windows->value.IsSequence()) {
    reader.error(windows->value_at, "windows of quotas must be a list, got " + describeNode(windows->value));
    return;
  }
  std::map<std::string, int, std::less<>> seen;
  size_t index = 0;
  for (const YAML::Node& item : windows->value) {
    QuotaWindow window = readWindow(reader, item, reader.at(item, windows->value_at), index++);
    if (!window.id.empty()) {
      auto [it, inserted] = seen.emplace(window.id, window.where.line);
      if (!inserted) {
        reader.error(window.where, "duplicate quota window id '" + window.id +
                                       "'; first defined at line " + std::to_string(it->second));
      }
    }
    quotas.windows.push_back(std::move(window));
  }
}

}  // namespace sluice::catalog
