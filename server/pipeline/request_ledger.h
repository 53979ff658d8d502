#pragma once
// The account of one request: its audit row, its log line and its metric figures, kept on one
// clock (the steady time the request arrived). The pipeline tells the ledger what happened as it
// goes (who, the plan, each attempt, time spent on providers) and ends it exactly once with one of
// refused(), served() or clientGone(). Nothing leaves before the accounting after the answer (the
// quota settle) is done: then flush() emits the log line and the metric figures, and the
// destructor hands the row to the audit sink (an unended request is an internal_error), so every
// request leaves exactly one row, one log line and one set of figures, all telling the same story.
//
//   RequestLedger ledger(gateway, request.id(), request.target(), client_wire);
//   ledger.noteCaller(who);  ledger.notePlan(plan);
//   ledger.recordAttempt(attempt, 503, "status_503", "overloaded", 12);
//   ledger.served(attempt, relayed, charge);       // or refused(error) / clientGone(...)
//
// Not thread-safe: it belongs to the request's thread or fiber.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "server/audit/guard.h"
#include "server/audit/outcome.h"
#include "server/dispatch/attempt_walk.h"
#include "server/dispatch/planner.h"
#include "server/dispatch/pricing.h"
#include "server/pipeline/relay.h"
#include "server/identity/caller.h"
#include "server/identity/scope.h"
#include "server/metrics/gateway_metrics.h"
#include "server/protection/detectors.h"
#include "server/wire/api_error.h"
#include "server/pipeline/http_types.h"
#include "server/telemetry/request_spans.h"

namespace sluice::pipeline {


class RequestLedger {
 public:
  using SteadyClock = std::chrono::steady_clock;
  // Request: counted in the request metrics. Probe: a console test call, audited with probe=true
  // and kept out of the request metrics (and so out of usage figures).
  enum class Kind { Request, Probe };

  RequestLedger(Gateway& gateway, std::string request_id, std::string path, catalog::Wire client_wire,
                Kind kind = Kind::Request);
  ~RequestLedger();
  RequestLedger(const RequestLedger&) = delete;
  RequestLedger& operator=(const RequestLedger&) = delete;

  const std::string& requestId() const { return audit_.record().id; }
  SteadyClock::time_point started() const { return started_; }
  int64_t millisSince(SteadyClock::time_point from) const;
  // The row, for what the pipeline knows that the ledger has no method for.
  audit::Record& row() { return audit_.record(); }
  bool ended() const { return ended_; }

  void noteClient(std::string_view client_family, std::string_view requested_model, bool streaming);
  void noteCaller(const identity::Caller& caller, const identity::Scope& scope);
  // The route, model and primary deployment; counts gateway_deployment_selected_total.
  void notePlan(const dispatch::Plan& plan);
  // route_match: the plan's segments, then the walk's failover segment, then `extra` (retried_without:…);
  // counts gateway_upstream_failovers_total and logs each failover once.
  void noteRouting(const std::vector<std::string>& plan_segments, const dispatch::AttemptWalk* walk,
                   const std::vector<std::string>& extra);
  void noteLane(std::string_view lane) { lane_ = lane; }
  // An attempt to an endpoint of `tier` (trusted_masked, public) is sent masked with `counts`
  // occurrences per kind: the row's `masked` and, once per tier per request,
  // sluice_data_protection_masked_total.
  void noteMasked(const std::map<protection::Kind, int>& counts, catalog::Trust tier);
  // The other /v1 endpoints: gen_ai_operation_name for the metrics ("embeddings", …).
  void noteOperation(std::string_view operation) { operation_ = operation; }
  // Tracing (when the gateway has a tracer): continues the client's trace context (or starts a
  // trace) and decides sampling; flush() then offers the request's spans (telemetry/request_spans.h).
  void startTrace(std::string_view traceparent, std::string_view tracestate);
  // The traceparent for the provider call about to be sent: a new span id, which the next
  // recordAttempt() gives its CLIENT span; "" when tracing is off.
  std::string attemptTraceparent();
  // The trace id ("" when tracing is off).
  const std::string& traceId() const;
  // Before served(): what the answer counted besides tokens (the row's unit and units).
  void noteUnits(const dispatch::Units& units);
  void noteQuotaWarning(std::string message) { quota_warning_ = std::move(message); }
  // An upstream failure that ended the request: refused() then picks upstream_error,
  // upstream_timeout or all_deployments_failed from how many attempts were sent.
  void noteUpstreamFailure(int attempts_sent, bool timed_out);

