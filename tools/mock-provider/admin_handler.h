#pragma once
// The mock's own endpoints under /_mock/: stats, last, requests, reset, health.

#include <Poco/Net/HTTPRequestHandler.h>

#include "tools/mock-provider/server_context.h"

namespace sluice::mock {

// GET  /_mock/stats    → Stats::statsJson()
// GET  /_mock/last     → the last provider request, or 404 {"error":{"message"}} when none
// GET  /_mock/requests → the last 100 provider requests, oldest first
// POST /_mock/reset    → clears stats and history; {"reset":true}
// GET  /_mock/health   → {"status":"ok"}
// POST /_mock/revoke-tokens → every Google and Entra token issued so far is refused from now on
// Anything else under /_mock/ → 404.
class AdminHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit AdminHandler(ServerContext& context) : context_(context) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override;

 private:
  ServerContext& context_;
};

}  // namespace sluice::mock
