#pragma once
// Maps a request's method and path to its handler.

#include <Poco/Net/HTTPRequestHandlerFactory.h>

#include "server/http/gateway.h"

namespace sluice::http {

class Router : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit Router(Gateway& gateway) : gateway_(gateway) {}
  // Never returns nullptr: unknown paths get a handler answering 404 in JSON.
  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest& request) override;

 private:
  Gateway& gateway_;
};

}  // namespace sluice::http
