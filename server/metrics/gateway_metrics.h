#pragma once
// Every metric family the gateway exposes, registered once over a Registry: exact names, help
// texts, label names and buckets (public API: dashboards, alert rules and tests use them; see
// docs/metrics.md). No label carries a user, an API key or a request id: label values are route,
// model, provider and endpoint ids from the catalog, wire names and closed sets of words.
//
// Two ways figures arrive:
//  - plain families the request path updates: through recordRequest() at the account step, the
//    record*() helpers, or the families themselves (cache with()'s reference on hot paths);
//  - callback families read at scrape time: the audit writer's figures (setAuditSource).
//
// Thread-safe: every member may be used from any thread. The registry must outlive this object;
// this object may die before the registry (the callbacks hold their own state).

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "server/metrics/registry.h"

namespace sluice::metrics {

// Values of gateway_breaker_state. NOTE: not dispatch::BreakerState's order (closed, open,
// half_open); the gauge orders by severity so that max() over endpoints means something.
enum class BreakerLevel { Closed = 0, HalfOpen = 1, Open = 2 };

// Values of gateway_tokens_total{type}.
namespace token_type {
inline constexpr std::string_view kInput = "input";
inline constexpr std::string_view kOutput = "output";
inline constexpr std::string_view kCacheRead = "cache_read";
inline constexpr std::string_view kCacheWrite = "cache_write";
inline constexpr std::string_view kReasoning = "reasoning";
}  // namespace token_type

// Values of gateway_client_aborts_total{phase}.
namespace abort_phase {
inline constexpr std::string_view kBeforeResponse = "before_response";
inline constexpr std::string_view kMidStream = "mid_stream";
}  // namespace abort_phase

// Values of gateway_overhead_seconds{lane}.
namespace lane {
inline constexpr std::string_view kPassthrough = "passthrough";  // client wire == endpoint wire
inline constexpr std::string_view kTranslation = "translation";  // decoded to the IR and re-encoded
inline constexpr std::string_view kMasked = "masked";            // decoded, masked (data protection) and re-encoded
inline constexpr std::string_view kLocal = "local";              // answered without an upstream (refusals)
}  // namespace lane

// The audit writer's figures at scrape time. audit::WriterStats maps onto it: queue_depth,
// rows_written, rows_spooled, rows_replayed and batches as they are; spool_rows =
// rows_spooled - rows_replayed while the spool holds rows; spool_bytes; database_available.
struct AuditFigures {
  uint64_t queue_depth = 0;       // rows waiting in memory
  uint64_t rows_written = 0;      // cumulative: into PostgreSQL, replayed spool rows included
  uint64_t rows_spooled = 0;      // cumulative: appended to the spool file
  uint64_t rows_replayed = 0;     // cumulative: moved from the spool into PostgreSQL
  uint64_t rows_dropped = 0;      // cumulative: rows that reached neither PostgreSQL nor the spool
  uint64_t batches = 0;           // cumulative: batches written into PostgreSQL
  uint64_t spool_rows = 0;        // rows in the spool file now, waiting for replay
  uint64_t spool_bytes = 0;       // size of the spool file now
  bool database_available = false;
  bool journal_off = false;       // the journal was asked for but its volume is full (or unwritable)
};

// What the account step knows when one request ends (refusals included). Views must stay valid
// for the call only.
struct RequestFigures {
  std::string_view route;            // catalog route id; "" when none matched
  std::string_view model;            // catalog model id; "" when unknown (never the raw string asked)
  std::string_view served_provider;  // provider id of the deployment that answered; "" when none
  std::string_view client_wire;      // "anthropic", "openai-chat", "openai-responses", "gemini"
  std::string_view outcome;          // audit::outcome name
  std::string_view lane = lane::kLocal;
  // gen_ai_operation_name: "chat"; "embeddings" on /v1/embeddings, and the path under /v1 for the
  // other non-chat endpoints ("images/generations", "audio/speech", …)
  std::string_view operation = "chat";
  int status = 0;                    // HTTP status sent to the client
  double duration_seconds = 0;       // arrival to the last byte sent
  double overhead_seconds = 0;       // duration minus time waiting on upstreams
  std::optional<double> time_to_first_token_seconds;  // first content byte sent; successes only
  bool usage_known = false;          // the token counts below were reported or counted
  int64_t input_tokens = 0;          // billable input, cache reads and writes excluded
  int64_t output_tokens = 0;         // reasoning included
  int64_t cache_read_tokens = 0;
  int64_t cache_write_tokens = 0;
  int64_t reasoning_tokens = 0;
  int64_t cost_microdollars = 0;
  int64_t cache_savings_microdollars = 0;  // dispatch::cacheSavingsMicrodollars at the served deployment
  std::string_view project;          // the project the request was charged to; "" when none
  std::string_view unit;             // the other /v1 endpoints: "images", "characters", "seconds", "requests"
  int64_t units = 0;
};

struct GatewayMetrics {
  // Registers every family on `registry`. Once per registry: a second GatewayMetrics over the
  // same registry throws std::logic_error (the audit callback families exist already).
  explicit GatewayMetrics(Registry& registry);

