// The composition root: reads flags and environment, loads the catalog, wires the parts, serves
// until SIGTERM/SIGINT, then drains in-flight requests (bounded) and exits 0. SIGHUP reloads the
// catalog; an invalid one is refused and the last good one keeps serving.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include <CLI/CLI.hpp>
#include <Poco/Net/HTTPServerParams.h>
#include <Poco/Net/ServerSocket.h>
#include <Poco/Net/SocketAddress.h>
#include <Poco/Net/TCPServer.h>
#include <Poco/ThreadPool.h>

#include <malloc.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include "server/admin/console.h"
#include "server/audit/partition_keeper.h"
#include "server/audit/writer.h"
#include "server/config/catalog_loader.h"
#include "server/config/catalog_watch.h"
#include "server/http/connection.h"
#include "server/http/gateway.h"
#include "server/http/router.h"
#include "server/identity/authenticator.h"
#include "server/identity/quota_store.h"
#include "server/identity/vault.h"
#include "server/log/json_log.h"
#include "server/net/fiber.h"
#include "server/store/database.h"
#include "server/store/migrations.h"

using namespace sluice;

namespace {

void printDiagnostics(const std::vector<catalog::Diagnostic>& diagnostics) {
  for (const auto& diagnostic : diagnostics) std::cerr << diagnostic.format() << "\n";
}

// The audit trail's settings (--database-url lives in ServerOptions).
struct ReloadSettings {
  int watch_ms = 500;  // 0: no file watch (SIGHUP only)
};

struct AuditSettings {
  bool no_migrate = false;
  std::string migrations_dir;  // empty: the migrations compiled into the binary
  int retention_days = 90;
  std::string spool_path;      // empty: kDefaultSpool, else ./sluice-audit.spool
};

constexpr const char* kDefaultSpool = "/var/lib/sluice/audit.spool";

std::string resolveSpoolPath(const std::string& configured) {
  if (!configured.empty()) return configured;
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(kDefaultSpool).parent_path(), ignored);
  if (std::ofstream(kDefaultSpool, std::ios::app)) return kDefaultSpool;
  log::info("audit spool falls back to the working directory", {{"unwritable", kDefaultSpool}});
  return "sluice-audit.spool";
}

// Applies pending migrations (or, with --no-migrate, refuses to start when some are pending).
// Returns the exit code to stop with, 0 to go on.
int prepareDatabase(const std::string& url, const AuditSettings& settings) {
  std::vector<store::Migration> migrations = store::embeddedMigrations();
  if (!settings.migrations_dir.empty()) {
    auto loaded = store::loadMigrations(settings.migrations_dir);
    if (!loaded) {
      std::cerr << "sluice: " << loaded.error() << "\n";
      return 2;
    }
    migrations = std::move(*loaded);
  }
  try {
    auto connection = store::connect(url, 10);
    if (settings.no_migrate) {
      const auto status = store::migrationStatus(*connection, migrations);
      if (!status.pending.empty()) {
        char first[16];
        std::snprintf(first, sizeof first, "%04d_", status.pending.front().version);
        std::cerr << "sluice: the database at " << store::redactUrl(url) << " lacks " << status.pending.size()
                  << " migration(s) (first: " << first << status.pending.front().name
                  << ") and --no-migrate forbids applying them; run `sluicectl migrate` first\n";
        return 1;
      }
    } else {
      const auto applied = store::applyMigrations(*connection, migrations);
      if (!applied.empty()) log::info("database migrations applied", {{"versions", applied}});
    }
  } catch (const std::exception& error) {
    std::cerr << "sluice: cannot prepare the database at " << store::redactUrl(url) << ": " << error.what() << "\n";
    return 1;
  }
  return 0;
}

