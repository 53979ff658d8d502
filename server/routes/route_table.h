#pragma once
// The one route table of a listening address: /v1 (every endpoint a profile of the one pipeline,
// pipeline/exchange.h), the console under /admin, SCIM provisioning under /scim, and the operations surface (/healthz, /readyz,
// /metrics, the catalog status). A known path with the wrong method is 405; an unknown path under
// /v1 is answered as OpenAI answers it (404 unknown_url); anything else 404.

#include "server/http/gateway.h"
#include "server/http/router.h"

namespace sluice::routes {

class RouteTable : public http::Router {
 public:
  // `console` answers the /admin paths it takes, `scim` every path under /scim (null: none; the
  // operations surface has neither).
  explicit RouteTable(http::Gateway& gateway, http::Surface surface = http::Surface::All,
                      http::HandlerFactory console = {}, http::HandlerFactory scim = {})
      : gateway_(gateway), surface_(surface), console_(std::move(console)), scim_(std::move(scim)) {}
  std::unique_ptr<http::Handler> route(const http::Request& request) override;

 private:
  http::Gateway& gateway_;
  http::Surface surface_;
  http::HandlerFactory console_;
  http::HandlerFactory scim_;
};

}  // namespace sluice::routes
