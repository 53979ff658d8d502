#include "server/pipeline/request_ledger.h"

#include <algorithm>

#include "server/audit/sink.h"

#include "server/http/gateway.h"
#include "server/log/json_log.h"
#include "server/telemetry/tracer.h"

namespace sluice::pipeline {

using namespace http;  // NOTE: the front end's request, response and helpers, as before the move

namespace {

// Client strings are kept on the row before the caller is known: a bound keeps a keyless caller
// from writing megabytes into the audit trail.
constexpr size_t kMaxClientString = 256;
// Error messages may quote what the client sent (an unknown model's name): bounded too.
constexpr size_t kMaxErrorMessage = 1024;

std::string bounded(std::string_view text, size_t limit = kMaxClientString) {
  if (text.size() <= limit) return std::string(text);
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // whole characters
  return std::string(text.substr(0, cut)) + "…";
}

}  // namespace

RequestLedger::RequestLedger(Gateway& gateway, std::string request_id, std::string path, catalog::Wire client_wire,
                             Kind kind)
    : gateway_(gateway), kind_(kind), path_(std::move(path)), started_(SteadyClock::now()),
      audit_(gateway.auditSink(), std::move(request_id)), client_wire_(client_wire) {
  if (kind_ == Kind::Request) inflight_.emplace(gateway.metrics());
  audit_.record().client_wire = std::string(catalog::toString(client_wire));
  audit_.record().probe = kind_ == Kind::Probe;
  audit_.record().replica = gateway.options().replica_name;
}

RequestLedger::~RequestLedger() {
  if (!ended_) {
    // A path that forgot to end the request (or an exception past it): still one row and one line.
    auto& row = audit_.record();
    if (row.status == 0) row.status = 500;
    if (row.outcome.empty()) row.outcome = std::string(audit::toString(audit::Outcome::InternalError));
    if (row.error_key.empty()) row.error_key = wire::error_keys::kInternalError;
    end(row.status, row.error_key);
  }
  flush();
  // audit_ is destroyed next: the row goes to its sink.
}

int64_t RequestLedger::millisSince(SteadyClock::time_point from) const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - from).count();
}

void RequestLedger::noteClient(std::string_view client_family, std::string_view requested_model, bool streaming) {
  auto& row = audit_.record();
  row.client_family = bounded(client_family);
  row.requested_model = bounded(requested_model);
  row.is_streaming = streaming;
}

void RequestLedger::noteCaller(const identity::Caller& caller, const identity::Scope& scope) {
  auto& row = audit_.record();
  row.user = caller.user;
  row.api_key_id = caller.api_key_id;
  // A caller identified without a key: the row says how, as the last route_match segment.
  if (caller.source != identity::IdentitySource::Key) {
    identity_segment_ = "identity:" + std::string(identity::toString(caller.source));
  }
  if (scope.project) row.project = *scope.project;
  if (scope.source != identity::ScopeSource::None) row.project_source = std::string(identity::toString(scope.source));
}

void RequestLedger::notePlan(const dispatch::Plan& plan) {
  auto& row = audit_.record();
  row.requested_model = bounded(plan.requested_model);
  row.model = plan.model_id;
  // A plan without a route is the probe's own (one deployment): it names the model.
  row.route_id = plan.route != nullptr ? plan.route->id : plan.model_id;
  row.strategy = kind_ == Kind::Probe ? std::string("probe") : std::string(catalog::toString(plan.strategy));
  row.route_match = dispatch::joinRouteMatch(plan.route_match);
  if (!plan.attempts.empty()) {
    row.provider = plan.attempts.front().provider->id;
    row.endpoint = plan.attempts.front().endpoint->key;
    if (kind_ == Kind::Request && plan.route != nullptr) {
      gateway_.metrics().deployment_selected.with({plan.route->id, row.provider, row.strategy}).inc();
    }
  }
  journalBegin();
}

void RequestLedger::journalBegin() {
  // From here on the request may wait on a provider for minutes: should the process be killed
  // meanwhile, the journal still gives it a row (outcome interrupted) at the next start.
  audit::Sink* sink = audit_.sink();
  if (sink == nullptr) return;
  sink->begin(audit_.record());
}

