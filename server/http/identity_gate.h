#pragma once
// Who is calling: the API key (Authorization: Bearer or x-api-key) resolved to a member, and the
// project the request is attributed to (x-sluice-scope-project, else the key's project, else the
// member's primary project). The caller's key is consumed here and never forwarded upstream.

#include <expected>
#include <optional>

#include <Poco/Net/HTTPServerRequest.h>

#include "server/http/gateway.h"
#include "server/identity/caller.h"
#include "server/identity/scope.h"
#include "server/wire/api_error.h"

namespace sluice::http {

struct Identified {
  identity::Caller caller;
  identity::Scope scope;
};

// nullopt inside the expected: the gateway runs with --insecure-no-auth (anonymous).
// Errors: 401 invalid_api_key (missing, malformed, unknown, revoked, expired, member disabled),
// 403 scope_denied, 503 identity_unavailable (PostgreSQL unreachable: fails closed).
std::expected<std::optional<Identified>, wire::ApiError> identify(Gateway& gateway,
                                                                  const Poco::Net::HTTPServerRequest& request);

}  // namespace sluice::http
