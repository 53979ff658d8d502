#pragma once
// Profile: what makes one endpoint different, for the one Exchange (exchange.h) that runs every
// endpoint. The Exchange owns identify, read (the body budget and the refusal mapping), plan,
// admit, the data-protection decision, the attempt loop, refusals, the error boundary and the
// ledger's end; a profile only answers the questions below. Every hook has the default of an
// inference endpoint unless it is pure virtual.
//
//   read      the body, through Exchange::readWholeBody() or a streamed reader; returns what
//             planning needs, or answers locally (stored responses)
//   plan      the model kind the endpoint serves; an estimate when the body may not fit
//   mask      the request's texts masked once for the masked trust tiers
//   lane      the body for one attempt (raw or masked) and the call's shape
//   relay     the provider's answer to the client, and what it costs
//   finish    what to keep after the answer (stored responses), or a local answer when no
//             deployment could be asked (count_tokens' estimate)
//
// A profile that answers by itself in read() (stored responses) needs none of the execute hooks:
// their defaults refuse (profile.cc).
// Not thread-safe: one per request, owned by its handler, living as long as its Exchange.

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/catalog.h"
#include "server/dispatch/attempt.h"
#include "server/dispatch/planner.h"
#include "server/dispatch/pricing.h"
#include "server/pipeline/admission.h"
#include "server/pipeline/attempt_runner.h"
#include "server/pipeline/relay.h"
#include "server/pipeline/request_ledger.h"
#include "server/metrics/gateway_metrics.h"
#include "server/protection/masker.h"
#include "server/wire/api_error.h"

namespace sluice::pipeline {

class Exchange;

// What read() found for planning.
struct Inspected {
  std::string requested_model;  // "" when absent (the planner answers for the default model)
  bool stream = false;
  std::optional<int64_t> max_tokens;
  // The body's size, for the context-window estimate and max_input_bytes (an upload: its
  // Content-Length, 0 when it declares none).
  size_t body_bytes = 0;
  // The profile answered by itself (the ledger's end included): nothing is planned or sent.
  bool answered = false;
};

// The texts of one request masked for the masked tiers, or why they could not be (fails closed).
// `result` carries the counts per kind and, when the profile restores answers, the mapping.
using MaskOutcome = std::expected<protection::MaskResult, std::string>;

class Profile {
 public:
  virtual ~Profile() = default;

  // The wire errors are answered in, and the ledger's client wire.
  virtual catalog::Wire clientWire() const = 0;
  // route_match's leading segment ("endpoint:embeddings"); "" for the inference endpoints.
  virtual std::string endpointSegment() const { return {}; }
  // gen_ai_operation_name for the metrics; "" leaves the ledger's default ("chat").
  virtual std::string_view operation() const { return {}; }
  // The ledger's kind: a request of the API, or the console's probe (audited, never counted).
  virtual RequestLedger::Kind ledgerKind() const { return RequestLedger::Kind::Request; }

  // --- identify ---
  // The caller when the profile's room identified it already (the console's signed-in admin);
  // nullopt: the Exchange identifies the caller from the request's head.
  virtual std::optional<Identified> identified() const { return std::nullopt; }

  // --- read ---
  // The body read and inspected (Exchange::readWholeBody() maps the body reader's refusals the one
  // way); a refusal in the client's wire otherwise.
  virtual std::expected<Inspected, wire::ApiError> read(Exchange& exchange) = 0;

  // --- plan and admit ---
  // The model kind the endpoint serves, and its path for the kind-mismatch message.
  virtual catalog::ModelKind kind() const { return catalog::ModelKind::Chat; }
  virtual std::string path() const = 0;
  // The request's input tokens, asked only when the body might not fit the smallest context window
  // of the plan; nullopt when the profile cannot count them.
  virtual std::optional<int64_t> estimateInputTokens() { return std::nullopt; }
  // The conversation a request belongs to, for conversation affinity; nullopt when the profile
  // pins nothing (the route's affinity is then not consulted).
  virtual bool pinsConversations() const { return false; }
  virtual std::optional<std::string> conversationKey(Exchange&) { return std::nullopt; }
  virtual pipeline::QuotaUse quotaUse() const { return pipeline::QuotaUse::Spend; }
  // The plan when the profile makes its own (the probe: one deployment, no route, no strategy);
  // nullopt: the catalog's planner plans the request.
  virtual std::optional<dispatch::Plan> ownPlan(const catalog::Catalog&) const { return std::nullopt; }
  // False: access rules and quotas are not asked (the probe: an admin testing a deployment).
  virtual bool admits() const { return true; }