int serve(http::ServerOptions options, const AuditSettings& audit_settings, const ReloadSettings& reload_settings) {
  if (!options.database_url && !options.insecure_no_auth) {
    std::cerr << "sluice: API keys live in PostgreSQL: give --database-url (or SLUICE_DATABASE_URL), or\n"
                 "       --insecure-no-auth to serve anonymously for local development\n";
    return 2;
  }
  // Taken before the load, so a file changed while the gateway boots is reloaded once watched.
  std::optional<std::string> boot_fingerprint;
  if (reload_settings.watch_ms > 0) boot_fingerprint = config::CatalogWatch::fingerprint(options.services_dir);
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

  // The audit trail: schema first, then the writer (which replays any spool a previous run left).
  std::atomic<metrics::Histogram*> batch_rows{nullptr};
  std::unique_ptr<audit::Writer> audit_writer;
  std::unique_ptr<audit::PartitionKeeper> partition_keeper;
  if (options.database_url) {
    if (const int code = prepareDatabase(*options.database_url, audit_settings); code != 0) return code;
    audit::WriterOptions writer_options;
    writer_options.database_url = *options.database_url;
    writer_options.spool_path = resolveSpoolPath(audit_settings.spool_path);
    // The gateway (and its metrics) is made after the writer: batches written before it exists
    // are not observed.
    writer_options.on_batch = [&batch_rows](size_t rows, double) {
      if (auto* histogram = batch_rows.load()) histogram->observe(static_cast<double>(rows));
    };
    audit_writer = std::make_unique<audit::Writer>(writer_options);
    try {
      audit_writer->start();
    } catch (const std::exception& error) {
      std::cerr << "sluice: " << error.what() << "\n";
      return 1;
    }
    partition_keeper = std::make_unique<audit::PartitionKeeper>(audit::PartitionKeeperOptions{
        .database_url = *options.database_url, .retention_days = audit_settings.retention_days});
    partition_keeper->start();
    log::info("audit trail on", {{"spool", writer_options.spool_path}, {"retention_days", audit_settings.retention_days}});
  } else {
    log::warn("no --database-url: requests are not audited");
  }

  http::Gateway gateway(options, loaded.catalog);
  gateway.setAudit(audit_writer.get());
  if (options.database_url && !options.insecure_no_auth) {
    auto vault = identity::vaultFromEnvironment(config::processEnvironment());
    if (!vault) {
      std::cerr << "sluice: " << vault.error() << "\n";
      return 2;
    }
    http::Identity identity;
    identity.pool = std::make_shared<identity::ConnectionPool>(*options.database_url, identity::PoolOptions{});
    const std::shared_ptr<const identity::Vault> sealed =
        *vault ? std::make_shared<const identity::Vault>(std::move(**vault)) : nullptr;
    identity.authenticator = std::make_shared<identity::Authenticator>(identity.pool, sealed);
    identity.quotas = std::make_shared<identity::QuotaStore>(identity.pool);
    gateway.setIdentity(std::move(identity));
    log::info("API keys required", {{"personal_credentials", sealed != nullptr}});
  } else {
    log::warn("--insecure-no-auth: API keys are not checked; every request is anonymous");
  }
  admin::installConsole(gateway);
  batch_rows.store(&gateway.metrics().audit_batch_rows.with({}));
  struct Unhook {
    std::atomic<metrics::Histogram*>& hook;
    ~Unhook() { hook.store(nullptr); }  // before the gateway goes, on every return path
  } unhook{batch_rows};
  if (audit_writer) {
    audit::Writer* writer = audit_writer.get();
    gateway.metrics().setAuditSource([writer] {
      const audit::WriterStats stats = writer->stats();
      metrics::AuditFigures figures;
      figures.queue_depth = stats.queue_depth;
      figures.rows_written = stats.rows_written;
      figures.rows_spooled = stats.rows_spooled;
      figures.rows_replayed = stats.rows_replayed;
      figures.batches = stats.batches;
      figures.spool_rows = stats.rows_spooled >= stats.rows_replayed ? stats.rows_spooled - stats.rows_replayed : 0;
      figures.spool_bytes = stats.spool_bytes;
      figures.database_available = stats.database_available;
      return figures;
    });
  }

  // Live reload: SIGHUP, and any change to the catalog's files once it has settled.
  std::mutex reload_mutex;
  auto reload = [&](const std::string& trigger) {
    std::lock_guard lock(reload_mutex);
    auto next = config::loadCatalog(options.services_dir, config::processEnvironment());
    if (next.ok()) {
      const auto current = gateway.catalog();
      if (current && current->version == next.catalog->version && trigger == "watch") return;
      gateway.catalogReloaded(next.catalog, trigger);
      log::info("catalog reloaded", {{"version", next.catalog->version}, {"trigger", trigger}});
    } else {
      std::vector<std::string> problems;
      for (const auto& diagnostic : next.diagnostics) problems.push_back(diagnostic.format());
      gateway.catalogRefused(problems, trigger);
      log::error("catalog reload refused; the last good catalog keeps serving",
                 {{"diagnostics", problems}, {"trigger", trigger}});
    }
  };
  // Housekeeping: quota counters of windows that ended more than a day ago are deleted hourly.
  std::mutex housekeeping_mutex;
  std::condition_variable housekeeping_wake;
  bool housekeeping_stop = false;
  std::thread housekeeping;
  if (const auto quotas = gateway.identity().quotas) {
    housekeeping = std::thread([&, quotas] {
      std::unique_lock lock(housekeeping_mutex);
      do {
        lock.unlock();
        try {
          const size_t pruned = quotas->prune(std::chrono::system_clock::now() - std::chrono::hours(24));
          if (pruned > 0) log::info("quota counters pruned", {{"rows", pruned}});
        } catch (const std::exception& error) {
          log::warn("quota counters not pruned", {{"error", error.what()}});
        }
        lock.lock();
      } while (!housekeeping_wake.wait_for(lock, std::chrono::hours(1), [&] { return housekeeping_stop; }));
    });
  }
  auto stop_housekeeping = [&] {
    {
      std::lock_guard lock(housekeeping_mutex);
      housekeeping_stop = true;
    }
    housekeeping_wake.notify_all();
    if (housekeeping.joinable()) housekeeping.join();
  };
  struct JoinHousekeeping {
    std::function<void()> stop;
    ~JoinHousekeeping() { stop(); }
  } join_housekeeping{stop_housekeeping};

  std::unique_ptr<config::CatalogWatch> watch;
  if (reload_settings.watch_ms > 0) {
    watch = std::make_unique<config::CatalogWatch>(options.services_dir, std::chrono::milliseconds(reload_settings.watch_ms),
                                                   [&] { reload("watch"); });
    watch->start(std::move(boot_fingerprint));
  }
  Poco::Net::ServerSocket socket;
  try {
    // SO_REUSEADDR (a restart binds at once), not SO_REUSEPORT: a second gateway started on the
    // same port by mistake must fail here, not quietly take half the connections.
    socket.bind(Poco::Net::SocketAddress(options.listen), true, false);
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
  Poco::Net::HTTPRequestHandlerFactory::Ptr router = new http::Router(gateway);
  // Connections run as fibers on `workers` event-loop threads (net/fiber.h); --workers 0 gives
  // each connection a thread of its own from a pool (Poco's TCPServer), as before.
  const int workers = options.workers < 0 ? static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))
                                          : options.workers;
  std::unique_ptr<net::fiber::Loop> loop;
  std::optional<Poco::ThreadPool> pool;
  std::unique_ptr<Poco::Net::TCPServer> server;
  if (workers > 0) {
    loop = std::make_unique<net::fiber::Loop>(
        net::fiber::Loop::Options{workers, 256u << 10, 4, std::chrono::microseconds(options.spin_us)});
    loop->serve(socket.impl()->sockfd(),
                [&gateway, params, handlers = router.get()](int fd) { http::serveConnection(fd, *params, *handlers, gateway); });
  } else {
    // Connection threads idle for kThreadIdleSeconds are released (down to 8).
    constexpr int kThreadIdleSeconds = 3;
    pool.emplace(8, options.threads, kThreadIdleSeconds, 256 * 1024);
    server = std::make_unique<Poco::Net::TCPServer>(new http::ConnectionFactory(params, router, gateway), *pool, socket,
                                                    params);
    server->start();
  }
  auto open_connections = [&]() -> size_t {
    return loop ? loop->connections() : static_cast<size_t>(server->currentConnections());
  };

  // Memory after a burst: Poco's pool releases idle threads only when it is next asked for one, so
  // it is asked to here every second; and once no request is in flight after some were served, the
  // heap's free pages go back to the kernel. RSS returns near idle instead of keeping the peak.
  std::mutex memory_mutex;
  std::condition_variable memory_wake;
  bool memory_stop = false;
  std::thread memory_keeper([&] {
    bool busy_before = false;
    std::unique_lock lock(memory_mutex);
    while (!memory_wake.wait_for(lock, std::chrono::seconds(1), [&] { return memory_stop; })) {
      bool released = false;
      if (pool) {
        const int threads_before = pool->allocated();
        pool->collect();
        released = pool->allocated() < threads_before;
      }
      // Busy until the audit rows of a burst are written too: trimming while the writer still
      // holds them would leave what it frees afterwards in the heap.
      const bool busy = gateway.metrics().inflight_requests.value() > 0 ||
                        (audit_writer && audit_writer->stats().queue_depth > 0);
      if (!busy && (busy_before || released)) malloc_trim(0);
      busy_before = busy;
    }
  });
  struct JoinMemoryKeeper {
    std::mutex& mutex;
    std::condition_variable& wake;
    bool& stop;
    std::thread& thread;
    ~JoinMemoryKeeper() {
      {
        std::lock_guard lock(mutex);
        stop = true;
      }
      wake.notify_all();
      if (thread.joinable()) thread.join();
    }
  } join_memory_keeper{memory_mutex, memory_wake, memory_stop, memory_keeper};

  // What loading the catalog and migrating freed goes back to the kernel before serving.
  malloc_trim(0);
  const std::string address = socket.address().toString();
  log::info("listening", {{"address", address},
                          {"catalog_version", loaded.catalog->version},
                          {"workers", workers},
                          {"spin_us", workers > 0 ? options.spin_us : 0},
                          {"threads", workers > 0 ? 0 : options.threads}});
  std::cout << "listening on " << address << std::endl;

  for (;;) {
    int received = 0;
    sigwait(&signals, &received);
    if (received == SIGHUP) {
      reload("sighup");
      continue;
    }
    break;
  }

  if (watch) watch->stop();
  stop_housekeeping();
  log::info("draining", {{"in_flight", open_connections()}, {"drain_seconds", options.drain_seconds}});
  gateway.stopping().store(true);
  if (loop) {
    loop->stopAccepting();
    loop->interrupt();  // connections waiting for their next request close now
  } else {
    server->stop();
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(options.drain_seconds);
  while (open_connections() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const size_t left = open_connections();
  if (partition_keeper) partition_keeper->stop();
  if (audit_writer) audit_writer->stop();  // the queue goes to PostgreSQL, or to the spool
  log::flush();  // the lines the connections logged, before the last one
  log::info("stopped", {{"abandoned_connections", left}});
  if (left > 0) {
    std::fflush(nullptr);
    std::_Exit(0);  // NOTE: the drain bound passed; connections still open are cut rather than waited for.
  }
  return 0;
}

}  // namespace

