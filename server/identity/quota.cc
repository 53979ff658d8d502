#include "server/identity/quota.h"

#include <algorithm>
#include <cassert>
#include <ctime>

#include "catalog/zone_rules.h"

namespace sluice::identity {

namespace {

constexpr int64_t kWeek = 7 * 24 * 3600;
constexpr int64_t kFirstMonday = 4 * 24 * 3600;  // 1970-01-05, the first Monday after the epoch

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

std::string dollars(int64_t microdollars) {
  char text[64];
  if (microdollars % 10'000 == 0) {
    std::snprintf(text, sizeof text, "$%lld.%02lld", static_cast<long long>(microdollars / 1'000'000),
                  static_cast<long long>((microdollars % 1'000'000) / 10'000));
  } else {
    std::snprintf(text, sizeof text, "$%lld.%06lld", static_cast<long long>(microdollars / 1'000'000),
                  static_cast<long long>(microdollars % 1'000'000));
  }
  return text;
}

std::string_view unitOf(QuotaMeasure measure) {
  switch (measure) {
    case QuotaMeasure::Requests: return "requests";
    case QuotaMeasure::InputTokens: return "input tokens";
    case QuotaMeasure::OutputTokens: return "output tokens";
    case QuotaMeasure::Cost: return "";
    case QuotaMeasure::ToolCalls: return "tool calls";
  }
  return "";
}

}  // namespace

WindowSpan windowSpan(int64_t seconds, TimePoint now) {
  assert(seconds > 0);
  const int64_t anchor = seconds % kWeek == 0 ? kFirstMonday : 0;
  const int64_t at = std::chrono::floor<std::chrono::seconds>(now.time_since_epoch()).count();
  const int64_t start = anchor + floorDiv(at - anchor, seconds) * seconds;
  WindowSpan span;
  span.start = TimePoint(std::chrono::seconds(start));
  span.end = TimePoint(std::chrono::seconds(start + seconds));
  return span;
}

WindowSpan spanOf(const catalog::QuotaWindow& window, TimePoint now) {
  using namespace std::chrono;
  if (window.period == catalog::QuotaPeriod::Seconds) return windowSpan(window.seconds, now);
  // Calendar periods: cut in the zone's local time, each boundary mapped back to the UTC instant
  // it happens at. The same `now` gives the same span on every replica, whenever it started.
  const int64_t at = floor<seconds>(now.time_since_epoch()).count();
  const auto utcOf = [&](int64_t local) { return window.zone ? window.zone->utcOf(local) : local; };
  const int64_t local = at + (window.zone ? window.zone->offsetAt(at) : 0);
  const sys_days today{days(floorDiv(local, 86400))};
  sys_days first = today;
  sys_days next = today + days(1);
  if (window.period == catalog::QuotaPeriod::Week) {
    first = today - (weekday(today) - Monday);
    next = first + days(7);
  } else if (window.period == catalog::QuotaPeriod::Month) {
    const year_month_day date(today);
    const year_month this_month = date.year() / date.month();
    first = sys_days(this_month / 1);
    next = sys_days((this_month + months(1)) / 1);
  }
  const auto midnight = [](sys_days day) { return static_cast<int64_t>(day.time_since_epoch().count()) * 86400; };
  WindowSpan span;
  span.start = TimePoint(seconds(utcOf(midnight(first))));
  span.end = TimePoint(seconds(utcOf(midnight(next))));
  return span;
}

QuotaSubject quotaSubject(const Caller& caller, const Scope& scope) {
  QuotaSubject subject;
  subject.user = caller.user;
  subject.project = scope.project;
  subject.api_key_id = caller.api_key_id;
  subject.groups = caller.groups;
  return subject;
}

AppliedLimits limitsFor(const catalog::QuotaWindow& window, std::string_view scope_kind, std::string_view scope_value,
                        const QuotaSubject& subject) {
  using Kind = catalog::QuotaSubjectKind;
  const auto named = [&](Kind kind, std::string_view name) -> const catalog::QuotaOverride* {
    if (name.empty()) return nullptr;
    for (const catalog::QuotaOverride& entry : window.overrides) {
      if (entry.kind == kind && entry.name == name) return &entry;
    }
    return nullptr;
  };
  const auto applied = [](const catalog::QuotaOverride& entry) {
    return AppliedLimits{entry.limits, std::string(catalog::toString(entry.kind)) + "/" + entry.name};
  };
  // A counter of many members (a project, a group, everything) has one limit whoever calls: its
  // own override, else the window's default. catalog::readQuotas refuses other kinds there.
  if (scope_kind == "project" || scope_kind == "group") {
    if (const auto* entry = named(scope_kind == "project" ? Kind::Project : Kind::Group, scope_value)) {
      return applied(*entry);
    }
  } else if (scope_kind == "user" || scope_kind == "api_key") {
    // A member's or a key's counter: the key, the member, the member's groups (the override
    // listed first), the request's project.
    if (scope_kind == "api_key") {
      if (const auto* entry = named(Kind::Key, scope_value)) return applied(*entry);
    }
    if (const auto* entry = named(Kind::Member, subject.user)) return applied(*entry);
    for (const catalog::QuotaOverride& entry : window.overrides) {
      if (entry.kind == Kind::Group && std::ranges::find(subject.groups, entry.name) != subject.groups.end()) {
        return applied(entry);
      }
    }
    if (const auto* entry = named(Kind::Project, subject.project.value_or(""))) return applied(*entry);
  }
  return AppliedLimits{static_cast<const catalog::QuotaLimits&>(window), "default"};
}

std::vector<QuotaCounter> countersFor(const catalog::Quotas& quotas, const QuotaSubject& subject, TimePoint now,
                                      std::optional<catalog::QuotaUnit> unit) {
  std::vector<QuotaCounter> counters;
  for (const catalog::QuotaWindow& window : quotas.windows) {
    if (unit && window.unit != *unit) continue;
    if (window.period == catalog::QuotaPeriod::Seconds && window.seconds <= 0) continue;
    std::vector<std::string> values;
    switch (window.per) {
      case catalog::QuotaScope::User: values.push_back(subject.user); break;
      case catalog::QuotaScope::Project: values.push_back(subject.project.value_or("")); break;
      case catalog::QuotaScope::ApiKey: values.push_back(subject.api_key_id); break;
      case catalog::QuotaScope::Organisation: values.push_back(std::string(kOrganisationScope)); break;
      case catalog::QuotaScope::Group:
        for (const std::string& group : subject.groups) {
          if (std::ranges::find(values, group) == values.end()) values.push_back(group);
        }
        break;
    }
    const WindowSpan span = spanOf(window, now);
    for (std::string& value : values) {
      if (value.empty()) continue;
      QuotaCounter counter;
      counter.window = &window;
      counter.scope_kind = std::string(catalog::toString(window.per));
      counter.applied = limitsFor(window, counter.scope_kind, value, subject);
      counter.scope_value = std::move(value);
      counter.span = span;
      counters.push_back(std::move(counter));
    }
  }
  return counters;
}

std::string_view toString(QuotaMeasure measure) {
  switch (measure) {
    case QuotaMeasure::Requests: return "requests";
    case QuotaMeasure::InputTokens: return "input_tokens";
    case QuotaMeasure::OutputTokens: return "output_tokens";
    case QuotaMeasure::Cost: return "cost";
    case QuotaMeasure::ToolCalls: return "tool_calls";
  }
  return "requests";
}

std::string QuotaBreach::message() const {
  const std::string amount = measure == QuotaMeasure::Cost
                                 ? dollars(used) + " of " + dollars(limit) + " spent"
                                 : std::to_string(used) + " of " + std::to_string(limit) + " " +
                                       std::string(unitOf(measure)) + " used";
  const std::string source = limit_source == "default" ? "" : " (the limit of " + limit_source + ")";
  return "quota '" + window_id + "' exceeded for " + scope_kind + " " + scope_value + ": " + amount + source +
         "; resets at " + formatUtc(resets_at);
}

int64_t QuotaBreach::retryAfterSeconds(TimePoint now) const {
  const auto left = std::chrono::ceil<std::chrono::seconds>(resets_at - now).count();
  return left < 1 ? 1 : left;
}

std::optional<QuotaBreach> checkCounter(const QuotaCounter& counter, const QuotaUsage& used,
                                        int64_t estimated_input_tokens) {
  assert(counter.window != nullptr);
  const catalog::QuotaWindow& window = *counter.window;
  const catalog::QuotaLimits& limits = counter.applied ? counter.applied->limits : window;
  const auto breach = [&](QuotaMeasure measure, int64_t limit, int64_t value) {
    QuotaBreach result;
    result.window_id = window.id;
    result.scope_kind = counter.scope_kind;
    result.scope_value = counter.scope_value;
    result.measure = measure;
    result.limit = limit;
    result.used = value;
    result.resets_at = counter.span.end;
    if (counter.applied) result.limit_source = counter.applied->source;
    return std::optional<QuotaBreach>(std::move(result));
  };
  // A tool-calls window counts its calls in the requests column.
  if (limits.max_tool_calls && used.requests >= *limits.max_tool_calls) {
    return breach(QuotaMeasure::ToolCalls, *limits.max_tool_calls, used.requests);
  }
  if (limits.max_requests && used.requests >= *limits.max_requests) {
    return breach(QuotaMeasure::Requests, *limits.max_requests, used.requests);
  }
  if (limits.max_input_tokens &&
      (used.input_tokens >= *limits.max_input_tokens ||
       used.input_tokens + estimated_input_tokens > *limits.max_input_tokens)) {
    return breach(QuotaMeasure::InputTokens, *limits.max_input_tokens, used.input_tokens);
  }
  if (limits.max_output_tokens && used.output_tokens >= *limits.max_output_tokens) {
    return breach(QuotaMeasure::OutputTokens, *limits.max_output_tokens, used.output_tokens);
  }
  if (limits.max_cost_microdollars && used.cost_microdollars >= *limits.max_cost_microdollars) {
    return breach(QuotaMeasure::Cost, *limits.max_cost_microdollars, used.cost_microdollars);
  }
  return std::nullopt;
}

std::string formatUtc(TimePoint time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(time));
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

}  // namespace sluice::identity
