// The /v1 endpoints that are not chat formats (wire/operation.h): embeddings, image generations,
// speech, transcriptions and translations, moderations, rerank. Each request goes the chat path's
// way — Admission identifies and admits it (access rules, quota), the pure planner chooses the
// route and the ordered deployments, an AttemptRunner binds, asks the breakers, sends, retries
// and fails over, and one RequestLedger leaves exactly one audit row, log line and set of metrics —
// with the differences the operations need:
//
//   - the model must be of the operation's kind (400 model_kind_mismatch otherwise);
//   - the body is relayed with only its `model` rewritten to the deployment's upstream model:
//     a JSON body in its own text (wire::editTopLevelMembers), a multipart upload streamed as it
//     arrives (upload.h) — which then cannot move to another deployment once it has been spent;
//   - the answer is relayed byte for byte as it arrives, with its content type (audio included);
//   - it is counted in tokens from the answer's `usage` and/or in units (images, characters,
//     seconds, requests: dispatch::unitsFor) and priced per token and per unit.
//
// route_match leads with `endpoint:<operation>` (endpoint:embeddings, …), as count_tokens does.

#include <array>
#include <random>
#include <variant>

#include "server/dispatch/attempt_walk.h"
#include "server/dispatch/planner.h"
#include "server/dispatch/pricing.h"
#include "server/http/admission.h"
#include "server/http/attempt_runner.h"
#include "server/http/gateway.h"
#include "server/http/handlers.h"
#include "server/http/relay.h"
#include "server/http/request_ledger.h"
#include "server/http/respond.h"
#include "server/http/upload.h"
#include "server/log/json_log.h"
#include "server/wire/answer_meter.h"
#include "server/wire/client.h"
#include "server/wire/json_parse.h"
#include "server/wire/json_scan.h"
#include "server/wire/multipart.h"

