#pragma once
// The gateway's HTTP handlers. Each answers in the caller's wire format and never throws past
// handleRequest(): an unexpected failure is logged and answered with 500.

#include <memory>
#include <string_view>

#include <Poco/Net/HTTPRequestHandler.h>
#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "server/http/gateway.h"
#include "server/http/request.h"
#include "server/http/server_session.h"
#include "server/wire/operation.h"

namespace sluice::http {

// The one handler interface: every route (the endpoints, the operations surface, the console)
// answers through it, written against the gateway's own request type (request.h; its head() is
// Poco's request for code written against Poco's interface).
class Handler {
 public:
  virtual ~Handler() = default;
  // Answers the request; never throws (failures are answered in the caller's format).
  virtual void handle(Request& request, ServerResponse& response) = 0;
};

// GET /healthz (process alive) and GET /readyz (catalog loaded; database reachable when configured).
class HealthHandler : public Handler {
 public:
  HealthHandler(Gateway& gateway, bool readiness) : gateway_(gateway), readiness_(readiness) {}
  void handle(Request& request, ServerResponse& response) override;

 private:
  Gateway& gateway_;
  bool readiness_;
};

// True when --ops-token is set and the request carries "Authorization: Bearer <that token>"
// (opsTokenMatches).
bool presentsOpsToken(const Gateway& gateway, const Poco::Net::HTTPServerRequest& request);
// Whether an Authorization value presents `token`: the scheme `Bearer` in any case, blanks before
// and after the token; the SHA-256 digests of both compared in constant time, so the time taken
// tells neither where they differ nor how long the token is. An empty `token` matches nothing.
bool opsTokenMatches(std::string_view authorization, std::string_view token);

// The body of GET /admin/api/catalog/status (the console serves it too, to a signed-in admin).
nlohmann::json catalogStatusJson(const Gateway& gateway);

// GET /metrics: Prometheus text exposition 0.0.4 (docs/metrics.md). With --ops-token set, only to
// a request that presents it (401 otherwise); without, to anyone.
class MetricsHandler : public Handler {
 public:
  explicit MetricsHandler(Gateway& gateway) : gateway_(gateway) {}
  void handle(Request& request, ServerResponse& response) override;

 private:
  Gateway& gateway_;
};

// GET /admin/api/catalog/status: the catalog version serving, when and how it loaded, and the
// diagnostics of the last refused reload. Only to a request presenting --ops-token (401 otherwise):
// the console answers a signed-in admin itself (server/admin/console.cc) and routes only
// requests presenting the token here.
class CatalogStatusHandler : public Handler {
 public:
  // `operations_address`: served on --admin-listen, where without an --ops-token the address
  // itself is the protection and the status is answered to anyone reaching it.
  explicit CatalogStatusHandler(Gateway& gateway, bool operations_address = false)
      : gateway_(gateway), operations_address_(operations_address) {}
  void handle(Request& request, ServerResponse& response) override;

 private:
  Gateway& gateway_;
  bool operations_address_;
};

// Anything else: 404 (or 405 for a known path with the wrong method) as JSON. A path under /v1/
// that nothing serves (`openai_shape`) is answered as OpenAI answers it: 404
// {"error":{"message","type":"invalid_request_error","param":null,"code":"unknown_url"}}.
class NotFoundHandler : public Handler {
 public:
  explicit NotFoundHandler(bool wrong_method, bool openai_shape = false)
      : wrong_method_(wrong_method), openai_shape_(openai_shape) {}
  void handle(Request& request, ServerResponse& response) override;

 private:
  bool wrong_method_;
  bool openai_shape_;
};

}  // namespace sluice::http
