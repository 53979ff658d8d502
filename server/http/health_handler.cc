#include <nlohmann/json.hpp>

#include "server/http/handlers.h"
#include "server/http/respond.h"
#include "server/store/database.h"

namespace sluice::http {

void HealthHandler::handleRequest(Poco::Net::HTTPServerRequest&, Poco::Net::HTTPServerResponse& response) {
  if (!readiness_) {
    sendJson(response, 200, R"({"status":"ok"})");
    return;
  }
  nlohmann::json body = {{"status", "ready"}};
  bool ready = true;
  const auto catalog = gateway_.catalog();
  body["catalog"] = catalog ? nlohmann::json{{"loaded", true}, {"version", catalog->version}}
                            : nlohmann::json{{"loaded", false}};
  ready = ready && catalog != nullptr;
  if (gateway_.options().database_url) {
    std::string error;
    const bool reachable = store::ping(*gateway_.options().database_url, &error);
    body["database"] = reachable ? nlohmann::json{{"reachable", true}}
                                 : nlohmann::json{{"reachable", false}, {"error", error}};
    ready = ready && reachable;
  }
  if (!ready) body["status"] = "not_ready";
  sendJson(response, ready ? 200 : 503, body.dump());
}

void NotFoundHandler::handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  const std::string id = response.get("x-sluice-request-id", "");
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
