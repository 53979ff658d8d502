#include "server/identity/quota.h"

#include <cassert>
#include <ctime>

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

QuotaSubject quotaSubject(const Caller& caller, const Scope& scope) {
  QuotaSubject subject;
  subject.user = caller.user;
  subject.project = scope.project;
  subject.api_key_id = caller.api_key_id;
  return subject;
}

std::vector<QuotaCounter> countersFor(const catalog::Quotas& quotas, const QuotaSubject& subject, TimePoint now) {
  std::vector<QuotaCounter> counters;
  for (const catalog::QuotaWindow& window : quotas.windows) {
    if (window.seconds <= 0) continue;
    QuotaCounter counter;
    counter.window = &window;
    counter.scope_kind = std::string(catalog::toString(window.per));
    switch (window.per) {
      case catalog::QuotaScope::User: counter.scope_value = subject.user; break;
      case catalog::QuotaScope::Project: counter.scope_value = subject.project.value_or(""); break;
      case catalog::QuotaScope::ApiKey: counter.scope_value = subject.api_key_id; break;
      case catalog::QuotaScope::Organisation: counter.scope_value = std::string(kOrganisationScope); break;
    }
    if (counter.scope_value.empty()) continue;
    counter.span = windowSpan(window.seconds, now);
    counters.push_back(std::move(counter));
  }
  return counters;
}

std::string_view toString(QuotaMeasure measure) {
  switch (measure) {
    case QuotaMeasure::Requests: return "requests";
    case QuotaMeasure::InputTokens: return "input_tokens";
    case QuotaMeasure::OutputTokens: return "output_tokens";
    case QuotaMeasure::Cost: return "cost";
  }
  return "requests";
}

std::string QuotaBreach::message() const {
  const std::string amount = measure == QuotaMeasure::Cost
                                 ? dollars(used) + " of " + dollars(limit) + " spent"
                                 : std::to_string(used) + " of " + std::to_string(limit) + " " +
                                       std::string(unitOf(measure)) + " used";
  return "quota '" + window_id + "' exceeded for " + scope_kind + " " + scope_value + ": " + amount +
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
  const auto breach = [&](QuotaMeasure measure, int64_t limit, int64_t value) {
    QuotaBreach result;
    result.window_id = window.id;
    result.scope_kind = counter.scope_kind;
    result.scope_value = counter.scope_value;
    result.measure = measure;
    result.limit = limit;
    result.used = value;
    result.resets_at = counter.span.end;
    return std::optional<QuotaBreach>(std::move(result));
  };
  if (window.max_requests && used.requests >= *window.max_requests) {
    return breach(QuotaMeasure::Requests, *window.max_requests, used.requests);
  }
  if (window.max_input_tokens &&
      (used.input_tokens >= *window.max_input_tokens ||
       used.input_tokens + estimated_input_tokens > *window.max_input_tokens)) {
    return breach(QuotaMeasure::InputTokens, *window.max_input_tokens, used.input_tokens);
  }
  if (window.max_output_tokens && used.output_tokens >= *window.max_output_tokens) {
    return breach(QuotaMeasure::OutputTokens, *window.max_output_tokens, used.output_tokens);
  }
  if (window.max_cost_microdollars && used.cost_microdollars >= *window.max_cost_microdollars) {
    return breach(QuotaMeasure::Cost, *window.max_cost_microdollars, used.cost_microdollars);
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
