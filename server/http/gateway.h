#pragma once
// The state every request handler shares: the catalog snapshot, the upstream client and the
// server's settings. Thread-safe: the catalog pointer is swapped atomically, everything else is
// immutable after start-up or internally synchronised.

#include <atomic>
#include <functional>
#include <cstddef>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "server/cloud/aws_credentials.h"
#include "server/cloud/cloud_auth.h"
#include "server/http/body_budget.h"
#include "server/http/client_tls.h"
#include "server/http/client_watch.h"
#include "server/http/connection_limits.h"
#include "server/http/database_readiness.h"
#include "server/http/endpoint_states.h"
#include "server/identity/authenticator.h"
#include "server/identity/quota_store.h"
#include "server/metrics/gateway_metrics.h"
#include "server/metrics/registry.h"
#include "server/presence/board.h"
#include "server/store/connection_pool.h"
#include "server/upstream/client.h"
#include "server/audit/refusal_throttle.h"
#include "server/util/background_task.h"

namespace Poco::Net {
class HTTPRequestHandler;
class HTTPServerRequest;
}  // namespace Poco::Net

namespace sluice::responses {
class Store;
}  // namespace sluice::responses

namespace sluice::audit {
class Sink;
class Writer;
}  // namespace sluice::audit

namespace sluice::telemetry {
class Tracer;
}

namespace sluice::http {

class Handler;
class Request;

struct ServerOptions {
  std::string services_dir = "services";
  std::string listen = "127.0.0.1:8080";
  std::optional<std::string> database_url;
  int workers = -1;     // event-loop threads running connections as fibers; -1 one per CPU, 0 none
  int spin_us = 100;    // net::fiber::Loop::Options::spin: poll this long before sleeping, while waits end that soon
  int threads = 1024;   // with workers == 0: a thread per connection, up to this many
  size_t max_body_bytes = 32u << 20;
  size_t max_header_bytes = 64u << 10;
  // Request bodies held in memory across every connection (BodyBudget); 0: an eighth of the
  // machine's memory, at least 64 MiB.
  size_t max_buffered_bytes = 0;
  int drain_seconds = 30;
  int drain_delay_ms = 0;
  // This replica's name on its audit rows and in the console's live view (default: the host name).
  std::string replica_name;  // on SIGTERM: readiness fails this long before accepting stops
  // Deadlines, not idle timers (server/http/connection.cc): a request head must arrive whole
  // within head_timeout_ms (a connection's first head: from its accept); a body must keep up
  // min_body_bytes_per_second after body_grace_ms (0: no minimum), else 408 and close.
  int head_timeout_ms = 10000;
  uint64_t min_body_bytes_per_second = 1024;
  int body_grace_ms = 10000;
  // Open client connections, overall and per peer address; one over a cap is answered 503 and
  // closed at once. 0: no cap.
  size_t max_connections = 10000;
  size_t max_connections_per_peer = 1024;
  // --trusted-balancers: peers whose connections count against max_connections only; each
  // request they forward counts against the per-peer cap of its X-Forwarded-For client
  // (http/connection_limits.h). gateway.trusted_proxies' `from` is trusted the same way.
  std::vector<catalog::Cidr> trusted_balancers;
  // Serve without API keys (local development only; every request is anonymous). Without a
  // database there is nothing to check keys against, so the server then requires this flag.
  bool insecure_no_auth = false;
  // With insecure_no_auth: Host names answered besides loopback ones and the --listen host
  // (comma-separated; `*`: any). A browser's page or a rebound DNS name reaches nothing else.
  std::string allowed_hosts;
  // --ops-token: a bearer token for the operations endpoints. When set, /metrics requires it and
  // /admin/api/catalog/status accepts it (besides a signed-in admin). Unset: /metrics is open and
  // catalog/status answers only to a signed-in admin.
  std::optional<std::string> ops_token;
  // A second address for /healthz, /readyz, /metrics and the catalog status; the main address
  // then answers 404 for /readyz, /metrics and the token-read status (http::Surface).
  std::optional<std::string> admin_listen;
  // --tls-cert, --tls-key, --client-ca: serve HTTPS on --listen (http/client_tls.h); with a client
  // CA, client certificates are asked for and verified. Empty: plain HTTP.
  std::string tls_cert;
  std::string tls_key;
  std::string client_ca;
  // Audit rows for refusals without a valid key, per peer address and 10 s window; the rest are
  // counted into one summary row per window (audit::RefusalThrottle). 0: no limit.
  uint32_t unauthenticated_rows_per_peer = 10;
  // The Responses store (with a database): how long responses are kept, 0 = not kept at all
  // (then previous_response_id and item_reference are refused as before); one response's bound.
  int responses_retention_days = 30;
  size_t responses_max_bytes = 16u << 20;
};

// Who may call, backed by PostgreSQL; absent with --insecure-no-auth.
struct Identity {
  std::shared_ptr<store::ConnectionPool> pool;
  std::shared_ptr<identity::Authenticator> authenticator;
  std::shared_ptr<identity::QuotaStore> quotas;
};

// What live reload last did: shown at GET /admin/api/catalog/status.
struct CatalogStatus {
  std::string version;
  std::chrono::system_clock::time_point loaded_at{};
  std::string loaded_by;  // "boot", "sighup", "watch"
  uint64_t reloads_accepted = 0;
  uint64_t reloads_refused = 0;
  std::optional<std::chrono::system_clock::time_point> refused_at;
  std::vector<std::string> refused_diagnostics;  // of the last refused reload
  bool refusal_standing = false;  // the newest reload was refused: cleared by any reload that compiles
};

// What boot builds before the gateway exists, handed over whole: the gateway has no setters, so
// nothing serves with a part still missing.
struct Wiring {
  Identity identity;                              // empty members with --insecure-no-auth
  std::shared_ptr<const ServerTls> tls;           // HTTPS on the main listener; null: plain HTTP
  std::shared_ptr<responses::Store> responses;    // null without a database (or retention 0)
  audit::Writer* audit = nullptr;                 // owned by boot; null without a database
  audit::Sink* audit_sink = nullptr;              // where the request path's rows go; null: `audit`
  upstream::Transport* transport = nullptr;       // tests: a fake (must outlive the gateway); null: sockets
  telemetry::Tracer* tracer = nullptr;            // OpenTelemetry traces; null: off (owned by boot)
};

class Gateway {
 public:
  Gateway(ServerOptions options, std::shared_ptr<const catalog::Catalog> catalog, Wiring wiring = {});

