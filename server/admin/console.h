#pragma once
// The admin console: the handlers of /admin on a route table (docs/console.md).
//
// Pages under /admin (HTML shells + embedded JS/CSS) and the JSON API under /admin/api are served
// to a signed-in admin; /admin/connect and /admin/api/connect to any member presenting their own
// API key. With --insecure-no-auth (no authenticator) every console path answers 503 with a page
// that says why. GET /admin/api/catalog/status answers a signed-in admin here and a request
// presenting --ops-token in the router (401 to anyone else).

#include <memory>

#include "server/http/gateway.h"
#include "server/http/router.h"

namespace sluice::admin {

struct ConsoleOptions {
  // Connections of the console's own PostgreSQL pool (kept apart from the request path's pool,
  // so a slow analytics query never delays an API-key lookup).
  size_t database_connections = 3;
};

// The console's handler factory for the main route table, built once at start-up (it opens the
// console's own pool). The gateway must outlive the server (the factory keeps a reference).
http::HandlerFactory makeConsole(http::Gateway& gateway, ConsoleOptions options = {});

}  // namespace sluice::admin
