#include <chrono>
#include <istream>
#include <string>
#include <vector>

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <nlohmann/json.hpp>

#include "server/dispatch/planner.h"
#include "server/dispatch/pricing.h"
#include "server/http/relay.h"
#include "server/http/upstream_call.h"
#include "server/http/handlers.h"
#include "server/http/respond.h"
#include "server/log/json_log.h"
#include "server/wire/codec.h"

namespace sluice::http {

namespace {

using nlohmann::ordered_json;

class Exchange {
 public:
  Exchange(Gateway& gateway, catalog::Wire client_wire, Poco::Net::HTTPServerRequest& request,
           Poco::Net::HTTPServerResponse& response)
      : gateway_(gateway), client_wire_(client_wire), request_(request), response_(response),
        request_id_(response.get("x-sluice-request-id", "")), started_(std::chrono::steady_clock::now()) {}

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
    if (!plan) return fail(plan.error());
    model_ = plan->model_id;
    route_match_ = dispatch::joinRouteMatch(plan->route_match);
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
        continue;
      }
      if (attempt.credential->kind == catalog::CredentialKind::Personal) {
        skipped.push_back(where + ": needs the caller's own '" + attempt.credential->id + "' key");
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
      try {
        answer = gateway_.upstream().send(call);
      } catch (const upstream::TransportError& failure) {
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
      return finish(result.client_gone ? 499 : result.status, result.error_key);
    }
    if (last_error) return fail(*last_error);
    std::string reasons;
    for (const auto& reason : skipped) reasons += (reasons.empty() ? "" : "; ") + reason;
    fail({503, "no_deployment_available", "no deployment of '" + model_ + "' can serve this request: " + reasons, {}, {}});
  }

  void fail(const wire::ApiError& error) {
    sendError(response_, client_wire_, error, request_id_);
    finish(error.status, error.key);
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
