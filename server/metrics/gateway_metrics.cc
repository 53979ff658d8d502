#include "server/metrics/gateway_metrics.h"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace sluice::metrics {

namespace {

// Time spent in Sluice itself: 10 µs to 1 s (1-2.5-5 steps).
std::vector<double> overheadBuckets() {
  return {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
          0.005,   0.01,     0.025,   0.05,   0.1,     0.25,   0.5,   1};
}

// Whole requests, streams included: 5 ms to 10 min.
std::vector<double> requestDurationBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600};
}

// First content byte sent to the client: 5 ms to 1 min.
std::vector<double> timeToFirstTokenBuckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

// The OpenTelemetry GenAI semantic conventions' ExplicitBucketBoundaries, as written there.
std::vector<double> semconvTokenUsageBuckets() {
  return {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864};
}
std::vector<double> semconvRequestDurationBuckets() {
  return {0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92};
}
std::vector<double> semconvTimeToFirstTokenBuckets() {
  return {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0};
}
std::vector<double> semconvTimePerOutputTokenBuckets() {
  return {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5};
}

// Rows per audit batch (the writer's default batch is 500).
std::vector<double> auditBatchBuckets() { return {1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000}; }

constexpr std::string_view kOutcomeClientGoneMidStream = "client_gone_mid_stream";
constexpr std::string_view kOutcomeClientGoneBeforeResponse = "client_gone_before_response";

}  // namespace

struct GatewayMetrics::AuditSource {
  std::mutex mutex;
  std::function<AuditFigures()> source;

  // One sample without labels from the current figures, or none when there is no source.
  Samples sample(double (*pick)(const AuditFigures&)) {
    std::function<AuditFigures()> copy;
    {
      std::lock_guard lock(mutex);
      copy = source;
    }
    if (!copy) return {};
    Samples samples;
    samples.emplace_back(std::vector<std::string>{}, pick(copy()));
    return samples;
  }
};

struct GatewayMetrics::PresenceSource {
  std::mutex mutex;
  std::function<Samples()> node_up;
  std::function<Samples()> age;

  Samples sample(std::function<Samples()> PresenceSource::*which) {
    std::function<Samples()> copy;
    {
      std::lock_guard lock(mutex);
      copy = this->*which;
    }
    return copy ? copy() : Samples{};
  }
};

