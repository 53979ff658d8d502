#include "server/identity/budget_alerts.h"

#include <cassert>

namespace sluice::identity {

std::vector<AlertDue> alertsDue(const QuotaCounter& counter, const QuotaUsage& used) {
  assert(counter.window != nullptr);
  const catalog::QuotaWindow& window = *counter.window;
  std::vector<AlertDue> due;
  if (window.alerts.empty()) return due;
  const catalog::QuotaLimits& limits = counter.applied ? counter.applied->limits : window;
  const struct {
    QuotaMeasure measure;
    const std::optional<int64_t>& limit;
    int64_t value;
  } measures[] = {{QuotaMeasure::Cost, limits.max_cost_microdollars, used.cost_microdollars},
                  {QuotaMeasure::Requests, limits.max_requests, used.requests},
                  {QuotaMeasure::ToolCalls, limits.max_tool_calls, used.requests},
                  {QuotaMeasure::InputTokens, limits.max_input_tokens, used.input_tokens},
                  {QuotaMeasure::OutputTokens, limits.max_output_tokens, used.output_tokens}};
  for (const catalog::QuotaAlert& alert : window.alerts) {
    for (const auto& measure : measures) {
      if (!measure.limit || *measure.limit <= 0) continue;
      // used / limit >= percent / 100, in integers (limits and totals stay far below 2^56).
      if (static_cast<__int128>(measure.value) * 100 < static_cast<__int128>(*measure.limit) * alert.percent) continue;
      AlertDue entry;
      entry.window_id = window.id;
      entry.scope_kind = counter.scope_kind;
      entry.scope_value = counter.scope_value;
      entry.webhook = alert.webhook;
      if (counter.applied) entry.limit_source = counter.applied->source;
      entry.percent = alert.percent;
      entry.measure = measure.measure;
      entry.used = measure.value;
      entry.limit = *measure.limit;
      entry.span = counter.span;
      due.push_back(std::move(entry));
      break;
    }
  }
  return due;
}

std::string alertKey(const AlertDue& alert) {
  const auto start = std::chrono::floor<std::chrono::seconds>(alert.span.start.time_since_epoch()).count();
  return alert.window_id + "|" + alert.scope_kind + "|" + alert.scope_value + "|" + std::to_string(alert.percent) +
         "|" + alert.webhook + "|" + std::to_string(start);
}

}  // namespace sluice::identity
