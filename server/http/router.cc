#include "server/http/router.h"

#include <Poco/URI.h>

#include "server/wire/client.h"
#include "server/wire/operation.h"

namespace sluice::http {

std::unique_ptr<Handler> Router::route(const Request& request) {
  const std::string path = Poco::URI(request.target()).getPath();
  if (surface_ == Surface::Operations) {
    // Nothing of the request path here: a caller reaching this address gets 404 for it.
  } else if (path.starts_with("/v1/responses/") || path.starts_with("/responses/")) {
    return std::make_unique<StoredResponsesHandler>(gateway_);
  } else if (path == "/v1/messages/count_tokens") {
    if (request.method() == "POST") return std::make_unique<CountTokensHandler>(gateway_);
  } else if (auto wire = wire::clientWireForPath(path)) {
    if (request.method() == "POST") return std::make_unique<InferenceHandler>(gateway_, *wire);
  } else if (auto operation = wire::operationForPath(path)) {
    if (request.method() == "POST") return std::make_unique<OperationHandler>(gateway_, *operation);
  }
  return std::make_unique<PocoHandler>(createRequestHandler(request.head()));
}

Poco::Net::HTTPRequestHandler* Router::createRequestHandler(const Poco::Net::HTTPServerRequest& request) {
  const std::string path = Poco::URI(request.getURI()).getPath();
  const std::string& method = request.getMethod();
  const bool get = method == "GET" || method == "HEAD";
  const auto notGet = [] { return static_cast<Poco::Net::HTTPRequestHandler*>(new NotFoundHandler(true)); };
  if (surface_ == Surface::Operations) {
    if (path == "/healthz") return get ? new HealthHandler(gateway_, false) : notGet();
    if (path == "/readyz") return get ? new HealthHandler(gateway_, true) : notGet();
    if (path == "/metrics") return get ? new MetricsHandler(gateway_) : notGet();
    if (path == "/admin/api/catalog/status") return get ? new CatalogStatusHandler(gateway_, true) : notGet();
    return new NotFoundHandler(false);
  }
  if (surface_ == Surface::Public && (path == "/readyz" || path == "/metrics")) return new NotFoundHandler(false);
  if (path == "/v1/messages/count_tokens" || wire::clientWireForPath(path) || wire::operationForPath(path)) {
    return new NotFoundHandler(true);
  }
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
    // With --admin-listen, the token read is the operations address's; the console's own (a
    // signed-in admin, through the admin factory above) stays here.
    if (surface_ == Surface::Public) return new NotFoundHandler(false);
    return get ? static_cast<Poco::Net::HTTPRequestHandler*>(new CatalogStatusHandler(gateway_))
               : new NotFoundHandler(true);
  }
  if (path == "/v1/models" || path == "/models") {
    return get ? static_cast<Poco::Net::HTTPRequestHandler*>(new ModelsHandler(gateway_)) : new NotFoundHandler(true);
  }
  // OpenAI-style clients call whatever their SDK offers under /v1: what is not served here gets
  // OpenAI's own answer for it (code unknown_url), which those clients report as such.
  if (path == "/v1" || path.starts_with("/v1/")) return new NotFoundHandler(false, true);
  return new NotFoundHandler(false);
}

}  // namespace sluice::http
