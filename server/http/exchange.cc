#include "server/http/exchange.h"

#include <algorithm>
#include <random>
#include <variant>

#include "server/dispatch/affinity.h"
#include "server/dispatch/attempt_walk.h"
#include "server/dispatch/pricing.h"
#include "server/dispatch/target_check.h"
#include "server/dispatch/token_estimate.h"
#include "server/http/attempt_runner.h"
#include "server/http/gateway.h"
#include "server/http/relay.h"
#include "server/http/request.h"
#include "server/http/request_protection.h"
#include "server/http/respond.h"
#include "server/http/server_session.h"
#include "server/log/json_log.h"
#include "server/responses/store.h"
#include "server/wire/client.h"
#include "server/wire/operation.h"

namespace sluice::http {

namespace {

using SteadyClock = std::chrono::steady_clock;

wire::ApiError withRetry(wire::ApiError error, int seconds) {
  error.retry_after_seconds = seconds;
  return error;
}

double uniformDraw() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
}

}  // namespace

Exchange::Exchange(Gateway& gateway, catalog::Wire client_wire, Request& request, ServerResponse& response)
    : gateway_(gateway), client_wire_(client_wire), request_(request), response_(response),
      ledger_(gateway, request.id(), request.target(), client_wire), admission_(gateway, request.id()) {}

void Exchange::run() {
  phase_ = Phase::Identify;
  ledger_.noteClient(catalog::toString(wire::detectClientFamily(request_.header("x-sluice-client"),
                                                                request_.header("User-Agent"), client_wire_)),
                     "", false);
  if (auto identified = admission_.identify(request_); !identified) {
    response_.setKeepAlive(false);  // the body is never read: the connection closes after the answer
    if (identified.error().status == 401) {
      ledger_.throttleUnauthenticated(request_.head().clientAddress().host().toString());
    }
    return refuse(identified.error());
  }
  if (const auto& who = admission_.who()) ledger_.noteCaller(who->caller, who->scope);

  phase_ = Phase::Read;
  body_lease_ = gateway_.bodyBudget().lease();
  auto raw = request_.readBody(gateway_.options().max_body_bytes, &body_lease_);
  if (!raw) {
    response_.setKeepAlive(false);
    if (raw.error().why == BodyTooLarge::Why::Incomplete) {
      return refuse(wire::ApiError::make(408, wire::error_keys::kRequestTimeout,
                                         "the request body stopped before its Content-Length"));
    }
    if (raw.error().why == BodyTooLarge::Why::Overloaded) {
      return refuse(withRetry(wire::ApiError::make(503, wire::error_keys::kOverloaded,
                                                   "the gateway holds too many request bodies right now; retry shortly"),
                              1));
    }
    return refuse(wire::ApiError::make(413, wire::error_keys::kRequestTooLarge,
                                       "request body exceeds " + std::to_string(gateway_.options().max_body_bytes) +
                                           " bytes"));
  }
  if (client_wire_ == catalog::Wire::OpenAIResponses && gateway_.responseStore() != nullptr &&
      responses::mayUseStore(*raw)) {
    auto expanded = expandStored(std::move(*raw));
    if (!expanded) return refuse(expanded.error());
    raw.emplace(std::move(*expanded));
  }
  body_.emplace(client_wire_, std::move(*raw));
  const auto inspected = body_->inspect();
  ledger_.noteClient(ledger_.row().client_family, body_->requestedModel(), body_->stream());
  if (!inspected) return refuse(inspected.error());

  phase_ = Phase::Plan;
  auto planned = plan();
  if (!planned) {
    ledger_.row().route_match = dispatch::joinRouteMatch(planned.error().route_match);
    return refuse(planned.error());
  }
  // A chain's order is the caller's: affinity applies to plain plans only.
  if (planned->route != nullptr && planned->route->affinity && !planned->chain) {
    const auto pinned = dispatch::pinConversation(
        planned->attempts, conversationKey(), planned->route->affinity_ttl_seconds,
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count());
    planned->route_match.push_back("affinity:" + std::string(dispatch::toString(pinned)));
    gateway_.metrics().affinity.with({planned->route->id, std::string(dispatch::toString(pinned))}).inc();
  }
  ledger_.notePlan(*planned);
  if (planned->model->kind != catalog::ModelKind::Chat) {
    const std::string_view path = client_wire_ == catalog::Wire::Anthropic        ? "/v1/messages"
                                  : client_wire_ == catalog::Wire::OpenAIResponses ? "/v1/responses"
                                                                                   : "/v1/chat/completions";
    return refuse(wire::ApiError::make(400, wire::error_keys::kModelKindMismatch,
                                       wire::kindMismatchMessage(planned->model_id, planned->model->kind, path),
                                       "model"));
  }

  phase_ = Phase::Admit;
  auto ticket = admission_.admit(catalog_, *planned, QuotaUse::Spend);
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
  if (stored_turn_ && stored_turn_->store) {
    capture_.emplace(body_->stream(), gateway_.responseStore()->options().max_bytes);
    response_.setBodyTap(&*capture_);
  }
  const int sent = execute(*planned);
  if (capture_) {
    response_.setBodyTap(nullptr);
    keepStored();
  }

  phase_ = Phase::Account;
  if (sent == 0) {
    ticket->release();
  } else if (auto breach = ticket->settle(ledger_.usage(), ledger_.cost())) {
    ledger_.noteQuotaBreachAfter(*breach);
  }
  phase_ = Phase::Done;
}