GatewayMetrics::GatewayMetrics(Registry& registry)
    : requests(registry.counter("gateway_requests_total",
                                "Requests answered, by route, catalog model, provider that served them, client wire, "
                                "HTTP status and outcome (refusals included).",
                                {"route", "model", "served_provider", "client_wire", "status", "outcome"})),
      upstream_failovers(registry.counter("gateway_upstream_failovers_total",
                                          "Moves from one deployment to the next within one request, before the first "
                                          "byte, by provider/endpoint and reason.",
                                          {"from", "to", "reason"})),
      deployment_selected(registry.counter("gateway_deployment_selected_total",
                                           "Deployments chosen first by the route's selection strategy.",
                                           {"route", "provider", "strategy"})),
      context_fallbacks(registry.counter("gateway_context_fallbacks_total",
                                         "Requests sent to a larger-context model because the prompt did not fit.",
                                         {"from", "to"})),
      breaker_state(registry.gauge("gateway_breaker_state",
                                   "Circuit breaker state per provider endpoint: 0 closed, 1 half-open, 2 open.",
                                   {"provider", "endpoint"})),
      upstream_attempts(registry.counter("gateway_upstream_attempts_total",
                                         "Attempts sent to (or skipped for) a provider endpoint, by result.",
                                         {"provider", "endpoint", "result"})),
      overhead_seconds(registry.histogram("gateway_overhead_seconds",
                                          "Time spent in Sluice itself per request, excluding time waiting on "
                                          "upstreams, by lane (passthrough, translation, masked, local).",
                                          {"lane"}, overheadBuckets())),
      request_duration_seconds(registry.histogram("gateway_request_duration_seconds",
                                                  "Request duration from arrival to the last byte sent.",
                                                  {"route", "model", "outcome"}, requestDurationBuckets())),
      time_to_first_token_seconds(registry.histogram("gateway_time_to_first_token_seconds",
                                                     "Time from arrival to the first content byte sent to the "
                                                     "client, successful responses.",
                                                     {"route", "model", "served_provider"},
                                                     timeToFirstTokenBuckets())),
      genai_token_usage(registry.histogram("gen_ai_client_token_usage",
                                           "Number of input and output tokens used (OpenTelemetry "
                                           "gen_ai.client.token.usage).",
                                           {"gen_ai_operation_name", "gen_ai_provider_name", "gen_ai_request_model",
                                            "gen_ai_token_type"},
                                           semconvTokenUsageBuckets())),
      genai_request_duration(registry.histogram("gen_ai_server_request_duration_seconds",
                                                "Generative AI server request duration such as time-to-last byte or "
                                                "last output token (OpenTelemetry gen_ai.server.request.duration).",
                                                {"gen_ai_operation_name", "gen_ai_provider_name",
                                                 "gen_ai_request_model", "error_type"},
                                                semconvRequestDurationBuckets())),
      genai_time_to_first_token(registry.histogram("gen_ai_server_time_to_first_token_seconds",
                                                   "Time to generate first token for successful responses "
                                                   "(OpenTelemetry gen_ai.server.time_to_first_token).",
                                                   {"gen_ai_operation_name", "gen_ai_provider_name",
                                                    "gen_ai_request_model"},
                                                   semconvTimeToFirstTokenBuckets())),
      genai_time_per_output_token(registry.histogram("gen_ai_server_time_per_output_token_seconds",
                                                     "Time per output token generated after the first token for "
                                                     "successful responses (OpenTelemetry "
                                                     "gen_ai.server.time_per_output_token).",
                                                     {"gen_ai_operation_name", "gen_ai_provider_name",
                                                      "gen_ai_request_model"},
                                                     semconvTimePerOutputTokenBuckets())),
      tokens(registry.counter("gateway_tokens_total",
                              "Tokens by catalog model and type (input, output, cache_read, cache_write, reasoning).",
                              {"model", "type"})),
      cost_microdollars(registry.counter("gateway_cost_microdollars_total",
                                         "Cost in US microdollars at the price of the deployment that served the "
                                         "request.",
                                         {"model", "served_provider"})),
      project_cost_microdollars(registry.counter("gateway_project_cost_microdollars_total",
                                                 "Cost in US microdollars by the project the request was charged "
                                                 "to (requests without a project are not counted here).",
                                                 {"project"})),
      cache_savings_microdollars(registry.counter("gateway_cache_savings_microdollars_total",
                                                  "What cache reads saved, in US microdollars: cache-read tokens "
                                                  "times the served deployment's input price less its cache-read "
                                                  "price.",
                                                  {"route", "model", "served_provider"})),
      units(registry.counter("gateway_units_total",
                             "What the non-chat /v1 endpoints counted besides tokens: images generated, "
                             "characters spoken, seconds transcribed, requests.",
                             {"model", "unit"})),
      inflight_requests(registry.gauge("gateway_inflight_requests", "Requests being handled now.").with({})),
      client_aborts(registry.counter("gateway_client_aborts_total",
                                     "Requests whose client went away, before the response started or mid-stream.",
                                     {"phase"})),
      catalog_reloads(registry.counter("gateway_catalog_reloads_total",
                                       "Catalog reloads: ok (swapped in) or refused (invalid; the last good one "
                                       "keeps serving).",
                                       {"result"})),
      catalog_info(registry.gauge("gateway_catalog_info", "The catalog version being served (value 1).", {"version"})),
      audit_batch_rows(registry.histogram("gateway_audit_batch_rows", "Rows per batch the audit writer wrote.", {},
                                          auditBatchBuckets())),
      open_connections(registry.gauge("gateway_open_connections", "Client connections being served now.").with({})),
      connections_refused(registry.counter("gateway_connections_refused_total",
                                           "Client connections closed at accept because a cap was reached: "
                                           "max_connections (overall) or max_per_peer (one peer address).",
                                           {"reason"})),
      requests_timed_out(registry.counter("gateway_requests_timed_out_total",
                                          "Requests cut with 408: head (not whole by the head deadline) or body "
                                          "(below the minimum body rate).",
                                          {"phase"})),
      tls_handshake_failures(registry.counter("gateway_tls_handshake_failures_total",
                                              "HTTPS connections closed because their TLS handshake failed: timeout "
                                              "(not complete by the head deadline), no_certificate, "
                                              "certificate_refused (not signed by --client-ca), protocol, closed.",
                                              {"reason"})),
      affinity(registry.counter("gateway_affinity_total",
                                "Requests on routes with conversation affinity, by route and result: hit (the "
                                "conversation's deployment led), repinned (its breaker was open, the next in its "
                                "ranking led), miss (no conversation key).",
                                {"route", "result"})),
      audit_rows_suppressed(registry.counter("gateway_audit_rows_suppressed_total",
                                             "Refusals without a valid key counted into a per-address summary "
                                             "row instead of one audit row each (--unauthenticated-rows-per-peer).")
                                .with({})),
      console_sign_ins_refused(registry.counter("gateway_console_sign_ins_refused_total",
                                                "Console sign-ins answered 429 because their address failed too "
                                                "often (the sign-in throttle).")
                                   .with({})),
      presence_polls(registry.counter("gateway_presence_polls_total",
                                      "Polls of the presence hub (gateway.presence), by result: ok or error.",
                                      {"result"})),
      data_protection_masked(registry.counter("sluice_data_protection_masked_total",
                                              "Values masked in requests sent to a masked trust tier "
                                              "(occurrences, counted once per request and tier), by kind and tier.",
                                              {"kind", "tier"})),
      budget_alerts(registry.counter("gateway_budget_alerts_total",
                                     "Budget alerts (a quota window's alerts:) by window, threshold and outcome: "
                                     "delivered, failed (attempts used up), retried (one failed attempt), "
                                     "claimed_elsewhere (another replica sends it), dropped (queue full), error "
                                     "(the database failed).",
                                     {"window", "threshold", "outcome"})),
      telemetry_dropped(registry.counter("gateway_telemetry_dropped_total",
                                         "OpenTelemetry data not exported, by signal (traces: spans): the queue "
                                         "was full, or the collector refused or could not be reached after its "
                                         "tries.",
                                         {"signal"})),
      mcp_messages(registry.counter("gateway_mcp_messages_total",
                                    "MCP messages (POST, and GET/DELETE of a session) by server, method and "
                                    "outcome: ok, or the error key of a refusal or of the server's answer.",
                                    {"server", "method", "outcome"})),
      mcp_tool_calls(registry.counter("gateway_mcp_tool_calls_total",
                                      "MCP tool calls by server, tool and outcome: ok, tool_error (the tool "
                                      "reported an error), mcp_error (the server answered with a JSON-RPC error), "
                                      "or the refusal's error key.",
                                      {"server", "tool", "outcome"})),
      scim_requests(registry.counter("gateway_scim_requests_total",
                                     "SCIM provisioning calls (/scim/v2) by resource (Users, Groups, "
                                     "ServiceProviderConfig, ResourceTypes, Schemas, other), method and HTTP status.",
                                     {"resource", "method", "status"})),
      audit_(std::make_shared<AuditSource>()),
      presence_(std::make_shared<PresenceSource>()) {
  registry.gaugeCallback("gateway_presence_node_up",
                         "Own machines by presence node: 1 while the hub reports the node available and its last "
                         "poll is fresh, else 0.",
                         {"node"}, [source = presence_] { return source->sample(&PresenceSource::node_up); });
  registry.gaugeCallback("gateway_presence_last_success_age_seconds",
                         "Seconds since the presence hub was last read successfully.", {},
                         [source = presence_] { return source->sample(&PresenceSource::age); });
  // Every series that is a closed set is created now so that it renders 0 before the first event
  // (rate() and absent() behave, alerts have a baseline).
  client_aborts.with({abort_phase::kBeforeResponse});
  client_aborts.with({abort_phase::kMidStream});
  catalog_reloads.with({"ok"});
  catalog_reloads.with({"refused"});
  connections_refused.with({"max_connections"});
  connections_refused.with({"max_per_peer"});
  requests_timed_out.with({"head"});
  requests_timed_out.with({"body"});
  for (const char* reason : {"timeout", "no_certificate", "certificate_refused", "protocol", "closed"}) {
    tls_handshake_failures.with({reason});
  }
  presence_polls.with({"ok"});
  presence_polls.with({"error"});

  // The audit writer's figures, read at scrape time. The callbacks hold the source, not `this`.
  const auto audit_gauge = [&](std::string_view name, std::string_view help, double (*pick)(const AuditFigures&)) {
    registry.gaugeCallback(name, help, {}, [source = audit_, pick] { return source->sample(pick); });
  };
  const auto audit_counter = [&](std::string_view name, std::string_view help, double (*pick)(const AuditFigures&)) {
    registry.counterCallback(name, help, {}, [source = audit_, pick] { return source->sample(pick); });
  };
  audit_gauge("gateway_audit_queue_depth", "Audit rows waiting in memory for the writer.",
              [](const AuditFigures& f) { return static_cast<double>(f.queue_depth); });
  audit_counter("gateway_audit_rows_written_total", "Audit rows written into PostgreSQL, replayed spool rows included.",
                [](const AuditFigures& f) { return static_cast<double>(f.rows_written); });
  audit_counter("gateway_audit_rows_spooled_total", "Audit rows appended to the spool file (PostgreSQL unavailable "
                "or the queue full).",
                [](const AuditFigures& f) { return static_cast<double>(f.rows_spooled); });
  audit_counter("gateway_audit_rows_replayed_total", "Audit rows moved from the spool file into PostgreSQL.",
                [](const AuditFigures& f) { return static_cast<double>(f.rows_replayed); });
  audit_counter("gateway_audit_rows_dropped_total", "Audit rows that reached neither PostgreSQL nor the spool.",
                [](const AuditFigures& f) { return static_cast<double>(f.rows_dropped); });
  audit_counter("gateway_audit_batches_total", "Audit batches written into PostgreSQL.",
                [](const AuditFigures& f) { return static_cast<double>(f.batches); });
  audit_gauge("gateway_audit_spool_rows", "Audit rows in the spool file waiting for replay into PostgreSQL.",
              [](const AuditFigures& f) { return static_cast<double>(f.spool_rows); });
  audit_gauge("gateway_audit_spool_bytes", "Size of the audit spool file.",
              [](const AuditFigures& f) { return static_cast<double>(f.spool_bytes); });
  audit_gauge("gateway_audit_database_available", "1 when the audit writer's last attempt reached PostgreSQL.",
              [](const AuditFigures& f) { return f.database_available ? 1.0 : 0.0; });
  audit_gauge("gateway_audit_journal_off", "1 when the audit journal is asked for but off: its volume is full.",
              [](const AuditFigures& f) { return f.journal_off ? 1.0 : 0.0; });
}

