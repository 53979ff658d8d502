#include <chrono>
#include <istream>
#include <string>
#include <vector>

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <nlohmann/json.hpp>

#include "server/audit/guard.h"
#include "server/dispatch/planner.h"
#include "server/dispatch/pricing.h"
#include "server/http/relay.h"
#include "server/http/upstream_call.h"
#include "server/http/handlers.h"
#include "server/http/respond.h"
#include "server/log/json_log.h"
#include "server/wire/client.h"
#include "server/wire/codec.h"

namespace sluice::http {

namespace {

using nlohmann::ordered_json;

class Exchange {
 public:
  Exchange(Gateway& gateway, catalog::Wire client_wire, Poco::Net::HTTPServerRequest& request,
           Poco::Net::HTTPServerResponse& response)
      : gateway_(gateway), client_wire_(client_wire), request_(request), response_(response),
        request_id_(response.get("x-sluice-request-id", "")), started_(std::chrono::steady_clock::now()),
        audit_(gateway.audit(), request_id_) {
    auto& row = audit_.record();
    row.client_wire = std::string(catalog::toString(client_wire));
    row.client_family = std::string(catalog::toString(
        wire::detectClientFamily(request.get("x-sluice-client", ""), request.get("User-Agent", ""), client_wire)));
  }

  void run() {
    auto body = readBody(request_, gateway_.options().max_body_bytes);
    if (!body) {
      response_.setKeepAlive(false);
      return fail({413, "request_too_large",
                   "request body exceeds " + std::to_string(gateway_.options().max_body_bytes) + " bytes", {}, {}});
    }
    raw_body_ = std::move(*body);
    ordered_json parsed = ordered_json::parse(raw_body_, nullptr, false);
    if (parsed.is_discarded()) return fail({400, "invalid_json", "request body is not valid JSON", {}, {}});
    if (!parsed.is_object()) return fail({400, "invalid_request", "request body must be a JSON object", {}, {}});
    std::string requested;
    if (parsed.contains("model")) {
      if (!parsed["model"].is_string()) return fail({400, "invalid_request", "'model' must be a string", "model", {}});
      requested = parsed["model"].get<std::string>();
    }
    stream_ = parsed.contains("stream") && parsed["stream"].is_boolean() && parsed["stream"].get<bool>();

    catalog_ = gateway_.catalog();
    dispatch::PlanRequest plan_request;
    plan_request.requested_model = requested;
    auto plan = dispatch::planDispatch(*catalog_, plan_request);
    audit_.record().requested_model = requested;
    audit_.record().is_streaming = stream_;
    if (!plan) {
      audit_.record().route_match = dispatch::joinRouteMatch(plan.error().route_match);
      return fail(plan.error());
    }
    model_ = plan->model_id;
    route_match_ = dispatch::joinRouteMatch(plan->route_match);
    auto& row = audit_.record();
    row.requested_model = plan->requested_model;
    row.model = plan->model_id;
    row.route_id = plan->route->id;
    row.strategy = std::string(catalog::toString(plan->strategy));
    row.route_match = route_match_;
    if (!plan->attempts.empty()) {
      row.provider = plan->attempts.front().provider->id;
      row.endpoint = plan->attempts.front().endpoint->key;
    }
    execute(*plan, parsed);
  }

