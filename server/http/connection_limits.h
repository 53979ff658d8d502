#pragma once
// Caps on open client connections: overall and per peer address, so one client (or a slowloris)
// cannot hold every connection the gateway can serve. A connection over a cap is answered 503 and
// closed at once (server/http/connection.cc).
//
// Behind a load balancer every client arrives from the balancer's few addresses, so a per-peer cap
// would count the balancer, not its clients. A trusted balancer's connections (--trusted-balancers,
// or gateway.trusted_proxies' `from`) count against the overall cap only; each request one of them
// forwards counts against the per-peer cap of the client its X-Forwarded-For names, for as long as
// the request is served.
//
// Thread-safe: one mutex, taken once when a connection (or a forwarded request) opens and once
// when it closes.

#include <cstddef>
#include <expected>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "catalog/cidr.h"

namespace sluice::http {

class ConnectionLimits {
 public:
  enum class Refusal { MaxConnections, MaxPerPeer };
  // Whether a connection counts against its peer's cap (a trusted balancer's does not).
  enum class PerPeer { Counted, Exempt };

  // Holds one connection's (or one forwarded request's) place; gives it back when destroyed.
  // Movable, not copyable.
  class Ticket {
   public:
    Ticket(Ticket&& other) noexcept
        : limits_(other.limits_), peer_(std::move(other.peer_)), per_peer_(other.per_peer_), total_(other.total_) {
      other.limits_ = nullptr;
    }
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket() {
      if (limits_) limits_->release(peer_, per_peer_, total_);
    }

   private:
    friend class ConnectionLimits;
    Ticket(ConnectionLimits* limits, std::string peer, bool per_peer, bool total)
        : limits_(limits), peer_(std::move(peer)), per_peer_(per_peer), total_(total) {}
    ConnectionLimits* limits_;
    std::string peer_;
    bool per_peer_;
    bool total_;
  };

  // 0: no cap.
  ConnectionLimits(size_t max_connections, size_t max_per_peer)
      : max_connections_(max_connections), max_per_peer_(max_per_peer) {}

  // A place for a connection from `peer` (a key as peerKey() makes), or which cap it is over. The
  // total is checked first; an Exempt connection is checked against the total only.
  std::expected<Ticket, Refusal> admit(std::string_view peer, PerPeer per_peer = PerPeer::Counted);
  // A place for one request a trusted balancer forwards for `client` (a peerKey()): counted
  // against the per-peer cap only, since the balancer's connection already holds a place in the
  // total. A client connecting directly and through the balancer fills one budget.
  std::expected<Ticket, Refusal> admitForwarded(std::string_view client);

  size_t open() const;

 private:
  void release(const std::string& peer, bool per_peer, bool total);

  const size_t max_connections_;
  const size_t max_per_peer_;
  mutable std::mutex mutex_;
  size_t open_ = 0;
  std::unordered_map<std::string, size_t> per_peer_;  // only peers with a connection open
};

// The peer address of a connected socket, IPv4 as IPv4-mapped IPv6; nullopt for any other family
// (a Unix socket pair).
std::optional<catalog::IpAddress> peerAddress(int fd);

// The key ConnectionLimits counts `address` under (an IPv4 address and its IPv4-mapped IPv6 form
// are one peer); "local" for nullopt.
std::string peerKey(const std::optional<catalog::IpAddress>& address);
inline std::string peerKey(int fd) { return peerKey(peerAddress(fd)); }

// The client a trusted balancer names in a request's head: the last element of the last
// X-Forwarded-For line (the address the balancer itself saw; the elements before it are what
// the client wrote). "1.2.3.4", "1.2.3.4:5678", "2001:db8::1" and "[2001:db8::1]:5678" are read;
// nullopt when there is no such field or its last element is not an address (the request then
// counts against no per-peer cap). Pure.
std::optional<catalog::IpAddress> forwardedClient(
    std::span<const std::pair<std::string_view, std::string_view>> fields);

// --trusted-balancers: comma-separated address blocks ("10.0.0.0/8, 127.0.0.1"); the error names
// the block that is not one, or says when the list together trusts everyone
// (catalog::everyoneTrusted). An empty list is none.
std::expected<std::vector<catalog::Cidr>, std::string> parseBalancers(std::string_view list);

}  // namespace sluice::http