std::expected<dispatch::Plan, dispatch::Refusal> Exchange::plan() {
  catalog_ = gateway_.catalog();
  const dispatch::Health health = gateway_.endpoints().snapshot(SteadyClock::now());
  dispatch::PlanRequest request;
  request.requested_model = body_->requestedModel();
  if (const auto& who = admission_.who()) request.project = who->scope.project;
  request.health = &health;
  request.draw = uniformDraw();
  request.max_tokens = body_->maxTokens();
  auto planned = dispatch::planDispatch(*catalog_, request);
  // The estimate counts the request's text at about four bytes a token, so it is at most a
  // quarter of the body: a body that small always fits and needs no decoding. A chain's attempts
  // serve several models: the smallest window decides.
  const auto might_not_fit = [&](const dispatch::Plan& plan) {
    const auto over = [&](const catalog::Model* model) {
      return model && model->limits.context_window &&
             static_cast<int64_t>(body_->size() / 4) > *model->limits.context_window;
    };
    if (over(plan.model)) return true;
    return std::ranges::any_of(plan.attempts, [&](const dispatch::Attempt& attempt) { return over(attempt.model); });
  };
  if (planned && might_not_fit(*planned)) {
    if (auto ir = body_->ir()) {
      request.estimated_input_tokens = dispatch::estimateInputTokens(**ir);
      planned = dispatch::planDispatch(*catalog_, request);
    }
  }
  return planned;
}

