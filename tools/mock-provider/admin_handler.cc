#include "tools/mock-provider/admin_handler.h"

#include <Poco/Net/HTTPServerRequest.h>
#include <Poco/Net/HTTPServerResponse.h>
#include <Poco/NullStream.h>
#include <Poco/StreamCopier.h>

#include "tools/mock-provider/error_spec.h"

namespace sluice::mock {
namespace {

using Json = nlohmann::ordered_json;

void send(Poco::Net::HTTPServerResponse& response, int status, const Json& json) {
  const std::string body = json.dump(-1, ' ', false, Json::error_handler_t::replace);
  response.setStatusAndReason(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status), reasonPhrase(status));
  response.setContentType("application/json");
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.sendBuffer(body.data(), body.size());
}

Json notFound(const std::string& message) { return Json{{"error", Json{{"message", message}}}}; }

}  // namespace

void AdminHandler::handleRequest(Poco::Net::HTTPServerRequest& request, Poco::Net::HTTPServerResponse& response) {
  Poco::NullOutputStream discard;
  Poco::StreamCopier::copyStream(request.stream(), discard);
  std::string path = request.getURI().substr(0, request.getURI().find('?'));
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const std::string& method = request.getMethod();
  Stats& stats = context_.stats();

  if (path == "/_mock/stats" && method == "GET") return send(response, 200, stats.statsJson());
  if (path == "/_mock/last" && method == "GET") {
    auto last = stats.lastJson();
    return last ? send(response, 200, *last) : send(response, 404, notFound("no provider request received yet"));
  }
  if (path == "/_mock/requests" && method == "GET") return send(response, 200, stats.historyJson());
  if (path == "/_mock/reset" && method == "POST") {
    stats.reset();
    context_.prefixCache().clear();
    return send(response, 200, Json{{"reset", true}});
  }
  if (path == "/_mock/revoke-tokens" && method == "POST") {
    context_.googleTokens().revokeAll();
    context_.entraTokens().revokeAll();
    return send(response, 200, Json{{"revoked", true}});
  }
  if (path == "/_mock/health" && method == "GET") return send(response, 200, Json{{"status", "ok"}});
  send(response, 404, notFound("no such mock endpoint: " + method + " " + path));
}

}  // namespace sluice::mock
