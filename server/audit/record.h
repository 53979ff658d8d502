#pragma once
// One row of the audit trail (table `ai_requests`, docs/audit.md): who sent a request, what they
// asked for, which route and deployment served it and why, what it cost, how long it took and how
// it ended. A plain value; filled on the request's thread, then handed to the Writer.
// Nothing secret belongs here: no API keys (only their id), no provider credentials.
// Which member fills which column, and how it is spelled on disk and in PostgreSQL: fields.h.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/wire/usage.h"

namespace sluice::audit {

using Clock = std::chrono::system_clock;
using TimePoint = Clock::time_point;

// One try of one deployment, in the order tried. Stored as a JSON array in `attempts`.
struct AttemptRecord {
  std::string endpoint;   // the deployment endpoint id
  std::string provider;
  int status = 0;         // HTTP status from the upstream, 0 when none was received
  // "ok", "status_503", "transport:connect", "skipped:<reason>", "retried_without:<field>"
  std::string result;
  std::string error;      // the upstream's or transport's message, short; empty when none
  int64_t duration_ms = 0;
  // For tracing only (not stored): when the try began, and the span id it was sent with in its
  // traceparent (empty when tracing is off or it was never sent).
  TimePoint started_at{};
  std::string span_id{};
};

// The gateway's own classification of how a request ended (column `outcome`). Public API:
// dashboards and `sluicectl requests list --outcome` use these names. docs/audit.md says what
// each one means.
namespace outcome {
inline constexpr std::string_view kOk = "ok";
inline constexpr std::string_view kClientGoneMidStream = "client_gone_mid_stream";          // status 499
inline constexpr std::string_view kClientGoneBeforeResponse = "client_gone_before_response";  // status 499
inline constexpr std::string_view kUpstreamError = "upstream_error";
inline constexpr std::string_view kUpstreamTimeout = "upstream_timeout";
inline constexpr std::string_view kAllDeploymentsFailed = "all_deployments_failed";
inline constexpr std::string_view kNoDeploymentAvailable = "no_deployment_available";
inline constexpr std::string_view kUnknownModel = "unknown_model";
inline constexpr std::string_view kRetiredModel = "retired_model";
inline constexpr std::string_view kInvalidRequest = "invalid_request";
inline constexpr std::string_view kRequestTooLarge = "request_too_large";
inline constexpr std::string_view kContextWindowExceeded = "context_window_exceeded";
inline constexpr std::string_view kDataProtectionFailed = "data_protection_failed";    // 400
inline constexpr std::string_view kDataProtectionBlocked = "data_protection_blocked";  // 400
inline constexpr std::string_view kUnauthenticated = "unauthenticated";
inline constexpr std::string_view kAccessDenied = "access_denied";
inline constexpr std::string_view kGovernanceDenied = "governance_denied";
inline constexpr std::string_view kQuotaExceeded = "quota_exceeded";
inline constexpr std::string_view kShuttingDown = "shutting_down";
inline constexpr std::string_view kOverloaded = "overloaded";  // 503: no room left for request bodies
inline constexpr std::string_view kInternalError = "internal_error";
// The replica serving the request stopped before it ended (killed, crashed): written at its next
// start from its audit journal (journal.h). Status 500.
inline constexpr std::string_view kInterrupted = "interrupted";
}  // namespace outcome

struct Record {
  std::string id;                  // the x-sluice-request-id (UUIDv7); the row's key with created_at
  TimePoint created_at{};          // when the request arrived; RequestAudit sets it
  TimePoint completed_at{};        // when the response ended; epoch = unset (RequestAudit fills it)

  // Who.
  std::string user;                // principal name; empty when unauthenticated
  std::string api_key_id;          // the key's id, never the key
  std::string project;
  std::string project_source;      // "header" | "key" | "primary" | "" (none)
  std::string client_family;       // from the User-Agent: "anthropic-sdk-python", "curl", …
  std::string client_wire;         // "anthropic" | "openai-chat" | "openai-responses" | "gemini"
  // The caller's IP address: the connection's peer, or, behind a trusted proxy
  // (gateway.trusted_proxies) that sent X-Forwarded-For, the address that proxy saw.
  std::string client_address;
  // The OpenTelemetry trace this request's SERVER span belongs to, and that span (hex); empty when
  // tracing is off or the trace was not sampled.
  std::string trace_id;
  std::string span_id;

  // What was asked and what served it.
  std::string requested_model;     // as the client sent it (alias, retired id, …)
  std::string model;               // the catalog model it resolved to
  std::string route_id;
  std::string strategy;
  std::string provider;            // the route's primary deployment's provider
  std::string endpoint;            // the route's primary endpoint
  std::string served_provider;     // the deployment that produced the response; empty if none did
  std::string served_endpoint;
  std::string route_match;         // ";"-joined segments (CATALOG.md)
  std::vector<AttemptRecord> attempts;
  bool is_streaming = false;

  // How it ended.
  int status = 0;                  // HTTP status sent to the client (499 when the client left)
  std::string outcome;             // one of audit::outcome; empty = unset (the guard says internal_error)
  std::string error_key;           // the gateway's error code, e.g. "model_not_found"
  std::string error_message;

  // Usage and money.
  wire::Usage usage;
  int64_t cost_microdollars = 0;
  // What the cache reads saved at the served deployment's prices (dispatch::cacheSavingsMicrodollars);
  // 0 when nothing was served.
  int64_t cache_savings_microdollars = 0;
  // What the other /v1 endpoints count besides tokens (dispatch::Units): "images", "characters",
  // "seconds" or "requests", and how many; "" and 0 for chat requests and unserved ones.
  std::string unit;
  int64_t units = 0;

  // Time. Unset values stay NULL in the table.
  std::optional<int64_t> latency_ms;   // arrival → last byte; RequestAudit fills it when unset
  std::optional<int64_t> ttfb_ms;      // arrival → first byte sent to the client
  std::optional<int64_t> upstream_ms;  // time spent waiting on upstreams (all attempts)

  // Data protection: values masked per kind ("email" -> 2), occurrences, never the values. Empty
  // (NULL in the table) when nothing was masked or no attempt was sent to a masked tier.
  std::map<std::string, int64_t> masked;

  bool aborted = false;            // the client went away before the response was complete
  bool probe = false;              // a console test call: excluded from usage analytics
  std::string replica;             // the replica that served it (--replica-name)

  // Bodies are stored only when the catalog enables it (with a size cap); absent by default.
  std::optional<std::string> request_body;
  std::optional<std::string> response_body;
};

}  // namespace sluice::audit
