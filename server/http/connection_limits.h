#pragma once
// Caps on open client connections: overall and per peer address, so one client (or a slowloris)
// cannot hold every connection the gateway can serve. A connection over a cap is answered 503 and
// closed at once (server/http/connection.cc).
//
// Thread-safe: one mutex, taken once when a connection opens and once when it closes.

#include <cstddef>
#include <expected>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace sluice::http {

class ConnectionLimits {
 public:
  enum class Refusal { MaxConnections, MaxPerPeer };

  // Holds one connection's place; gives it back when destroyed. Movable, not copyable.
  class Ticket {
   public:
    Ticket(Ticket&& other) noexcept : limits_(other.limits_), peer_(std::move(other.peer_)) { other.limits_ = nullptr; }
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket() {
      if (limits_) limits_->release(peer_);
    }

   private:
    friend class ConnectionLimits;
    Ticket(ConnectionLimits* limits, std::string peer) : limits_(limits), peer_(std::move(peer)) {}
    ConnectionLimits* limits_;
    std::string peer_;
  };

  // 0: no cap.
  ConnectionLimits(size_t max_connections, size_t max_per_peer)
      : max_connections_(max_connections), max_per_peer_(max_per_peer) {}

  // A place for a connection from `peer` (the peer's address bytes; any key naming one peer), or
  // which cap it is over. The total is checked first.
  std::expected<Ticket, Refusal> admit(std::string_view peer);

  size_t open() const;

 private:
  void release(const std::string& peer);

  const size_t max_connections_;
  const size_t max_per_peer_;
  mutable std::mutex mutex_;
  size_t open_ = 0;
  std::unordered_map<std::string, size_t> per_peer_;  // only peers with a connection open
};

// The peer address of a connected socket as a key for ConnectionLimits: the IPv4 or IPv6 address
// bytes (an IPv4-mapped IPv6 address counts as its IPv4 address), without the port; "local" for
// any other family (a Unix socket pair).
std::string peerKey(int fd);

}  // namespace sluice::http