  // One try of one deployment, in order; counts gateway_upstream_attempts_total. `error` loses a
  // leading ": ".
  void recordAttempt(const dispatch::Attempt& attempt, int status, std::string result, std::string error,
                     int64_t duration_ms);
  void addUpstreamMs(int64_t ms) { upstream_ms_ += ms; }
  int64_t upstreamMs() const { return upstream_ms_; }

  // --- Ends: exactly one per request. ---
  // Answered with `error` (already sent by the caller) before any provider's bytes.
  void refused(const wire::ApiError& error);
  // The same, with the outcome named by the caller.
  void refused(const wire::ApiError& error, audit::Outcome outcome);
  // A provider's answer was relayed (a success, a relayed error, or a stream that broke), costing
  // `charge` at the served deployment's prices (dispatch::chargeFor; {} when not billed).
  void served(const dispatch::Attempt& attempt, const RelayResult& result, const dispatch::Charge& charge);
  // The client hung up before the provider answered.
  void clientGone();
  // Answered by the gateway itself with `status` (a local estimate), no provider's bytes relayed.
  void answeredLocally(int status);

  // Before the end of a refusal without a valid key: when the gateway's RefusalThrottle says this
  // peer has used its rows for the window, the row is counted into the peer's summary instead of
  // written, and no log line is written (the metrics still count the request). Returns true when
  // suppressed.
  bool throttleUnauthenticated(std::string_view peer);

  // A protocol message that is counted, not audited (an MCP `initialize`, `tools/list`, a
  // notification): no audit row and no log line; the metric figures are still emitted.
  void withoutRow();

  // After an end: the quota settle found the window exceeded in warn mode.
  void noteQuotaBreachAfter(const std::string& message);
  // After an end and the accounting: the log line and the metric figures, once (the destructor
  // calls it when nobody did, and then hands the row to the audit sink). A no-op before an end.
  void flush();
  const wire::Usage& usage() const { return usage_; }
  int64_t cost() const { return cost_; }

  // The audit classification of a refusal answered before any provider's bytes.
  static audit::Outcome outcomeOf(std::string_view error_key);

 private:
  // Records the end (status, error key, duration); flush() emits it.
  void end(int status, std::string_view error_key);
  void journalBegin();

  Gateway& gateway_;
  Kind kind_;
  std::string path_;
  SteadyClock::time_point started_;
  audit::RequestAudit audit_;
  std::optional<metrics::InflightScope> inflight_;
  std::string_view lane_ = metrics::lane::kLocal;
  std::string_view operation_ = "chat";
  catalog::Wire client_wire_;
  std::string served_;
  std::string quota_warning_;
  std::string identity_segment_;  // "identity:certificate" | "identity:proxy" | "" (a key)
  std::optional<SteadyClock::time_point> first_byte_at_;
  wire::Usage usage_;
  bool usage_known_ = false;
  int64_t cost_ = 0;
  int64_t cache_savings_ = 0;
  int64_t upstream_ms_ = 0;
  int attempts_sent_ = 0;
  bool timed_out_ = false;
  bool ended_ = false;
  bool flushed_ = false;
  int end_status_ = 0;
  std::string end_error_key_;
  std::chrono::microseconds elapsed_{0};
  bool row_suppressed_ = false;
  std::vector<catalog::Trust> masked_tiers_;  // counted in sluice_data_protection_masked_total
  std::optional<telemetry::RequestTrace> trace_;
  std::string pending_attempt_span_;
};

}  // namespace sluice::pipeline
