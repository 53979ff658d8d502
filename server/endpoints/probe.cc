#include "server/endpoints/probe.h"

#include <array>
#include <chrono>

#include "server/http/gateway.h"
#include "server/pipeline/exchange.h"
#include "server/protection/json_texts.h"
#include "server/wire/codec.h"
#include "server/wire/json_parse.h"

namespace sluice::endpoints {

namespace {

using nlohmann::json;

constexpr int64_t kMaxTokens = 64;

// The members of a probe body that are settings, not text: never masked.
constexpr std::array<std::string_view, 6> kSettingKeys = {"model", "role", "max_tokens", "max_output_tokens",
                                                          "maxOutputTokens", "maxTokens"};

std::string requestBody(catalog::Wire wire, const std::string& upstream_model, const std::string& prompt) {
  switch (wire) {
    case catalog::Wire::Anthropic:
    case catalog::Wire::OpenAIChat:
      return json{{"model", upstream_model}, {"max_tokens", kMaxTokens},
                  {"messages", {{{"role", "user"}, {"content", prompt}}}}}.dump();
    case catalog::Wire::OpenAIResponses:
      return json{{"model", upstream_model}, {"max_output_tokens", kMaxTokens}, {"input", prompt}}.dump();
    case catalog::Wire::Gemini:
      return json{{"contents", {{{"role", "user"}, {"parts", {{{"text", prompt}}}}}}},
                  {"generationConfig", {{"maxOutputTokens", kMaxTokens}}}}.dump();
    case catalog::Wire::Mcp: return "{}";  // never a deployment (refused at load)
    case catalog::Wire::BedrockConverse:
      return json{{"messages", {{{"role", "user"}, {"content", {{{"text", prompt}}}}}}},
                  {"inferenceConfig", {{"maxTokens", kMaxTokens}}}}.dump();
  }
  return "{}";
}

}  // namespace

Probe::Probe(Target target) : target_(std::move(target)) {
  result_ = {{"model", target_.model_id}, {"endpoint", target_.endpoint_key}, {"prompt", target_.prompt}};
}

std::optional<pipeline::Identified> Probe::identified() const {
  pipeline::Identified who;
  who.caller.user = target_.user;
  who.caller.role = identity::Role::Admin;
  return who;
}

std::expected<pipeline::Inspected, wire::ApiError> Probe::read(pipeline::Exchange& exchange) {
  result_["request_id"] = exchange.request().id();
  const auto catalog = exchange.gateway().catalog();
  const catalog::Deployment* deployment = catalog->deployment(target_.model_id, target_.endpoint_key);
  const catalog::Endpoint* endpoint = catalog->endpoint(target_.endpoint_key);
  const catalog::Model* model = catalog->model(target_.model_id);
  if (deployment == nullptr || endpoint == nullptr || model == nullptr) {
    return std::unexpected(wire::ApiError::make(404, "no_such_deployment",
                                                "no deployment of " + target_.model_id + " on " + target_.endpoint_key));
  }
  wire_ = endpoint->wire;
  kind_ = model->kind;
  body_ = requestBody(wire_, deployment->upstream_model, target_.prompt);
  exchange.ledger().noteClient("sluice-console", target_.model_id, false);
  return pipeline::Inspected{.requested_model = target_.model_id,
                             .stream = false,
                             .max_tokens = kMaxTokens,
                             .body_bytes = body_.size(),
                             .answered = false};
}

std::optional<dispatch::Plan> Probe::ownPlan(const catalog::Catalog& catalog) const {
  dispatch::Plan plan;
  plan.requested_model = target_.model_id;
  plan.model_id = target_.model_id;
  plan.model = catalog.model(target_.model_id);
  plan.max_tokens = kMaxTokens;
  plan.route_match = {"probe:console", "deployment=" + target_.endpoint_key};
  const catalog::Deployment* deployment = catalog.deployment(target_.model_id, target_.endpoint_key);
  if (plan.model == nullptr || deployment == nullptr) return plan;  // reloaded away: nothing to ask
  dispatch::Attempt attempt;
  attempt.deployment = deployment;
  attempt.model = plan.model;
  attempt.endpoint = catalog.endpoint(target_.endpoint_key);
  attempt.provider = catalog.provider(deployment->provider_id);
  attempt.credential = attempt.endpoint ? catalog.credentialOf(*attempt.endpoint) : nullptr;
  if (attempt.endpoint == nullptr || attempt.provider == nullptr || attempt.credential == nullptr) return plan;
  attempt.paid_by = attempt.credential->kind;
  plan.attempts.push_back(attempt);
  return plan;
}

pipeline::MaskOutcome Probe::maskOnce(const protection::Detector& detector, const protection::MaskLimits& limits) {
  wire::Json document = wire::parseJsonText(body_);
  auto masked = protection::maskJsonTexts(document, detector, kSettingKeys, limits);
  if (!masked) return std::unexpected("masking failed: " + masked.error().reason);
  masked_ = wire::dumpJsonText(document);
  return std::move(*masked);
}

std::expected<std::string, wire::ApiError> Probe::bodyFor(const dispatch::Attempt&, const dispatch::Plan&,
                                                          bool masked) {
  return masked && masked_ ? *masked_ : body_;
}

void Probe::shape(pipeline::AttemptCall& call) {
  call.ask_breaker = false;  // an open breaker's endpoint is what the button is for
  call.single_try = true;
  call.client = nullptr;     // nothing of the console's own request goes upstream
}

pipeline::RelayResult Probe::relay(pipeline::Exchange& exchange, const dispatch::Plan&, const dispatch::Attempt&,
                                   pipeline::Answer& answer, bool, pipeline::RelayOptions) {
  pipeline::RelayResult relayed;
  relayed.status = answer.response->status();
  std::string text = answer.error_body;
  // A TransportError here leaves the exchange free to count the attempt failed (nothing was sent).
  while (relayed.status < 400 && text.size() < pipeline::kMaxErrorBody && answer.response->readSome(text)) {
  }
  relayed.first_byte_at = std::chrono::steady_clock::now();
  result_["status"] = relayed.status;
  result_["latency_ms"] = exchange.ledger().upstreamMs();
  if (relayed.status / 100 != 2) {
    relayed.error_key = wire::error_keys::kUpstreamError;
    relayed.error_message = text.substr(0, 300);
    result_["ok"] = false;
    result_["error"] = text.substr(0, 500);
    return relayed;
  }
  std::string said;
  if (auto decoded = wire::decodeResponse(wire_, text)) {
    for (const auto& block : decoded->content) {
      if (block.type == wire::ContentBlock::Type::Text) said += block.text;
    }
    relayed.usage = decoded->usage;
    relayed.usage_reported = true;
  }
  result_["ok"] = true;
  result_["answer"] = said;
  result_["input_tokens"] = relayed.usage.input_tokens;
  result_["output_tokens"] = relayed.usage.output_tokens;
  return relayed;
}

dispatch::Charge Probe::charge(pipeline::Exchange&, const dispatch::Attempt& attempt, pipeline::RelayResult& relayed) {
  if (relayed.status / 100 != 2) return {};
  return dispatch::chargeFor(attempt.deployment->pricing, relayed.usage);
}

void Probe::answerRefusal(pipeline::Exchange& exchange, const wire::ApiError& error) {
  if (error.status == 404 && error.key == "no_such_deployment") {
    result_ = {{"error_status", 404}, {"key", error.key}, {"message", error.message}};
    return;
  }
  // What the console shows: the last attempt's result and error when one was sent or skipped.
  const auto& attempts = exchange.ledger().row().attempts;
  std::string shown = error.message;
  if (!attempts.empty() && !attempts.back().error.empty()) {
    shown = attempts.back().result + ": " + attempts.back().error;
  }
  result_["ok"] = false;
  result_["status"] = 0;
  result_["error"] = shown;
  result_["latency_ms"] = exchange.ledger().upstreamMs();
}

}  // namespace sluice::endpoints
