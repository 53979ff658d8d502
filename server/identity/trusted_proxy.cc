#include "server/identity/trusted_proxy.h"

#include <algorithm>
#include <cstring>

#include <netinet/in.h>

namespace sluice::identity {

std::optional<catalog::IpAddress> ipOf(const sockaddr* address, socklen_t length) {
  if (address == nullptr) return std::nullopt;
  catalog::IpAddress out{};
  if (address->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &v4->sin_addr, 4);
    return out;
  }
  if (address->sa_family == AF_INET6 && length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    std::memcpy(out.data(), &v6->sin6_addr, 16);
    return out;
  }
  return std::nullopt;
}

ProxyClaim proxyClaim(const std::optional<catalog::TrustedProxies>& proxies,
                      const std::optional<catalog::IpAddress>& peer, const std::vector<std::string>& values) {
  ProxyClaim claim;
  if (!proxies || !peer || !proxies->trusts(*peer)) return claim;  // Ignored
  if (values.empty()) {
    claim.kind = ProxyClaimKind::Absent;
    return claim;
  }
  claim.kind = ProxyClaimKind::Malformed;
  if (values.size() > 1) {
    claim.problem = "the identity proxy sent " + proxies->header + " more than once";
    return claim;
  }
  std::string_view value = values.front();
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  if (value.empty()) {
    claim.problem = "the identity proxy sent an empty " + proxies->header;
    return claim;
  }
  if (value.size() > kMaxProxyClaim) {
    claim.problem = "the identity proxy's " + proxies->header + " is longer than " + std::to_string(kMaxProxyClaim) +
                    " characters";
    return claim;
  }
  if (std::any_of(value.begin(), value.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte < 0x20 || byte == 0x7f;
      })) {
    claim.problem = "the identity proxy's " + proxies->header + " holds control characters";
    return claim;
  }
  claim.kind = ProxyClaimKind::Claimed;
  claim.value = std::string(value);
  return claim;
}

}  // namespace sluice::identity