  // --- execute ---
  // True when `attempt` is not one this endpoint can ask at all (count_tokens: not the Anthropic
  // wire, or a masked tier): passed over without a trace, as if the plan had not listed it.
  virtual bool passesOver(const catalog::Catalog&, const dispatch::Attempt&) const { return false; }
  // False once no further attempt may be sent (a streamed upload that an attempt consumed).
  virtual bool mayTryAnother() const { return true; }
  // Masks the request's texts once, for the first attempt to a masked tier, within `limits` (the
  // request's scan budget). The masked body is kept by the profile and handed out by
  // bodyFor(masked = true). May run on a helper thread while the request's fiber waits: it touches
  // only the profile.
  virtual MaskOutcome maskOnce(const protection::Detector& detector, const protection::MaskLimits& limits);
  // The body `attempt` sends: the client's (rewritten for the deployment) or the masked one.
  virtual std::expected<std::string, wire::ApiError> bodyFor(const dispatch::Attempt& attempt,
                                                             const dispatch::Plan& plan, bool masked);
  // The metrics lane of an attempt sent with bodyFor(masked).
  virtual std::string_view lane(const dispatch::Attempt& attempt, bool masked) const;
  // The call's shape beyond body and attempt: path, content type, accept, retries, stream.
  virtual void shape(pipeline::AttemptCall& call) { (void)call; }
  // False when an answer is not one to relay (count_tokens: a provider that cannot count right
  // now, 5xx); the attempt then counts as failed and the walk moves on.
  virtual bool relays(const pipeline::Answer&) const { return true; }
  // Relays a provider's answer (success or error); throws upstream::TransportError with nothing
  // sent when the provider failed before its first byte.
  // `options` carries the hang-up cancel and, for a masked attempt, the mapping to restore.
  virtual pipeline::RelayResult relay(Exchange& exchange, const dispatch::Plan& plan, const dispatch::Attempt& attempt,
                                  pipeline::Answer& answer, bool masked, pipeline::RelayOptions options);
  // What the relayed answer costs (tokens, units); may complete `relayed`'s usage.
  virtual dispatch::Charge charge(Exchange& exchange, const dispatch::Attempt& attempt, pipeline::RelayResult& relayed);

  // --- finish ---
  // Before the first attempt and after the last (whatever ended the request).
  virtual void beforeExecute(Exchange&) {}
  virtual void afterExecute(Exchange&) {}
  // No attempt answered and none failed after being sent: true when the profile answered by
  // itself (count_tokens' estimate) instead of the 503 no_deployment_available.
  virtual bool answerWithoutProvider(Exchange&) { return false; }
  // Answers a refusal (the ledger is ended by the Exchange): by default in the client's wire; the
  // probe keeps it for the console's own answer.
  virtual void answerRefusal(Exchange& exchange, const wire::ApiError& error);
  // What an unexpected failure (an exception: a bug, the allocator, a store that threw) is
  // answered with, when nothing was sent yet.
  virtual wire::ApiError failureAnswer() const {
    return wire::ApiError::make(500, wire::error_keys::kInternalError, "the gateway failed to handle this request");
  }
  // The connection is closed after this request's answer: a body not read to its end.
  virtual bool closesConnection(bool refused) const {
    (void)refused;
    return false;
  }
};

inline std::string_view Profile::lane(const dispatch::Attempt& attempt, bool masked) const {
  if (masked) return metrics::lane::kMasked;
  return attempt.endpoint->wire == clientWire() ? metrics::lane::kPassthrough : metrics::lane::kTranslation;
}

}  // namespace sluice::pipeline
