#include "server/endpoints/count_tokens.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "server/dispatch/token_estimate.h"
#include "server/http/respond.h"
#include "server/pipeline/exchange.h"
#include "server/wire/codec.h"
#include "server/wire/json_parse.h"
#include "server/wire/json_scan.h"

namespace sluice::endpoints {

namespace {

// The body (already parsed as an object) names `model` more than once: found by the scan, or by a
// SAX parse when the scan cannot walk the text (a key written with escapes among others).
bool repeatsModel(std::string_view body) {
  static constexpr std::string_view kModel[] = {"model"};
  const wire::MembersScan scan = wire::scanTopLevelMembers(body, kModel);
  return scan.walked ? scan.repeated.has_value() : wire::repeatedTopLevelKey(body, kModel).has_value();
}

}  // namespace

std::expected<pipeline::Inspected, wire::ApiError> CountTokens::read(pipeline::Exchange& exchange) {
  auto body = exchange.readWholeBody();
  if (!body) return std::unexpected(body.error());
  raw_ = std::move(*body);
  parsed_ = wire::parseBounded(raw_);  // discarded past the nesting bound, like malformed text
  if (!parsed_.is_object()) {
    return std::unexpected(wire::ApiError::make(400, wire::error_keys::kInvalidJson, "request body is not a JSON object"));
  }
  // The parse kept the last `model`; the deployment asked may keep the first.
  if (repeatsModel(raw_)) {
    return std::unexpected(wire::ApiError::invalidRequest("request body names 'model' more than once", "model"));
  }
  pipeline::Inspected facts;
  if (const auto model = parsed_.find("model"); model != parsed_.end() && model->is_string()) {
    facts.requested_model = model->get<std::string>();
  }
  facts.body_bytes = raw_.size();
  return facts;
}

bool CountTokens::passesOver(const catalog::Catalog& catalog, const dispatch::Attempt& attempt) const {
  // Vertex counts Claude's tokens (count-tokens:rawPredict, the attempt runner readdresses the
  // call); Bedrock's InvokeModel and Azure have no such endpoint: the gateway's estimate answers.
  const catalog::Platform platform = attempt.provider->platform;
  return attempt.endpoint->wire != catalog::Wire::Anthropic || catalog.masks(*attempt.endpoint) ||
         (platform != catalog::Platform::Direct && platform != catalog::Platform::Vertex);
}

pipeline::MaskOutcome CountTokens::maskOnce(const protection::Detector&, const protection::MaskLimits&) {
  // passesOver() keeps every masked tier away: nothing is ever masked here.
  return std::unexpected("token counts are never asked of a masked tier");
}

std::expected<std::string, wire::ApiError> CountTokens::bodyFor(const dispatch::Attempt& attempt, const dispatch::Plan&,
                                                                bool) {
  parsed_["model"] = attempt.deployment->upstream_model;
  return parsed_.dump();
}

void CountTokens::shape(pipeline::AttemptCall& call) {
  call.path = "/v1/messages/count_tokens";
  call.single_try = true;
}

bool CountTokens::relays(const pipeline::Answer& answer) const { return answer.response->status() < 500; }

pipeline::RelayResult CountTokens::relay(pipeline::Exchange& exchange, const dispatch::Plan&, const dispatch::Attempt&,
                                     pipeline::Answer& answer, bool, pipeline::RelayOptions) {
  pipeline::RelayResult relayed;
  relayed.status = answer.response->status();
  std::string text = answer.error_body;
  while (relayed.status < 400 && text.size() < pipeline::kMaxErrorBody && answer.response->readSome(text)) {
  }
  const std::string content_type = answer.response->header("Content-Type");
  http::sendBody(exchange.response(), relayed.status, content_type.empty() ? "application/json" : content_type, text);
  relayed.first_byte_at = std::chrono::steady_clock::now();
  return relayed;
}

dispatch::Charge CountTokens::charge(pipeline::Exchange&, const dispatch::Attempt&, pipeline::RelayResult&) { return {}; }

bool CountTokens::answerWithoutProvider(pipeline::Exchange& exchange) {
  auto decoded = wire::decodeRequest(catalog::Wire::Anthropic, raw_);
  if (!decoded) {
    exchange.refuse(decoded.error());
    return true;
  }
  const nlohmann::json answer = {{"input_tokens", dispatch::estimateInputTokens(*decoded)}};
  http::sendJson(exchange.response(), 200, answer.dump());
  exchange.ledger().answeredLocally(200);
  return true;
}

}  // namespace sluice::endpoints
