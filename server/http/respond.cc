#include "server/http/respond.h"

namespace sluice::http {

void sendBody(Poco::Net::HTTPServerResponse& response, int status, const std::string& content_type,
              const std::string& body) {
  response.setStatus(static_cast<Poco::Net::HTTPResponse::HTTPStatus>(status));
  response.setContentType(content_type);
  response.setContentLength(static_cast<std::streamsize>(body.size()));
  response.sendBuffer(body.data(), body.size());
}

void sendError(Poco::Net::HTTPServerResponse& response, catalog::Wire wire, const wire::ApiError& error,
               const std::string& request_id) {
  if (error.retry_after_seconds) response.set("Retry-After", std::to_string(*error.retry_after_seconds));
  if (error.status == 401 && wire == catalog::Wire::Anthropic) response.set("WWW-Authenticate", "Bearer");
  sendJson(response, wire::clientStatusFor(wire, error.status), wire::renderError(wire, error, request_id));
}

}  // namespace sluice::http
