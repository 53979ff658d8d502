#include "server/boot/listener.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

#include <Poco/Net/SocketAddress.h>

#include "server/http/connection.h"
#include "server/log/json_log.h"

namespace sluice::boot {

int loadTls(const http::ServerOptions& options, http::Wiring& wiring) {
  if (options.tls_cert.empty()) return 0;
  auto tls = http::ServerTls::load({options.tls_cert, options.tls_key, options.client_ca});
  if (!tls) {
    std::cerr << "sluice: " << tls.error() << "\n";
    return 2;
  }
  wiring.tls = std::move(*tls);
  return 0;
}

int checkIdentityServable(const http::Gateway& gateway) {
  if (const std::string conflict = gateway.identityConflict(*gateway.catalog()); !conflict.empty()) {
    std::cerr << "sluice: " << conflict << "\n";
    return 2;
  }
  return 0;
}

Listener::Listener(const http::ServerOptions& options, http::Gateway& gateway, http::HandlerFactory console,
                   http::HandlerFactory scim)
    : options_(options),
      gateway_(gateway),
      console_(std::move(console)),
      scim_(std::move(scim)),
      workers_(options.workers < 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                                   : options.workers) {}

int Listener::open() {
  try {
    // SO_REUSEADDR (a restart binds at once), not SO_REUSEPORT: a second gateway started on the
    // same port by mistake must fail here, not quietly take half the connections.
    socket_.bind(Poco::Net::SocketAddress(options_.listen), true, false);
    socket_.listen(1024);
  } catch (const Poco::Exception& error) {
    std::cerr << "sluice: cannot listen on " << options_.listen << ": " << error.displayText() << "\n";
    return 1;
  }
  params_ = new Poco::Net::HTTPServerParams;
  params_->setMaxThreads(options_.threads);
  params_->setMaxQueued(options_.threads);
  params_->setKeepAlive(true);
  params_->setMaxKeepAliveRequests(100000);
  params_->setKeepAliveTimeout(Poco::Timespan(75, 0));
  params_->setTimeout(Poco::Timespan(120, 0));
  if (options_.admin_listen) {
    try {
      ops_socket_.bind(Poco::Net::SocketAddress(*options_.admin_listen), true, false);
      ops_socket_.listen(64);
    } catch (const Poco::Exception& error) {
      std::cerr << "sluice: cannot listen on " << *options_.admin_listen << " (--admin-listen): "
                << error.displayText() << "\n";
      return 1;
    }
    ops_router_ = std::make_unique<routes::RouteTable>(gateway_, http::Surface::Operations);
  }
  router_ = std::make_unique<routes::RouteTable>(
      gateway_, options_.admin_listen ? http::Surface::Public : http::Surface::All, console_, scim_);
  if (workers_ > 0) {
    loop_ = std::make_unique<net::fiber::Loop>(
        net::fiber::Loop::Options{workers_, 256u << 10, 4, std::chrono::microseconds(options_.spin_us)});
    loop_->serve(socket_.impl()->sockfd(), [&gateway = gateway_, params = params_, handlers = router_.get()](int fd) {
      http::serveConnection(fd, *params, *handlers, gateway, gateway.tls());
    });
  } else {
    // Connection threads idle for kThreadIdleSeconds are released (down to 8).
    constexpr int kThreadIdleSeconds = 3;
    pool_.emplace(8, options_.threads, kThreadIdleSeconds, 256 * 1024);
    server_ = std::make_unique<Poco::Net::TCPServer>(
        new http::ConnectionFactory(params_, *router_, gateway_, gateway_.tls()), *pool_, socket_, params_);
    server_->start();
  }
  if (ops_router_) {
    // An event loop of its own: an idle or trickling connection parks a fiber, never a thread, so
    // no number of them delays a probe; and a flood of the main address (its loops busy) cannot.
    ops_limits_ = std::make_unique<http::ConnectionLimits>(http::kOperationsMaxConnections,
                                                           http::kOperationsMaxPerPeer);
    ops_loop_ = std::make_unique<net::fiber::Loop>(net::fiber::Loop::Options{1, 256u << 10, 1, {}});
    ops_loop_->serve(ops_socket_.impl()->sockfd(),
                     [&gateway = gateway_, params = params_, handlers = ops_router_.get(), limits = ops_limits_.get()](
                         int fd) {
                       http::serveConnection(fd, *params, *handlers, gateway, nullptr,
                                             {limits, http::kOperationsHeadTimeout, false});
                     });
  }
  return 0;
}

Listener::~Listener() = default;

void Listener::announce(const std::string& catalog_version) const {
  const std::string address = socket_.address().toString();
  const http::ServerTls* tls = gateway_.tls();
  log::info("listening", {{"address", address},
                          {"tls", tls ? (tls->verifiesClients() ? "client-certificates" : "on") : "off"},
                          {"catalog_version", catalog_version},
                          {"workers", workers_},
                          {"spin_us", workers_ > 0 ? options_.spin_us : 0},
                          {"threads", workers_ > 0 ? 0 : options_.threads}});
  std::cout << "listening on " << address << std::endl;
  if (ops_loop_) {
    const std::string operations = ops_socket_.address().toString();
    log::info("operations listening", {{"address", operations}});
    std::cout << "operations listening on " << operations << std::endl;
  }
}

size_t Listener::openConnections() const {
  return loop_ ? loop_->connections() : static_cast<size_t>(server_->currentConnections());
}

void Listener::stopAccepting() {
  if (loop_) {
    loop_->stopAccepting();
    loop_->interrupt();  // connections waiting for their next request close now (served if one arrived)
    // Once the workers took what was queued, the socket closes: a new connection is refused at
    // once (a load balancer then tries another replica) instead of waiting in the backlog for
    // the process to exit and being reset.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    socket_.close();
  } else {
    server_->stop();
  }
}

}  // namespace sluice::boot