void RequestLedger::noteRouting(const std::vector<std::string>& plan_segments, const dispatch::AttemptWalk* walk,
                                const std::vector<std::string>& extra) {
  std::vector<std::string> segments = plan_segments;
  if (walk) {
    if (std::string failover = walk->segment(); !failover.empty()) segments.push_back(std::move(failover));
  }
  segments.insert(segments.end(), extra.begin(), extra.end());
  audit_.record().route_match = dispatch::joinRouteMatch(segments);
  if (!walk) return;
  for (const auto& failover : walk->failovers()) {
    gateway_.metrics().upstream_failovers.with({failover.from, failover.to, failover.reason}).inc();
    log::info("failover", {{"request_id", requestId()},
                           {"from", failover.from},
                           {"to", failover.to},
                           {"reason", failover.reason}});
  }
}

void RequestLedger::noteUnits(const dispatch::Units& units) {
  auto& row = audit_.record();
  row.unit = units.unit == dispatch::Unit::None ? std::string() : std::string(dispatch::toString(units.unit));
  row.units = units.unit == dispatch::Unit::None ? 0 : units.count;
}

void RequestLedger::noteUpstreamFailure(int attempts_sent, bool timed_out) {
  attempts_sent_ = attempts_sent;
  timed_out_ = timed_out;
}

void RequestLedger::recordAttempt(const dispatch::Attempt& attempt, int status, std::string result, std::string error,
                                  int64_t duration_ms) {
  audit::AttemptRecord record;
  record.endpoint = attempt.endpoint->key;
  record.provider = attempt.provider->id;
  record.status = status;
  record.result = std::move(result);
  record.error = std::move(error);
  if (record.error.starts_with(": ")) record.error.erase(0, 2);
  record.duration_ms = duration_ms;
  if (trace_) {
    record.started_at = std::chrono::system_clock::now() - std::chrono::milliseconds(duration_ms);
    record.span_id = std::exchange(pending_attempt_span_, std::string());
  }
  gateway_.metrics().upstream_attempts.with({attempt.provider->id, attempt.endpoint->id, record.result}).inc();
  audit_.record().attempts.push_back(std::move(record));
}

void RequestLedger::noteMasked(const std::map<protection::Kind, int>& counts, catalog::Trust tier) {
  auto& row = audit_.record();
  row.masked.clear();
  for (const auto& [kind, count] : counts) row.masked[std::string(protection::toString(kind))] = count;
  if (kind_ != Kind::Request || std::ranges::find(masked_tiers_, tier) != masked_tiers_.end()) return;
  masked_tiers_.push_back(tier);
  const std::string tier_name(catalog::toString(tier));
  for (const auto& [kind, count] : counts) {
    gateway_.metrics().data_protection_masked.with({std::string(protection::toString(kind)), tier_name}).inc(static_cast<uint64_t>(count));
  }
}

audit::Outcome RequestLedger::outcomeOf(std::string_view key) {
  using audit::Outcome;
  if (key == wire::error_keys::kModelNotFound) return Outcome::UnknownModel;
  if (key == wire::error_keys::kRetiredModel) return Outcome::RetiredModel;
  if (key == wire::error_keys::kRequestTooLarge) return Outcome::RequestTooLarge;
  if (key == wire::error_keys::kContextWindowExceeded) return Outcome::ContextWindowExceeded;
  if (key == wire::error_keys::kDataProtectionFailed) return Outcome::DataProtectionFailed;
  if (key == wire::error_keys::kDataProtectionBlocked) return Outcome::DataProtectionBlocked;
  if (key == wire::error_keys::kGovernanceDenied) return Outcome::GovernanceDenied;
  if (key == wire::error_keys::kNoDeploymentAvailable || key == wire::error_keys::kNoDeployment ||
      key == wire::error_keys::kPersonalKeyMissing) {
    return Outcome::NoDeploymentAvailable;
  }
  if (key == wire::error_keys::kInternalError || key == wire::error_keys::kIdentityUnavailable) return Outcome::InternalError;
  if (key == wire::error_keys::kInvalidApiKey || key == wire::error_keys::kInvalidIdentity) {
    return Outcome::Unauthenticated;
  }
  if (key == wire::error_keys::kAccessDenied || key == wire::error_keys::kScopeDenied ||
      key == wire::error_keys::kForbiddenHost) {
    return Outcome::AccessDenied;
  }
  if (key == wire::error_keys::kQuotaExceeded) return Outcome::QuotaExceeded;
  if (key == wire::error_keys::kOverloaded) return Outcome::Overloaded;
  return Outcome::InvalidRequest;
}

void RequestLedger::refused(const wire::ApiError& error) {
  audit::Outcome outcome = outcomeOf(error.key);
  if (outcome == audit::Outcome::InvalidRequest && attempts_sent_ > 0) {
    outcome = attempts_sent_ > 1 ? audit::Outcome::AllDeploymentsFailed
              : timed_out_       ? audit::Outcome::UpstreamTimeout
                                 : audit::Outcome::UpstreamError;
  }
  refused(error, outcome);
}

