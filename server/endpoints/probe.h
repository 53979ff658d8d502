#pragma once
// The console's Test button as a profile of the one pipeline: one short prompt through exactly one
// deployment, with the signed-in admin as the caller. It plans for itself (no route, no strategy;
// the breaker is not asked, since testing an open breaker's endpoint is the point of the button),
// asks no access rule or quota, and passes the same data-protection decision as every request
// (the prompt masked for masked tiers, a `block:` kind refused). The ledger's row is marked
// probe = true: in the Requests list with "probes", never in usage, analytics or the request
// metrics. Nothing is written to the connection: the console answers result() as its own JSON.
// Not thread-safe: one per probe.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/pipeline/profile.h"

namespace sluice::endpoints {

class Probe final : public pipeline::Profile {
 public:
  struct Target {
    std::string model_id;
    std::string endpoint_key;  // provider/endpoint
    std::string prompt;
    std::string user;          // the signed-in admin
  };
  explicit Probe(Target target);

  // {"request_id", "model", "endpoint", "prompt", "ok", "status", "latency_ms", and "answer",
  // "input_tokens", "output_tokens" or "error"}: what the console shows.
  const nlohmann::json& result() const { return result_; }

  catalog::Wire clientWire() const override { return wire_; }
  pipeline::RequestLedger::Kind ledgerKind() const override { return pipeline::RequestLedger::Kind::Probe; }
  std::optional<pipeline::Identified> identified() const override;
  std::expected<pipeline::Inspected, wire::ApiError> read(pipeline::Exchange& exchange) override;
  catalog::ModelKind kind() const override { return kind_; }
  std::string path() const override { return "/admin/api/probe"; }
  std::optional<dispatch::Plan> ownPlan(const catalog::Catalog& catalog) const override;
  bool admits() const override { return false; }
  pipeline::MaskOutcome maskOnce(const protection::Detector& detector, const protection::MaskLimits& limits) override;
  std::expected<std::string, wire::ApiError> bodyFor(const dispatch::Attempt& attempt, const dispatch::Plan& plan,
                                                     bool masked) override;
  void shape(pipeline::AttemptCall& call) override;
  pipeline::RelayResult relay(pipeline::Exchange& exchange, const dispatch::Plan& plan,
                              const dispatch::Attempt& attempt, pipeline::Answer& answer, bool masked,
                              pipeline::RelayOptions options) override;
  dispatch::Charge charge(pipeline::Exchange& exchange, const dispatch::Attempt& attempt,
                          pipeline::RelayResult& relayed) override;
  void answerRefusal(pipeline::Exchange& exchange, const wire::ApiError& error) override;

 private:
  Target target_;
  catalog::Wire wire_ = catalog::Wire::Anthropic;
  catalog::ModelKind kind_ = catalog::ModelKind::Chat;
  std::string body_;                   // the prompt in the endpoint's wire
  std::optional<std::string> masked_;  // after maskOnce()
  nlohmann::json result_;
};

}  // namespace sluice::endpoints
