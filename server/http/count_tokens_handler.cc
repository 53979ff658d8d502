// POST /v1/messages/count_tokens: a governed, audited call like /v1/messages. The caller is
// identified and admitted for the model's route (access rules; quota windows must have room, but
// counting spends nothing), then the first Anthropic-wire deployment that can be bound is asked;
// when none can answer, the gateway estimates. One audit row, route_match led by endpoint:count_tokens.

#include <nlohmann/json.hpp>

#include "server/dispatch/planner.h"
#include "server/dispatch/token_estimate.h"
#include "server/http/admission.h"
#include "server/http/attempt_runner.h"
#include "server/http/handlers.h"
#include "server/http/request_ledger.h"
#include "server/http/respond.h"
#include "server/log/json_log.h"
#include "server/wire/client.h"
#include "server/wire/codec.h"
#include "server/wire/json_parse.h"
#include "server/wire/json_scan.h"
#include "server/wire/operation.h"

namespace sluice::http {

namespace {

using catalog::Wire;

// The body (already parsed as an object) names `model` more than once: found by the scan, or by a
// SAX parse when the scan cannot walk the text (a key written with escapes among others).
bool repeatsModel(std::string_view body) {
  static constexpr std::string_view kModel[] = {"model"};
  const wire::MembersScan scan = wire::scanTopLevelMembers(body, kModel);
  return scan.walked ? scan.repeated.has_value() : wire::repeatedTopLevelKey(body, kModel).has_value();
}

class CountTokens {
 public:
  CountTokens(Gateway& gateway, Request& request, ServerResponse& response)
      : gateway_(gateway), request_(request), response_(response),
        ledger_(gateway, request.id(), request.target(), Wire::Anthropic), admission_(gateway, request.id()) {}

  void run() {
    // The caller first, from the head alone: no body is read or held for a caller without a key.
    if (auto identified = admission_.identify(request_); !identified) {
      response_.setKeepAlive(false);
      if (identified.error().status == 401) {
        ledger_.throttleUnauthenticated(request_.head().clientAddress().host().toString());
      }
      return refuse(identified.error());
    }
    if (const auto& who = admission_.who()) ledger_.noteCaller(who->caller, who->scope);
    body_lease_ = gateway_.bodyBudget().lease();
    auto body = request_.readBody(gateway_.options().max_body_bytes, &body_lease_);
    if (!body) {
      response_.setKeepAlive(false);
      if (body.error().why == BodyTooLarge::Why::Incomplete) {
        return refuse(wire::ApiError::make(408, wire::error_keys::kRequestTimeout,
                                           "the request body stopped before its Content-Length"));
      }
      if (body.error().why == BodyTooLarge::Why::Overloaded) {
        return refuse(wire::ApiError::make(503, wire::error_keys::kOverloaded,
                                           "the gateway holds too many request bodies right now; retry shortly"));
      }
      return refuse(wire::ApiError::make(413, wire::error_keys::kRequestTooLarge, "request body is too large"));
    }
    auto parsed = wire::parseBounded(*body);  // discarded past the nesting bound, like malformed text
    if (!parsed.is_object()) {
      return refuse(wire::ApiError::make(400, wire::error_keys::kInvalidJson, "request body is not a JSON object"));
    }
    // The parse kept the last `model`; the deployment asked may keep the first.
    if (repeatsModel(*body)) {
      return refuse(wire::ApiError::invalidRequest("request body names 'model' more than once", "model"));
    }
    const std::string requested =
        parsed.contains("model") && parsed["model"].is_string() ? parsed["model"].get<std::string>() : "";
    ledger_.noteClient(catalog::toString(wire::detectClientFamily(request_.header("x-sluice-client"),
                                                                  request_.header("User-Agent"), Wire::Anthropic)),
                       requested, false);
    const auto catalog = gateway_.catalog();
    dispatch::PlanRequest plan_request;
    plan_request.requested_model = requested;
    if (const auto& who = admission_.who()) plan_request.project = who->scope.project;
    auto plan = dispatch::planDispatch(*catalog, plan_request);
    if (!plan) {
      ledger_.row().route_match = dispatch::joinRouteMatch(withEndpoint(plan.error().route_match));
      return refuse(plan.error());
    }
    ledger_.notePlan(*plan);
    ledger_.noteRouting(withEndpoint(plan->route_match), nullptr, {});
    if (plan->model->kind != catalog::ModelKind::Chat) {
      return refuse(wire::ApiError::make(
          400, wire::error_keys::kModelKindMismatch,
          wire::kindMismatchMessage(plan->model_id, plan->model->kind, "/v1/messages/count_tokens"), "model"));
    }
    auto ticket = admission_.admit(catalog, *plan, QuotaUse::CheckOnly);
    if (!ticket) return refuse(ticket.error());
    if (askProvider(*catalog, *plan, parsed)) return;
    auto decoded = wire::decodeRequest(Wire::Anthropic, *body);
    if (!decoded) return refuse(decoded.error());
    const nlohmann::json answer = {{"input_tokens", dispatch::estimateInputTokens(*decoded)}};
    sendJson(response_, 200, answer.dump());
    ledger_.answeredLocally(200);
  }

