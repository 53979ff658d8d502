#pragma once
// /scim/v2: SCIM 2.0 provisioning over HTTP (docs/http-api.md, docs/identity.md). The bearer token
// of --scim-token-file is checked before anything else is read (compared in constant time, wrong
// ones throttled per peer address, never logged or echoed); the body is bounded to 1 MiB; the call
// is then identity::serveScim's, on a small PostgreSQL pool of its own. Answers are
// application/scim+json, errors in SCIM's form. Without --scim-token-file every /scim path answers
// 404 saying provisioning is off.

#include <expected>
#include <optional>
#include <string>

#include "server/http/gateway.h"
#include "server/http/router.h"

namespace sluice::provisioning {

// Shortest token accepted: an identity provider stores it once, so there is no reason for a weak one.
inline constexpr size_t kMinTokenBytes = 32;

// The token in the file at `path`: its content without trailing blanks and line ends. An error
// (never holding the token) when the file cannot be read, the token is shorter than
// kMinTokenBytes, or holds a blank or control character.
std::expected<std::string, std::string> loadScimToken(const std::string& path);

struct ScimOptions {
  std::optional<std::string> token;  // nullopt: provisioning is off (404)
  size_t database_connections = 2;
};

// The handler factory of /scim paths (the route table calls it for paths under /scim). Opens its
// pool when a token and a database are configured. The gateway must outlive the factory.
http::HandlerFactory makeScim(http::Gateway& gateway, ScimOptions options);

}  // namespace sluice::provisioning
