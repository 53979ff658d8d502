#include <nlohmann/json.hpp>

#include "server/dispatch/planner.h"
#include "server/wire/json_parse.h"
#include "server/dispatch/token_estimate.h"
#include "server/http/handlers.h"
#include "server/http/identity_gate.h"
#include "server/http/respond.h"
#include "server/http/upstream_call.h"
#include "server/log/json_log.h"
#include "server/wire/codec.h"

namespace sluice::http {

namespace {

using catalog::Wire;

void countTokens(Gateway& gateway, Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response,
                 const std::string& request_id) {
  auto body = readBody(request, gateway.options().max_body_bytes);
  if (!body) {
    response.setKeepAlive(false);
    return sendError(response, Wire::Anthropic, {413, "request_too_large", "request body is too large", {}, {}}, request_id);
  }
  if (auto who = identify(gateway, request); !who) return sendError(response, Wire::Anthropic, who.error(), request_id);
  auto parsed = wire::parseBounded(*body);  // discarded past the nesting bound, like malformed text
  if (!parsed.is_object()) {
    return sendError(response, Wire::Anthropic, {400, "invalid_json", "request body is not a JSON object", {}, {}},
                     request_id);
  }
  const std::string requested = parsed.contains("model") && parsed["model"].is_string() ? parsed["model"].get<std::string>() : "";
  const auto catalog = gateway.catalog();
  dispatch::PlanRequest plan_request;
  plan_request.requested_model = requested;
  auto plan = dispatch::planDispatch(*catalog, plan_request);
  if (!plan) return sendError(response, Wire::Anthropic, plan.error(), request_id);

  for (const auto& attempt : plan->attempts) {
    if (attempt.endpoint->wire != Wire::Anthropic || attempt.credential->kind != catalog::CredentialKind::Platform ||
        !attempt.credential->configured()) {
      continue;
    }
    parsed["model"] = attempt.deployment->upstream_model;
    auto call = buildUpstreamCall(attempt, request, Wire::Anthropic, parsed.dump(), false, "/v1/messages/count_tokens");
    try {
      auto answer = gateway.upstream().send(call);
      const std::string text = answer->readAll();
      if (answer->status() < 500) {
        const std::string content_type = answer->header("Content-Type");
        return sendBody(response, answer->status(), content_type.empty() ? "application/json" : content_type, text);
      }
    } catch (const upstream::TransportError& failure) {
      log::warn("count_tokens upstream failure", {{"request_id", request_id}, {"error", failure.what()}});
    }
    break;  // a provider that cannot count right now: estimate instead
  }
  auto decoded = wire::decodeRequest(Wire::Anthropic, *body);
  if (!decoded) return sendError(response, Wire::Anthropic, decoded.error(), request_id);
  const nlohmann::json answer = {{"input_tokens", dispatch::estimateInputTokens(*decoded)}};
  sendJson(response, 200, answer.dump());
}

}  // namespace

void CountTokensHandler::handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  const std::string request_id = response.get("x-sluice-request-id", "");
  try {
    countTokens(gateway_, request, response, request_id);
  } catch (const std::exception& error) {
    log::error("count_tokens failed", {{"request_id", request_id}, {"error", error.what()}});
    if (!response.sent()) {
      sendError(response, Wire::Anthropic, {500, "internal_error", "the gateway failed to count tokens", {}, {}},
                request_id);
    }
  }
}

}  // namespace sluice::http