  void internalError(const std::exception& error) {
    log::error("count_tokens failed", {{"request_id", request_.id()}, {"error", error.what()}});
    if (!response_.sent() && !ledger_.ended()) {
      refuse(wire::ApiError::make(500, wire::error_keys::kInternalError, "the gateway failed to count tokens"));
    }
  }

 private:
  static std::vector<std::string> withEndpoint(std::vector<std::string> segments) {
    segments.insert(segments.begin(), "endpoint:count_tokens");
    return segments;
  }

  // The first Anthropic-wire deployment that can be bound counts; true when its answer was sent.
  // A provider that cannot count right now (5xx, unreachable) leaves it to the estimate. An
  // endpoint of a masked trust tier is never asked (data protection): counting the masked text
  // would not count the client's, and the raw text must not reach it; the estimate answers.
  bool askProvider(const catalog::Catalog& catalog, const dispatch::Plan& plan, wire::Json& parsed) {
    upstream::Cancel cancel;
    const HangUpGuard watching = request_.watchHangUp(cancel);
    AttemptRunner runner(gateway_.upstream(), gateway_.endpoints(), ledger_, cancel,
                         personalKeys(gateway_, admission_.who() ? admission_.who()->caller.user : std::string()));
    for (const auto& attempt : plan.attempts) {
      if (attempt.endpoint->wire != Wire::Anthropic || catalog.masks(*attempt.endpoint)) continue;
      if (attempt.endpoint->url.empty()) continue;  // an own machine reached only at its hub's address
      if (runner.bind(attempt, false)) continue;
      parsed["model"] = attempt.deployment->upstream_model;
      AttemptCall call{&attempt, parsed.dump(), false, "/v1/messages/count_tokens", Wire::Anthropic, &request_};
      call.single_try = true;
      AttemptResult result = runner.send(std::move(call));
      if (std::holds_alternative<ClientGone>(result)) {
        ledger_.clientGone();
        return true;
      }
      auto* answer = std::get_if<Answer>(&result);
      if (!answer || answer->response->status() >= 500) return false;
      RelayResult relayed;
      relayed.status = answer->response->status();
      std::string text = answer->error_body;
      try {
        while (relayed.status < 400 && text.size() < kMaxErrorBody && answer->response->readSome(text)) {
        }
      } catch (const upstream::TransportError& failure) {
        runner.relayFailed(attempt, *answer, failure);
        return false;
      }
      const std::string content_type = answer->response->header("Content-Type");
      sendBody(response_, relayed.status, content_type.empty() ? "application/json" : content_type, text);
      relayed.first_byte_at = std::chrono::steady_clock::now();
      runner.relayed(attempt, *answer, relayed);
      ledger_.served(attempt, relayed, {});
      return true;
    }
    return false;
  }

  void refuse(const wire::ApiError& error) {
    sendError(response_, Wire::Anthropic, error, request_.id());
    ledger_.refused(error);
  }

  Gateway& gateway_;
  Request& request_;
  ServerResponse& response_;
  RequestLedger ledger_;
  Admission admission_;
  BodyBudget::Lease body_lease_;
};

}  // namespace

void CountTokensHandler::handle(Request& request, ServerResponse& response) {
  CountTokens counting(gateway_, request, response);
  try {
    counting.run();
  } catch (const std::exception& error) {
    counting.internalError(error);
  }
}

}  // namespace sluice::http