void GatewayMetrics::recordRequest(const RequestFigures& r) {
  const std::string status = std::to_string(r.status);
  requests.with({r.route, r.model, r.served_provider, r.client_wire, status, r.outcome}).inc();
  overhead_seconds.with({r.lane}).observe(r.overhead_seconds);
  request_duration_seconds.with({r.route, r.model, r.outcome}).observe(r.duration_seconds);
  if (r.outcome == kOutcomeClientGoneMidStream) client_aborts.with({abort_phase::kMidStream}).inc();
  if (r.outcome == kOutcomeClientGoneBeforeResponse) client_aborts.with({abort_phase::kBeforeResponse}).inc();
  if (r.time_to_first_token_seconds) {
    time_to_first_token_seconds.with({r.route, r.model, r.served_provider}).observe(*r.time_to_first_token_seconds);
  }

  if (r.usage_known) {
    const std::array<std::pair<std::string_view, int64_t>, 5> counts{{
        {token_type::kInput, r.input_tokens},
        {token_type::kOutput, r.output_tokens},
        {token_type::kCacheRead, r.cache_read_tokens},
        {token_type::kCacheWrite, r.cache_write_tokens},
        {token_type::kReasoning, r.reasoning_tokens},
    }};
    for (const auto& [type, count] : counts) {
      if (count > 0) tokens.with({r.model, type}).inc(static_cast<uint64_t>(count));
    }
  }
  if (r.cost_microdollars > 0) {
    cost_microdollars.with({r.model, r.served_provider}).inc(static_cast<uint64_t>(r.cost_microdollars));
    if (!r.project.empty()) project_cost_microdollars.with({r.project}).inc(static_cast<uint64_t>(r.cost_microdollars));
  }
  if (r.cache_savings_microdollars > 0) {
    cache_savings_microdollars.with({r.route, r.model, r.served_provider})
        .inc(static_cast<uint64_t>(r.cache_savings_microdollars));
  }

  if (!r.unit.empty() && r.units > 0) units.with({r.model, r.unit}).inc(static_cast<uint64_t>(r.units));

  if (r.served_provider.empty()) return;  // the gen_ai_ conventions require a provider
  const bool ok = r.outcome == "ok";
  genai_request_duration.with({r.operation, r.served_provider, r.model, ok ? std::string_view() : r.outcome})
      .observe(r.duration_seconds);
  if (r.usage_known) {
    genai_token_usage.with({r.operation, r.served_provider, r.model, token_type::kInput})
        .observe(static_cast<double>(r.input_tokens + r.cache_read_tokens + r.cache_write_tokens));
    genai_token_usage.with({r.operation, r.served_provider, r.model, token_type::kOutput})
        .observe(static_cast<double>(r.output_tokens));
  }
  if (ok && r.time_to_first_token_seconds) {
    genai_time_to_first_token.with({r.operation, r.served_provider, r.model}).observe(*r.time_to_first_token_seconds);
    // The decode phase: what follows the first token, shared by the tokens after it.
    if (r.usage_known && r.output_tokens > 1) {
      const double decode = r.duration_seconds - *r.time_to_first_token_seconds;
      if (decode >= 0) {
        genai_time_per_output_token.with({r.operation, r.served_provider, r.model})
            .observe(decode / static_cast<double>(r.output_tokens - 1));
      }
    }
  }
}

