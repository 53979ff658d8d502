#pragma once
// The admin console: installs the /admin handler factory on a Gateway (docs/console.md).
//
// Pages under /admin (HTML shells + embedded JS/CSS) and the JSON API under /admin/api are served
// to a signed-in admin; /admin/connect and /admin/api/connect to any member presenting their own
// API key. With --insecure-no-auth (no authenticator) every console path answers 503 with a page
// that says why. GET /admin/api/catalog/status answers a signed-in admin here and a request
// presenting --ops-token in the router (401 to anyone else).

#include <memory>

#include "server/http/gateway.h"

namespace sluice::admin {

struct ConsoleOptions {
  // Connections of the console's own PostgreSQL pool (kept apart from the request path's pool,
  // so a slow analytics query never delays an API-key lookup).
  size_t database_connections = 3;
};

// Call once at start-up, after gateway.setIdentity(), before the server accepts requests. The
// gateway must outlive the server (the factory keeps a reference).
void installConsole(http::Gateway& gateway, ConsoleOptions options = {});

}  // namespace sluice::admin
