#pragma once
// POST /v1/messages/count_tokens as a profile of the one pipeline: identified, planned and
// admitted like /v1/messages (access rules; the quota windows must have room, but counting spends
// nothing), then the plan's Anthropic-wire deployments are asked in order, each once; an endpoint
// of a masked trust tier is never asked (counting the masked text would not count the client's,
// and the raw text must not reach it). When none can answer (none bound, 5xx, unreachable) the
// gateway estimates. One audit row, route_match led by endpoint:count_tokens.
// Not thread-safe: one per request.

#include <string>

#include "server/pipeline/profile.h"
#include "server/wire/ir.h"

namespace sluice::endpoints {

class CountTokens : public pipeline::Profile {
 public:
  catalog::Wire clientWire() const override { return catalog::Wire::Anthropic; }
  std::string endpointSegment() const override { return "endpoint:count_tokens"; }
  std::expected<pipeline::Inspected, wire::ApiError> read(pipeline::Exchange& exchange) override;
  std::string path() const override { return "/v1/messages/count_tokens"; }
  pipeline::QuotaUse quotaUse() const override { return pipeline::QuotaUse::CheckOnly; }
  bool passesOver(const catalog::Catalog& catalog, const dispatch::Attempt& attempt) const override;
  pipeline::MaskOutcome maskOnce(const protection::Detector& detector, const protection::MaskLimits& limits) override;
  std::expected<std::string, wire::ApiError> bodyFor(const dispatch::Attempt& attempt, const dispatch::Plan& plan,
                                                     bool masked) override;
  void shape(pipeline::AttemptCall& call) override;
  bool relays(const pipeline::Answer& answer) const override;
  pipeline::RelayResult relay(pipeline::Exchange& exchange, const dispatch::Plan& plan, const dispatch::Attempt& attempt,
                          pipeline::Answer& answer, bool masked, pipeline::RelayOptions options) override;
  dispatch::Charge charge(pipeline::Exchange& exchange, const dispatch::Attempt& attempt,
                          pipeline::RelayResult& relayed) override;
  bool answerWithoutProvider(pipeline::Exchange& exchange) override;

 private:
  std::string raw_;
  wire::Json parsed_;
};

}  // namespace sluice::endpoints