int Exchange::execute(const dispatch::Plan& plan) {
  upstream::Cancel cancel;
  const HangUpGuard watching = request_.watchHangUp(cancel);
  AttemptRunner runner(gateway_.upstream(), gateway_.endpoints(), ledger_, cancel,
                       personalKeys(gateway_, admission_.who() ? admission_.who()->caller.user : std::string()));
  dispatch::AttemptWalk walk(plan.attempts);
  std::optional<Failed> last;
  std::string unbound;
  const dispatch::Attempt* served = nullptr;
  // Targets skipped before any call (presence, max_input_bytes): their segments, once each.
  std::vector<std::string> skip_segments;
  const auto routed = [&] {
    std::vector<std::string> extra = skip_segments;
    extra.insert(extra.end(), runner.fieldSegments().begin(), runner.fieldSegments().end());
    ledger_.noteRouting(dispatch::servedRouteMatch(plan, served), &walk, extra);
  };
  const dispatch::PresenceSnapshot presence = gateway_.presence().snapshot();

  // Data protection: decided per attempt, before its breaker is asked (a skipped attempt takes no
  // half-open probe). Without gateway.data_protection every attempt is Raw and nothing is decoded.
  std::optional<RequestProtection> protection;
  if (catalog_->data_protection) protection.emplace(*catalog_, *body_);
  bool protection_skipped = false;

  while (const dispatch::Attempt* attempt = walk.next()) {
    // An own machine the hub does not report up, or a body too large for the endpoint: skipped at
    // once, never sent, so its breaker is not told anything.
    const dispatch::TargetCheck target = dispatch::checkTarget(*attempt, presence, body_->size(), SteadyClock::now());
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
    if (auto skipped = runner.bind(*attempt, !walk.lastResort())) {
      if (skipped->stage == Failed::Stage::CircuitOpen) {
        walk.defer(skipped->reason);
      } else {
        unbound += (unbound.empty() ? "" : "; ") + attempt->endpoint->key + ": " + skipped->reason;
        walk.skip(skipped->reason);
      }
      continue;
    }
    // A masked attempt always takes the decode/encode path, even on the client's own wire.
    const bool masked = decision.verdict == RequestProtection::Verdict::Masked;
    auto body = masked ? ClientBody::encodedFor(protection->maskedRequest(), *attempt, plan)
                       : body_->bodyFor(*attempt, plan);
    if (!body) {
      refuse(body.error());
      return runner.sent();
    }
    const bool passthrough = !masked && attempt->endpoint->wire == client_wire_;
    ledger_.noteLane(passthrough ? metrics::lane::kPassthrough
                     : masked    ? metrics::lane::kMasked
                                 : metrics::lane::kTranslation);
    if (masked) ledger_.noteMasked(protection->counts(), attempt->endpoint->trust);
    AttemptCall call{attempt, std::move(*body), body_->stream(), "", client_wire_, &request_};
    call.base_url = target.base_url;
    AttemptResult result = runner.send(std::move(call));
    if (std::holds_alternative<ClientGone>(result)) {
      routed();
      response_.setKeepAlive(false);
      ledger_.clientGone();
      return runner.sent();
    }
    if (auto* failed = std::get_if<Failed>(&result)) {
      walk.sent(failed->outcome);
      last = std::move(*failed);
      continue;
    }
    Answer& answer = std::get<Answer>(result);
    wire::ResponseContext context;
    context.model = plan.requested_model;
    context.request_id = request_.id();
    context.created =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    context.include_usage = client_wire_ != catalog::Wire::OpenAIChat || body_->clientAskedUsage();
    RelayOptions options;
    options.cancel = &cancel;
    options.hide_unasked_usage =
        passthrough && body_->stream() && client_wire_ == catalog::Wire::OpenAIChat && !body_->clientAskedUsage();
    if (masked) options.restore = protection->mapping();
    RelayResult relayed;
    try {
      upstream::Response& provider = *answer.response;
      const catalog::Wire wire = attempt->endpoint->wire;
      relayed = provider.status() >= 400 ? relayErrorBody(provider, answer.error_body, response_, wire, client_wire_, context)
                : passthrough            ? relayPassthrough(provider, response_, client_wire_, context, options)
                                         : relayTranslated(provider, response_, wire, client_wire_, context, options);
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
    ledger_.served(*attempt, relayed, dispatch::chargeFor(attempt->deployment->pricing, relayed.usage));
    return runner.sent();
  }
  routed();
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
    refuse(clientFacing(last->error, client_wire_));
  } else {
    refuse(wire::ApiError::make(503, wire::error_keys::kNoDeploymentAvailable,
                                "no deployment of '" + (plan.chain ? plan.requested_model : plan.model_id) +
                                    "' can serve this request: " + unbound));
  }
  return runner.sent();
}

