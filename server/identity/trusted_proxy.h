#pragma once
// Trusted-proxy identity (gateway.yaml `trusted_proxies`): an identity-aware proxy in front of the
// gateway (Tailscale serve, oauth2-proxy, an Envoy doing mTLS) names the member in a header. The
// header counts only on a connection whose peer address is in one of the declared blocks; on any
// other connection it is ignored, whatever it says (anyone can send a header). Pure: the peer
// address comes in as a value.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/socket.h>

#include "catalog/catalog.h"

namespace sluice::identity {

// Longest header value taken as a claim (an e-mail address is at most 254 characters).
inline constexpr size_t kMaxProxyClaim = 320;

// The address of a connection's peer, IPv4 as IPv4-mapped IPv6; nullopt for other families.
std::optional<catalog::IpAddress> ipOf(const sockaddr* address, socklen_t length);

enum class ProxyClaimKind {
  Ignored,    // no trusted proxies declared, or the peer is not one: the header means nothing
  Absent,     // a trusted proxy sent no header: identity goes on as if there were no proxy
  Claimed,    // a trusted proxy names a member: `value`
  Malformed,  // a trusted proxy sent it twice, empty, too long or with control characters: 401
};

struct ProxyClaim {
  ProxyClaimKind kind = ProxyClaimKind::Ignored;
  std::string value;    // Claimed: the header's value, spaces around it trimmed
  std::string problem;  // Malformed: why (never quotes the value)
};

// `values`: every value of the proxies' header on the request, in order (a header sent twice has
// two). `peer`: the connection's peer address (nullopt when unknown: never trusted).
ProxyClaim proxyClaim(const std::optional<catalog::TrustedProxies>& proxies,
                      const std::optional<catalog::IpAddress>& peer, const std::vector<std::string>& values);

}  // namespace sluice::identity
