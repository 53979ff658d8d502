#include "server/pipeline/exchange.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <variant>

#include "server/dispatch/affinity.h"
#include "server/dispatch/attempt_walk.h"
#include "server/dispatch/target_check.h"
#include "server/pipeline/attempt_runner.h"
#include "server/http/gateway.h"
#include "server/pipeline/relay.h"
#include "server/http/respond.h"
#include "server/pipeline/upload.h"
#include "server/log/json_log.h"
#include "server/pipeline/request_protection.h"
#include "server/wire/client.h"
#include "server/wire/operation.h"

namespace sluice::pipeline {

namespace {

using SteadyClock = std::chrono::steady_clock;

// The peer's host, what refusals are throttled by. Poco's host() throws for a peer that is not an
// IP address (a Unix socket: the in-process tests' socket pairs), which turned a 401 into a 500.
std::string peerHost(const Poco::Net::SocketAddress& peer) {
  if (peer.family() == Poco::Net::SocketAddress::UNIX_LOCAL) return "local";
  return peer.host().toString();
}
using http::BodyTooLarge;

double uniformDraw() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

int64_t unixSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

Exchange::Exchange(http::Gateway& gateway, Profile& profile, http::Request& request, http::ServerResponse& response,
                   http::BodyBudget::Lease& body_lease)
    : gateway_(gateway), profile_(profile), request_(request), response_(response),
      ledger_(gateway, request.id(), request.target(), profile.clientWire(), profile.ledgerKind()),
      admission_(gateway, request.id()),
      body_lease_(body_lease) {
  if (const std::string_view operation = profile.operation(); !operation.empty()) ledger_.noteOperation(operation);
  if (gateway.tracer() != nullptr) ledger_.startTrace(request.header("traceparent"), request.header("tracestate"));
}

const std::optional<Identified>& Exchange::who() const { return admission_.who(); }

void Exchange::run() {
  try {
    runPhases();
  } catch (const std::exception& error) {
    internalError(error);
  }
}

std::string Exchange::member() const {
  const auto& who = admission_.who();
  return who ? who->caller.user : std::string();
}

std::expected<std::string, wire::ApiError> Exchange::readWholeBody() {
  const size_t limit = gateway_.options().max_body_bytes;
  body_lease_ = gateway_.bodyBudget().lease();
  auto raw = request_.readBody(limit, &body_lease_);
  if (raw) return std::move(*raw);
  response_.setKeepAlive(false);  // what is left of the body is never read
  switch (raw.error().why) {
    case BodyTooLarge::Why::Incomplete:
      return std::unexpected(wire::ApiError::make(408, wire::error_keys::kRequestTimeout,
                                                  "the request body stopped before its Content-Length"));
    case BodyTooLarge::Why::Overloaded: {
      auto error = wire::ApiError::make(503, wire::error_keys::kOverloaded,
                                        "the gateway holds too many request bodies right now; retry shortly");
      error.retry_after_seconds = 1;
      return std::unexpected(error);
    }
    case BodyTooLarge::Why::TooLarge: break;
  }
  return std::unexpected(wire::ApiError::make(413, wire::error_keys::kRequestTooLarge,
                                              "request body exceeds " + std::to_string(limit) + " bytes"));
}

void Exchange::runPhases() {
  phase_ = Phase::Identify;
  const catalog::Wire client_wire = profile_.clientWire();
  ledger_.row().client_address = pipeline::clientAddressOf(request_.head(), *gateway_.catalog());
  ledger_.noteClient(catalog::toString(wire::detectClientFamily(request_.header("x-sluice-client"),
                                                                request_.header("User-Agent"), client_wire)),
                     "", false);
  if (auto preset = profile_.identified()) {
    admission_.assume(std::move(*preset));
  } else if (auto identified = admission_.identify(request_); !identified) {
    response_.setKeepAlive(false);  // the body is never read: the connection closes after the answer
    if (identified.error().status == 401) {
      ledger_.throttleUnauthenticated(peerHost(request_.head().clientAddress()));
    }
    return refuse(identified.error());
  }
  if (const auto& who = admission_.who()) ledger_.noteCaller(who->caller, who->scope);

  phase_ = Phase::Read;
  auto inspected = profile_.read(*this);
  if (!inspected) return refuse(inspected.error());
  if (inspected->answered) {
    phase_ = Phase::Done;
    return;
  }
  ledger_.noteClient(ledger_.row().client_family, inspected->requested_model, inspected->stream);
  body_bytes_ = inspected->body_bytes;

  phase_ = Phase::Plan;
  auto planned = plan(*inspected);
  if (!planned) {
    ledger_.row().route_match = dispatch::joinRouteMatch(withEndpoint(planned.error().route_match));
    return refuse(planned.error());
  }
  planned->route_match = withEndpoint(std::move(planned->route_match));
  // A chain's order is the caller's: affinity applies to plain plans only.
  if (profile_.pinsConversations() && planned->route != nullptr && planned->route->affinity && !planned->chain) {
    const auto pinned = dispatch::pinConversation(planned->attempts, profile_.conversationKey(*this),
                                                  planned->route->affinity_ttl_seconds, unixSeconds());
    planned->route_match.push_back("affinity:" + std::string(dispatch::toString(pinned)));
    gateway_.metrics().affinity.with({planned->route->id, std::string(dispatch::toString(pinned))}).inc();
  }
  ledger_.notePlan(*planned);
  if (planned->model->kind != profile_.kind()) {
    return refuse(wire::ApiError::make(400, wire::error_keys::kModelKindMismatch,
                                       wire::kindMismatchMessage(planned->model_id, planned->model->kind, profile_.path()),
                                       "model"));
  }

  phase_ = Phase::Admit;
  auto ticket = profile_.admits() ? admission_.admit(catalog_, *planned, profile_.quotaUse())
                                  : std::expected<QuotaTicket, wire::ApiError>(QuotaTicket{});
  if (!ticket) return refuse(ticket.error());
  if (!ticket->warning().empty()) ledger_.noteQuotaWarning(ticket->warning());
  if (planned->context_fallback_from) {
    gateway_.metrics().context_fallbacks.with({*planned->context_fallback_from, planned->model_id}).inc();
    log::info("context fallback", {{"request_id", request_.id()},
                                   {"from", *planned->context_fallback_from},
                                   {"to", planned->model_id},
                                   {"estimated_input_tokens", planned->estimated_input_tokens}});
  }

  phase_ = Phase::Execute;
  profile_.beforeExecute(*this);
  int sent = 0;
  try {
    sent = execute(*planned);
  } catch (...) {
    profile_.afterExecute(*this);
    throw;
  }
  profile_.afterExecute(*this);

  phase_ = Phase::Account;
  if (sent == 0) {
    ticket->release();
  } else if (auto breach = ticket->settle(ledger_.usage(), ledger_.cost())) {
    ledger_.noteQuotaBreachAfter(*breach);
  }
  ledger_.flush();
  phase_ = Phase::Done;
}

std::vector<std::string> Exchange::withEndpoint(std::vector<std::string> segments) const {
  if (std::string segment = profile_.endpointSegment(); !segment.empty()) {
    segments.insert(segments.begin(), std::move(segment));
  }
  return segments;
}

std::expected<dispatch::Plan, dispatch::Refusal> Exchange::plan(const Inspected& inspected) {
  catalog_ = gateway_.catalog();
  if (auto own = profile_.ownPlan(*catalog_)) return std::move(*own);
  const dispatch::Health health = gateway_.endpoints().snapshot(SteadyClock::now());
  dispatch::PlanRequest request;
  request.requested_model = inspected.requested_model;
  if (const auto& who = admission_.who()) request.project = who->scope.project;
  request.health = &health;
  request.draw = uniformDraw();
  request.max_tokens = inspected.max_tokens;
  auto planned = dispatch::planDispatch(*catalog_, request);
  // The estimate counts the request's text at about four bytes a token, so it is at most a
  // quarter of the body: a body that small always fits and needs no decoding. A chain's attempts
  // serve several models: the smallest window decides.
  const auto might_not_fit = [&](const dispatch::Plan& plan) {
    const auto over = [&](const catalog::Model* model) {
      return model && model->limits.context_window &&
             static_cast<int64_t>(inspected.body_bytes / 4) > *model->limits.context_window;
    };
    if (over(plan.model)) return true;
    return std::ranges::any_of(plan.attempts, [&](const dispatch::Attempt& attempt) { return over(attempt.model); });
  };
  if (planned && might_not_fit(*planned)) {
    if (auto estimate = profile_.estimateInputTokens()) {
      request.estimated_input_tokens = *estimate;
      planned = dispatch::planDispatch(*catalog_, request);
    }
  }
  return planned;
}

int Exchange::execute(const dispatch::Plan& plan) {
  using pipeline::Answer;
  using pipeline::Failed;
  upstream::Cancel cancel;
  const http::HangUpGuard watching = request_.watchHangUp(cancel);
  dispatch::CallBudget budget(catalog_->limits);
  pipeline::AttemptRunner runner(gateway_.upstream(), gateway_.endpoints(), ledger_, cancel,
                                 pipeline::personalKeys(gateway_, member()), &budget, &gateway_.awsCredentials());
  runner.useCloudAuth(&gateway_.cloudAuth());
  dispatch::AttemptWalk walk(plan.attempts);
  std::optional<Failed> last;
  std::string unbound;
  std::string personal_missing;  // why the caller's own key is needed (theirs to fix), when it was
  const dispatch::Attempt* served = nullptr;
  // Targets skipped before any call (presence, max_input_bytes): their segments, once each.
  std::vector<std::string> skip_segments;
  const auto routed = [&] {
    std::vector<std::string> extra = skip_segments;
    extra.insert(extra.end(), runner.fieldSegments().begin(), runner.fieldSegments().end());
    if (!budget.segment().empty()) extra.push_back(budget.segment());
    ledger_.noteRouting(dispatch::servedRouteMatch(plan, served), &walk, extra);
  };
  const auto refuseRouted = [&](const wire::ApiError& error) {
    routed();
    refuse(error);
    return runner.sent();
  };
  const dispatch::PresenceSnapshot presence = gateway_.presence().snapshot();

  // Data protection: decided per attempt, before its breaker is asked (a skipped attempt takes no
  // half-open probe). Without gateway.data_protection every attempt is Raw and nothing is masked.
  std::optional<RequestProtection> protection;
  if (catalog_->data_protection) protection.emplace(*catalog_, profile_, body_bytes_);
  bool protection_skipped = false;

  while (const dispatch::Attempt* attempt = walk.next()) {
    if (!profile_.mayTryAnother()) break;
    if (profile_.passesOver(*catalog_, *attempt)) {
      walk.skip("not served by this endpoint");
      continue;
    }
    // An own machine the hub does not report up, or a body too large for the endpoint: skipped at
    // once, never sent, so its breaker is not told anything.
    const dispatch::TargetCheck target =
        dispatch::checkTarget(*attempt, presence, body_bytes_, SteadyClock::now());
    if (target.skip) {
      ledger_.recordAttempt(*attempt, 0, target.skip->result, target.skip->detail, 0);
      if (std::ranges::find(skip_segments, target.skip->segment) == skip_segments.end()) {
        skip_segments.push_back(target.skip->segment);
      }
      unbound += (unbound.empty() ? "" : "; ") + target.skip->detail;
      walk.skip(target.skip->detail);
      continue;
    }
    RequestProtection::Decision decision;
    if (protection) {
      decision = protection->decide(*attempt);
      if (decision.verdict == RequestProtection::Verdict::Failed ||
          decision.verdict == RequestProtection::Verdict::Blocked) {
        // Fails closed: never sent raw. The reason names a limit or kinds, never request text.
        const bool blocked = decision.verdict == RequestProtection::Verdict::Blocked;
        ledger_.recordAttempt(*attempt, 0, blocked ? "skipped:data_protection_blocked" : "skipped:data_protection",
                              attempt->endpoint->key + ": " + decision.reason, 0);
        walk.skip(decision.reason);
        protection_skipped = true;
        continue;
      }
    }
    if (!budget.left()) {
      // gateway.limits.max_attempts: however many targets the plan has, no more calls.
      budget.take();
      walk.skip(budget.spentReason());
      break;
    }
    if (auto skipped = runner.bind(*attempt, !walk.lastResort())) {
      if (skipped->stage == Failed::Stage::CircuitOpen) {
        walk.defer(skipped->reason);
      } else {
        unbound += (unbound.empty() ? "" : "; ") + attempt->endpoint->key + ": " + skipped->reason;
        if (skipped->personal_key_missing && personal_missing.empty()) personal_missing = skipped->reason;
        walk.skip(skipped->reason);
      }
      continue;
    }
    const bool masked = decision.verdict == RequestProtection::Verdict::Masked;
    auto body = profile_.bodyFor(*attempt, plan, masked);
    if (!body) return refuseRouted(body.error());
    ledger_.noteLane(profile_.lane(*attempt, masked));
    if (masked) ledger_.noteMasked(protection->counts(), attempt->endpoint->trust);
    pipeline::AttemptCall call{attempt, std::move(*body), false, "", profile_.clientWire(), &request_};
    call.base_url = target.base_url;
    profile_.shape(call);

    std::optional<pipeline::AttemptResult> result;
    try {
      result.emplace(runner.send(std::move(call)));
    } catch (const pipeline::UploadFailed& failure) {
      // The client's side of a streamed body failed while it was sent: the provider is not blamed.
      response_.setKeepAlive(false);
      ledger_.recordAttempt(*attempt, 0, "client_body_failed", failure.what(), 0);
      if (!failure.clientGone()) return refuseRouted(failure.error());
      routed();
      ledger_.clientGone();
      return runner.sent();
    }
    if (std::holds_alternative<pipeline::ClientGone>(*result)) {
      routed();
      response_.setKeepAlive(false);
      ledger_.clientGone();
      return runner.sent();
    }
    if (auto* failed = std::get_if<Failed>(&*result)) {
      walk.sent(failed->outcome);
      last = std::move(*failed);
      continue;
    }
    Answer& answer = std::get<Answer>(*result);
    if (!profile_.relays(answer)) {
      walk.sent(answer.outcome);
      continue;
    }
    if (profile_.closesConnection(false)) response_.setKeepAlive(false);
    pipeline::RelayOptions options;
    options.cancel = &cancel;
    if (masked) options.restore = protection->mapping();
    pipeline::RelayResult relayed;
    try {
      relayed = profile_.relay(*this, plan, *attempt, answer, masked, options);
    } catch (const upstream::TransportError& failure) {
      if (response_.sent()) throw;  // NOTE: relay only throws before sending; this guards that promise
      // The provider failed before any byte reached the client: still free to move on.
      last = runner.relayFailed(*attempt, answer, failure);
      walk.sent(last->outcome);
      continue;
    }
    runner.relayed(*attempt, answer, relayed);
    walk.sent(answer.outcome);
    served = attempt;
    routed();
    if (relayed.client_gone) response_.setKeepAlive(false);
    const dispatch::Charge charge = profile_.charge(*this, *attempt, relayed);
    ledger_.served(*attempt, relayed, charge);
    return runner.sent();
  }
  routed();
  if (profile_.answerWithoutProvider(*this)) return runner.sent();
  if (protection_skipped) {
    // A deployment that could have served was passed over for data protection: that is what the
    // client can act on (a failure of another deployment, if any, is in the audit row's attempts).
    const bool failed = !protection->failedReason().empty();
    refuse(wire::ApiError::make(
        400, failed ? wire::error_keys::kDataProtectionFailed : wire::error_keys::kDataProtectionBlocked,
        failed ? "no deployment of '" + plan.model_id + "' can be sent this request: data protection could not be "
                     "applied (" + protection->failedReason() + ")"
               : "no deployment of '" + plan.model_id + "' can be sent this request: " + protection->blockedReason()));
  } else if (last) {
    ledger_.noteUpstreamFailure(runner.sent(), last->outcome.transport == dispatch::TransportKind::Timeout);
    refuse(pipeline::clientFacing(last->error, profile_.clientWire()));
  } else if (!personal_missing.empty()) {
    // Nothing was sent and the caller's own key would have let an attempt go: a 4xx no SDK
    // retries, naming the command that fixes it, instead of a 503 (529) every client retries.
    refuse(wire::ApiError::make(424, wire::error_keys::kPersonalKeyMissing,
                                "'" + (plan.chain ? plan.requested_model : plan.model_id) +
                                    "' is served here only with your own provider key: " + personal_missing));
  } else {
    refuse(wire::ApiError::make(503, wire::error_keys::kNoDeploymentAvailable,
                                "no deployment of '" + (plan.chain ? plan.requested_model : plan.model_id) +
                                    "' can serve this request: " + unbound));
  }
  return runner.sent();
}

void Exchange::refuse(const wire::ApiError& error) {
  if (profile_.closesConnection(true)) response_.setKeepAlive(false);
  profile_.answerRefusal(*this, error);
  ledger_.refused(error);
}

void Exchange::internalError(const std::exception& error) {
  log::error("request failed", {{"request_id", request_.id()}, {"error", error.what()}});
  // A body left half read cannot be skipped to the next request's head.
  if (phase_ == Phase::Read || profile_.closesConnection(true)) response_.setKeepAlive(false);
  if (response_.sent() || ledger_.ended()) return;  // the ledger records an unended request as internal_error
  refuse(profile_.failureAnswer());
}

}  // namespace sluice::pipeline