std::optional<std::string> Exchange::conversationKey() {
  // What the client says the conversation is, first: Claude Code's session, Codex's, the
  // Responses prompt_cache_key; then Claude Code's metadata.user_id, which names the session.
  for (const char* header : {"x-claude-code-session-id", "session_id", "x-session-id"}) {
    if (std::string value = request_.header(header); !value.empty() && value.size() <= 256) {
      return std::string(header) + ":" + value;
    }
  }
  auto ir = body_->ir();
  if (!ir) return std::nullopt;
  const wire::Request& request = **ir;
  if (client_wire_ == catalog::Wire::OpenAIResponses) {
    if (auto key = body_->stringMember("prompt_cache_key"); key && !key->empty()) return "prompt_cache_key:" + *key;
  }
  if (request.user && request.user->find("session") != std::string::npos) return "user:" + *request.user;
  // Else what every turn of one conversation resends unchanged: the model asked for, the system
  // prompt and the first user message (a Responses chain is inlined by now, so it counts too).
  std::string key = "prefix:" + body_->requestedModel() + "\n";
  const size_t bare = key.size();
  for (const auto& block : request.system) key += block.text;
  for (const auto& message : request.messages) {
    if (message.role != wire::Role::User) continue;
    for (const auto& block : message.content) {
      if (block.type == wire::ContentBlock::Type::Text) {
        key += "\n" + block.text;
        break;
      }
      if (block.type == wire::ContentBlock::Type::ToolResult) break;
    }
    break;
  }
  if (key.size() == bare) return std::nullopt;  // nothing but the model
  return key;
}

std::expected<std::string, wire::ApiError> Exchange::expandStored(std::string raw) {
  responses::Store& store = *gateway_.responseStore();
  const std::string owner = admission_.who() ? admission_.who()->caller.user : "";
  const auto lookup = store.lookupFor(owner);
  std::expected<responses::Expansion, wire::ApiError> expanded = std::unexpected(wire::ApiError::invalidJson());
  // The turn before may still be being kept: a client that goes on at once (on another
  // connection, or another replica) can arrive before that commit, so a missing id is looked
  // for again a few times before it is refused.
  for (int attempt = 0;; ++attempt) {
    try {
      expanded = responses::expand(raw, *lookup);
    } catch (const std::exception& error) {
      log::warn("response store unreadable", {{"request_id", request_.id()}, {"error", error.what()}});
      return std::unexpected(withRetry(wire::ApiError::make(503, wire::error_keys::kIdentityUnavailable,
                                                            "the response store could not be read; retry shortly"),
                                       1));
    }
    const bool missing = !expanded && (expanded.error().key == wire::error_keys::kPreviousResponseNotFound ||
                                       expanded.error().key == wire::error_keys::kNotFound);
    if (!missing || attempt == 3) break;
    net::fiber::sleepFor(std::chrono::milliseconds(150));
  }
  if (!expanded) return std::unexpected(expanded.error());
  if (expanded->body.size() > gateway_.options().max_body_bytes) {
    return std::unexpected(wire::ApiError::make(413, wire::error_keys::kRequestTooLarge,
                                                "the conversation with its stored items exceeds " +
                                                    std::to_string(gateway_.options().max_body_bytes) + " bytes"));
  }
  std::string body = std::move(expanded->body);
  expanded->body.clear();
  stored_turn_ = std::move(*expanded);
  return body;
}

void Exchange::keepStored() {
  const auto& row = ledger_.row();
  if (row.outcome != audit::outcome::kOk) return;
  auto kept = capture_->response();
  if (!kept) {
    if (capture_->tooLarge()) log::warn("response not stored: too large", {{"request_id", request_.id()}});
    return;
  }
  const std::string owner = admission_.who() ? admission_.who()->caller.user : "";
  try {
    const auto saved = gateway_.responseStore()->save(owner, *kept, stored_turn_->previous_response_id, stored_turn_->input);
    if (saved == responses::Store::Saved::TooLarge) {
      log::warn("response not stored: too large", {{"request_id", request_.id()}});
    }
  } catch (const std::exception& error) {
    log::warn("response not stored", {{"request_id", request_.id()}, {"error", error.what()}});
  }
}

void Exchange::refuse(const wire::ApiError& error) {
  sendError(response_, client_wire_, error, request_.id());
  ledger_.refused(error);
}

void Exchange::internalError(const std::exception& error) {
  log::error("request failed", {{"request_id", request_.id()}, {"error", error.what()}});
  if (response_.sent() || ledger_.ended()) return;  // the ledger records an unended request as internal_error
  refuse(wire::ApiError::make(500, wire::error_keys::kInternalError, "the gateway failed to handle this request"));
}

}  // namespace sluice::http
