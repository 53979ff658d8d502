#pragma once
// Reading a client's request body, and building the HTTP call to one deployment.

#include <expected>
#include <string>

#include <Poco/Net/HTTPServerRequest.h>

#include "server/dispatch/planner.h"
#include "server/upstream/client.h"

namespace sluice::http {

struct BodyTooLarge {};

// Reads the whole body, at most `limit` bytes; a larger one (declared or actual) is BodyTooLarge.
std::expected<std::string, BodyTooLarge> readBody(Poco::Net::HTTPServerRequest& request, size_t limit);

// The call for `attempt`: the endpoint's URL + the wire's path (or `path` when given), the
// provider's headers and user agent, and the credential the wire expects. The caller's own
// Authorization / x-api-key never pass; when the client speaks the provider's wire its
// protocol headers (anthropic-beta, anthropic-version, openai-beta) do, and so do the headers the
// provider lists in forward_headers.
upstream::Request buildUpstreamCall(const dispatch::Attempt& attempt, const Poco::Net::HTTPServerRequest& client,
                                    catalog::Wire client_wire, std::string body, bool stream,
                                    const std::string& path = "");

}  // namespace sluice::http