  // The snapshot a request keeps for its whole life.
  std::shared_ptr<const catalog::Catalog> catalog() const { return catalog_.load(); }
  void swapCatalog(std::shared_ptr<const catalog::Catalog> next) { catalog_.store(std::move(next)); }

  const ServerOptions& options() const { return options_; }
  // How calls reach providers: the socket client, unless the wiring named another transport.
  upstream::Transport& upstream() { return transport_ ? *transport_ : upstream_; }
  // Breakers and in-flight counts per provider endpoint (this process's view).
  EndpointStates& endpoints() { return endpoints_; }
  // The AWS keys Bedrock calls are signed with (`aws:` credentials).
  const cloud::AwsCredentialStore& awsCredentials() const { return aws_credentials_; }
  // How Vertex and Azure calls are authorised (gcp:/azure: credentials; the token cache).
  cloud::CloudAuth& cloudAuth() { return cloud_auth_; }
  // What the presence hub last said about the own machines (written by presence::PresencePoller).
  presence::PresenceBoard& presence() { return presence_; }
  // Notices callers that hang up while their request waits on a provider.
  ClientWatch& clientWatch() { return client_watch_; }
  // What the background database check last saw (GET /readyz answers from it).
  DatabaseReadiness& databaseReadiness() { return database_readiness_; }
  // The bytes of request bodies every connection holds, bounded by --max-buffered-bytes.
  BodyBudget& bodyBudget() { return body_budget_; }

