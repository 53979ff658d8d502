#pragma once
// Router: what the connection asks for the handler of each request. The route table itself
// (routes/route_table.h) sits above the endpoints, so the connection depends on this interface.

#include <functional>
#include <memory>

#include "server/http/handlers.h"
#include "server/http/request.h"

namespace sluice::http {

// What one listening address serves. With --admin-listen the main address is Public and the
// operations address is Operations; without it one address serves All.
enum class Surface {
  All,
  Public,      // all but /metrics, /readyz and the token-read catalog status (404 here)
  Operations,  // /healthz, /readyz, /metrics and GET /admin/api/catalog/status only
};

// A room that takes some requests of a route table (the console under /admin): its handler, or
// null when the request is not its own.
using HandlerFactory = std::function<std::unique_ptr<Handler>(const Request&)>;

class Router {
 public:
  virtual ~Router() = default;
  // Never returns nullptr: unknown paths get a handler answering 404 in JSON. Thread-safe.
  virtual std::unique_ptr<Handler> route(const Request& request) = 0;
};

}  // namespace sluice::http
