#pragma once
// GET /v1/models (and /models): the models and alias routes advertised to the caller's client
// family, the caller identified as for every endpoint (pipeline/identity_gate.h).

#include "server/http/gateway.h"
#include "server/http/handlers.h"

namespace sluice::endpoints {

class ModelsHandler : public http::Handler {
 public:
  explicit ModelsHandler(http::Gateway& gateway) : gateway_(gateway) {}
  void handle(http::Request& request, http::ServerResponse& response) override;

 private:
  http::Gateway& gateway_;
};

}  // namespace sluice::endpoints
