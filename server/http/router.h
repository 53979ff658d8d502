#pragma once
// Maps a request's method and path to its handler.

#include <memory>

#include <Poco/Net/HTTPRequestHandlerFactory.h>

#include "server/http/gateway.h"
#include "server/http/handlers.h"

namespace sluice::http {

// What one listening address serves. With --admin-listen the main address is Public and the
// operations address is Operations; without it one address serves All.
enum class Surface {
  All,
  Public,      // all but /metrics, /readyz and the token-read catalog status (404 here)
  Operations,  // /healthz, /readyz, /metrics and GET /admin/api/catalog/status only
};

class Router : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Router(Gateway& gateway, Surface surface = Surface::All) : gateway_(gateway), surface_(surface) {}
  // Never returns nullptr: unknown paths get a handler answering 404 in JSON.
  std::unique_ptr<Handler> route(const Request& request);
  // Poco's interface, for the handlers written against it: route() less the request-path handlers.
  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest& request) override;

 private:
  Gateway& gateway_;
  Surface surface_;
};

}  // namespace sluice::http
