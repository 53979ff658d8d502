#pragma once
// The listening socket and what serves its connections: fibers on `workers` event-loop threads
// (server/net/fiber.h), or with --workers 0 a thread per connection from a pool (Poco's
// TCPServer). Used by main's thread only; the gateway must outlive the listener.

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include <Poco/SharedPtr.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include "server/http/gateway.h"
#include "server/routes/route_table.h"
#include "server/net/fiber.h"

namespace sluice::boot {

// With --tls-cert: loads the server's TLS context (http/client_tls.h) into the wiring. Returns 2
// (printed to stderr) when a file cannot be used, 0 otherwise.
int loadTls(const http::ServerOptions& options, http::Wiring& wiring);
// Returns 2 (printed to stderr) when the gateway cannot serve its catalog's identity setting
// (`identity: certificate` without --client-ca), 0 otherwise.
int checkIdentityServable(const http::Gateway& gateway);

class Listener {
 public:
  // `console`: the /admin handlers of the main address (admin/console.h); `scim`: its /scim
  // handlers (provisioning/scim_handler.h).
  Listener(const http::ServerOptions& options, http::Gateway& gateway, http::HandlerFactory console,
           http::HandlerFactory scim = {});
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Binds options.listen (SO_REUSEADDR, not SO_REUSEPORT) and starts serving; with
  // options.admin_listen, binds that too and serves the operations endpoints there (an event loop
  // of their own with their own connection caps and a 2 s head deadline, so neither a flood on the
  // main address nor idle connections on this one can starve /readyz and /metrics). Returns 1
  // when an address cannot be bound (printed to stderr), 0 when serving.
  int open();
  ~Listener();

  // Logs "listening" (address, catalog version, workers, spin, threads, tls: off | on |
  // client-certificates) and prints "listening on ADDRESS" to stdout (the same with TLS); with --admin-listen, then "operations listening on ADDRESS".
  void announce(const std::string& catalog_version) const;

  // Connections accepted and not yet closed.
  size_t openConnections() const;
  // The connection threads' pool with --workers 0; nullptr with fibers.
  Poco::ThreadPool* threadPool() { return pool_ ? &*pool_ : nullptr; }
  // Accepts no more connections; with fibers, connections waiting for their next request close now.
  void stopAccepting();

 private:
  const http::ServerOptions& options_;
  http::Gateway& gateway_;
  http::HandlerFactory console_;
  http::HandlerFactory scim_;
  int workers_;  // options.workers, -1 resolved to one per CPU
  Poco::Net::ServerSocket socket_;
  Poco::Net::HTTPServerParams::Ptr params_;
  std::unique_ptr<routes::RouteTable> router_;  // outlives the loop and the server (declared before them)
  std::unique_ptr<net::fiber::Loop> loop_;
  std::optional<Poco::ThreadPool> pool_;
  std::unique_ptr<Poco::Net::TCPServer> server_;
  // --admin-listen: the operations address, on an event loop of one thread with caps of its own.
  Poco::Net::ServerSocket ops_socket_;
  std::unique_ptr<routes::RouteTable> ops_router_;
  std::unique_ptr<http::ConnectionLimits> ops_limits_;
  std::unique_ptr<net::fiber::Loop> ops_loop_;
};

}  // namespace sluice::boot
