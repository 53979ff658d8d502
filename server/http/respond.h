#pragma once
// Writing whole responses. One place maps an ApiError to a status and a body in the caller's wire.

#include <string>

#include <Poco/Net/HTTPServerResponse.h>

#include "catalog/catalog.h"
#include "server/wire/api_error.h"

namespace sluice::http {

void sendBody(Poco::Net::HTTPServerResponse& response, int status, const std::string& content_type,
              const std::string& body);

inline void sendJson(Poco::Net::HTTPServerResponse& response, int status, const std::string& body) {
  sendBody(response, status, "application/json", body);
}

// The error in the client wire's shape, with Retry-After when the error carries one.
void sendError(Poco::Net::HTTPServerResponse& response, catalog::Wire wire, const wire::ApiError& error,
               const std::string& request_id);

}  // namespace sluice::http