namespace sluice::http {

namespace {

using catalog::Wire;
using SteadyClock = std::chrono::steady_clock;

// The JSON members read before planning: the model (rewritten per deployment) and the text a
// speech request is counted by.
constexpr std::array<std::string_view, 2> kJsonKeys = {"model", "input"};

// Unicode code points in UTF-8 text (continuation bytes not counted); invalid bytes count one each.
int64_t codePoints(std::string_view text) {
  int64_t count = 0;
  for (const char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

wire::ApiError bodyRefusal(const BodyTooLarge& failure, size_t limit) {
  switch (failure.why) {
    case BodyTooLarge::Why::Incomplete:
      return wire::ApiError::make(408, wire::error_keys::kRequestTimeout, "the request body stopped before its Content-Length");
    case BodyTooLarge::Why::Overloaded: {
      auto error = wire::ApiError::make(503, wire::error_keys::kOverloaded,
                                        "the gateway holds too many request bodies right now; retry shortly");
      error.retry_after_seconds = 1;
      return error;
    }
    case BodyTooLarge::Why::TooLarge: break;
  }
  return wire::ApiError::make(413, wire::error_keys::kRequestTooLarge,
                              "request body exceeds " + std::to_string(limit) + " bytes");
}

class OperationExchange {
 public:
  OperationExchange(Gateway& gateway, wire::Operation operation, Request& request, ServerResponse& response)
      : gateway_(gateway), operation_(operation), request_(request), response_(response),
        ledger_(gateway, request.id(), request.target(), Wire::OpenAIChat), admission_(gateway, request.id()) {
    ledger_.noteOperation(operation == wire::Operation::Embeddings ? "embeddings" : wire::toString(operation));
  }

  void run() {
    ledger_.noteClient(catalog::toString(wire::detectClientFamily(request_.header("x-sluice-client"),
                                                                  request_.header("User-Agent"), Wire::OpenAIChat)),
                       "", false);
    if (auto identified = admission_.identify(request_); !identified) {
      response_.setKeepAlive(false);  // the body is never read: the connection closes after the answer
      if (identified.error().status == 401) {
        ledger_.throttleUnauthenticated(request_.head().clientAddress().host().toString());
      }
      return refuse(identified.error());
    }
    if (const auto& who = admission_.who()) ledger_.noteCaller(who->caller, who->scope);

    body_lease_ = gateway_.bodyBudget().lease();
    auto model = wire::isMultipart(operation_) ? readUpload() : readJson();
    if (!model) {
      response_.setKeepAlive(false);
      return refuse(model.error());
    }
    ledger_.noteClient(ledger_.row().client_family, *model, false);

    catalog_ = gateway_.catalog();
    const dispatch::Health health = gateway_.endpoints().snapshot(SteadyClock::now());
    dispatch::PlanRequest plan_request;
    plan_request.requested_model = *model;
    if (const auto& who = admission_.who()) plan_request.project = who->scope.project;
    plan_request.health = &health;
    plan_request.draw = drawUniform();
    auto planned = dispatch::planDispatch(*catalog_, plan_request);
    if (!planned) {
      ledger_.row().route_match = dispatch::joinRouteMatch(withEndpoint(planned.error().route_match));
      if (upload_) response_.setKeepAlive(false);
      return refuse(planned.error());
    }
    planned->route_match = withEndpoint(std::move(planned->route_match));
    ledger_.notePlan(*planned);
    if (planned->model->kind != wire::kindFor(operation_)) {
      if (upload_) response_.setKeepAlive(false);
      return refuse(wire::ApiError::make(
          400, wire::error_keys::kModelKindMismatch,
          wire::kindMismatchMessage(planned->model_id, planned->model->kind, "/v1/" + std::string(wire::toString(operation_))),
          "model"));
    }

    auto ticket = admission_.admit(catalog_, *planned, QuotaUse::Spend);
    if (!ticket) {
      if (upload_) response_.setKeepAlive(false);
      return refuse(ticket.error());
    }
    if (!ticket->warning().empty()) ledger_.noteQuotaWarning(ticket->warning());

    const int sent = execute(*planned);
    if (sent == 0) {
      ticket->release();
    } else if (auto breach = ticket->settle(ledger_.usage(), ledger_.cost())) {
      ledger_.noteQuotaBreachAfter(*breach);
    }
  }

  void internalError(const std::exception& error) {
    log::error("request failed", {{"request_id", request_.id()}, {"error", error.what()}});
    if (upload_) response_.setKeepAlive(false);
    if (response_.sent() || ledger_.ended()) return;
    refuse(wire::ApiError::make(500, wire::error_keys::kInternalError, "the gateway failed to handle this request"));
  }

 private:
  static double drawUniform() {
    thread_local std::mt19937_64 engine{std::random_device{}()};
    return std::uniform_real_distribution<double>(0.0, 1.0)(engine);
  }

  std::vector<std::string> withEndpoint(std::vector<std::string> segments) const {
    segments.insert(segments.begin(), "endpoint:" + std::string(wire::toString(operation_)));
    return segments;
  }

  // A JSON body: read whole (bounded), its model and (speech) input found by scanning.
  std::expected<std::string, wire::ApiError> readJson() {
    auto raw = request_.readBody(gateway_.options().max_body_bytes, &body_lease_);
    if (!raw) return std::unexpected(bodyRefusal(raw.error(), gateway_.options().max_body_bytes));
    raw_ = std::move(*raw);
    scan_ = wire::scanTopLevelMembers(raw_, kJsonKeys);
    std::optional<wire::Json> parsed;
    if (!scan_.walked) {
      if (wire::nestsDeeperThan(raw_)) {
        return std::unexpected(wire::ApiError::invalidRequest(
            "request body nests arrays and objects deeper than " + std::to_string(wire::kMaxJsonDepth) + " levels"));
      }
      parsed = wire::parseJsonText(raw_);
      if (parsed->is_discarded()) return std::unexpected(wire::ApiError::invalidJson());
      if (!parsed->is_object()) return std::unexpected(wire::ApiError::invalidRequest("request body must be a JSON object"));
      scan_.repeated = wire::repeatedTopLevelKey(raw_, kJsonKeys);
    }
    // Authorised and priced as one model, served as another by a provider keeping the other copy.
    if (scan_.repeated) {
      const std::string key(kJsonKeys[*scan_.repeated]);
      return std::unexpected(wire::ApiError::invalidRequest("request body names '" + key + "' more than once", key));
    }
    const auto member = [&](size_t index) -> std::optional<wire::Json> {
      if (parsed) {
        const auto found = parsed->find(kJsonKeys[index]);
        if (found == parsed->end()) return std::nullopt;
        return *found;
      }
      if (!scan_.values[index]) return std::nullopt;
      return wire::parseJsonText(*scan_.values[index]);
    };
    const auto model = member(0);
    if (!model || (model->is_string() && model->get<std::string>().empty())) {
      return std::unexpected(wire::ApiError::invalidRequest("'model' is required", "model"));
    }
    if (!model->is_string()) return std::unexpected(wire::ApiError::invalidRequest("'model' must be a string", "model"));
    if (operation_ == wire::Operation::Speech) {
      if (const auto input = member(1); input && input->is_string()) input_characters_ = codePoints(input->get<std::string>());
    }
    return model->get<std::string>();
  }

  // A multipart upload: read as far as its model field (upload.h).
  std::expected<std::string, wire::ApiError> readUpload() {
    const std::string content_type = request_.header("Content-Type");
    auto boundary = wire::multipartBoundary(content_type);
    if (!boundary) {
      return std::unexpected(wire::ApiError::make(
          415, wire::error_keys::kUnsupportedMediaType,
          "/v1/" + std::string(wire::toString(operation_)) + " takes a multipart/form-data body with a boundary"));
    }
    content_type_ = content_type;
    upload_.emplace(request_, std::move(*boundary), gateway_.options().max_body_bytes, body_lease_);
    if (auto head = upload_->readHead(); !head) return std::unexpected(head.error());
    return upload_->model();
  }

  // The body `attempt` sends first: the client's with the model rewritten (JSON in its own text).
  std::expected<std::string, wire::ApiError> bodyFor(const dispatch::Attempt& attempt) {
    const std::string& upstream_model = attempt.deployment->upstream_model;
    if (upload_) return upload_->beginAttempt(upstream_model);
    if (scan_.walked) {
      if (scan_.values[0] && wire::parseJsonText(*scan_.values[0]) == wire::Json(upstream_model)) return raw_;
      const wire::MemberEdit edits[] = {{"model", wire::Json(upstream_model).dump()}};
      if (auto edited = wire::editTopLevelMembers(raw_, scan_, kJsonKeys, edits)) return std::move(*edited);
    }
    wire::Json body = wire::parseJsonText(raw_);
    if (!body.is_object()) return std::unexpected(wire::ApiError::invalidJson());
    body["model"] = upstream_model;
    return wire::dumpJsonText(body);
  }

  std::string acceptFor() const {
    const std::string accept = request_.header("Accept");
    if (!accept.empty() && accept.size() <= 256) return accept;
    return operation_ == wire::Operation::Speech ? "*/*" : "application/json";
  }

  // Walks the plan's attempts until one answers; returns how many calls were sent.
  int execute(const dispatch::Plan& plan) {
    upstream::Cancel cancel;
    const HangUpGuard watching = request_.watchHangUp(cancel);
    AttemptRunner runner(gateway_.upstream(), gateway_.endpoints(), ledger_, cancel,
                         personalKeys(gateway_, admission_.who() ? admission_.who()->caller.user : std::string()));
    dispatch::AttemptWalk walk(plan.attempts);
    std::optional<Failed> last;
    std::string unbound;
    const auto routed = [&] { ledger_.noteRouting(plan.route_match, &walk, runner.fieldSegments()); };
    ledger_.noteLane(metrics::lane::kPassthrough);

    while (const dispatch::Attempt* attempt = walk.next()) {
      // An upload streamed into an attempt that then failed is spent: nothing is left to resend.
      if (upload_ && upload_->started()) break;
      if (auto skipped = runner.bind(*attempt, !walk.lastResort())) {
        if (skipped->stage == Failed::Stage::CircuitOpen) {
          walk.defer(skipped->reason);
        } else {
          unbound += (unbound.empty() ? "" : "; ") + attempt->endpoint->key + ": " + skipped->reason;
          walk.skip(skipped->reason);
        }
        continue;
      }
      auto body = bodyFor(*attempt);
      if (!body) {
        routed();
        refuse(body.error());
        return runner.sent();
      }
      AttemptCall call{attempt, std::move(*body), false, std::string(wire::upstreamPath(operation_)), Wire::OpenAIChat,
                       &request_};
      call.field_retry = false;
      call.content_type = content_type_;
      call.accept = acceptFor();
      if (upload_ && !upload_->whole()) {
        call.body_source = &*upload_;
        call.single_try = true;  // the upload can be sent once: whatever answers is the answer
      }
      std::optional<AttemptResult> sent;
      try {
        sent.emplace(runner.send(std::move(call)));
      } catch (const UploadFailed& failure) {
        // The client's side of the upload failed while it streamed: the provider is not blamed.
        response_.setKeepAlive(false);
        ledger_.recordAttempt(*attempt, 0, "client_body_failed", failure.what(), 0);
        routed();
        if (failure.clientGone()) {
          ledger_.clientGone();
        } else {
          refuse(failure.error());
        }
        return runner.sent();
      }
      AttemptResult& result = *sent;
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
      if (upload_ && !upload_->whole()) response_.setKeepAlive(false);  // the provider may not have read it all
      RelayOptions options;
      options.cancel = &cancel;
      wire::AnswerMeter meter;
      RelayResult relayed;
      try {
        upstream::Response& provider = *answer.response;
        if (provider.status() >= 400) {
          wire::ResponseContext context;
          context.model = plan.requested_model;
          context.request_id = request_.id();
          relayed = relayErrorBody(provider, answer.error_body, response_, Wire::OpenAIChat, Wire::OpenAIChat, context);
        } else {
          relayed = relayAsItComes(provider, response_, options, &meter);
        }
      } catch (const upstream::TransportError& failure) {
        if (response_.sent()) throw;  // NOTE: relay only throws before sending; this guards that promise
        last = runner.relayFailed(*attempt, answer, failure);
        walk.sent(last->outcome);
        continue;
      }
      runner.relayed(*attempt, answer, relayed);
      walk.sent(answer.outcome);
      routed();
      if (relayed.client_gone) response_.setKeepAlive(false);
      dispatch::Charge charge;
      if (relayed.status < 400 && !relayed.client_gone) {
        const wire::AnswerMeasure measure = meter.measure();
        if (measure.usage) {
          relayed.usage = *measure.usage;
          relayed.usage_reported = true;
        }
        const dispatch::Units units = dispatch::unitsFor(operation_, measure, input_characters_);
        ledger_.noteUnits(units);
        charge = dispatch::chargeFor(attempt->deployment->pricing, relayed.usage, units);
      }
      ledger_.served(*attempt, relayed, charge);
      return runner.sent();
    }
    routed();
    if (last) {
      ledger_.noteUpstreamFailure(runner.sent(), last->outcome.transport == dispatch::TransportKind::Timeout);
      if (upload_ && !upload_->whole()) response_.setKeepAlive(false);
      refuse(clientFacing(last->error, Wire::OpenAIChat));
    } else {
      if (upload_) response_.setKeepAlive(false);
      refuse(wire::ApiError::make(503, wire::error_keys::kNoDeploymentAvailable,
                                  "no deployment of '" + plan.model_id + "' can serve this request: " + unbound));
    }
    return runner.sent();
  }

  void refuse(const wire::ApiError& error) {
    sendError(response_, Wire::OpenAIChat, error, request_.id());
    ledger_.refused(error);
  }

  Gateway& gateway_;
  wire::Operation operation_;
  Request& request_;
  ServerResponse& response_;
  RequestLedger ledger_;
  Admission admission_;
  std::shared_ptr<const catalog::Catalog> catalog_;
  BodyBudget::Lease body_lease_;  // before the bodies: they go first, then their room
  std::string raw_;               // a JSON body
  wire::MembersScan scan_;
  std::optional<Upload> upload_;  // a multipart body
  std::string content_type_;      // "" = application/json
  int64_t input_characters_ = 0;
};

}  // namespace

void OperationHandler::handle(Request& request, ServerResponse& response) {
  OperationExchange exchange(gateway_, operation_, request, response);
  try {
    exchange.run();
  } catch (const std::exception& error) {
    exchange.internalError(error);
  }
}

}  // namespace sluice::http