void RequestLedger::refused(const wire::ApiError& error, audit::Outcome outcome) {
  auto& row = audit_.record();
  row.status = wire::clientStatusFor(client_wire_, error.status);
  row.error_key = bounded(error.key);
  row.error_message = bounded(error.message, kMaxErrorMessage);
  row.outcome = std::string(audit::toString(outcome));
  if (upstream_ms_ > 0) row.upstream_ms = upstream_ms_;
  row.ttfb_ms = millisSince(started_);
  end(row.status, error.key);  // the status the client was sent (529, not 503, for an Anthropic client)
}

void RequestLedger::served(const dispatch::Attempt& attempt, const RelayResult& result, const dispatch::Charge& charge) {
  served_ = attempt.endpoint->key;
  cost_ = charge.cost_microdollars;
  cache_savings_ = charge.cache_savings_microdollars;
  usage_ = result.usage;
  usage_known_ = result.usage_reported;
  first_byte_at_ = result.first_byte_at;
  auto& row = audit_.record();
  // An ad-hoc chain's attempts serve different models under different routes: the row names the one that served.
  if (attempt.model) row.model = attempt.model->id;
  if (attempt.route) row.route_id = attempt.route->id;
  row.served_provider = attempt.provider->id;
  row.served_endpoint = attempt.endpoint->key;
  row.usage = result.usage;
  row.cost_microdollars = charge.cost_microdollars;
  row.cache_savings_microdollars = charge.cache_savings_microdollars;
  row.upstream_ms = upstream_ms_;
  if (result.first_byte_at) {
    row.ttfb_ms = std::chrono::duration_cast<std::chrono::milliseconds>(*result.first_byte_at - started_).count();
  }
  row.error_key = bounded(result.error_key);
  row.error_message = bounded(result.error_message, kMaxErrorMessage);
  if (row.error_key.empty() && !quota_warning_.empty()) {
    row.error_key = wire::error_keys::kQuotaWarning;
    row.error_message = quota_warning_;
  }
  if (result.client_gone) {
    row.status = 499;
    row.aborted = true;
    row.outcome = std::string(audit::toString(result.first_byte_at ? audit::Outcome::ClientGoneMidStream
                                                                   : audit::Outcome::ClientGoneBeforeResponse));
  } else {
    row.status = result.status;
    row.outcome = std::string(audit::toString(result.status < 400 && !result.upstream_broke
                                                  ? audit::Outcome::Ok
                                                  : audit::Outcome::UpstreamError));
  }
  end(result.client_gone ? 499 : result.status, result.error_key);
}

void RequestLedger::clientGone() {
  auto& row = audit_.record();
  row.status = 499;
  row.aborted = true;
  row.upstream_ms = upstream_ms_;
  row.outcome = std::string(audit::toString(audit::Outcome::ClientGoneBeforeResponse));
  row.error_key = wire::error_keys::kClientGone;
  row.error_message = "the client hung up before the provider answered";
  log::info("client hung up before the response", {{"request_id", requestId()}});
  end(499, wire::error_keys::kClientGone);
}

void RequestLedger::answeredLocally(int status) {
  auto& row = audit_.record();
  row.status = status;
  row.outcome = std::string(audit::toString(status < 400 ? audit::Outcome::Ok : audit::Outcome::InternalError));
  if (upstream_ms_ > 0) row.upstream_ms = upstream_ms_;
  row.ttfb_ms = millisSince(started_);
  end(status, "");
}

bool RequestLedger::throttleUnauthenticated(std::string_view peer) {
  if (kind_ == Kind::Probe) return false;
  if (gateway_.refusalThrottle().admit(peer, SteadyClock::now())) return false;
  row_suppressed_ = true;
  audit_.discard();
  gateway_.metrics().audit_rows_suppressed.inc();
  return true;
}

void RequestLedger::withoutRow() {
  row_suppressed_ = true;
  audit_.discard();
}

void RequestLedger::noteQuotaBreachAfter(const std::string& message) {
  auto& row = audit_.record();
  if (!row.error_key.empty()) return;
  row.error_key = wire::error_keys::kQuotaWarning;
  row.error_message = message;
}

void RequestLedger::end(int status, std::string_view error_key) {
  ended_ = true;
  if (!identity_segment_.empty()) {
    std::string& route_match = audit_.record().route_match;
    route_match += route_match.empty() ? identity_segment_ : ";" + identity_segment_;
  }
  // The request's duration ends with its answer; what is accounted after it (the quota settle)
  // does not count, but the figures are emitted once that is done (flush()).
  elapsed_ = std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - started_);
  end_status_ = status;
  end_error_key_ = std::string(error_key);
}

