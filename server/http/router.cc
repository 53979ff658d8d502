#include "server/http/router.h"

#include <Poco/URI.h>

#include "server/wire/client.h"

namespace sluice::http {

std::unique_ptr<Handler> Router::route(const Request& request) {
  const std::string path = Poco::URI(request.target()).getPath();
  if (path == "/v1/messages/count_tokens") {
    if (request.method() == "POST") return std::make_unique<CountTokensHandler>(gateway_);
  } else if (auto wire = wire::clientWireForPath(path)) {
    if (request.method() == "POST") return std::make_unique<InferenceHandler>(gateway_, *wire);
  }
  return std::make_unique<PocoHandler>(createRequestHandler(request.head()));
}

Poco::Net::HTTPRequestHandler* Router::createRequestHandler(const Poco::Net::HTTPServerRequest& request) {
  const std::string path = Poco::URI(request.getURI()).getPath();
  const std::string& method = request.getMethod();
  const bool get = method == "GET" || method == "HEAD";
  if (path == "/v1/messages/count_tokens" || wire::clientWireForPath(path)) return new NotFoundHandler(true);
  if (path == "/healthz") return get ? static_cast<Poco::Net::HTTPRequestHandler*>(new HealthHandler(gateway_, false))
                                     : new NotFoundHandler(true);
  if (path == "/readyz") return get ? static_cast<Poco::Net::HTTPRequestHandler*>(new HealthHandler(gateway_, true))
                                    : new NotFoundHandler(true);
  if (path == "/metrics") {
    return get ? static_cast<Poco::Net::HTTPRequestHandler*>(new MetricsHandler(gateway_)) : new NotFoundHandler(true);
  }
  if (path.starts_with("/admin") && gateway_.adminFactory()) {
    if (auto* handler = gateway_.adminFactory()(request)) return handler;
  }
  if (path == "/admin/api/catalog/status") {
    return get ? static_cast<Poco::Net::HTTPRequestHandler*>(new CatalogStatusHandler(gateway_))
               : new NotFoundHandler(true);
  }
  if (path == "/v1/models" || path == "/models") {
    return get ? static_cast<Poco::Net::HTTPRequestHandler*>(new ModelsHandler(gateway_)) : new NotFoundHandler(true);
  }
  return new NotFoundHandler(false);
}

}  // namespace sluice::http
