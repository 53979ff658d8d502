// The inference endpoints (/v1/messages, /v1/chat/completions, /v1/responses): one Exchange per
// request walks the pure plan (server/dispatch) and does the I/O.
//
//   read and parse the body → plan (health snapshot, context window, governance, strategy) →
//   for each attempt: bind it, ask its breaker, send; retry the same endpoint while the retry
//   budget allows (429/503/529), once more without an optional field the target refused, then the
//   next deployment (5xx, transport failure) → relay the answer, translated when the wires differ.
//
// The client watch cancels the upstream exchange the moment the caller hangs up, even while the
// provider is silent; the RequestAudit guard writes exactly one row whatever happens.

#include <array>
#include <chrono>
#include <istream>
#include <random>
#include <string>
#include <vector>

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/StreamSocket.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <nlohmann/json.hpp>

#include "server/audit/guard.h"
#include "server/dispatch/attempt_walk.h"
#include "server/dispatch/failover.h"
#include "server/dispatch/optional_field.h"
#include "server/dispatch/planner.h"
#include "server/dispatch/pricing.h"
#include "server/dispatch/token_estimate.h"
#include "server/http/handlers.h"
#include "server/http/identity_gate.h"
#include "server/identity/access.h"
#include "server/identity/quota.h"
#include "server/wire/endpoint.h"
#include "server/http/relay.h"
#include "server/http/server_session.h"
#include "server/wire/json_parse.h"
#include "server/http/respond.h"
#include "server/http/upstream_call.h"
#include "server/log/json_log.h"
#include "server/wire/client.h"
#include "server/wire/codec.h"
#include "server/wire/json_scan.h"