  // gateway_requests_total, the duration/overhead/TTFT histograms (gateway_ and gen_ai_), token
  // and cost counters, for one finished request. gen_ai_* families are recorded only when a
  // provider served the request (served_provider not empty).
  void recordRequest(const RequestFigures& request);

  // gateway_breaker_state{provider,endpoint}: call on every transition, and with Closed for
  // every endpoint at start-up and after a reload; forgetBreaker for endpoints that left the
  // catalog.
  void setBreakerState(std::string_view provider, std::string_view endpoint, BreakerLevel level);
  void forgetBreaker(std::string_view provider, std::string_view endpoint);

  // gateway_catalog_info{version} = 1 for `version` only; the previous version's series is
  // removed. Call at start-up and after every swap.
  void setCatalogVersion(std::string_view version);
  // gateway_catalog_reloads_total{result="ok"} when the new catalog was swapped in, else
  // {result="refused"} (it failed validation; the last good one keeps serving).
  void recordCatalogReload(bool accepted);

  // Where the audit figures come from; called once per family at every scrape, on the scraping
  // thread; must not throw. Before the first call (or with an empty function) the audit
  // families render no sample.
  void setAuditSource(std::function<AuditFigures()> source);

  // Where the presence families' samples come from (presence::PresencePoller):
  // gateway_presence_node_up{node} and gateway_presence_last_success_age_seconds. Called at every
  // scrape; must not throw. Without a source they render no sample.
  void setPresenceSource(std::function<Samples()> node_up, std::function<Samples()> last_success_age);

