#include "server/audit/client_address.h"

#include <arpa/inet.h>

#include "catalog/cidr.h"

namespace sluice::audit {

namespace {

bool isIpAddress(std::string_view text) {
  if (text.empty() || text.size() >= 46) return false;  // INET6_ADDRSTRLEN
  const std::string copy(text);
  unsigned char buffer[16];
  return ::inet_pton(AF_INET, copy.c_str(), buffer) == 1 || ::inet_pton(AF_INET6, copy.c_str(), buffer) == 1;
}

}  // namespace

std::string clientAddress(std::string_view peer, bool from_trusted_proxy, const std::vector<std::string>& forwarded_for) {
  if (from_trusted_proxy && !forwarded_for.empty()) {
    const std::string_view entry = catalog::lastForwardedFor(forwarded_for.back());
    if (isIpAddress(entry)) return std::string(entry);
  }
  return std::string(peer.substr(0, kMaxClientAddress));
}

}  // namespace sluice::audit
