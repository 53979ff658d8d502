#pragma once
// The state every request handler shares: the catalog snapshot, the upstream client and the
// server's settings. Thread-safe: the catalog pointer is swapped atomically, everything else is
// immutable after start-up or internally synchronised.

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "server/http/client_watch.h"
#include "server/http/endpoint_states.h"
#include "server/upstream/client.h"

namespace sluice::audit {
class Writer;
}  // namespace sluice::audit

namespace sluice::http {

struct ServerOptions {
  std::string services_dir = "services";
  std::string listen = "127.0.0.1:8080";
  std::optional<std::string> database_url;
  int threads = 1024;
  size_t max_body_bytes = 32u << 20;
  size_t max_header_bytes = 64u << 10;
  int drain_seconds = 30;
};

class Gateway {
 public:
  Gateway(ServerOptions options, std::shared_ptr<const catalog::Catalog> catalog)
      : options_(std::move(options)), catalog_(std::move(catalog)) {}

  // The snapshot a request keeps for its whole life.
  std::shared_ptr<const catalog::Catalog> catalog() const { return catalog_.load(); }
  void swapCatalog(std::shared_ptr<const catalog::Catalog> next) { catalog_.store(std::move(next)); }

  const ServerOptions& options() const { return options_; }
  upstream::Client& upstream() { return upstream_; }
  // Breakers and in-flight counts per provider endpoint (this process's view).
  EndpointStates& endpoints() { return endpoints_; }
  // Notices callers that hang up while their request waits on a provider.
  ClientWatch& clientWatch() { return client_watch_; }

  // Set when shutdown begins: keep-alive connections close after their current request.
  std::atomic<bool>& stopping() { return stopping_; }

  // The audit writer; null when no database is configured (audit::RequestAudit then does nothing).
  // Set once at start-up, before the server accepts requests; owned by main.
  audit::Writer* audit() const { return audit_; }
  void setAudit(audit::Writer* writer) { audit_ = writer; }

 private:
  ServerOptions options_;
  std::atomic<std::shared_ptr<const catalog::Catalog>> catalog_;
  upstream::Client upstream_;
  EndpointStates endpoints_;
  ClientWatch client_watch_;
  std::atomic<bool> stopping_{false};
  audit::Writer* audit_ = nullptr;
};

}  // namespace sluice::http
