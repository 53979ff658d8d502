#include <chrono>
#include <ctime>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/http/handlers.h"
#include "server/http/respond.h"
#include "server/identity/api_keys.h"
#include "server/net/http1.h"

namespace sluice::http {

namespace {

std::string isoTime(std::chrono::system_clock::time_point at) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(at);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

void refuse(Poco::Net::HTTPServerResponse& response, const std::string& message) {
  response.set("WWW-Authenticate", "Bearer");
  const nlohmann::json body = {{"error", {{"key", "unauthorized"}, {"message", message}}}};
  sendJson(response, 401, body.dump());
}

}  // namespace

bool opsTokenMatches(std::string_view authorization, std::string_view token) {
  if (token.empty()) return false;
  // RFC 9110 §11.1: the scheme compares without case, one or more blanks before the credentials.
  constexpr std::string_view kScheme = "bearer";
  if (authorization.size() <= kScheme.size() || !net::h1::equalsNoCase(authorization.substr(0, 6), kScheme)) {
    return false;
  }
  std::string_view presented = authorization.substr(kScheme.size());
  if (presented.front() != ' ' && presented.front() != '\t') return false;
  while (!presented.empty() && (presented.front() == ' ' || presented.front() == '\t')) presented.remove_prefix(1);
  while (!presented.empty() && (presented.back() == ' ' || presented.back() == '\t')) presented.remove_suffix(1);
  // Digests of equal length, compared in constant time: neither the first difference nor the
  // presented token's length shows in the time taken.
  return identity::sameHash(identity::hashApiKey(presented), identity::hashApiKey(token));
}

bool presentsOpsToken(const Gateway& gateway, const Poco::Net::HTTPServerRequest& request) {
  const auto& token = gateway.options().ops_token;
  if (!token) return false;
  return opsTokenMatches(request.get("Authorization", ""), *token);
}

nlohmann::json catalogStatusJson(const Gateway& gateway) {
  const CatalogStatus status = gateway.catalogStatus();
  nlohmann::json body = {{"version", status.version},
                         {"loaded_at", isoTime(status.loaded_at)},
                         {"loaded_by", status.loaded_by},
                         {"reloads_accepted", status.reloads_accepted},
                         {"reloads_refused", status.reloads_refused},
                         {"reload_refused_now", status.refusal_standing},
                         {"services_dir", gateway.options().services_dir}};
  if (status.refused_at) {
    body["last_refused"] = {{"at", isoTime(*status.refused_at)}, {"diagnostics", status.refused_diagnostics}};
  } else {
    body["last_refused"] = nullptr;
  }
  return body;
}

void MetricsHandler::handle(Request& routed, ServerResponse& response) {
  Poco::Net::HTTPServerRequest& request = routed.head();
  if (gateway_.options().ops_token && !presentsOpsToken(gateway_, request)) {
    refuse(response, "/metrics needs Authorization: Bearer <the --ops-token>");
    return;
  }
  sendBody(response, 200, std::string(metrics::kContentType), gateway_.registry().render());
}

void CatalogStatusHandler::handle(Request& routed, ServerResponse& response) {
  Poco::Net::HTTPServerRequest& request = routed.head();
  const bool open = operations_address_ && !gateway_.options().ops_token;
  if (!open && !presentsOpsToken(gateway_, request)) {
    refuse(response, "/admin/api/catalog/status needs a signed-in admin (the console's session) or "
                     "Authorization: Bearer <the --ops-token>");
    return;
  }
  sendJson(response, 200, catalogStatusJson(gateway_).dump());
}

}  // namespace sluice::http
