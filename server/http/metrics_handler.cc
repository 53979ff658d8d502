#include <chrono>
#include <ctime>

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

}  // namespace

void MetricsHandler::handleRequest(Poco::Net::HTTPServerRequest&, Poco::Net::HTTPServerResponse& response) {
  sendBody(response, 200, std::string(metrics::kContentType), gateway_.registry().render());
}

void CatalogStatusHandler::handleRequest(Poco::Net::HTTPServerRequest&, Poco::Net::HTTPServerResponse& response) {
  const CatalogStatus status = gateway_.catalogStatus();
  nlohmann::json body = {{"version", status.version},
                         {"loaded_at", isoTime(status.loaded_at)},
                         {"loaded_by", status.loaded_by},
                         {"reloads_accepted", status.reloads_accepted},
                         {"reloads_refused", status.reloads_refused},
                         {"services_dir", gateway_.options().services_dir}};
  if (status.refused_at) {
    body["last_refused"] = {{"at", isoTime(*status.refused_at)}, {"diagnostics", status.refused_diagnostics}};
  } else {
    body["last_refused"] = nullptr;
  }
  sendJson(response, 200, body.dump());
}

}  // namespace sluice::http
