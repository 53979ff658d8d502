#pragma once
// The gateway's HTTP handlers. Each answers in the caller's wire format and never throws past
// handleRequest(): an unexpected failure is logged and answered with 500.

#include <memory>

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

// A handler on the request path, written against the gateway's own request type (request.h).
class Handler {
 public:
  virtual ~Handler() = default;
  // Answers the request; never throws (failures are answered in the caller's format).
  virtual void handle(Request& request, ServerResponse& response) = 0;
};

// A handler written against Poco's interface (the admin pages, health, metrics), routed as a Handler.
class PocoHandler : public Handler {
 public:
  explicit PocoHandler(Poco::Net::HTTPRequestHandler* handler) : handler_(handler) {}
  void handle(Request& request, ServerResponse& response) override { handler_->handleRequest(request.head(), response); }

 private:
  std::unique_ptr<Poco::Net::HTTPRequestHandler> handler_;
};

// GET /healthz (process alive) and GET /readyz (catalog loaded; database reachable when configured).
class HealthHandler : public Poco::Net::HTTPRequestHandler {
 public:
  HealthHandler(Gateway& gateway, bool readiness) : gateway_(gateway), readiness_(readiness) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override;

 private:
  Gateway& gateway_;
  bool readiness_;
};

// GET /v1/models: the models and alias routes advertised to the caller's client family.
class ModelsHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit ModelsHandler(Gateway& gateway) : gateway_(gateway) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override;

 private:
  Gateway& gateway_;
};

// POST /v1/messages, /v1/chat/completions, /v1/responses (and their unversioned aliases).
class InferenceHandler : public Handler {
 public:
  InferenceHandler(Gateway& gateway, catalog::Wire client_wire) : gateway_(gateway), client_wire_(client_wire) {}
  void handle(Request& request, ServerResponse& response) override;

 private:
  Gateway& gateway_;
  catalog::Wire client_wire_;
};

// True when --ops-token is set and the request carries "Authorization: Bearer <that token>"
// (compared in constant time).
bool presentsOpsToken(const Gateway& gateway, const Poco::Net::HTTPServerRequest& request);

// The body of GET /admin/api/catalog/status (the console serves it too, to a signed-in admin).
nlohmann::json catalogStatusJson(const Gateway& gateway);

// GET /metrics: Prometheus text exposition 0.0.4 (docs/metrics.md). With --ops-token set, only to
// a request that presents it (401 otherwise); without, to anyone.
class MetricsHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit MetricsHandler(Gateway& gateway) : gateway_(gateway) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override;

 private:
  Gateway& gateway_;
};

// GET /admin/api/catalog/status: the catalog version serving, when and how it loaded, and the
// diagnostics of the last refused reload. Only to a request presenting --ops-token (401 otherwise):
// the console answers a signed-in admin itself (server/admin/console.cc) and routes only
// requests presenting the token here.
class CatalogStatusHandler : public Poco::Net::HTTPRequestHandler {
 public:
  // `operations_address`: served on --admin-listen, where without an --ops-token the address
  // itself is the protection and the status is answered to anyone reaching it.
  explicit CatalogStatusHandler(Gateway& gateway, bool operations_address = false)
      : gateway_(gateway), operations_address_(operations_address) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override;

 private:
  Gateway& gateway_;
  bool operations_address_;
};

// Anything else: 404 (or 405 for a known path with the wrong method) as JSON. A path under /v1/
// that nothing serves (`openai_shape`) is answered as OpenAI answers it: 404
// {"error":{"message","type":"invalid_request_error","param":null,"code":"unknown_url"}}.
class NotFoundHandler : public Poco::Net::HTTPRequestHandler {
 public:
  explicit NotFoundHandler(bool wrong_method, bool openai_shape = false)
      : wrong_method_(wrong_method), openai_shape_(openai_shape) {}
  void handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) override;

 private:
  bool wrong_method_;
  bool openai_shape_;
};

}  // namespace sluice::http

namespace sluice::http {

// POST /v1/messages/count_tokens: admitted like /v1/messages (the same 401/403/429) and audited;
// asked of the first Anthropic-wire deployment that can be called, else estimated locally
// ({"input_tokens": N}).
// GET/DELETE /v1/responses/{id} and GET /v1/responses/{id}/input_items (stored_responses_handler.cc).
class StoredResponsesHandler : public Handler {
 public:
  explicit StoredResponsesHandler(Gateway& gateway) : gateway_(gateway) {}
  void handle(Request& request, ServerResponse& response) override;

 private:
  Gateway& gateway_;
};

// POST /v1/embeddings, /v1/images/generations, /v1/audio/speech, /v1/audio/transcriptions,
// /v1/audio/translations, /v1/moderations, /v1/rerank (and unversioned): served by the catalog's
// models of the operation's kind, through the same admission, attempts and ledger as chat
// (operation_handler.cc).
class OperationHandler : public Handler {
 public:
  OperationHandler(Gateway& gateway, wire::Operation operation) : gateway_(gateway), operation_(operation) {}
  void handle(Request& request, ServerResponse& response) override;

 private:
  Gateway& gateway_;
  wire::Operation operation_;
};

class CountTokensHandler : public Handler {
 public:
  explicit CountTokensHandler(Gateway& gateway) : gateway_(gateway) {}
  void handle(Request& request, ServerResponse& response) override;

 private:
  Gateway& gateway_;
};

}  // namespace sluice::http