 private:
  void execute(const dispatch::Plan& plan, ordered_json& body) {
    std::vector<std::string> skipped;
    std::optional<wire::ApiError> last_error;
    for (size_t index = 0; index < plan.attempts.size(); ++index) {
      const auto& attempt = plan.attempts[index];
      const bool last = index + 1 == plan.attempts.size();
      const std::string& where = attempt.endpoint->key;
      if (!attempt.credential->configured()) {
        skipped.push_back(where + ": credential '" + attempt.credential->id + "' is not configured");
        recordAttempt(attempt, 0, "skipped:credential_unconfigured", skipped.back(), 0);
        continue;
      }
      if (attempt.credential->kind == catalog::CredentialKind::Personal) {
        skipped.push_back(where + ": needs the caller's own '" + attempt.credential->id + "' key");
        recordAttempt(attempt, 0, "skipped:personal_key_missing", skipped.back(), 0);
        continue;
      }
      const catalog::Wire provider_wire = attempt.endpoint->wire;
      const bool passthrough = provider_wire == client_wire_;
      std::string upstream_body;
      if (passthrough) {
        body["model"] = attempt.deployment->upstream_model;
        if (stream_ && provider_wire == catalog::Wire::OpenAIChat) {
          // Without it a Chat stream carries no usage at all, and the request could not be accounted.
          auto& options = body["stream_options"];
          if (!options.is_object()) options = ordered_json::object();
          if (!options.contains("include_usage")) options["include_usage"] = true;
        }
        upstream_body = body.dump();
      } else {
        if (!ir_) {
          auto decoded = wire::decodeRequest(client_wire_, raw_body_);
          if (!decoded) return fail(decoded.error());
          ir_ = std::move(*decoded);
        }
        wire::EncodeOptions options;
        options.upstream_model = attempt.deployment->upstream_model;
        options.max_output = plan.model->limits.max_output;
        options.default_max_tokens = plan.model->limits.max_output.value_or(4096);
        auto encoded = wire::encodeRequest(provider_wire, *ir_, options);
        if (!encoded) return fail(encoded.error());
        upstream_body = std::move(*encoded);
      }
      const upstream::Request call = buildUpstreamCall(attempt, request_, client_wire_, std::move(upstream_body), stream_);

      std::unique_ptr<upstream::Response> answer;
      const auto sent_at = std::chrono::steady_clock::now();
      try {
        answer = gateway_.upstream().send(call);
      } catch (const upstream::TransportError& failure) {
        recordAttempt(attempt, 0, "transport:" + std::string(upstream::toString(failure.failure())), failure.what(),
                      millisSince(sent_at));
        log::warn("upstream transport failure", {{"request_id", request_id_},
                                                 {"endpoint", where},
                                                 {"failure", std::string(upstream::toString(failure.failure()))},
                                                 {"error", failure.what()}});
        last_error = wire::ApiError{failure.failure() == upstream::TransportFailure::Timeout ? 504 : 502,
                                    "upstream_unreachable", where + ": " + failure.what(), {}, {}};
        continue;
      }
      const int status = answer->status();
      if ((status == 429 || status >= 500) && !last) {
        const std::string error_body = answer->readAll();
        last_error = wire::decodeError(provider_wire, status, error_body, answer->header("Retry-After"));
        recordAttempt(attempt, status, "status_" + std::to_string(status), last_error->message, millisSince(sent_at));
        log::warn("upstream failed, trying the next deployment",
                  {{"request_id", request_id_}, {"endpoint", where}, {"status", status}});
        continue;
      }
      served_ = where;
      wire::ResponseContext context{plan.requested_model, request_id_,
                                    std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count()};
      const RelayResult result = passthrough ? relayPassthrough(*answer, response_, client_wire_, context)
                                             : relayTranslated(*answer, response_, provider_wire, client_wire_, context);
      cost_ = dispatch::costMicrodollars(attempt.deployment->pricing, result.usage);
      usage_ = result.usage;
      recordAttempt(attempt, status, status < 400 ? "ok" : "status_" + std::to_string(status), result.error_message,
                    millisSince(sent_at));
      auto& row = audit_.record();
      row.served_provider = attempt.provider->id;
      row.served_endpoint = where;
      row.usage = result.usage;
      row.cost_microdollars = cost_;
      row.upstream_ms = millisSince(sent_at);
      row.error_key = result.error_key;
      row.error_message = result.error_message;
      if (result.client_gone) {
        row.status = 499;
        row.aborted = true;
        row.outcome = std::string(audit::outcome::kClientGoneMidStream);
      } else {
        row.status = result.status;
        row.outcome = std::string(result.status < 400 && !result.upstream_broke ? audit::outcome::kOk
                                                                                 : audit::outcome::kUpstreamError);
      }
      return finish(result.client_gone ? 499 : result.status, result.error_key);
    }
    if (last_error) return fail(*last_error);
    std::string reasons;
    for (const auto& reason : skipped) reasons += (reasons.empty() ? "" : "; ") + reason;
    fail({503, "no_deployment_available", "no deployment of '" + model_ + "' can serve this request: " + reasons, {}, {}});
  }

