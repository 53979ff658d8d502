#pragma once
// Quota windows (gateway.yaml `quotas:`) as arithmetic: which counters a request is counted
// against and whether one more request fits. Pure: time comes in as `now`; no I/O, never throws.
//
// Windows are fixed (tumbling), not rolling: a window of `seconds` covers
// [anchor + k*seconds, anchor + (k+1)*seconds) in UTC, and all usage in it resets together at its
// end. The anchor is the Unix epoch, so windows that divide a day start on UTC calendar
// boundaries (a minute, an hour, a day start at :00, at the hour, at midnight UTC); windows that
// are whole weeks start on a Monday 00:00 UTC. Other lengths (e.g. 30 days) are counted from
// the epoch: they are fixed, known in advance, and the same on every replica.
//
// The counting itself (atomic, across replicas) is QuotaStore (server/identity/quota_store.h).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "server/identity/caller.h"
#include "server/identity/scope.h"

namespace sluice::identity {

using TimePoint = std::chrono::system_clock::time_point;

struct WindowSpan {
  TimePoint start;  // inclusive
  TimePoint end;    // exclusive: when the window's usage resets
};

// The window of `seconds` (> 0) that contains `now`.
WindowSpan windowSpan(int64_t seconds, TimePoint now);
// The span of `window` that contains `now`: windowSpan() for `seconds`, else the calendar day,
// week or month in the window's zone.
WindowSpan spanOf(const catalog::QuotaWindow& window, TimePoint now);

// Whose usage a request counts toward.
struct QuotaSubject {
  std::string user;
  std::optional<std::string> project;  // the attributed project; project windows skip without one
  std::string api_key_id;
  std::vector<std::string> groups;     // the member's groups: per-group windows count each
};

// The limits a window sets for one counter, and why: "default" (the window's own), or the
// override that applies ("group/interns").
struct AppliedLimits {
  catalog::QuotaLimits limits;
  std::string source = "default";
};

// Which limits of `window` apply to the counter of `scope_kind`/`scope_value` for `subject`. A
// project's or group's counter: its own override (`project/research`), whoever calls. A member's
// or key's counter: the key's, the member's, the member's groups' (the override listed first),
// the request's project's. Otherwise, and for the organisation, the window's own limits.
AppliedLimits limitsFor(const catalog::QuotaWindow& window, std::string_view scope_kind,
                        std::string_view scope_value, const QuotaSubject& subject);

// The subject of a request by `caller` attributed to `scope`.
QuotaSubject quotaSubject(const Caller& caller, const Scope& scope);

// The organisation windows count everything under this scope value.
inline constexpr std::string_view kOrganisationScope = "organisation";

// One counter row: a window, the scope value it counts, and its current span.
struct QuotaCounter {
  const catalog::QuotaWindow* window = nullptr;  // points into the catalog the counters came from
  std::string scope_kind;   // "user" | "project" | "api_key" | "organisation" | "group"
  std::string scope_value;
  WindowSpan span;
  std::optional<AppliedLimits> applied;  // limitsFor() this counter; nullopt: the window's own
};

// One counter per window whose scope the subject has (a per-group window: one per group of the
// subject's), in the catalog's window order.
// With `unit`, only the windows that count it (a model request is never counted in a tool-calls
// window, nor a tool call in a requests window); without, every window.
std::vector<QuotaCounter> countersFor(const catalog::Quotas& quotas, const QuotaSubject& subject, TimePoint now,
                                      std::optional<catalog::QuotaUnit> unit = std::nullopt);

struct QuotaUsage {
  int64_t requests = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  int64_t cost_microdollars = 0;
};

enum class QuotaMeasure { Requests, InputTokens, OutputTokens, Cost, ToolCalls };
// "requests" | "input_tokens" | "output_tokens" | "cost" | "tool_calls".
std::string_view toString(QuotaMeasure measure);

struct QuotaBreach {
  std::string window_id;
  std::string scope_kind;
  std::string scope_value;
  QuotaMeasure measure = QuotaMeasure::Requests;
  int64_t limit = 0;   // microdollars for Cost
  int64_t used = 0;    // before this request; microdollars for Cost
  TimePoint resets_at;
  std::string limit_source = "default";  // AppliedLimits::source: which limit was reached

  // "quota 'member-hourly' exceeded for user alice: 600 of 600 requests used; resets at
  // 2026-11-29T22:00:00Z" (cost as "$20.00 of $20.00 spent"); an override's limit is named
  // after the amount ("$20.00 of $20.00 spent (the limit of group/interns)"). Names no key.
  std::string message() const;
  // Whole seconds until resets_at (at least 1), for a Retry-After header.
  int64_t retryAfterSeconds(TimePoint now) const;
};

// Whether one more request, estimated at `estimated_input_tokens`, fits a window whose counter
// reads `used`. Requests, output tokens and cost are spent when the counter reaches the limit;
// input tokens when the estimate would take the counter past it. The first exceeded measure, in
// the order requests, input tokens, output tokens, cost; nullopt when it fits.
std::optional<QuotaBreach> checkCounter(const QuotaCounter& counter, const QuotaUsage& used,
                                        int64_t estimated_input_tokens);

// "2026-11-29T22:00:00Z".
std::string formatUtc(TimePoint time);

}  // namespace sluice::identity
