#pragma once
// One client connection: reads requests one after another (keep-alive) and hands each to the
// router. The HTTP/1.1 framing is the gateway's own (server/net/http1.h, server_session.h), not
// Poco's HTTPServerSession: a bad or oversized head gets 400 or 431 with a JSON body, request
// smuggling shapes are refused, every response carries x-sluice-request-id, and the connection
// stops being reused once the gateway is draining.

#include <chrono>
#include <cstddef>

#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>

#include "server/http/client_tls.h"
#include "server/http/connection_limits.h"
#include "server/http/gateway.h"
#include "server/http/router.h"

namespace sluice::http {

// What one listener holds its connections to, besides the gateway's options.
struct ListenerPolicy {
  // The caps its connections count against; null: the gateway's (--max-connections,
  // --max-connections-per-peer).
  ConnectionLimits* limits = nullptr;
  // Each request head's deadline; 0: --head-timeout-ms.
  std::chrono::milliseconds head_timeout{0};
  // Whether trusted balancers' connections are exempt from the per-peer cap (connection_limits.h).
  bool balancers = true;
};

// The operations listener (--admin-listen): caps of its own, so a flood of the main address can
// never refuse a probe; per peer, so one address cannot take them all; and a head deadline of 2 s
// (a probe's or a scrape's head is one small packet), so a slowloris gives its place back soon.
inline constexpr size_t kOperationsMaxConnections = 512;
inline constexpr size_t kOperationsMaxPerPeer = 32;
inline constexpr std::chrono::milliseconds kOperationsHeadTimeout{2000};

// Serves the requests of one client connection until it closes, goes idle or the gateway drains;
// does not close `fd`. A blocking socket on a thread of its own (Connection below), or a
// non-blocking one on a fiber (net/fiber.h, the default). With `tls` the connection is HTTPS: its
// handshake must complete within the head deadline (--head-timeout-ms from the accept, which
// also bounds the first request's head), and with `identity: certificate` in the catalog a client
// without a certificate is refused at the handshake. A failed handshake is counted
// (gateway_tls_handshake_failures_total) and the connection closed without an answer. A
// connection over a cap of `policy`'s limits is answered 503 and closed; a request a trusted
// balancer forwards for a client over the per-peer cap too.
void serveConnection(int fd, const Poco::Net::HTTPServerParams& params, Router& router, Gateway& gateway,
                     const ServerTls* tls = nullptr, const ListenerPolicy& policy = {});

// The thread-per-connection form (--workers 0): Poco's TCPServer runs one of these per connection.
class Connection : public Poco::Net::TCPServerConnection {
 public:
  Connection(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params, Router& router,
             Gateway& gateway, const ServerTls* tls);
  void run() override;

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  Router& router_;
  Gateway& gateway_;
  const ServerTls* tls_;
};

class ConnectionFactory : public Poco::Net::TCPServerConnectionFactory {
 public:
  // `router` (and `tls`, when given) must outlive the factory and every connection it made.
  ConnectionFactory(Poco::Net::HTTPServerParams::Ptr params, Router& router, Gateway& gateway,
                    const ServerTls* tls = nullptr)
      : params_(std::move(params)), router_(router), gateway_(gateway), tls_(tls) {}
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override {
    return new Connection(socket, params_, router_, gateway_, tls_);
  }

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  Router& router_;
  Gateway& gateway_;
  const ServerTls* tls_;
};

}  // namespace sluice::http
