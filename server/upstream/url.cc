#include "server/upstream/url.h"

#include <algorithm>

#include "server/net/http1.h"

namespace sluice::upstream {

std::optional<Target> parseUrl(std::string_view url) {
  using net::h1::equalsNoCase;
  Target target;
  std::string_view rest;
  if (url.size() > 8 && equalsNoCase(url.substr(0, 8), "https://")) {
    target.tls = true;
    rest = url.substr(8);
  } else if (url.size() > 7 && equalsNoCase(url.substr(0, 7), "http://")) {
    rest = url.substr(7);
  } else {
    return std::nullopt;
  }
  const size_t authority_end = std::min(rest.find_first_of("/?#"), rest.size());
  std::string_view authority = rest.substr(0, authority_end);
  std::string_view path = rest.substr(authority_end);
  if (authority.empty() || authority.find('@') != std::string_view::npos) return std::nullopt;
  std::string_view host;
  std::string_view port;
  if (authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = authority.substr(1, close - 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return std::nullopt;
      port = after.substr(1);
    }
  } else {
    const size_t colon = authority.rfind(':');
    host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (host.empty()) return std::nullopt;
  const std::string_view default_port = target.tls ? "443" : "80";
  if (port.empty()) port = default_port;
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  if (const int number = std::stoi(std::string(port)); number < 1 || number > 65535) return std::nullopt;
  if (const size_t hash = path.find('#'); hash != std::string_view::npos) path = path.substr(0, hash);
  target.host = std::string(host);
  target.port = std::string(port);
  const bool ipv6 = host.find(':') != std::string_view::npos;
  const std::string bracketed = ipv6 ? "[" + target.host + "]" : target.host;
  target.origin = std::string(target.tls ? "https://" : "http://") + bracketed + ":" + target.port;
  target.host_header = port == default_port ? bracketed : bracketed + ":" + target.port;
  target.path = path.empty() ? "/" : path.front() == '?' ? "/" + std::string(path) : std::string(path);
  return target;
}

}  // namespace sluice::upstream
