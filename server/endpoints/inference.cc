#include "server/endpoints/inference.h"

#include <chrono>

#include "server/dispatch/affinity.h"
#include "server/dispatch/pricing.h"
#include "server/dispatch/token_estimate.h"
#include "server/http/gateway.h"
#include "server/log/json_log.h"
#include "server/net/fiber.h"
#include "server/pipeline/exchange.h"
#include "server/protection/masker.h"
#include "server/responses/store.h"

namespace sluice::endpoints {

namespace {

using catalog::Wire;

wire::ApiError storeUnreadable() {
  auto error = wire::ApiError::make(503, wire::error_keys::kIdentityUnavailable,
                                    "the response store could not be read; retry shortly");
  error.retry_after_seconds = 1;
  return error;
}

}  // namespace

Inference::Inference(catalog::Wire client_wire, std::string raw) : client_wire_(client_wire) {
  body_.emplace(client_wire, std::move(raw));
  (void)body_->inspect();
}

std::string Inference::path() const {
  return client_wire_ == Wire::Anthropic         ? "/v1/messages"
         : client_wire_ == Wire::OpenAIResponses ? "/v1/responses"
                                                 : "/v1/chat/completions";
}

std::expected<pipeline::Inspected, wire::ApiError> Inference::read(pipeline::Exchange& exchange) {
  auto raw = exchange.readWholeBody();
  if (!raw) return std::unexpected(raw.error());
  body_.emplace(client_wire_, std::move(*raw));
  auto inspected = body_->inspect();
  // The store decides on the top-level members the scan read (`store` nested in metadata is not
  // the request's): the body it serves is scanned again.
  if (inspected && client_wire_ == Wire::OpenAIResponses && exchange.gateway().responseStore() != nullptr &&
      responses::mayUseStore(body_->raw(), body_->storeFalse())) {
    auto expanded = expandStored(exchange, body_->raw());
    if (!expanded) return std::unexpected(expanded.error());
    body_.emplace(client_wire_, std::move(*expanded));
    inspected = body_->inspect();
  }
  // A refused body still names what it could (its model and stream for the audit row); a body too
  // deep to walk or not JSON names nothing.
  pipeline::Inspected facts{body_->requestedModel(), body_->stream(), body_->maxTokens(), body_->size()};
  if (!inspected) {
    exchange.ledger().noteClient(exchange.ledger().row().client_family, facts.requested_model, facts.stream);
    return std::unexpected(inspected.error());
  }
  return facts;
}

std::optional<int64_t> Inference::estimateInputTokens() {
  auto ir = body_->ir();
  if (!ir) return std::nullopt;
  return dispatch::estimateInputTokens(**ir);
}

std::optional<std::string> Inference::conversationKey(pipeline::Exchange& exchange) {
  dispatch::ConversationHints hints;
  for (const char* header : {"x-claude-code-session-id", "session_id", "x-session-id"}) {
    hints.session_headers.emplace_back(header, exchange.request().header(header));
  }
  hints.requested_model = body_->requestedModel();
  auto ir = body_->ir();
  if (ir && client_wire_ == Wire::OpenAIResponses) hints.prompt_cache_key = body_->stringMember("prompt_cache_key");
  return dispatch::conversationKey(hints, ir ? *ir : nullptr);
}

pipeline::MaskOutcome Inference::maskOnce(const protection::Detector& detector, const protection::MaskLimits& limits) {
  auto decoded = body_->ir();
  if (!decoded) {
    // NOTE: the decoder's message may quote the body; only that it failed is said.
    return std::unexpected("the request body does not decode into the gateway's model, so it cannot be masked");
  }
  wire::Request copy = **decoded;  // raw attempts keep the client's own request
  auto result = protection::maskRequest(copy, detector, limits);
  if (!result) return std::unexpected("masking failed: " + result.error().reason);
  masked_ = std::move(copy);
  return std::move(*result);
}

std::expected<std::string, wire::ApiError> Inference::bodyFor(const dispatch::Attempt& attempt,
                                                              const dispatch::Plan& plan, bool masked) {
  // A masked attempt always takes the decode/encode path, even on the client's own wire.
  if (masked) return pipeline::ClientBody::encodedFor(*masked_, attempt, plan);
  return body_->bodyFor(attempt, plan);
}

void Inference::shape(pipeline::AttemptCall& call) { call.stream = body_->stream(); }

pipeline::RelayResult Inference::relay(pipeline::Exchange& exchange, const dispatch::Plan& plan,
                                   const dispatch::Attempt& attempt, pipeline::Answer& answer, bool masked,
                                   pipeline::RelayOptions options) {
  const bool passthrough = !masked && attempt.endpoint->wire == client_wire_;
  wire::ResponseContext context;
  context.model = plan.requested_model;
  context.request_id = exchange.request().id();
  context.created =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  context.include_usage = client_wire_ != Wire::OpenAIChat || body_->clientAskedUsage();
  options.hide_unasked_usage = passthrough && body_->stream() && client_wire_ == Wire::OpenAIChat &&
                               !body_->clientAskedUsage();
  // The gateway keeps this turn: its client is shown the gateway's id, never the provider's (the
  // translating encoders mint the same one).
  if (passthrough && stored_turn_) options.response_id = responses::responseIdFor(exchange.request().id());
  upstream::Response& provider = *answer.response;
  const Wire wire = attempt.endpoint->wire;
  if (provider.status() >= 400) {
    return pipeline::relayErrorBody(provider, answer.error_body, exchange.response(), wire, client_wire_, context);
  }
  return passthrough ? pipeline::relayPassthrough(provider, exchange.response(), client_wire_, context, options)
                     : pipeline::relayTranslated(provider, exchange.response(), wire, client_wire_, context, options);
}

dispatch::Charge Inference::charge(pipeline::Exchange&, const dispatch::Attempt& attempt, pipeline::RelayResult& relayed) {
  return dispatch::chargeFor(attempt.deployment->pricing, relayed.usage);
}

void Inference::beforeExecute(pipeline::Exchange& exchange) {
  if (!stored_turn_ || !stored_turn_->store) return;
  capture_.emplace(body_->stream(), exchange.gateway().responseStore()->options().max_bytes);
  exchange.response().setBodyTap(&*capture_);
}

void Inference::afterExecute(pipeline::Exchange& exchange) {
  if (!capture_) return;
  exchange.response().setBodyTap(nullptr);
  keepStored(exchange);
}

std::expected<std::string, wire::ApiError> Inference::expandStored(pipeline::Exchange& exchange, std::string_view raw) {
  responses::Store& store = *exchange.gateway().responseStore();
  const auto lookup = store.lookupFor(exchange.member());
  // What the store inlines is held like body bytes: the process body budget is charged for it
  // before it is read (once, however many times the lookup runs).
  size_t charged = 0;
  responses::ExpandBounds bounds;
  bounds.max_body_bytes = exchange.gateway().options().max_body_bytes;
  bounds.charge = [&](size_t bytes) {
    if (bytes <= charged) return true;
    if (!exchange.bodyLease().grow(bytes - charged)) return false;
    charged = bytes;
    return true;
  };
  std::expected<responses::Expansion, wire::ApiError> expanded = std::unexpected(wire::ApiError::invalidJson());
  // The turn before may still be being kept: a client that goes on at once (on another
  // connection, or another replica) can arrive before that commit, so a missing id is looked
  // for again a few times before it is refused.
  for (int attempt = 0;; ++attempt) {
    try {
      expanded = responses::expand(raw, *lookup, bounds);
    } catch (const std::exception& error) {
      log::warn("response store unreadable", {{"request_id", exchange.request().id()}, {"error", error.what()}});
      return std::unexpected(storeUnreadable());
    }
    const bool missing = !expanded && (expanded.error().key == wire::error_keys::kPreviousResponseNotFound ||
                                       expanded.error().key == wire::error_keys::kNotFound);
    if (!missing || attempt == 3) break;
    net::fiber::sleepFor(std::chrono::milliseconds(150));
  }
  if (!expanded) return std::unexpected(expanded.error());
  std::string body = std::move(expanded->body);
  expanded->body.clear();
  stored_turn_ = std::move(*expanded);
  return body;
}

void Inference::keepStored(pipeline::Exchange& exchange) {
  const auto& row = exchange.ledger().row();
  const std::string& id = exchange.request().id();
  if (row.outcome != audit::outcome::kOk) return;
  auto kept = capture_->response();
  if (!kept) {
    if (capture_->tooLarge()) log::warn("response not stored: too large", {{"request_id", id}});
    return;
  }
  try {
    const auto saved = exchange.gateway().responseStore()->save(
        exchange.member(), responses::responseIdFor(id), *kept, stored_turn_->previous_response_id, stored_turn_->input);
    switch (saved) {
      case responses::Store::Saved::Kept: break;
      case responses::Store::Saved::TooLarge: log::warn("response not stored: too large", {{"request_id", id}}); break;
      case responses::Store::Saved::ForeignId:
        log::warn("response not stored: the answer does not carry the gateway's id", {{"request_id", id}});
        break;
      case responses::Store::Saved::Refused:
        log::warn("response not stored: its id is kept already", {{"request_id", id}});
        break;
    }
  } catch (const std::exception& error) {
    log::warn("response not stored", {{"request_id", id}, {"error", error.what()}});
  }
}

}  // namespace sluice::endpoints
