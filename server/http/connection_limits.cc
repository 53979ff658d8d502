#include "server/http/connection_limits.h"

#include <cstring>

#include <netinet/in.h>
#include <sys/socket.h>

#include "server/identity/trusted_proxy.h"
#include "server/net/http1.h"

namespace sluice::http {

std::expected<ConnectionLimits::Ticket, ConnectionLimits::Refusal> ConnectionLimits::admit(std::string_view peer,
                                                                                          PerPeer per_peer) {
  std::lock_guard lock(mutex_);
  if (max_connections_ > 0 && open_ >= max_connections_) return std::unexpected(Refusal::MaxConnections);
  if (per_peer == PerPeer::Exempt) {
    ++open_;
    return Ticket(this, std::string(), false, true);
  }
  auto [slot, added] = per_peer_.try_emplace(std::string(peer), 0);
  if (max_per_peer_ > 0 && slot->second >= max_per_peer_) return std::unexpected(Refusal::MaxPerPeer);
  ++slot->second;
  ++open_;
  return Ticket(this, slot->first, true, true);
}

std::expected<ConnectionLimits::Ticket, ConnectionLimits::Refusal> ConnectionLimits::admitForwarded(
    std::string_view client) {
  std::lock_guard lock(mutex_);
  auto [slot, added] = per_peer_.try_emplace(std::string(client), 0);
  if (max_per_peer_ > 0 && slot->second >= max_per_peer_) return std::unexpected(Refusal::MaxPerPeer);
  ++slot->second;
  return Ticket(this, slot->first, true, false);
}

size_t ConnectionLimits::open() const {
  std::lock_guard lock(mutex_);
  return open_;
}

void ConnectionLimits::release(const std::string& peer, bool per_peer, bool total) {
  std::lock_guard lock(mutex_);
  if (total) --open_;
  if (!per_peer) return;
  const auto slot = per_peer_.find(peer);
  if (slot != per_peer_.end() && --slot->second == 0) per_peer_.erase(slot);
}

std::optional<catalog::IpAddress> peerAddress(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return std::nullopt;
  return identity::ipOf(reinterpret_cast<const sockaddr*>(&address), length);
}

std::string peerKey(const std::optional<catalog::IpAddress>& address) {
  if (!address) return "local";
  return std::string(reinterpret_cast<const char*>(address->data()), address->size());
}

namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// One X-Forwarded-For element: an address, "[v6]:port" or "v4:port".
std::optional<catalog::IpAddress> forwardedAddress(std::string_view element) {
  if (element.starts_with('[')) {
    const size_t close = element.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view rest = element.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return std::nullopt;
    return catalog::parseIpAddress(element.substr(1, close - 1));
  }
  const size_t colon = element.find(':');
  if (colon != std::string_view::npos && element.find(':', colon + 1) == std::string_view::npos) {
    element = element.substr(0, colon);  // an IPv4 address with its port
  }
  return catalog::parseIpAddress(element);
}

}  // namespace

std::optional<catalog::IpAddress> forwardedClient(
    std::span<const std::pair<std::string_view, std::string_view>> fields) {
  std::optional<std::string_view> last;
  for (const auto& [name, value] : fields) {
    if (net::h1::equalsNoCase(name, "x-forwarded-for")) last = value;
  }
  if (!last) return std::nullopt;
  return forwardedAddress(catalog::lastForwardedFor(*last));
}

std::expected<std::vector<catalog::Cidr>, std::string> parseBalancers(std::string_view list) {
  std::vector<catalog::Cidr> blocks;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view item = trimmed(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (item.empty()) continue;
    std::string why;
    auto block = catalog::parseCidr(item, &why);
    if (!block) return std::unexpected("--trusted-balancers: " + why);
    blocks.push_back(std::move(*block));
  }
  if (const std::string_view everyone = catalog::everyoneTrusted(blocks); !everyone.empty()) {
    return std::unexpected("--trusted-balancers trusts " + std::string(everyone) +
                           ": any client could then name any address and escape the per-peer cap; list your "
                           "balancers' own addresses");
  }
  return blocks;
}

}  // namespace sluice::http
