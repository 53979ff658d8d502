#pragma once
// Where a request goes: the parts of a deployment's absolute URL the client needs. Internal to
// the upstream client.

#include <optional>
#include <string>
#include <string_view>

namespace sluice::upstream {

struct Target {
  bool tls = false;          // https
  std::string host;          // without brackets
  std::string port;          // digits, the scheme's default when the URL has none
  std::string origin;        // scheme://host:port, the pool's key
  std::string host_header;   // host[:port] as the Host field wants it (the port only when not the default)
  std::string path;          // path and query, at least "/"; the fragment dropped
};

// Parses an absolute http:// or https:// URL (scheme without case). nullopt for another scheme,
// user info, an empty host, an unclosed IPv6 bracket or a port outside 1-65535. Pure.
std::optional<Target> parseUrl(std::string_view url);

}  // namespace sluice::upstream