  void fail(const wire::ApiError& error) {
    auto& row = audit_.record();
    row.status = wire::clientStatusFor(client_wire_, error.status);
    row.error_key = error.key;
    row.error_message = error.message;
    row.outcome = std::string(outcomeFor(error));
    sendError(response_, client_wire_, error, request_id_);
    finish(error.status, error.key);
  }

  // The audit's classification of a refusal or failure answered before any provider's bytes.
  std::string_view outcomeFor(const wire::ApiError& error) const {
    const std::string& key = error.key;
    if (key == "model_not_found") return audit::outcome::kUnknownModel;
    if (key == "retired_model") return audit::outcome::kRetiredModel;
    if (key == "request_too_large") return audit::outcome::kRequestTooLarge;
    if (key == "context_window_exceeded") return audit::outcome::kContextWindowExceeded;
    if (key == "governance_denied") return audit::outcome::kGovernanceDenied;
    if (key == "no_deployment_available" || key == "no_deployment") return audit::outcome::kNoDeploymentAvailable;
    if (key == "internal_error") return audit::outcome::kInternalError;
    if (key == "upstream_unreachable") {
      if (error.status == 504) return audit::outcome::kUpstreamTimeout;
      return audit_.record().attempts.size() > 1 ? audit::outcome::kAllDeploymentsFailed : audit::outcome::kUpstreamError;
    }
    if (error.status >= 400 && error.status < 500 && audit_.record().attempts.empty()) return audit::outcome::kInvalidRequest;
    return audit_.record().attempts.size() > 1 ? audit::outcome::kAllDeploymentsFailed : audit::outcome::kUpstreamError;
  }

  void recordAttempt(const dispatch::Attempt& attempt, int status, std::string result, std::string error,
                     int64_t duration_ms) {
    audit::AttemptRecord record;
    record.endpoint = attempt.endpoint->key;
    record.provider = attempt.provider->id;
    record.status = status;
    record.result = std::move(result);
    record.error = std::move(error);
    record.duration_ms = duration_ms;
    audit_.record().attempts.push_back(std::move(record));
  }

  static int64_t millisSince(std::chrono::steady_clock::time_point since) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since).count();
  }

  void finish(int status, const std::string& error_key = "") {
    const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started_);
    nlohmann::json fields = {{"request_id", request_id_},
                             {"path", request_.getURI()},
                             {"status", status},
                             {"model", model_},
                             {"route_match", route_match_},
                             {"served", served_},
                             {"stream", stream_},
                             {"input_tokens", usage_.input_tokens},
                             {"output_tokens", usage_.output_tokens},
                             {"cache_read_tokens", usage_.cache_read_tokens},
                             {"cache_write_tokens", usage_.cache_write_tokens},
                             {"reasoning_tokens", usage_.reasoning_tokens},
                             {"cost_microdollars", cost_},
                             {"duration_ms", static_cast<double>(elapsed.count()) / 1000.0}};
    if (!error_key.empty()) fields["error_key"] = error_key;
    log::info("request", fields);
  }

  Gateway& gateway_;
  catalog::Wire client_wire_;
  Poco::Net::HTTPServerRequest& request_;
  Poco::Net::HTTPServerResponse& response_;
  std::string request_id_;
  std::chrono::steady_clock::time_point started_;
  std::shared_ptr<const catalog::Catalog> catalog_;
  bool stream_ = false;
  std::string model_;
  std::string route_match_;
  std::string served_;
  audit::RequestAudit audit_;
  std::string raw_body_;
  std::optional<wire::Request> ir_;
  wire::Usage usage_;
  int64_t cost_ = 0;
};

}  // namespace

void InferenceHandler::handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  Exchange exchange(gateway_, client_wire_, request, response);
  try {
    exchange.run();
  } catch (const std::exception& error) {
    log::error("request failed", {{"request_id", response.get("x-sluice-request-id", "")}, {"error", error.what()}});
    if (!response.sent()) {
      sendError(response, client_wire_, {500, "internal_error", "the gateway failed to handle this request", {}, {}},
                response.get("x-sluice-request-id", ""));
    }
  }
}

}  // namespace sluice::http
