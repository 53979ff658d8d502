#include <chrono>
#include <istream>
#include <string>
#include <vector>

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <nlohmann/json.hpp>

#include "server/dispatch/planner.h"
#include "server/http/handlers.h"
#include "server/http/respond.h"
#include "server/log/json_log.h"
#include "server/wire/endpoint.h"

namespace sluice::http {

namespace {

using nlohmann::ordered_json;

struct BodyTooLarge {};

// Reads at most `limit` bytes; more is a 413.
std::expected<std::string, BodyTooLarge> readBody(Poco::Net::HTTPServerRequest& request, size_t limit) {
  if (request.hasContentLength() && request.getContentLength64() > static_cast<Poco::Int64>(limit)) {
    return std::unexpected(BodyTooLarge{});
  }
  std::string body;
  std::istream& in = request.stream();
  char buffer[65536];
  while (in) {
    in.read(buffer, sizeof buffer);
    body.append(buffer, static_cast<size_t>(in.gcount()));
    if (body.size() > limit) return std::unexpected(BodyTooLarge{});
  }
  return body;
}

// Headers a client may send that mean something to a provider of the same wire.
const std::vector<std::string>& forwardedClientHeaders(catalog::Wire wire) {
  static const std::vector<std::string> anthropic = {"anthropic-beta", "anthropic-version"};
  static const std::vector<std::string> openai = {"openai-beta"};
  static const std::vector<std::string> none;
  switch (wire) {
    case catalog::Wire::Anthropic: return anthropic;
    case catalog::Wire::OpenAIChat:
    case catalog::Wire::OpenAIResponses: return openai;
    case catalog::Wire::Gemini: return none;
  }
  return none;
}

bool hasHeader(const std::vector<std::pair<std::string, std::string>>& headers, const std::string& name) {
  for (const auto& [key, value] : headers) {
    if (Poco::icompare(key, name) == 0) return true;
  }
  return false;
}

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
    ordered_json parsed = ordered_json::parse(*body, nullptr, false);
    if (parsed.is_discarded()) return fail({400, "invalid_json", "request body is not valid JSON", {}, {}});
    if (!parsed.is_object()) return fail({400, "invalid_request", "request body must be a JSON object", {}, {}});
    std::string requested;
    if (parsed.contains("model")) {
      if (!parsed["model"].is_string()) return fail({400, "invalid_request", "'model' must be a string", "model", {}});
      requested = parsed["model"].get<std::string>();
    }
    stream_ = parsed.contains("stream") && parsed["stream"].is_boolean() && parsed["stream"].get<bool>();

    catalog_ = gateway_.catalog();
    auto plan = dispatch::planDispatch(*catalog_, {requested, std::nullopt});
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
      if (attempt.endpoint->wire != client_wire_) {
        skipped.push_back(where + ": speaks " + std::string(catalog::toString(attempt.endpoint->wire)) +
                          ", and this request arrived as " + std::string(catalog::toString(client_wire_)));
        continue;
      }
      body["model"] = attempt.deployment->upstream_model;
      upstream::Request call;
      call.url = attempt.endpoint->url + wire::upstreamPath(attempt.endpoint->wire, attempt.deployment->upstream_model, stream_);
      call.body = body.dump();
      call.timeouts = attempt.provider->timeouts;
      call.headers.emplace_back("Content-Type", "application/json");
      call.headers.emplace_back("Accept", stream_ ? "text/event-stream" : "application/json");
      for (const auto& [name, value] : attempt.provider->headers) call.headers.emplace_back(name, value);
      for (const auto& name : forwardedClientHeaders(client_wire_)) {
        if (request_.has(name) && !hasHeader(call.headers, name)) call.headers.emplace_back(name, request_.get(name));
      }
      if (!attempt.provider->user_agent.empty()) call.headers.emplace_back("User-Agent", attempt.provider->user_agent);
      call.headers.push_back(wire::credentialHeader(attempt.endpoint->wire, *attempt.credential->secret));

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
        log::warn("upstream failed, trying the next deployment",
                  {{"request_id", request_id_}, {"endpoint", where}, {"status", status}});
        answer->readAll();
        continue;
      }
      served_ = where;
      relay(*answer);
      return;
    }
    if (last_error) return fail(*last_error);
    std::string reasons;
    for (const auto& reason : skipped) reasons += (reasons.empty() ? "" : "; ") + reason;
    fail({503, "no_deployment_available", "no deployment of '" + model_ + "' can serve this request: " + reasons, {}, {}});
  }

  // Sends the provider's answer to the client as it arrives, flushing after every read.
  void relay(upstream::Response& answer) {
    const int status = answer.status();
    response_.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
    const std::string content_type = answer.header("Content-Type");
    response_.setContentType(content_type.empty() ? "application/json" : content_type);
    for (const char* name : {"retry-after", "request-id", "x-request-id"}) {
      const std::string value = answer.header(name);
      if (!value.empty()) response_.set(name, value);
    }
    const bool event_stream = content_type.find("text/event-stream") != std::string::npos;
    if (!event_stream) {
      const std::string text = answer.readAll();
      response_.setContentLength(static_cast<std::streamsize>(text.size()));
      response_.sendBuffer(text.data(), text.size());
      finish(status);
      return;
    }
    response_.setChunkedTransferEncoding(true);
    response_.set("Cache-Control", "no-cache");
    std::ostream& out = response_.send();
    std::string chunk;
    try {
      while (answer.readSome(chunk)) {
        out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        out.flush();
        chunk.clear();
        if (!out.good()) {
          // The client hung up: closing the upstream socket is what stops generation and billing.
          answer.abort();
          finish(499);
          return;
        }
      }
    } catch (const upstream::TransportError& failure) {
      log::warn("upstream stream broke", {{"request_id", request_id_}, {"endpoint", served_}, {"error", failure.what()}});
      answer.abort();
    }
    finish(status);
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
