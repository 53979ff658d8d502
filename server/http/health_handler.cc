#include <chrono>

#include <Poco/URI.h>
#include <nlohmann/json.hpp>

#include "server/http/handlers.h"
#include "server/http/gateway.h"
#include "server/http/respond.h"
#include "server/wire/error_keys.h"

namespace sluice::http {

namespace {

// The background check runs every second and may take a few seconds on a slow database (connect
// timeout 3 s, one retry): a verdict older than this says the check itself is stuck.
constexpr std::chrono::seconds kReadinessVerdictLifetime{15};

}  // namespace

void HealthHandler::handle(Request&, ServerResponse& response) {
  if (!readiness_) {
    sendJson(response, 200, R"({"status":"ok"})");
    return;
  }
  nlohmann::json body = {{"status", "ready"}, {"replica", gateway_.options().replica_name}};
  bool ready = true;
  const auto catalog = gateway_.catalog();
  body["catalog"] = catalog ? nlohmann::json{{"loaded", true}, {"version", catalog->version}}
                            : nlohmann::json{{"loaded", false}};
  ready = ready && catalog != nullptr;
  if (catalog) {
    // Which cloud credentials can sign now (an unusable one fails its attempts over; it does not
    // make the replica unready). Only ids and reasons: never a key.
    nlohmann::json cloud = nlohmann::json::object();
    const auto add = [&](const std::string& id, bool usable, const std::string& detail) {
      cloud[id] = usable ? nlohmann::json{{"usable", true}, {"detail", detail}}
                         : nlohmann::json{{"usable", false}, {"error", detail}};
    };
    for (const auto& standing : gateway_.awsCredentials().standing(*catalog, std::chrono::system_clock::now())) {
      add(standing.id, standing.usable, standing.detail);
      if (standing.pending) cloud[standing.id]["pending"] = true;
    }
    for (const auto& standing : gateway_.cloudAuth().standing(*catalog)) add(standing.id, standing.usable, standing.detail);
    if (!cloud.empty()) body["cloud_credentials"] = std::move(cloud);
  }
  if (gateway_.options().database_url) {
    // From the background check's verdict: a probe never opens a connection here, and the body
    // never carries libpq's text (host, user); the check logs that.
    const auto verdict = gateway_.databaseReadiness().verdict();
    const auto age = DatabaseReadiness::Clock::now() - verdict.checked_at;
    bool reachable = false;
    const char* reason = "database unreachable";
    switch (verdict.state) {
      case DatabaseReadiness::State::Unchecked: reason = "database not checked yet"; break;
      case DatabaseReadiness::State::Unreachable: break;
      case DatabaseReadiness::State::Reachable:
        // A check stuck on a slow database leaves an old verdict: not proof of anything now.
        reachable = age <= kReadinessVerdictLifetime;
        if (!reachable) reason = "database check overdue";
        break;
    }
    body["database"] = reachable ? nlohmann::json{{"reachable", true}}
                                 : nlohmann::json{{"reachable", false}, {"error", reason}};
    if (verdict.state != DatabaseReadiness::State::Unchecked) {
      body["database"]["checked_ms_ago"] = std::chrono::duration_cast<std::chrono::milliseconds>(age).count();
    }
    ready = ready && reachable;
  }
  if (gateway_.draining().load()) {
    // Stopping: a load balancer must send no more, while the requests it sent finish here.
    body["status"] = "draining";
    ready = false;
  } else if (!ready) {
    body["status"] = "not_ready";
  }
  sendJson(response, ready ? 200 : 503, body.dump());
}

void NotFoundHandler::handle(Request& routed, ServerResponse& response) {
  Poco::Net::HTTPServerRequest& request = routed.head();
  const std::string id = response.get("x-sluice-request-id", "");
  if (openai_shape_ && !wrong_method_) {
    const nlohmann::json body = {{"error",
                                  {{"message", "Invalid URL (" + request.getMethod() + " " +
                                                   Poco::URI(request.getURI()).getPath() + ")"},
                                   {"type", "invalid_request_error"},
                                   {"param", nullptr},
                                   {"code", wire::error_keys::kUnknownUrl}}}};
    sendJson(response, 404, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return;
  }
  const std::string message = wrong_method_ ? "method " + request.getMethod() + " is not allowed on " + request.getURI()
                                            : "no such endpoint: " + request.getURI();
  const nlohmann::json body = {
      {"type", "error"},
      {"error", {{"type", wrong_method_ ? "invalid_request_error" : "not_found_error"},
                 {"message", message},
                 {"code", wrong_method_ ? "method_not_allowed" : "not_found"}}},
      {"request_id", id}};
  sendJson(response, wrong_method_ ? 405 : 404, body.dump());
}

}  // namespace sluice::http