void RequestLedger::startTrace(std::string_view traceparent, std::string_view tracestate) {
  telemetry::Tracer* tracer = gateway_.tracer();
  if (tracer == nullptr) return;
  telemetry::RequestTrace trace;
  trace.parent = telemetry::parseTraceparent(traceparent, tracestate);
  trace.trace_id = trace.parent ? trace.parent->trace_id : telemetry::newTraceId();
  trace.server_span_id = telemetry::newSpanId();
  trace.sampled = tracer->sample(trace.parent, trace.trace_id);
  if (trace.sampled) {
    audit_.record().trace_id = trace.trace_id;
    audit_.record().span_id = trace.server_span_id;
  }
  trace_ = std::move(trace);
}

std::string RequestLedger::attemptTraceparent() {
  if (!trace_) return {};
  pending_attempt_span_ = telemetry::newSpanId();
  return telemetry::formatTraceparent(trace_->trace_id, pending_attempt_span_, trace_->sampled);
}

const std::string& RequestLedger::traceId() const {
  static const std::string none;
  return trace_ ? trace_->trace_id : none;
}

void RequestLedger::flush() {
  if (flushed_ || !ended_) return;
  flushed_ = true;
  if (trace_ && trace_->sampled && kind_ == Kind::Request) {
    if (telemetry::Tracer* tracer = gateway_.tracer()) {
      const auto catalog = gateway_.catalog();
      tracer->offerRequest(audit_.record(), {"POST", path_}, *trace_, catalog.get(), std::chrono::system_clock::now());
    }
  }
  const int status = end_status_;
  const std::string& error_key = end_error_key_;
  const auto elapsed = elapsed_;
  const auto& row = audit_.record();
  log::Line line(log::Level::Info, kind_ == Kind::Probe ? "probe" : "request");
  line.field("request_id", requestId())
      .field("path", path_)
      .field("status", status)
      .field("model", row.model)
      .field("route_match", row.route_match)
      .field("served", served_)
      .field("stream", row.is_streaming)
      .field("input_tokens", usage_.input_tokens)
      .field("output_tokens", usage_.output_tokens)
      .field("cache_read_tokens", usage_.cache_read_tokens)
      .field("cache_write_tokens", usage_.cache_write_tokens)
      .field("reasoning_tokens", usage_.reasoning_tokens)
      .field("cost_microdollars", cost_)
      .field("cache_savings_microdollars", cache_savings_)
      .field("upstream_ms", upstream_ms_)
      .field("duration_ms", static_cast<double>(elapsed.count()) / 1000.0);
  if (!row.unit.empty()) line.field("unit", row.unit).field("units", row.units);
  if (!error_key.empty()) line.field("error_key", error_key);
  if (!row_suppressed_) line.write();
  if (kind_ == Kind::Probe) return;

  metrics::RequestFigures figures;
  figures.route = row.route_id;
  figures.model = row.model;
  figures.served_provider = row.served_provider;
  figures.client_wire = row.client_wire;
  figures.outcome = row.outcome;
  figures.lane = lane_;
  figures.status = row.status != 0 ? row.status : status;
  figures.duration_seconds = static_cast<double>(elapsed.count()) / 1e6;
  figures.overhead_seconds = std::max(0.0, figures.duration_seconds - static_cast<double>(upstream_ms_) / 1e3);
  if (first_byte_at_ && row.outcome == audit::outcome::kOk) {
    figures.time_to_first_token_seconds = std::chrono::duration<double>(*first_byte_at_ - started_).count();
  }
  figures.usage_known = usage_known_;
  // wire::Usage counts every prompt token in input_tokens; the metric's `input` is the billable
  // rest, with cache reads and writes counted under their own types (docs/metrics.md).
  figures.input_tokens = usage_.uncachedInputTokens();
  figures.output_tokens = usage_.output_tokens;
  figures.cache_read_tokens = usage_.cache_read_tokens;
  figures.cache_write_tokens = usage_.cache_write_tokens;
  figures.reasoning_tokens = usage_.reasoning_tokens;
  figures.cost_microdollars = cost_;
  figures.cache_savings_microdollars = cache_savings_;
  figures.project = row.project;
  figures.operation = operation_;
  figures.unit = row.unit;
  figures.units = row.units;
  gateway_.metrics().recordRequest(figures);
}

}  // namespace sluice::pipeline