  // The families; with() takes the label values in the order shown. recordRequest() fills the
  // ones marked (R); the request path updates the others where the event happens.
  // gateway_requests_total{route,model,served_provider,client_wire,status,outcome} (R)
  CounterFamily& requests;
  // gateway_upstream_failovers_total{from,to,reason}: from/to provider ids; reason the
  // failover classification (status_503, status_429, timeout, transport, breaker_open, ...)
  CounterFamily& upstream_failovers;
  // gateway_deployment_selected_total{route,provider,strategy}: the first deployment of a plan
  CounterFamily& deployment_selected;
  // gateway_context_fallbacks_total{from,to}: model ids
  CounterFamily& context_fallbacks;
  // gateway_breaker_state{provider,endpoint}: use setBreakerState() and forgetBreaker() only
  // (forgetting removes the series, so handles to it must not be kept)
  GaugeFamily& breaker_state;
  // gateway_upstream_attempts_total{provider,endpoint,result}: result as the audit attempt's,
  // from a closed set ("ok", "status_503", "transport:connect", "skipped:breaker_open", ...)
  CounterFamily& upstream_attempts;
  HistogramFamily& overhead_seconds;             // gateway_overhead_seconds{lane} (R)
  HistogramFamily& request_duration_seconds;     // gateway_request_duration_seconds{route,model,outcome} (R)
  HistogramFamily& time_to_first_token_seconds;  // gateway_time_to_first_token_seconds{route,model,served_provider} (R)
  // gen_ai_client_token_usage{gen_ai_operation_name,gen_ai_provider_name,gen_ai_request_model,gen_ai_token_type} (R)
  HistogramFamily& genai_token_usage;
  // gen_ai_server_request_duration_seconds{gen_ai_operation_name,gen_ai_provider_name,gen_ai_request_model,error_type} (R)
  HistogramFamily& genai_request_duration;
  // gen_ai_server_time_to_first_token_seconds{gen_ai_operation_name,gen_ai_provider_name,gen_ai_request_model} (R)
  HistogramFamily& genai_time_to_first_token;
  // gen_ai_server_time_per_output_token_seconds{gen_ai_operation_name,gen_ai_provider_name,gen_ai_request_model} (R)
  HistogramFamily& genai_time_per_output_token;
  CounterFamily& tokens;             // gateway_tokens_total{model,type} (R)
  CounterFamily& cost_microdollars;  // gateway_cost_microdollars_total{model,served_provider} (R)
  // gateway_project_cost_microdollars_total{project}: the same cost by the project charged, for
  // spend per team; requests without a project are not counted here (R)
  CounterFamily& project_cost_microdollars;
  // gateway_cache_savings_microdollars_total{route,model,served_provider} (R)
  CounterFamily& cache_savings_microdollars;
  // gateway_units_total{model,unit}: what the other /v1 endpoints counted besides tokens (R)
  CounterFamily& units;
  Gauge& inflight_requests;          // gateway_inflight_requests: use InflightScope
  // gateway_client_aborts_total{phase}: abort_phase::*, from the outcomes client_gone_* (R)
  CounterFamily& client_aborts;
  CounterFamily& catalog_reloads;    // gateway_catalog_reloads_total{result}: use recordCatalogReload()
  GaugeFamily& catalog_info;         // gateway_catalog_info{version}: use setCatalogVersion() only
  // gateway_audit_batch_rows: observe(rows) once per batch the audit writer writes
  HistogramFamily& audit_batch_rows;
  Gauge& open_connections;  // gateway_open_connections: client connections being served now
  // gateway_connections_refused_total{reason}: "max_connections" or "max_per_peer"
  CounterFamily& connections_refused;
  // gateway_requests_timed_out_total{phase}: "head" (not whole by --head-timeout-ms) or "body"
  // (slower than --min-body-bytes-per-second)
  CounterFamily& requests_timed_out;
  // gateway_tls_handshake_failures_total{reason}: timeout | no_certificate | certificate_refused |
  // protocol | closed (http/client_tls.h), with --tls-cert
  CounterFamily& tls_handshake_failures;
  // gateway_affinity_total{route, result}: hit | repinned | miss, per request on a route with
  // conversation affinity (dispatch/affinity.h)
  CounterFamily& affinity;
  // gateway_audit_rows_suppressed_total: keyless refusals counted into a summary row instead of
  // one row each (audit::RefusalThrottle)
  Counter& audit_rows_suppressed;
  // gateway_console_sign_ins_refused_total: console sign-ins answered 429 by the sign-in throttle
  Counter& console_sign_ins_refused;
  // gateway_presence_polls_total{result}: "ok" or "error", one per poll of the presence hub
  CounterFamily& presence_polls;
  // sluice_data_protection_masked_total{kind,tier}: values masked (occurrences, never the values)
  // in requests sent to a masked tier (trusted_masked, public), counted once per request and tier
  CounterFamily& data_protection_masked;
  // gateway_budget_alerts_total{window,threshold,outcome}: budget alerts by outcome
  // (server/alerts/alert_sender.h)
  CounterFamily& budget_alerts;
  // gateway_telemetry_dropped_total{signal}: spans not exported (queue full, collector refused or
  // unreachable after its tries)
  CounterFamily& telemetry_dropped;
  // gateway_mcp_messages_total{server,method,outcome}: MCP messages by server, method (the known
  // methods; "other") and outcome ("ok" or the error key) (docs/mcp.md)
  CounterFamily& mcp_messages;
  // gateway_mcp_tool_calls_total{server,tool,outcome}: tool calls by server, tool and outcome
  // ("ok", "tool_error", "mcp_error" or the refusal's key)
  CounterFamily& mcp_tool_calls;
  // gateway_scim_requests_total{resource,method,status}: SCIM provisioning calls (/scim/v2)
  CounterFamily& scim_requests;

 private:
  struct AuditSource;
  std::shared_ptr<AuditSource> audit_;  // shared with the registry's callbacks
  struct PresenceSource;
  std::shared_ptr<PresenceSource> presence_;  // likewise
  std::mutex breaker_mutex_;  // setBreakerState against forgetBreaker: a removed series' handle dies
  std::mutex catalog_mutex_;
  std::optional<std::string> catalog_version_;
};

// Counts one request in gateway_inflight_requests for the scope's lifetime.
class InflightScope {
 public:
  explicit InflightScope(GatewayMetrics& metrics) noexcept : gauge_(metrics.inflight_requests) { gauge_.inc(); }
  ~InflightScope() { gauge_.dec(); }
  InflightScope(const InflightScope&) = delete;
  InflightScope& operator=(const InflightScope&) = delete;

 private:
  Gauge& gauge_;
};

}  // namespace sluice::metrics