  // Prometheus: the registry /metrics renders and the gateway's families.
  metrics::Registry& registry() { return registry_; }
  metrics::GatewayMetrics& metrics() { return metrics_; }
  // Where finished requests' spans go (OTEL_EXPORTER_OTLP_*); null when tracing is off.
  telemetry::Tracer* tracer() const { return tracer_; }

  // Live reload: swaps the catalog when `next` is valid (ok), records the outcome either way.
  void catalogReloaded(std::shared_ptr<const catalog::Catalog> next, const std::string& trigger);
  void catalogRefused(const std::vector<std::string>& diagnostics, const std::string& trigger);
  // A reload compiled to the catalog already serving (a broken file put back): nothing to swap,
  // but a standing refusal is over.
  void catalogUnchanged();
  CatalogStatus catalogStatus() const;

  // Identity (API keys, personal credentials, quotas); null members with --insecure-no-auth.
  const Identity& identity() const { return identity_; }

  // HTTPS on the main listener (with --tls-cert); null for plain HTTP.
  const ServerTls* tls() const { return tls_.get(); }
  // Why `catalog` cannot be served by this process ("" when it can): `identity: certificate`
  // without --client-ca would refuse every caller. Checked at boot and on every reload.
  std::string identityConflict(const catalog::Catalog& catalog) const;

  // The caps on open client connections (options().max_connections, max_connections_per_peer).
  ConnectionLimits& connectionLimits() { return connection_limits_; }

  // Set when shutdown begins: keep-alive connections close after their current request.
  std::atomic<bool>& stopping() { return stopping_; }
  // Set on SIGTERM before stopping(): /readyz answers 503 "draining" and answers close their
  // connections, while requests are still accepted and served.
  std::atomic<bool>& draining() { return draining_; }

  // The audit writer; null when no database is configured (audit::RequestAudit then does nothing).
  audit::Writer* audit() const { return audit_; }
  // Where the request path's rows go: the writer, or what the wiring named; null = nowhere.
  audit::Sink* auditSink() const { return audit_sink_; }

  // Keyless refusals' rows, rate-limited per peer; a background task writes the summaries of
  // ended windows to the audit sink every second. flushRefusalSummaries() writes all of them now
  // (before the audit trail stops).
  audit::RefusalThrottle& refusalThrottle() { return refusal_throttle_; }

  // The Responses store; nullptr without a database (or with retention 0).
  responses::Store* responseStore() const { return response_store_.get(); }
  void flushRefusalSummaries();
  ~Gateway();

 private:
  ServerOptions options_;
  std::atomic<std::shared_ptr<const catalog::Catalog>> catalog_;
  upstream::Client upstream_;
  upstream::Transport* transport_ = nullptr;
  telemetry::Tracer* tracer_ = nullptr;
  metrics::Registry registry_;
  metrics::GatewayMetrics metrics_{registry_};
  EndpointStates endpoints_;
  cloud::AwsCredentialStore aws_credentials_;
  cloud::CloudAuth cloud_auth_;
  presence::PresenceBoard presence_;
  ClientWatch client_watch_;
  DatabaseReadiness database_readiness_;
  BodyBudget body_budget_;
  ConnectionLimits connection_limits_{options_.max_connections, options_.max_connections_per_peer};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> draining_{false};
  audit::Writer* audit_ = nullptr;
  audit::Sink* audit_sink_ = nullptr;
  void writeRefusalSummaries(const std::vector<audit::RefusalThrottle::Summary>& summaries);
  void startRefusalFlush();

  audit::RefusalThrottle refusal_throttle_{{.rows_per_window = options_.unauthenticated_rows_per_peer}};
  std::unique_ptr<util::BackgroundTask> refusal_flush_;
  Identity identity_;
  std::shared_ptr<const ServerTls> tls_;
  std::shared_ptr<responses::Store> response_store_;
  mutable std::mutex status_mutex_;
  CatalogStatus status_;
};

}  // namespace sluice::http
