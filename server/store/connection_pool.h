#pragma once
// A small pool of PostgreSQL connections for the request path's reads and updates (keys, quotas,
// stored responses, console sessions), shared by the request threads. A connection is either idle
// (in the pool) or leased to one thread; a broken one is closed instead of being returned. The
// pool opens connections lazily, up to `max_connections`; a thread that finds them all leased
// waits up to `acquire_timeout`.
//
// Surviving a PostgreSQL restart: run() discards a connection that turns out to be broken,
// together with every idle one (they broke with it), and runs the body once more on a fresh
// connection. So the first request after a restart succeeds if PostgreSQL is back; while it is
// down, run() throws pqxx::broken_connection (an environment failure, see STYLE.md).
//
// Thread-safe. No lock is held while connecting or while a body runs.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <pqxx/pqxx>

#include "server/net/fiber.h"

namespace sluice::store {

// Every connection stayed leased for acquire_timeout.
class PoolExhausted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PoolOptions {
  size_t max_connections = 4;
  std::chrono::milliseconds acquire_timeout{3000};
  int connect_timeout_seconds = 3;
};

class ConnectionPool {
 public:
  explicit ConnectionPool(std::string url, PoolOptions options = {});
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // Runs `body(pqxx::connection&)` on a leased connection and returns what it returns.
  // Precondition: `body` may run twice when its first run threw pqxx::broken_connection (a
  // transaction cut off that way did not commit; an in-doubt commit throws pqxx::in_doubt_error,
  // which is not retried). Throws what `body` throws, pqxx::broken_connection when PostgreSQL is
  // unreachable, PoolExhausted when no connection frees up in time.
  //
  // On a fiber (server/net/fiber.h) the whole of it runs on a helper thread while the fiber waits,
  // so a query never stops the other connections of the fiber's worker.
  template <class Body>
  auto run(Body&& body) {
    return net::fiber::blocking([&] {
      for (int attempt = 0;; ++attempt) {
        Lease lease(*this);
        try {
          return body(lease.connection());
        } catch (const pqxx::broken_connection&) {
          lease.discard();
          discardIdle();
          if (attempt > 0) throw;
        }
      }
    });
  }

  size_t openConnections() const;

  // Adds `connection`, opened by the caller (sluicectl opens its one connection itself, to report
  // a failure to connect its own way), to the idle ones; it counts against max_connections.
  void adopt(std::unique_ptr<pqxx::connection> connection);

 private:
  // Returns its connection to the pool unless discarded (then closes it).
  class Lease {
   public:
    explicit Lease(ConnectionPool& pool) : pool_(pool), connection_(pool.acquire()) {}
    ~Lease() { pool_.release(std::move(connection_), !discarded_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    pqxx::connection& connection() { return *connection_; }
    void discard() { discarded_ = true; }

   private:
    ConnectionPool& pool_;
    std::unique_ptr<pqxx::connection> connection_;
    bool discarded_ = false;
  };

  std::unique_ptr<pqxx::connection> acquire();
  void release(std::unique_ptr<pqxx::connection> connection, bool healthy);
  void discardIdle();

  const std::string url_;
  const PoolOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<pqxx::connection>> idle_;
  size_t open_ = 0;  // idle + leased + being opened
};

}  // namespace sluice::store