// Two glibc settings that decide how much memory stays resident after a burst, and that glibc only
// reads at process start, from GLIBC_TUNABLES; so the gateway starts itself again once with them
// (each only unless the operator set it):
//  - glibc keeps the stacks of exited threads for reuse, up to 40 MB, with every page they touched
//    still resident: after a burst, the connection threads the pool releases would keep their
//    memory. With the cache off, thread stacks are unmapped when a thread exits (creating one
//    costs a few microseconds more).
//  - glibc gives threads up to 8 malloc arenas per core; memory a burst spreads over many arenas
//    stays fragmented in them. One arena per core keeps contention as low and the heap compact.
static void restartWithTunables(char** argv) {
  constexpr std::string_view kStackCache = "glibc.pthread.stack_cache_size";
  constexpr std::string_view kArenaMax = "glibc.malloc.arena_max";
  if (std::getenv("SLUICE_KEEP_STACK_CACHE") != nullptr) return;  // e.g. under a profiler
  const char* current = std::getenv("GLIBC_TUNABLES");
  const std::string_view given = current != nullptr ? std::string_view(current) : std::string_view();
  if (given.find(kStackCache) != std::string_view::npos) return;  // set (by us or the operator): started
  std::string tunables(given);
  auto add = [&tunables](std::string_view name, const std::string& value) {
    if (!tunables.empty()) tunables += ':';
    tunables.append(name).append("=").append(value);
  };
  if (given.find(kArenaMax) == std::string_view::npos && std::getenv("MALLOC_ARENA_MAX") == nullptr) {
    add(kArenaMax, std::to_string(std::max(1u, std::thread::hardware_concurrency())));
  }
  add(kStackCache, "0");
  if (::setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv);
  // NOTE: exec failed (no /proc): run on with glibc's defaults; only memory after a burst differs.
}

int main(int argc, char** argv) {
  restartWithTunables(argv);
  http::ServerOptions options;
  AuditSettings audit_settings;
  ReloadSettings reload_settings;
  std::string database_url;
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
  app.add_option("--max-header-bytes", max_header, "largest request head accepted (431 beyond)")
      ->envname("SLUICE_MAX_HEADER_BYTES")
      ->capture_default_str();
  app.add_flag("--insecure-no-auth", options.insecure_no_auth,
               "serve without checking API keys (local development only; every request is anonymous)")
      ->envname("SLUICE_INSECURE_NO_AUTH");
  app.add_option("--watch-ms", reload_settings.watch_ms,
                 "how often the catalog's files are checked for changes (0: reload on SIGHUP only)")
      ->envname("SLUICE_WATCH_MS")
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
  return serve(options, audit_settings, reload_settings);
}
