#include <chrono>
#include <ctime>
#include <string_view>

#include <nlohmann/json.hpp>

#include "server/http/handlers.h"
#include "server/http/respond.h"

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

// Compares every byte whatever the first difference, so the time taken tells nothing of the token.
// NOTE: a different length returns at once; the token's length is not worth hiding.
bool sameToken(std::string_view presented, std::string_view token) {
  if (presented.size() != token.size()) return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < token.size(); ++i) difference |= static_cast<unsigned char>(presented[i] ^ token[i]);
  return difference == 0;
}

void refuse(Poco::Net::HTTPServerResponse& response, const std::string& message) {
  response.set("WWW-Authenticate", "Bearer");
  const nlohmann::json body = {{"error", {{"key", "unauthorized"}, {"message", message}}}};
  sendJson(response, 401, body.dump());
}

}  // namespace

bool presentsOpsToken(const Gateway& gateway, const Poco::Net::HTTPServerRequest& request) {
  const auto& token = gateway.options().ops_token;
  if (!token || token->empty()) return false;
  constexpr std::string_view kBearer = "Bearer ";
  const std::string& header = request.get("Authorization", "");
  if (!header.starts_with(kBearer)) return false;
  return sameToken(std::string_view(header).substr(kBearer.size()), *token);
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
