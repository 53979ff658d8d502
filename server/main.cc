// The composition root: reads flags and environment, loads the catalog, wires the parts, serves
// until SIGTERM/SIGINT, then drains in-flight requests (bounded) and exits 0. SIGHUP reloads the
// catalog; an invalid one is refused and the last good one keeps serving.

#include <csignal>
#include <cstdio>
#include <iostream>
#include <thread>

#include <CLI/CLI.hpp>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include "server/config/catalog_loader.h"
#include "server/http/connection.h"
#include "server/http/gateway.h"
#include "server/http/router.h"
#include "server/log/json_log.h"

using namespace sluice;

namespace {

void printDiagnostics(const std::vector<catalog::Diagnostic>& diagnostics) {
  for (const auto& diagnostic : diagnostics) std::cerr << diagnostic.format() << "\n";
}

int serve(http::ServerOptions options) {
  const auto loaded = config::loadCatalog(options.services_dir, config::processEnvironment());
  if (!loaded.ok()) {
    printDiagnostics(loaded.diagnostics);
    std::cerr << "sluice: the catalog in " << options.services_dir << " is invalid; refusing to start\n";
    return 2;
  }
  for (const auto& diagnostic : loaded.diagnostics) log::warn("catalog", {{"diagnostic", diagnostic.format()}});

  // Signals are taken synchronously by the main thread; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  http::Gateway gateway(options, loaded.catalog);
  Poco::Net::ServerSocket socket;
  try {
    socket.bind(Poco::Net::SocketAddress(options.listen), true);
    socket.listen(1024);
  } catch (const Poco::Exception& error) {
    std::cerr << "sluice: cannot listen on " << options.listen << ": " << error.displayText() << "\n";
    return 1;
  }
  Poco::Net::HTTPServerParams::Ptr params = new Poco::Net::HTTPServerParams;
  params->setMaxThreads(options.threads);
  params->setMaxQueued(options.threads);
  params->setKeepAlive(true);
  params->setMaxKeepAliveRequests(100000);
  params->setKeepAliveTimeout(Poco::Timespan(75, 0));
  params->setTimeout(Poco::Timespan(120, 0));
  Poco::ThreadPool pool(8, options.threads, 60, 256 * 1024);
  Poco::Net::HTTPRequestHandlerFactory::Ptr router = new http::Router(gateway);
  Poco::Net::TCPServer server(new http::ConnectionFactory(params, router, gateway), pool, socket, params);
  server.start();

  const std::string address = socket.address().toString();
  log::info("listening", {{"address", address}, {"catalog_version", loaded.catalog->version}, {"threads", options.threads}});
  std::cout << "listening on " << address << std::endl;

  for (;;) {
    int received = 0;
    sigwait(&signals, &received);
    if (received == SIGHUP) {
      auto next = config::loadCatalog(options.services_dir, config::processEnvironment());
      if (next.ok()) {
        gateway.swapCatalog(next.catalog);
        log::info("catalog reloaded", {{"version", next.catalog->version}});
      } else {
        nlohmann::json problems = nlohmann::json::array();
        for (const auto& diagnostic : next.diagnostics) problems.push_back(diagnostic.format());
        log::error("catalog reload refused; the last good catalog keeps serving", {{"diagnostics", problems}});
      }
      continue;
    }
    break;
  }

  log::info("draining", {{"in_flight", server.currentConnections()}, {"drain_seconds", options.drain_seconds}});
  gateway.stopping().store(true);
  server.stop();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.drain_seconds);
  while (server.currentConnections() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const int left = server.currentConnections();
  log::info("stopped", {{"abandoned_connections", left}});
  if (left > 0) {
    std::fflush(nullptr);
    std::_Exit(0);  // NOTE: the drain bound passed; connections still open are cut rather than waited for.
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  http::ServerOptions options;
  std::string database_url;
  bool no_migrate = false;
  size_t max_body = options.max_body_bytes;
  size_t max_header = options.max_header_bytes;
  CLI::App app{"sluice: a declarative, catalog-driven LLM gateway"};
  app.add_option("--services", options.services_dir, "catalog directory (ai/*.yaml, access-control/rules.yaml)")
      ->envname("SLUICE_SERVICES")
      ->capture_default_str();
  app.add_option("--listen", options.listen, "HOST:PORT to listen on (port 0 picks a free one)")
      ->envname("SLUICE_LISTEN")
      ->capture_default_str();
  app.add_option("--database-url", database_url, "PostgreSQL URL for the audit trail, keys and quotas")
      ->envname("SLUICE_DATABASE_URL");
  app.add_flag("--no-migrate", no_migrate, "never apply database migrations at boot")->envname("SLUICE_NO_MIGRATE");
  app.add_option("--threads", options.threads, "request threads (a stream holds one for its life)")
      ->envname("SLUICE_THREADS")
      ->check(CLI::Range(2, 100000))
      ->capture_default_str();
  app.add_option("--max-body-bytes", max_body, "largest request body accepted (413 beyond)")
      ->envname("SLUICE_MAX_BODY_BYTES")
      ->capture_default_str();
  app.add_option("--max-header-bytes", max_header, "largest request head accepted (431 beyond)")
      ->envname("SLUICE_MAX_HEADER_BYTES")
      ->capture_default_str();
  app.add_option("--drain-seconds", options.drain_seconds, "how long shutdown waits for in-flight requests")
      ->envname("SLUICE_DRAIN_SECONDS")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  options.max_body_bytes = max_body;
  options.max_header_bytes = max_header;
  if (!database_url.empty()) options.database_url = database_url;
  return serve(options);
}