void GatewayMetrics::setBreakerState(std::string_view provider, std::string_view endpoint, BreakerLevel level) {
  std::lock_guard lock(breaker_mutex_);
  breaker_state.with({provider, endpoint}).set(static_cast<double>(level));
}

void GatewayMetrics::forgetBreaker(std::string_view provider, std::string_view endpoint) {
  std::lock_guard lock(breaker_mutex_);
  breaker_state.remove({provider, endpoint});
}

void GatewayMetrics::setCatalogVersion(std::string_view version) {
  std::lock_guard lock(catalog_mutex_);
  catalog_info.with({version}).set(1);
  if (catalog_version_ && *catalog_version_ != version) catalog_info.remove({*catalog_version_});
  catalog_version_ = std::string(version);
}

void GatewayMetrics::recordCatalogReload(bool accepted) {
  catalog_reloads.with({accepted ? std::string_view("ok") : std::string_view("refused")}).inc();
}

void GatewayMetrics::setAuditSource(std::function<AuditFigures()> source) {
  std::lock_guard lock(audit_->mutex);
  audit_->source = std::move(source);
}

}  // namespace sluice::metrics

namespace sluice::metrics {

void GatewayMetrics::setPresenceSource(std::function<Samples()> node_up, std::function<Samples()> last_success_age) {
  std::lock_guard lock(presence_->mutex);
  presence_->node_up = std::move(node_up);
  presence_->age = std::move(last_success_age);
}

}  // namespace sluice::metrics
