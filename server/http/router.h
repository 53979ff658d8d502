#pragma once
// Router: what the connection asks for the handler of each request. The route table itself
// (routes/route_table.h) sits above the endpoints, so the connection depends on this interface.

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

class Router {
 public:
  virtual ~Router() = default;
  // Never returns nullptr: unknown paths get a handler answering 404 in JSON. Thread-safe.
  virtual std::unique_ptr<Handler> route(const Request& request) = 0;
};

}  // namespace sluice::http
