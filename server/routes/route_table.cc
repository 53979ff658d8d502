#include "server/routes/route_table.h"

#include <Poco/URI.h>

#include "server/endpoints/count_tokens.h"
#include "server/endpoints/inference.h"
#include "server/endpoints/mcp.h"
#include "server/endpoints/models.h"
#include "server/endpoints/operations.h"
#include "server/endpoints/stored_responses.h"
#include "server/http/gateway.h"
#include "server/pipeline/exchange.h"
#include "server/wire/client.h"
#include "server/wire/operation.h"

namespace sluice::routes {

namespace {

using http::Handler;
using http::Surface;

// One endpoint: a profile of type P, built from its arguments for each request, run by the Exchange.
template <class P, class... Args>
class EndpointHandler : public Handler {
 public:
  EndpointHandler(http::Gateway& gateway, Args... args) : gateway_(gateway), args_(std::move(args)...) {}
  void handle(http::Request& request, http::ServerResponse& response) override {
    std::apply([&](auto&... args) { pipeline::serve<P>(gateway_, request, response, args...); }, args_);
  }

 private:
  http::Gateway& gateway_;
  std::tuple<Args...> args_;
};

template <class P, class... Args>
std::unique_ptr<Handler> endpoint(http::Gateway& gateway, Args... args) {
  return std::make_unique<EndpointHandler<P, Args...>>(gateway, std::move(args)...);
}

std::unique_ptr<Handler> notFound(bool wrong_method = false, bool openai_shape = false) {
  return std::make_unique<http::NotFoundHandler>(wrong_method, openai_shape);
}

// `make()` when the method is allowed, else 405.
template <class Make>
std::unique_ptr<Handler> only(bool allowed, Make make) {
  if (!allowed) return notFound(true);
  return make();
}

// GET /.well-known/oauth-protected-resource[/mcp[/{provider}]]: what an MCP client reads after a 401.
class ProtectedResourceHandler : public Handler {
 public:
  explicit ProtectedResourceHandler(http::Gateway& gateway) : gateway_(gateway) {}
  void handle(http::Request& request, http::ServerResponse& response) override {
    const std::string origin = endpoints::requestOrigin(request.header("Host"), gateway_.tls() != nullptr);
    endpoints::answerProtectedResource(origin, Poco::URI(request.target()).getPath(), response);
  }

 private:
  http::Gateway& gateway_;
};

}  // namespace

std::unique_ptr<Handler> RouteTable::route(const http::Request& request) {
  const std::string path = Poco::URI(request.target()).getPath();
  const std::string& method = request.method();
  const bool get = method == "GET" || method == "HEAD";
  const bool post = method == "POST";
  const auto health = [&](bool readiness) {
    return only(get, [&] { return std::make_unique<http::HealthHandler>(gateway_, readiness); });
  };
  const auto metrics = [&] { return only(get, [&] { return std::make_unique<http::MetricsHandler>(gateway_); }); };
  const auto status = [&](bool operations_address) {
    return only(get, [&] { return std::make_unique<http::CatalogStatusHandler>(gateway_, operations_address); });
  };
  if (surface_ == Surface::Operations) {
    // Nothing of the request path here: a caller reaching this address gets 404 for it.
    if (path == "/healthz") return health(false);
    if (path == "/readyz") return health(true);
    if (path == "/metrics") return metrics();
    if (path == "/admin/api/catalog/status") return status(true);
    return notFound();
  }
  // The request path: every endpoint a profile of the one pipeline.
  if (path.starts_with("/v1/responses/") || path.starts_with("/responses/")) {
    return endpoint<endpoints::StoredResponses>(gateway_);
  }
  if (path == "/v1/messages/count_tokens") return post ? endpoint<endpoints::CountTokens>(gateway_) : notFound(true);
  if (auto wire = wire::clientWireForPath(path)) return post ? endpoint<endpoints::Inference>(gateway_, *wire) : notFound(true);
  if (auto operation = wire::operationForPath(path)) {
    return post ? endpoint<endpoints::Operations>(gateway_, *operation) : notFound(true);
  }
  // MCP: one upstream server per path, or every server the caller may use at /mcp (docs/mcp.md).
  if (path == "/mcp" || path == "/mcp/") {
    const bool allowed = post || method == "GET" || method == "DELETE";
    return allowed ? endpoint<endpoints::Mcp>(gateway_, std::string()) : notFound(true);
  }
  if (path.starts_with("/mcp/")) {
    std::string provider = path.substr(5);
    if (provider.ends_with('/')) provider.pop_back();
    if (provider.empty() || provider.find('/') != std::string::npos) return notFound();
    const bool allowed = post || method == "GET" || method == "DELETE";
    return allowed ? endpoint<endpoints::Mcp>(gateway_, std::move(provider)) : notFound(true);
  }
  if (path.starts_with("/.well-known/oauth-protected-resource")) {
    return only(get, [&] { return std::make_unique<ProtectedResourceHandler>(gateway_); });
  }
  // The operations surface, where this address serves it.
  if (surface_ == Surface::Public && (path == "/readyz" || path == "/metrics")) return notFound();
  if (path == "/healthz") return health(false);
  if (path == "/readyz") return health(true);
  if (path == "/metrics") return metrics();
  // SCIM provisioning (provisioning/scim_handler.h): every method, its own errors.
  if ((path == "/scim" || path.starts_with("/scim/")) && scim_) {
    if (auto handler = scim_(request)) return handler;
  }
  // The console.
  if (path.starts_with("/admin") && console_) {
    if (auto handler = console_(request)) return handler;
  }
  if (path == "/admin/api/catalog/status") {
    // With --admin-listen, the token read is the operations address's; the console's own (a
    // signed-in admin, through the console above) stays here.
    if (surface_ == Surface::Public) return notFound();
    return status(false);
  }
  if (path == "/v1/models" || path == "/models") {
    return only(get, [&] { return std::make_unique<endpoints::ModelsHandler>(gateway_); });
  }
  // OpenAI-style clients call whatever their SDK offers under /v1: what is not served here gets
  // OpenAI's own answer for it (code unknown_url), which those clients report as such.
  if (path == "/v1" || path.starts_with("/v1/")) return notFound(false, true);
  return notFound();
}

}  // namespace sluice::routes