namespace sluice::http {

namespace {

using nlohmann::ordered_json;
using SteadyClock = std::chrono::steady_clock;

// The largest provider error body read for classification and relaying.
constexpr size_t kMaxErrorBody = 256u << 10;

double uniformDraw() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

dispatch::TransportKind kindOf(upstream::TransportFailure failure) {
  switch (failure) {
    case upstream::TransportFailure::Connect: return dispatch::TransportKind::Connect;
    case upstream::TransportFailure::Timeout: return dispatch::TransportKind::Timeout;
    case upstream::TransportFailure::Reset: return dispatch::TransportKind::Reset;
    case upstream::TransportFailure::Tls: return dispatch::TransportKind::Tls;
    case upstream::TransportFailure::Protocol: return dispatch::TransportKind::Protocol;
  }
  return dispatch::TransportKind::Reset;
}

// The top-level members read before a lane is chosen, found by scanning the body
// (wire/json_scan.h): a passthrough request is never parsed whole.
enum HeadKey : size_t { kModel, kStream, kStreamOptions, kMaxTokens, kMaxCompletionTokens, kMaxOutputTokens };
constexpr std::array<std::string_view, 6> kHeadKeys = {"model", "stream", "stream_options", "max_tokens",
                                                       "max_completion_tokens", "max_output_tokens"};

// The request's own output ceiling, by the client wire's field name; Chat has two names.
HeadKey maxTokensKey(catalog::Wire wire, bool has_max_completion_tokens) {
  switch (wire) {
    case catalog::Wire::Anthropic: return kMaxTokens;
    case catalog::Wire::OpenAIChat: return has_max_completion_tokens ? kMaxCompletionTokens : kMaxTokens;
    case catalog::Wire::OpenAIResponses: return kMaxOutputTokens;
    case catalog::Wire::Gemini: return kMaxOutputTokens;  // NOTE: never a client wire
  }
  return kMaxTokens;
}

int64_t millisBetween(SteadyClock::time_point from, SteadyClock::time_point to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

int clientFd(Poco::Net::HTTPServerRequest& request) {
  const auto* server_request = dynamic_cast<const ServerRequest*>(&request);
  return server_request ? server_request->fd() : -1;
}

class Exchange {
 public:
  Exchange(Gateway& gateway, catalog::Wire client_wire, Poco::Net::HTTPServerRequest& request,
           Poco::Net::HTTPServerResponse& response)
      : gateway_(gateway), client_wire_(client_wire), request_(request), response_(response),
        request_id_(response.get("x-sluice-request-id", "")), started_(SteadyClock::now()),
        audit_(gateway.audit(), request_id_), inflight_(gateway.metrics()) {
    auto& row = audit_.record();
    row.client_wire = std::string(catalog::toString(client_wire));
    row.client_family = std::string(catalog::toString(
        wire::detectClientFamily(request.get("x-sluice-client", ""), request.get("User-Agent", ""), client_wire)));
  }

  void run() {
    auto body = readBody(request_, gateway_.options().max_body_bytes);
    if (!body) {
      response_.setKeepAlive(false);
      return fail({413, "request_too_large",
                   "request body exceeds " + std::to_string(gateway_.options().max_body_bytes) + " bytes", {}, {}});
    }
    raw_body_ = std::move(*body);
    head_ = wire::scanTopLevelMembers(raw_body_, kHeadKeys);
    if (!head_.walked) {
      // Malformed, nested too deep for the walk, or a key written with escapes: the parse decides,
      // and serves the members. Nesting past the bound is refused before any parse.
      if (wire::nestsDeeperThan(raw_body_)) {
        return fail({400, "invalid_request",
                     "request body nests arrays and objects deeper than " + std::to_string(wire::kMaxJsonDepth) +
                         " levels",
                     {}, {}});
      }
      full_body_ = wire::parseJsonText(raw_body_);
      if (full_body_->is_discarded()) return fail({400, "invalid_json", "request body is not valid JSON", {}, {}});
      if (!full_body_->is_object()) {
        return fail({400, "invalid_request", "request body must be a JSON object", {}, {}});
      }
    }
    std::string requested;
    if (const auto model = headMember(kModel)) {
      if (!model->is_string()) return fail({400, "invalid_request", "'model' must be a string", "model", {}});
      requested = model->get<std::string>();
    }
    requested_model_ = requested;
    const auto stream = headMember(kStream);
    stream_ = stream && stream->is_boolean() && stream->get<bool>();
    if (client_wire_ == catalog::Wire::OpenAIChat) {
      const auto options = headMember(kStreamOptions);
      client_asked_usage_ = options && options->is_object() && options->contains("include_usage") &&
                            (*options)["include_usage"].is_boolean() && (*options)["include_usage"].get<bool>();
    }
    max_tokens_key_ = maxTokensKey(client_wire_, headMember(kMaxCompletionTokens).has_value());
    audit_.record().requested_model = requested;
    audit_.record().is_streaming = stream_;

    auto who = identify(gateway_, request_);
    if (!who) return fail(who.error());
    who_ = std::move(*who);
    if (who_) {
      auto& row = audit_.record();
      row.user = who_->caller.user;
      row.api_key_id = who_->caller.api_key_id;
      if (who_->scope.project) row.project = *who_->scope.project;
      if (who_->scope.source != identity::ScopeSource::None) {
        row.project_source = std::string(identity::toString(who_->scope.source));
      }
    }

    catalog_ = gateway_.catalog();
    const dispatch::Health health = gateway_.endpoints().snapshot(SteadyClock::now());
    dispatch::PlanRequest plan_request;
    plan_request.requested_model = requested;
    if (who_) plan_request.project = who_->scope.project;
    plan_request.health = &health;
    plan_request.draw = uniformDraw();
    if (const auto max_tokens = headMember(max_tokens_key_); max_tokens && max_tokens->is_number_integer()) {
      plan_request.max_tokens = max_tokens->get<int64_t>();
    }
    auto plan = dispatch::planDispatch(*catalog_, plan_request);
    // The estimate counts the request's text at about four bytes a token, so it is at most a
    // quarter of the body: a body that small always fits and needs no decoding.
    if (plan && plan->model->limits.context_window &&
        static_cast<int64_t>(raw_body_.size() / 4) > *plan->model->limits.context_window && decodeIr()) {
      plan_request.estimated_input_tokens = dispatch::estimateInputTokens(*ir_);
      plan = dispatch::planDispatch(*catalog_, plan_request);
    }
    if (!plan) {
      audit_.record().route_match = dispatch::joinRouteMatch(plan.error().route_match);
      return fail(plan.error());
    }
    model_ = plan->model_id;
    auto& row = audit_.record();
    row.requested_model = plan->requested_model;
    row.model = plan->model_id;
    row.route_id = plan->route->id;
    row.strategy = std::string(catalog::toString(plan->strategy));
    row.route_match = dispatch::joinRouteMatch(plan->route_match);
    if (!plan->attempts.empty()) {
      row.provider = plan->attempts.front().provider->id;
      row.endpoint = plan->attempts.front().endpoint->key;
    }
    if (!plan->attempts.empty()) {
      gateway_.metrics()
          .deployment_selected.with({plan->route->id, plan->attempts.front().provider->id, row.strategy})
          .inc();
    }
    if (who_) {
      identity::AccessRequest access;
      access.route_id = plan->route->id;
      access.route_kind = plan->route->kind;
      access.model_id = plan->model_id;
      const identity::Decision decision =
          identity::decideAccess(catalog_->access_rules, access, identity::accessSubject(who_->caller, who_->scope));
      if (!decision.allowed) {
        log::info("access denied", {{"request_id", request_id_}, {"user", who_->caller.user},
                                    {"entity", decision.entity}, {"basis", decision.basis}});
        return fail({403, "access_denied", decision.message(), {}, {}});
      }
      if (!reserveQuota(*plan)) return;
    }
    if (plan->context_fallback_from) {
      gateway_.metrics().context_fallbacks.with({*plan->context_fallback_from, plan->model_id}).inc();
      log::info("context fallback", {{"request_id", request_id_},
                                     {"from", *plan->context_fallback_from},
                                     {"to", plan->model_id},
                                     {"estimated_input_tokens", plan->estimated_input_tokens}});
    }
    execute(*plan);
    settleQuota();
  }

 private:
  // Counts the request against every quota window that applies before it is sent; false when
  // an enforced window is full (the 429 was sent). A quota store that cannot be reached does not
  // stop traffic: the request is served unchecked and the failure logged.
  bool reserveQuota(const dispatch::Plan& plan) {
    const auto& quotas = gateway_.identity().quotas;
    if (!quotas || catalog_->quotas.windows.empty()) return true;
    estimated_input_tokens_ = plan.estimated_input_tokens;
    // Warn mode never refuses, so nothing needs counting before the call: the request is counted
    // once it has been answered, off the caller's path to the first byte.
    if (catalog_->quotas.mode == catalog::QuotaMode::Warn) {
      count_after_ = true;
      return true;
    }
    const auto now = std::chrono::system_clock::now();
    try {
      identity::Reservation reservation = quotas->reserve(
          catalog_->quotas, identity::quotaSubject(who_->caller, who_->scope), plan.estimated_input_tokens, now);
      if (!reservation.admitted && reservation.breach) {
        const auto& breach = *reservation.breach;
        fail({429, "quota_exceeded", breach.message(), {}, static_cast<int>(breach.retryAfterSeconds(now))});
        return false;
      }
      if (reservation.breach) {
        quota_warning_ = reservation.breach->message();
        log::warn("quota exceeded (warn mode: served)", {{"request_id", request_id_},
                                                        {"user", who_->caller.user},
                                                        {"window", reservation.breach->window_id},
                                                        {"message", quota_warning_}});
      }
      reservation_ = std::move(reservation);
    } catch (const std::exception& error) {
      log::error("quota store unavailable; request served without a quota check",
                 {{"request_id", request_id_}, {"error", error.what()}});
    }
    return true;
  }

  void settleQuota() {
    const auto& quotas = gateway_.identity().quotas;
    if (quotas && count_after_ && sent_any_) {
      count_after_ = false;
      try {
        reservation_ = quotas->reserve(catalog_->quotas, identity::quotaSubject(who_->caller, who_->scope),
                                       estimated_input_tokens_, std::chrono::system_clock::now());
        if (reservation_->breach) {
          const std::string message = reservation_->breach->message();
          log::warn("quota exceeded (warn mode: served)", {{"request_id", request_id_},
                                                          {"user", who_->caller.user},
                                                          {"window", reservation_->breach->window_id},
                                                          {"message", message}});
          auto& row = audit_.record();
          if (row.error_key.empty()) {
            row.error_key = "quota_warning";
            row.error_message = message;
          }
        }
      } catch (const std::exception& error) {
        log::error("quota store unavailable; request not counted", {{"request_id", request_id_}, {"error", error.what()}});
        return;
      }
    }
    if (!quotas || !reservation_ || !reservation_->admitted) return;
    try {
      if (sent_any_) {
        identity::QuotaUsage usage;
        usage.input_tokens = usage_.input_tokens + usage_.cache_read_tokens + usage_.cache_write_tokens;
        usage.output_tokens = usage_.output_tokens;
        usage.cost_microdollars = cost_;
        quotas->settle(*reservation_, usage);
      } else {
        quotas->release(*reservation_);
      }
    } catch (const std::exception& error) {
      log::error("quota settle failed", {{"request_id", request_id_}, {"error", error.what()}});
    }
    reservation_.reset();
  }

  bool decodeIr() {
    if (ir_) return true;
    auto decoded = wire::decodeRequest(client_wire_, raw_body_);
    if (!decoded) {
      decode_error_ = decoded.error();
      return false;
    }
    ir_ = std::move(*decoded);
    return true;
  }

  // A top-level member of the request: from the scan, or from the parsed body when the scan could
  // not walk it. nullopt when absent. (A JSON null is a value here, as `contains` saw it.)
  std::optional<ordered_json> headMember(HeadKey key) const {
    if (!head_.walked) {
      const auto found = full_body_->find(kHeadKeys[key]);
      if (found == full_body_->end()) return std::nullopt;
      return *found;
    }
    const auto& text = head_.values[key];
    if (!text) return std::nullopt;
    return wire::parseJsonText(*text);  // one member's value, already walked
  }

  ordered_json& fullBody() {
    if (!full_body_) full_body_ = wire::parseJsonText(raw_body_);
    return *full_body_;
  }

  // The body this attempt sends: the client's own with the model rewritten when the wires match,
  // else the request encoded for the provider's wire.
  std::expected<std::string, wire::ApiError> bodyFor(const dispatch::Attempt& attempt, const dispatch::Plan& plan) {
    const catalog::Wire provider_wire = attempt.endpoint->wire;
    if (provider_wire == client_wire_) {
      const bool clamp = plan.max_tokens_clamped && plan.max_tokens.has_value();
      // Without it a Chat stream carries no usage at all, and the request could not be accounted;
      // the relay takes the usage chunk out again before the client sees it.
      const bool add_usage = stream_ && provider_wire == catalog::Wire::OpenAIChat && !client_asked_usage_;
      // Nothing to change: the client's bytes go upstream as they came (no re-serialisation).
      if (!clamp && !add_usage && !requested_model_.empty() && requested_model_ == attempt.deployment->upstream_model) {
        return raw_body_;
      }
      // Only the changed members are rewritten in the client's text (a 200 KB conversation is
      // not parsed and re-serialised for a model name); stream_options the client wrote itself
      // keeps its other members through the parse below.
      if (head_.walked && !(add_usage && head_.values[kStreamOptions])) {
        std::vector<wire::MemberEdit> edits;
        edits.push_back({"model", ordered_json(attempt.deployment->upstream_model).dump()});
        if (clamp) edits.push_back({kHeadKeys[max_tokens_key_], std::to_string(*plan.max_tokens)});
        if (add_usage) edits.push_back({"stream_options", R"({"include_usage":true})"});
        if (auto edited = wire::editTopLevelMembers(raw_body_, head_, kHeadKeys, edits)) return std::move(*edited);
      }
      ordered_json& body = fullBody();
      if (!body.is_object()) return std::unexpected(wire::ApiError{400, "invalid_json", "request body is not valid JSON", {}, {}});
      body["model"] = attempt.deployment->upstream_model;
      if (clamp) body[std::string(kHeadKeys[max_tokens_key_])] = *plan.max_tokens;
      if (add_usage) {
        auto& options = body["stream_options"];
        if (!options.is_object()) options = ordered_json::object();
        options["include_usage"] = true;
      }
      return wire::dumpJsonText(body);
    }
    if (!decodeIr()) return std::unexpected(*decode_error_);
    wire::EncodeOptions options;
    options.upstream_model = attempt.deployment->upstream_model;
    options.max_output = plan.model->limits.max_output;
    options.default_max_tokens = plan.model->limits.max_output.value_or(4096);
    return wire::encodeRequest(provider_wire, *ir_, options);
  }

  void execute(const dispatch::Plan& plan) {
    upstream::Cancel cancel;
    // A client that hangs up while its request waits on the provider cancels the exchange.
    struct HangUp {
      int fd;
      upstream::Cancel* cancel;
      static void check(void* self) {
        auto* hang_up = static_cast<HangUp*>(self);
        if (clientGone(hang_up->fd)) hang_up->cancel->cancel();
      }
    } hang_up{clientFd(request_), &cancel};
    net::fiber::EdgeWatch edge_watch;  // on a fiber: the connection's own socket tells
    if (auto* server_request = dynamic_cast<ServerRequest*>(&request_)) {
      edge_watch = net::fiber::watchEdge(server_request->fd(), server_request->registration(), &HangUp::check, &hang_up);
    }
    const auto watching = edge_watch.active() ? ClientWatch::Registration{} : gateway_.clientWatch().watch(hang_up.fd, cancel);
    dispatch::AttemptWalk walk(plan.attempts);
    std::vector<std::string> field_segments;
    std::optional<wire::ApiError> last_error;
    std::optional<dispatch::AttemptOutcome> last_outcome;
    int sent_count = 0;
    EndpointStates& states = gateway_.endpoints();

    while (const dispatch::Attempt* attempt = walk.next()) {
      if (cancel.cancelled()) return clientGoneBeforeResponse(plan, walk, field_segments);
      const catalog::Endpoint& endpoint = *attempt->endpoint;
      std::optional<std::string> personal_key;
      std::string personal_why;
      if (attempt->credential && attempt->credential->kind == catalog::CredentialKind::Personal && who_) {
        try {
          auto key = gateway_.identity().authenticator->personalKey(who_->caller.user, attempt->credential->id,
                                                                    std::chrono::system_clock::now());
          if (key) personal_key = std::move(*key);
          else personal_why = key.error().message;
        } catch (const std::exception& error) {
          personal_why = std::string("the personal key store is unavailable: ") + error.what();
        }
      }
      if (auto why = dispatch::unboundReason(*attempt, personal_key.has_value())) {
        if (!personal_why.empty()) why = personal_why;
        recordAttempt(*attempt, 0,
                      attempt->credential && attempt->credential->kind == catalog::CredentialKind::Personal
                          ? "skipped:personal_key_missing"
                          : "skipped:credential_unconfigured",
                      endpoint.key + ": " + *why, 0);
        skipped_.push_back(endpoint.key + ": " + *why);
        walk.skip(*why);
        continue;
      }
      if (!walk.lastResort()) {
        const auto admission =
            states.apply(endpoint, attempt->provider->breaker, dispatch::BreakerEvent::probe(), SteadyClock::now());
        if (!admission.admitted) {
          recordAttempt(*attempt, 0, "skipped:circuit_open", admission.reason, 0);
          walk.defer(admission.reason);
          continue;
        }
      }
      auto encoded = bodyFor(*attempt, plan);
      if (!encoded) return fail(encoded.error());
      std::string upstream_body = std::move(*encoded);
      const bool passthrough = endpoint.wire == client_wire_;
      lane_ = passthrough ? metrics::lane::kPassthrough : metrics::lane::kTranslation;
      int retries = 0;
      bool field_retried = false;
      bool moved_on = false;
      while (!moved_on) {
        upstream::Request call = buildUpstreamCall(*attempt, request_, client_wire_, upstream_body, stream_);
        if (personal_key) call.headers.push_back(wire::credentialHeader(endpoint.wire, *personal_key));
        const auto sent_at = SteadyClock::now();
        sent_any_ = true;
        auto in_flight = states.enter(endpoint.key);
        ++sent_count;
        std::unique_ptr<upstream::Response> answer;
        dispatch::AttemptOutcome outcome;
        std::string failure_text;
        std::string error_body;
        try {
          answer = gateway_.upstream().send(call, &cancel);
          if (answer->status() >= 400) {
            error_body = readBounded(*answer);
            if (cancel.cancelled()) throw upstream::TransportError(upstream::TransportFailure::Reset, "cancelled");
          }
        } catch (const upstream::TransportError& failure) {
          if (cancel.cancelled()) {
            upstream_ms_ += millisBetween(sent_at, SteadyClock::now());
            recordAttempt(*attempt, 0, "client_gone", "the client hung up while the provider had not answered",
                          millisBetween(sent_at, SteadyClock::now()));
            return clientGoneBeforeResponse(plan, walk, field_segments);
          }
          answer.reset();
          outcome = dispatch::AttemptOutcome::transportFailure(kindOf(failure.failure()));
          failure_text = failure.what();
        }
        if (answer) {
          const int status = answer->status();
          outcome = dispatch::AttemptOutcome::http(status, dispatch::parseRetryAfter(answer->header("Retry-After")));
          if (status >= 400 && !field_retried) {
            if (auto retry = dispatch::optionalFieldRetry(status, error_body, upstream_body)) {
              upstream_ms_ += millisBetween(sent_at, SteadyClock::now());
              recordAttempt(*attempt, status, retry->segment(), shortMessage(endpoint.wire, status, error_body),
                            millisBetween(sent_at, SteadyClock::now()));
              states.apply(endpoint, attempt->provider->breaker, dispatch::BreakerEvent::success(), SteadyClock::now());
              log::info("retrying without an optional field the provider refused",
                        {{"request_id", request_id_}, {"endpoint", endpoint.key}, {"field", retry->field}});
              field_segments.push_back(retry->segment());
              upstream_body = std::move(retry->body);
              field_retried = true;
              continue;
            }
          }
        }
        const dispatch::Classification verdict =
            dispatch::classifyAttempt(outcome, retries, attempt->provider->retry);
        if (auto event = dispatch::breakerEventFor(outcome)) {
          states.apply(endpoint, attempt->provider->breaker, *event, SteadyClock::now());
        }
        switch (verdict.verdict) {
          case dispatch::AttemptVerdict::Success:
          case dispatch::AttemptVerdict::Final: {
            RelayOutcome relayed = relay(*attempt, plan, *answer, passthrough, error_body, sent_at, cancel);
            if (relayed.failed_before_first_byte) {
              // The provider failed before any byte reached the client: still free to move on.
              outcome = dispatch::AttemptOutcome::transportFailure(dispatch::TransportKind::Reset);
              states.apply(endpoint, attempt->provider->breaker, dispatch::BreakerEvent::failure(), SteadyClock::now());
              last_error = wire::ApiError{502, "upstream_unreachable", endpoint.key + ": " + relayed.failure, {}, {}};
              last_outcome = outcome;
              walk.sent(outcome);
              moved_on = true;
              break;
            }
            walk.sent(outcome);
            return finishServed(*attempt, plan, walk, field_segments, relayed.result);
          }
          case dispatch::AttemptVerdict::RetrySame: {
            upstream_ms_ += millisBetween(sent_at, SteadyClock::now());
            recordAttempt(*attempt, outcome.status.value_or(0), resultOf(outcome),
                          verdict.reason + attemptError(endpoint.wire, outcome, error_body, failure_text),
                          millisBetween(sent_at, SteadyClock::now()));
            answer.reset();
            log::warn("upstream busy, retrying the same deployment",
                      {{"request_id", request_id_}, {"endpoint", endpoint.key}, {"reason", verdict.reason}});
            if (!cancel.waitFor(verdict.delay)) return clientGoneBeforeResponse(plan, walk, field_segments);
            ++retries;
            continue;
          }
          case dispatch::AttemptVerdict::NextDeployment: {
            upstream_ms_ += millisBetween(sent_at, SteadyClock::now());
            const std::string message = attemptError(endpoint.wire, outcome, error_body, failure_text);
            recordAttempt(*attempt, outcome.status.value_or(0), resultOf(outcome), message,
                          millisBetween(sent_at, SteadyClock::now()));
            if (outcome.status) {
              last_error = wire::decodeError(endpoint.wire, *outcome.status, error_body,
                                             answer ? answer->header("Retry-After") : std::string());
            } else {
              last_error = wire::ApiError{outcome.transport == dispatch::TransportKind::Timeout ? 504 : 502,
                                          "upstream_unreachable", endpoint.key + ": " + failure_text, {}, {}};
            }
            last_outcome = outcome;
            log::warn("upstream failed, trying the next deployment",
                      {{"request_id", request_id_}, {"endpoint", endpoint.key}, {"result", resultOf(outcome)}});
            walk.sent(outcome);
            moved_on = true;
            break;
          }
        }
      }
    }
    noteRouting(plan, walk, field_segments);
    if (last_error) {
      failed_after_attempts_ = sent_count;
      timed_out_ = last_outcome && last_outcome->transport == dispatch::TransportKind::Timeout;
      return fail(clientFacing(*last_error, client_wire_));
    }
    std::string reasons;
    for (const auto& reason : skipped_) reasons += (reasons.empty() ? "" : "; ") + reason;
    fail({503, "no_deployment_available", "no deployment of '" + model_ + "' can serve this request: " + reasons, {}, {}});
  }

  struct RelayOutcome {
    RelayResult result;
    bool failed_before_first_byte = false;
    std::string failure;
  };

  RelayOutcome relay(const dispatch::Attempt& attempt, const dispatch::Plan& plan, upstream::Response& answer,
                     bool passthrough, const std::string& error_body, SteadyClock::time_point sent_at,
                     const upstream::Cancel& cancel) {
    RelayOutcome out;
    wire::ResponseContext context;
    context.model = plan.requested_model;
    context.request_id = request_id_;
    context.created =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    context.include_usage = client_wire_ != catalog::Wire::OpenAIChat || client_asked_usage_;
    RelayOptions options;
    options.cancel = &cancel;
    options.hide_unasked_usage = passthrough && stream_ && client_wire_ == catalog::Wire::OpenAIChat && !client_asked_usage_;
    try {
      if (answer.status() >= 400) {
        out.result = relayErrorBody(answer, error_body, response_, attempt.endpoint->wire, client_wire_, context);
      } else if (passthrough) {
        out.result = relayPassthrough(answer, response_, client_wire_, context, options);
      } else {
        out.result = relayTranslated(answer, response_, attempt.endpoint->wire, client_wire_, context, options);
      }
    } catch (const upstream::TransportError& failure) {
      if (response_.sent()) throw;  // NOTE: relay only throws before sending; this guards that promise
      upstream_ms_ += millisBetween(sent_at, SteadyClock::now());
      recordAttempt(attempt, answer.status(), "transport:" + std::string(upstream::toString(failure.failure())),
                    std::string("before the first byte: ") + failure.what(), millisBetween(sent_at, SteadyClock::now()));
      out.failed_before_first_byte = true;
      out.failure = failure.what();
      return out;
    }
    upstream_ms_ += millisBetween(sent_at, SteadyClock::now());
    recordAttempt(attempt, answer.status(),
                  out.result.client_gone       ? "client_gone"
                  : answer.status() >= 400     ? "status_" + std::to_string(answer.status())
                  : out.result.upstream_broke  ? "stream_broken"
                                               : "ok",
                  out.result.error_message, millisBetween(sent_at, SteadyClock::now()));
    return out;
  }

  void finishServed(const dispatch::Attempt& attempt, const dispatch::Plan& plan, const dispatch::AttemptWalk& walk,
                    const std::vector<std::string>& field_segments, const RelayResult& result) {
    noteRouting(plan, walk, field_segments);
    served_ = attempt.endpoint->key;
    cost_ = dispatch::costMicrodollars(attempt.deployment->pricing, result.usage);
    usage_ = result.usage;
    auto& row = audit_.record();
    row.served_provider = attempt.provider->id;
    row.served_endpoint = attempt.endpoint->key;
    row.usage = result.usage;
    row.cost_microdollars = cost_;
    row.upstream_ms = upstream_ms_;
    if (result.first_byte_at) row.ttfb_ms = millisBetween(started_, *result.first_byte_at);
    first_byte_at_ = result.first_byte_at;
    usage_known_ = result.usage_reported;
    row.error_key = result.error_key;
    row.error_message = result.error_message;
    if (row.error_key.empty() && !quota_warning_.empty()) {
      row.error_key = "quota_warning";
      row.error_message = quota_warning_;
    }
    if (result.client_gone) {
      row.status = 499;
      row.aborted = true;
      row.outcome = std::string(result.first_byte_at ? audit::outcome::kClientGoneMidStream
                                                     : audit::outcome::kClientGoneBeforeResponse);
      response_.setKeepAlive(false);
    } else {
      row.status = result.status;
      row.outcome = std::string(result.status < 400 && !result.upstream_broke ? audit::outcome::kOk
                                                                               : audit::outcome::kUpstreamError);
    }
    finish(result.client_gone ? 499 : result.status, result.error_key);
  }

  void clientGoneBeforeResponse(const dispatch::Plan& plan, const dispatch::AttemptWalk& walk,
                                const std::vector<std::string>& field_segments) {
    noteRouting(plan, walk, field_segments);
    auto& row = audit_.record();
    row.status = 499;
    row.aborted = true;
    row.upstream_ms = upstream_ms_;
    row.outcome = std::string(audit::outcome::kClientGoneBeforeResponse);
    row.error_key = "client_gone";
    row.error_message = "the client hung up before the provider answered";
    response_.setKeepAlive(false);
    log::info("client hung up before the response", {{"request_id", request_id_}});
    finish(499, "client_gone");
  }

  // route_match gets the failover and retried_without segments the walk left.
  void noteRouting(const dispatch::Plan& plan, const dispatch::AttemptWalk& walk,
                   const std::vector<std::string>& field_segments) {
    std::vector<std::string> segments = plan.route_match;
    if (const std::string failover = walk.segment(); !failover.empty()) segments.push_back(failover);
    for (const auto& segment : field_segments) segments.push_back(segment);
    route_match_ = dispatch::joinRouteMatch(segments);
    audit_.record().route_match = route_match_;
    for (const auto& failover : walk.failovers()) {
      gateway_.metrics().upstream_failovers.with({failover.from, failover.to, failover.reason}).inc();
      log::info("failover", {{"request_id", request_id_},
                             {"from", failover.from},
                             {"to", failover.to},
                             {"reason", failover.reason}});
    }
  }

  std::string readBounded(upstream::Response& answer) {
    std::string body;
    while (body.size() < kMaxErrorBody && answer.readSome(body)) {
    }
    if (body.size() >= kMaxErrorBody) answer.abort();
    return body;
  }

  static std::string resultOf(const dispatch::AttemptOutcome& outcome) {
    if (outcome.transport) return "transport:" + std::string(dispatch::toString(*outcome.transport));
    return "status_" + std::to_string(outcome.status.value_or(0));
  }

  static std::string shortMessage(catalog::Wire wire, int status, const std::string& body) {
    return wire::decodeError(wire, status, body, "").message;
  }

  static std::string attemptError(catalog::Wire wire, const dispatch::AttemptOutcome& outcome,
                                  const std::string& error_body, const std::string& failure_text) {
    if (outcome.transport) return failure_text.empty() ? std::string() : ": " + failure_text;
    if (outcome.status && *outcome.status >= 400) return ": " + shortMessage(wire, *outcome.status, error_body);
    return {};
  }

  void fail(const wire::ApiError& error) {
    auto& row = audit_.record();
    row.status = wire::clientStatusFor(client_wire_, error.status);
    row.error_key = error.key;
    row.error_message = error.message;
    row.outcome = std::string(outcomeFor(error));
    if (upstream_ms_ > 0) row.upstream_ms = upstream_ms_;
    sendError(response_, client_wire_, error, request_id_);
    row.ttfb_ms = millisBetween(started_, SteadyClock::now());
    finish(error.status, error.key);
  }

  // The audit's classification of a refusal or failure answered before any provider's bytes.
  std::string_view outcomeFor(const wire::ApiError& error) const {
    const std::string& key = error.key;
    if (key == "model_not_found") return audit::outcome::kUnknownModel;
    if (key == "retired_model") return audit::outcome::kRetiredModel;
    if (key == "request_too_large") return audit::outcome::kRequestTooLarge;
    if (key == "context_window_exceeded") return audit::outcome::kContextWindowExceeded;
    if (key == "governance_denied") return audit::outcome::kGovernanceDenied;
    if (key == "no_deployment_available" || key == "no_deployment") return audit::outcome::kNoDeploymentAvailable;
    if (key == "internal_error") return audit::outcome::kInternalError;
    if (key == "invalid_api_key") return audit::outcome::kUnauthenticated;
    if (key == "access_denied" || key == "scope_denied") return audit::outcome::kAccessDenied;
    if (key == "quota_exceeded") return audit::outcome::kQuotaExceeded;
    if (key == "identity_unavailable") return audit::outcome::kInternalError;
    if (failed_after_attempts_ > 0) {
      if (failed_after_attempts_ > 1) return audit::outcome::kAllDeploymentsFailed;
      return timed_out_ ? audit::outcome::kUpstreamTimeout : audit::outcome::kUpstreamError;
    }
    return audit::outcome::kInvalidRequest;
  }

  void recordAttempt(const dispatch::Attempt& attempt, int status, std::string result, std::string error,
                     int64_t duration_ms) {
    audit::AttemptRecord record;
    record.endpoint = attempt.endpoint->key;
    record.provider = attempt.provider->id;
    record.status = status;
    record.result = std::move(result);
    record.error = std::move(error);
    if (record.error.starts_with(": ")) record.error.erase(0, 2);
    record.duration_ms = duration_ms;
    gateway_.metrics().upstream_attempts.with({attempt.provider->id, attempt.endpoint->id, record.result}).inc();
    audit_.record().attempts.push_back(std::move(record));
  }

  void finish(int status, const std::string& error_key = "") {
    const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(SteadyClock::now() - started_);
    log::Line line(log::Level::Info, "request");
    line.field("request_id", request_id_)
        .field("path", request_.getURI())
        .field("status", status)
        .field("model", model_)
        .field("route_match", route_match_)
        .field("served", served_)
        .field("stream", stream_)
        .field("input_tokens", usage_.input_tokens)
        .field("output_tokens", usage_.output_tokens)
        .field("cache_read_tokens", usage_.cache_read_tokens)
        .field("cache_write_tokens", usage_.cache_write_tokens)
        .field("reasoning_tokens", usage_.reasoning_tokens)
        .field("cost_microdollars", cost_)
        .field("upstream_ms", upstream_ms_)
        .field("duration_ms", static_cast<double>(elapsed.count()) / 1000.0);
    if (!error_key.empty()) line.field("error_key", error_key);
    line.write();

    const auto& row = audit_.record();
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
      figures.time_to_first_token_seconds =
          std::chrono::duration<double>(*first_byte_at_ - started_).count();
    }
    figures.usage_known = usage_known_;
    figures.input_tokens = usage_.input_tokens;
    figures.output_tokens = usage_.output_tokens;
    figures.cache_read_tokens = usage_.cache_read_tokens;
    figures.cache_write_tokens = usage_.cache_write_tokens;
    figures.reasoning_tokens = usage_.reasoning_tokens;
    figures.cost_microdollars = cost_;
    gateway_.metrics().recordRequest(figures);
  }

  Gateway& gateway_;
  catalog::Wire client_wire_;
  Poco::Net::HTTPServerRequest& request_;
  Poco::Net::HTTPServerResponse& response_;
  std::string request_id_;
  SteadyClock::time_point started_;
  std::shared_ptr<const catalog::Catalog> catalog_;
  bool stream_ = false;
  bool client_asked_usage_ = false;
  std::string model_;
  std::string route_match_;
  std::string served_;
  std::vector<std::string> skipped_;
  audit::RequestAudit audit_;
  metrics::InflightScope inflight_;
  std::string_view lane_ = metrics::lane::kLocal;
  std::optional<SteadyClock::time_point> first_byte_at_;
  std::string raw_body_;
  std::string requested_model_;  // the body's "model", as sent
  std::optional<wire::Request> ir_;
  wire::MembersScan head_;
  std::optional<ordered_json> full_body_;  // parsed only when the scan cannot serve
  HeadKey max_tokens_key_ = kMaxTokens;
  std::optional<wire::ApiError> decode_error_;
  wire::Usage usage_;
  int64_t cost_ = 0;
  int64_t upstream_ms_ = 0;
  bool usage_known_ = false;
  std::optional<Identified> who_;
  std::optional<identity::Reservation> reservation_;
  std::string quota_warning_;
  bool count_after_ = false;
  int64_t estimated_input_tokens_ = 0;
  bool sent_any_ = false;
  int failed_after_attempts_ = 0;
  bool timed_out_ = false;
};

}  // namespace

void InferenceHandler::handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  Exchange exchange(gateway_, client_wire_, request, response);
  try {
    exchange.run();
  } catch (const std::exception& error) {
    log::error("request failed", {{"request_id", response.get("x-sluice-request-id", "")}, {"error", error.what()}});
    if (!response.sent()) {
      sendError(response, client_wire_, {500, "internal_error", "the gateway failed to handle this request", {}, {}},
                response.get("x-sluice-request-id", ""));
    }
  }
}

}  // namespace sluice::http
