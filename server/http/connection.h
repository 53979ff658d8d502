#pragma once
// One client connection: reads requests one after another (keep-alive) and hands each to the
// router. The HTTP/1.1 framing is the gateway's own (server/net/http1.h, server_session.h), not
// Poco's HTTPServerSession: a bad or oversized head gets 400 or 431 with a JSON body, request
// smuggling shapes are refused, every response carries x-sluice-request-id, and the connection
// stops being reused once the gateway is draining.

#include <Poco/Net/HTTPRequestHandlerFactory.h>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/TCPServerConnection.h>
#include <Poco/Net/TCPServerConnectionFactory.h>

#include "server/http/gateway.h"
#include "server/http/router.h"

namespace sluice::http {

// Serves the requests of one client connection until it closes, goes idle or the gateway drains;
// does not close `fd`. A blocking socket on a thread of its own (Connection below), or a
// non-blocking one on a fiber (net/fiber.h, the default).
void serveConnection(int fd, const Poco::Net::HTTPServerParams& params, Router& router, Gateway& gateway);

// The thread-per-connection form (--workers 0): Poco's TCPServer runs one of these per connection.
class Connection : public Poco::Net::TCPServerConnection {
 public:
  Connection(const Poco::Net::StreamSocket& socket, Poco::Net::HTTPServerParams::Ptr params, Router& router,
             Gateway& gateway);
  void run() override;

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  Router& router_;
  Gateway& gateway_;
};

class ConnectionFactory : public Poco::Net::TCPServerConnectionFactory {
 public:
  // `router` must outlive the factory and every connection it made.
  ConnectionFactory(Poco::Net::HTTPServerParams::Ptr params, Router& router, Gateway& gateway)
      : params_(std::move(params)), router_(router), gateway_(gateway) {}
  Poco::Net::TCPServerConnection* createConnection(const Poco::Net::StreamSocket& socket) override {
    return new Connection(socket, params_, router_, gateway_);
  }

 private:
  Poco::Net::HTTPServerParams::Ptr params_;
  Router& router_;
  Gateway& gateway_;
};

}  // namespace sluice::http
