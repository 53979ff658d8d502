#pragma once
// Maps a request's method and path to its handler.

#include <memory>

#include <Poco/Net/HTTPRequestHandlerFactory.h>

#include "server/http/gateway.h"
#include "server/http/handlers.h"

namespace sluice::http {

class Router : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Router(Gateway& gateway) : gateway_(gateway) {}
  // Never returns nullptr: unknown paths get a handler answering 404 in JSON.
  std::unique_ptr<Handler> route(const Request& request);
  // Poco's interface, for the handlers written against it: route() less the request-path handlers.
  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest& request) override;

 private:
  Gateway& gateway_;
};

}  // namespace sluice::http
