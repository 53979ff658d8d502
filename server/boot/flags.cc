#include "server/boot/flags.h"

#include <iostream>
#include <string>

#include <CLI/CLI.hpp>

#include <unistd.h>

#include "server/http/connection_limits.h"

namespace sluice::boot {

std::optional<int> parseFlags(int argc, char** argv, Settings& settings) {
  http::ServerOptions& options = settings.server;
  AuditSettings& audit_settings = settings.audit;
  ReloadSettings& reload_settings = settings.reload;
  std::string database_url;
  std::string ops_token;
  std::string admin_listen;
  bool& no_migrate = audit_settings.no_migrate;
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
  app.add_flag("--no-migrate", no_migrate, "never apply database migrations at boot (refuse to start if some are pending)")
      ->envname("SLUICE_NO_MIGRATE");
  app.add_option("--migrations", audit_settings.migrations_dir, "apply migrations from DIR instead of the built-in ones")
      ->envname("SLUICE_MIGRATIONS");
  app.add_option("--audit-retention-days", audit_settings.retention_days,
                 "drop audit partitions older than this many days (0 keeps everything)")
      ->envname("SLUICE_AUDIT_RETENTION_DAYS")
      ->check(CLI::Range(0, 100000))
      ->capture_default_str();
  app.add_flag("!--no-audit-journal", audit_settings.journal,
               "keep no audit journal (<spool>.journal): a process killed outright (SIGKILL, the OOM killer) "
               "then loses the rows still in memory and leaves no row for its requests in flight")
      ->envname("SLUICE_NO_AUDIT_JOURNAL");
  app.add_option("--audit-spool", audit_settings.spool_path,
                 "audit spool file for rows PostgreSQL cannot take (default /var/lib/sluice/audit.spool, "
                 "else ./sluice-audit.spool)")
      ->envname("SLUICE_AUDIT_SPOOL");
  app.add_option("--workers", options.workers,
                 "event-loop threads that run the connections as fibers (-1: one per CPU; 0: a thread per "
                 "connection instead, up to --threads)")
      ->envname("SLUICE_WORKERS")
      ->check(CLI::Range(-1, 1024))
      ->capture_default_str();
  app.add_option("--spin-us", options.spin_us,
                 "before a loop sleeps, poll for up to this many microseconds while its recent waits ended "
                 "that soon (fast providers answer without a wake-up from sleep; slow ones turn it off); 0: never")
      ->envname("SLUICE_SPIN_US")
      ->check(CLI::Range(0, 10000))
      ->capture_default_str();
  app.add_option("--threads", options.threads, "with --workers 0: request threads (a stream holds one for its life)")
      ->envname("SLUICE_THREADS")
      ->check(CLI::Range(2, 100000))
      ->capture_default_str();
  app.add_option("--max-body-bytes", max_body, "largest request body accepted (413 beyond)")
      ->envname("SLUICE_MAX_BODY_BYTES")
      ->capture_default_str();
  app.add_option("--max-buffered-bytes", options.max_buffered_bytes,
                 "request bodies held in memory across all connections (503 overloaded beyond); 0: an eighth "
                 "of the machine's memory, at least 64 MiB")
      ->envname("SLUICE_MAX_BUFFERED_BYTES")
      ->capture_default_str();
  app.add_option("--max-header-bytes", max_header, "largest request head accepted (431 beyond)")
      ->envname("SLUICE_MAX_HEADER_BYTES")
      ->capture_default_str();
  app.add_flag("--insecure-no-auth", options.insecure_no_auth,
               "serve without checking API keys (local development only; every request is anonymous)")
      ->envname("SLUICE_INSECURE_NO_AUTH");
  app.add_option("--allowed-hosts", options.allowed_hosts,
                 "with --insecure-no-auth: Host names answered besides loopback ones and the --listen host "
                 "(comma-separated; * for any)")
      ->envname("SLUICE_ALLOWED_HOSTS");
  app.add_option("--unauthenticated-rows-per-peer", options.unauthenticated_rows_per_peer,
                 "audit rows written for refusals without a valid key, per peer address and 10 s; the rest "
                 "are counted into one summary row per window (0: a row for every refusal)")
      ->envname("SLUICE_UNAUTHENTICATED_ROWS_PER_PEER")
      ->capture_default_str();
  app.add_option("--admin-listen", admin_listen,
                 "serve /healthz, /readyz, /metrics and /admin/api/catalog/status on this HOST:PORT instead "
                 "of the main address (which keeps /healthz and the console)")
      ->envname("SLUICE_ADMIN_LISTEN");
  app.add_option("--tls-cert", options.tls_cert,
                 "serve HTTPS on --listen with this PEM certificate (and its chain); needs --tls-key")
      ->envname("SLUICE_TLS_CERT");
  app.add_option("--tls-key", options.tls_key, "the PEM private key of --tls-cert")->envname("SLUICE_TLS_KEY");
  app.add_option("--client-ca", options.client_ca,
                 "with --tls-cert: ask every client for a certificate and refuse one not signed by these PEM CA "
                 "certificates; a verified certificate may identify its member (gateway.yaml identity:)")
      ->envname("SLUICE_CLIENT_CA");
  app.add_option("--responses-retention-days", options.responses_retention_days,
                 "with a database: days the gateway keeps Responses-API responses created with store not false "
                 "(previous_response_id, item_reference, GET /v1/responses/{id}); 0: keep none")
      ->envname("SLUICE_RESPONSES_RETENTION_DAYS")
      ->check(CLI::Range(0, 3650))
      ->capture_default_str();
  app.add_option("--responses-max-bytes", options.responses_max_bytes,
                 "largest stored form of one response (its input and output); a larger one is not kept")
      ->envname("SLUICE_RESPONSES_MAX_BYTES")
      ->capture_default_str();
  app.add_option("--ops-token", ops_token,
                 "bearer token for the operations endpoints: /metrics then requires it, and "
                 "/admin/api/catalog/status accepts it besides a signed-in admin")
      ->envname("SLUICE_OPS_TOKEN");
  app.add_option("--scim-token-file", settings.provisioning.scim_token_file,
                 "serve SCIM 2.0 provisioning at /scim/v2 to an identity provider presenting the bearer token in "
                 "this file (at least 32 characters; needs --database-url); without it /scim answers 404")
      ->envname("SLUICE_SCIM_TOKEN_FILE");
  app.add_option("--watch-ms", reload_settings.watch_ms,
                 "how often the catalog's files are checked for changes (0: reload on SIGHUP only)")
      ->envname("SLUICE_WATCH_MS")
      ->capture_default_str();
  app.add_option("--replica-name", options.replica_name,
                 "this replica's name on its audit rows, metrics and the console (default: the host name)")
      ->envname("SLUICE_REPLICA_NAME");
  app.add_option("--drain-delay-ms", options.drain_delay_ms,
                 "on SIGTERM: how long /readyz fails (and answers close their connections) while requests are "
                 "still accepted, before accepting stops and in-flight requests drain (SIGINT skips it)")
      ->envname("SLUICE_DRAIN_DELAY_MS")
      ->check(CLI::Range(0, 600000))
      ->capture_default_str();
  app.add_option("--drain-seconds", options.drain_seconds, "how long shutdown waits for in-flight requests")
      ->envname("SLUICE_DRAIN_SECONDS")
      ->capture_default_str();
  app.add_option("--head-timeout-ms", options.head_timeout_ms,
                 "a request head must arrive whole within this (a connection's first: from its accept), "
                 "however its bytes trickle; 408 and close beyond")
      ->envname("SLUICE_HEAD_TIMEOUT_MS")
      ->check(CLI::Range(1, 3600000))
      ->capture_default_str();
  app.add_option("--min-body-bytes-per-second", options.min_body_bytes_per_second,
                 "after --body-grace-ms a request body slower than this is cut with 408 (0: no minimum)")
      ->envname("SLUICE_MIN_BODY_BYTES_PER_SECOND")
      ->capture_default_str();
  app.add_option("--body-grace-ms", options.body_grace_ms,
                 "how long a request body may arrive at any rate before --min-body-bytes-per-second applies")
      ->envname("SLUICE_BODY_GRACE_MS")
      ->check(CLI::Range(0, 3600000))
      ->capture_default_str();
  app.add_option("--max-connections", options.max_connections,
                 "open client connections; one more is answered 503 and closed at once (0: no cap)")
      ->envname("SLUICE_MAX_CONNECTIONS")
      ->capture_default_str();
  app.add_option("--max-connections-per-peer", options.max_connections_per_peer,
                 "open client connections from one peer address; one more is answered 503 and closed at once "
                 "(0: no cap)")
      ->envname("SLUICE_MAX_CONNECTIONS_PER_PEER")
      ->capture_default_str();
  std::string trusted_balancers;
  app.add_option("--trusted-balancers", trusted_balancers,
                 "comma-separated address blocks of your load balancers: their connections are exempt from "
                 "--max-connections-per-peer, which then counts each request's X-Forwarded-For client instead")
      ->envname("SLUICE_TRUSTED_BALANCERS");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  options.max_body_bytes = max_body;
  options.max_header_bytes = max_header;
  if (!database_url.empty()) options.database_url = database_url;
  if (!ops_token.empty()) options.ops_token = ops_token;
  if (!admin_listen.empty()) options.admin_listen = admin_listen;
  if (auto balancers = http::parseBalancers(trusted_balancers); balancers) {
    options.trusted_balancers = std::move(*balancers);
  } else {
    std::cerr << "sluice: " << balancers.error() << "\n";
    return 2;
  }
  if (options.replica_name.empty()) {
    char host[256] = {};
    options.replica_name = ::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0' ? host : "sluice";
  }
  if (options.replica_name.size() > 128) options.replica_name.resize(128);
  if (options.tls_cert.empty() != options.tls_key.empty()) {
    std::cerr << "sluice: --tls-cert and --tls-key go together (a certificate and its private key)\n";
    return 2;
  }
  if (!options.client_ca.empty() && options.tls_cert.empty()) {
    std::cerr << "sluice: --client-ca needs --tls-cert and --tls-key (client certificates are only asked for over "
                 "HTTPS)\n";
    return 2;
  }
  if (!settings.provisioning.scim_token_file.empty() && !options.database_url) {
    std::cerr << "sluice: --scim-token-file needs --database-url: SCIM provisions members into PostgreSQL\n";
    return 2;
  }
  if (!options.database_url && !options.insecure_no_auth) {
    std::cerr << "sluice: API keys live in PostgreSQL: give --database-url (or SLUICE_DATABASE_URL), or\n"
                 "       --insecure-no-auth to serve anonymously for local development\n";
    return 2;
  }
  return std::nullopt;
}

}  // namespace sluice::boot
