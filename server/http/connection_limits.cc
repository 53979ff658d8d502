#include "server/http/connection_limits.h"

#include <cstring>

#include <netinet/in.h>
#include <sys/socket.h>

namespace sluice::http {

std::expected<ConnectionLimits::Ticket, ConnectionLimits::Refusal> ConnectionLimits::admit(std::string_view peer) {
  std::lock_guard lock(mutex_);
  if (max_connections_ > 0 && open_ >= max_connections_) return std::unexpected(Refusal::MaxConnections);
  auto [slot, added] = per_peer_.try_emplace(std::string(peer), 0);
  if (max_per_peer_ > 0 && slot->second >= max_per_peer_) return std::unexpected(Refusal::MaxPerPeer);
  ++slot->second;
  ++open_;
  return Ticket(this, slot->first);
}

size_t ConnectionLimits::open() const {
  std::lock_guard lock(mutex_);
  return open_;
}

void ConnectionLimits::release(const std::string& peer) {
  std::lock_guard lock(mutex_);
  --open_;
  const auto slot = per_peer_.find(peer);
  if (slot != per_peer_.end() && --slot->second == 0) per_peer_.erase(slot);
}

std::string peerKey(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "local";
  if (address.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(address);
    return std::string(reinterpret_cast<const char*>(&v4.sin_addr), sizeof v4.sin_addr);
  }
  if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    const auto* bytes = reinterpret_cast<const char*>(&v6.sin6_addr);
    if (IN6_IS_ADDR_V4MAPPED(&v6.sin6_addr)) return std::string(bytes + 12, 4);
    return std::string(bytes, sizeof v6.sin6_addr);
  }
  return "local";
}

}  // namespace sluice::http
