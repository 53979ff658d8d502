#pragma once
// Routes /_mock/… to AdminHandler and everything else to ProviderHandler.

#include <Poco/Net/HTTPRequestHandlerFactory.h>

#include "tools/mock-provider/server_context.h"

namespace sluice::mock {

class HandlerFactory : public Poco::Net::HTTPRequestHandlerFactory {
 public:
  explicit HandlerFactory(ServerContext& context) : context_(context) {}
  Poco::Net::HTTPRequestHandler* createRequestHandler(const Poco::Net::HTTPServerRequest& request) override;

 private:
  ServerContext& context_;
};

}  // namespace sluice::mock
