// The composition root: reads flags and environment, loads the catalog, wires the parts, serves
// until SIGTERM/SIGINT, then drains in-flight requests (bounded) and exits 0. SIGHUP reloads the
// catalog; an invalid one is refused and the last good one keeps serving. The parts live in
// server/boot/.

#include <chrono>
#include <iostream>
#include <memory>


#include "server/admin/console.h"
#include "server/alerts/alert_sender.h"
#include "server/boot/audit_trail.h"
#include "server/boot/catalog_reloader.h"
#include "server/boot/flags.h"
#include "server/boot/identity.h"
#include "server/boot/listener.h"
#include "server/boot/memory_keeper.h"
#include "server/boot/readiness.h"
#include "server/boot/shutdown.h"
#include "server/boot/tracing.h"
#include "server/boot/tunables.h"
#include "server/http/gateway.h"
#include "server/presence/poller.h"
#include "server/provisioning/scim_handler.h"

using namespace sluice;

namespace {

int serve(const boot::Settings& settings) {
  const http::ServerOptions& options = settings.server;
  auto boot_catalog = boot::loadBootCatalog(options.services_dir, settings.reload.watch_ms > 0);
  if (!boot_catalog) return boot_catalog.error();
  const auto& catalog = boot_catalog->loaded.catalog;

  provisioning::ScimOptions scim_options;
  if (!settings.provisioning.scim_token_file.empty()) {
    auto token = provisioning::loadScimToken(settings.provisioning.scim_token_file);
    if (!token) {
      std::cerr << "sluice: " << token.error() << "\n";
      return 2;
    }
    scim_options.token = std::move(*token);
  }

  const sigset_t signals = boot::blockSignals();

  // The audit trail: schema first, then the writer (which replays any spool a previous run left).
  boot::AuditTrail audit;
  if (const int code = audit.start(options, settings.audit); code != 0) return code;

  // Every part the gateway holds is built before it: it has no setters.
  http::Wiring wiring;
  wiring.audit = audit.writer();
  if (const int code = boot::bootIdentity(options, wiring); code != 0) return code;
  if (const int code = boot::loadTls(options, wiring); code != 0) return code;
  boot::Tracing tracing;  // OpenTelemetry traces and audit logs, when an OTEL_EXPORTER_OTLP_*ENDPOINT is set
  tracing.configure(options, wiring);
  http::Gateway gateway(options, catalog, std::move(wiring));
  const auto audit_rows_sink = tracing.start(gateway, audit);  // goes before the gateway
  if (const int code = boot::checkIdentityServable(gateway); code != 0) return code;
  const auto observation = audit.observeIn(gateway);  // goes before the gateway, on every return path

  // Live reload: SIGHUP, and any change to the catalog's files once it has settled.
  boot::CatalogReloader reloader(options.services_dir, gateway, std::chrono::milliseconds(settings.reload.watch_ms));
  const auto housekeeping = boot::startQuotaHousekeeping(gateway);
  // Own machines: the presence hub the catalog names (if any), polled in the background.
  presence::PresencePoller presence_poller([&gateway] { return gateway.catalog(); }, gateway.upstream(),
                                           gateway.presence(), gateway.metrics());
  presence_poller.start();
  // Budget alerts (a quota window's alerts:): sent by a thread of their own, once per fleet.
  std::unique_ptr<alerts::PgAlertLedger> alert_ledger;
  std::unique_ptr<alerts::AlertSender> alert_sender;
  if (const auto& quotas = gateway.identity().quotas) {
    alert_ledger = std::make_unique<alerts::PgAlertLedger>(gateway.identity().pool);
    alert_sender = std::make_unique<alerts::AlertSender>([&gateway] { return gateway.catalog(); }, gateway.upstream(),
                                                         *alert_ledger, gateway.metrics().budget_alerts, options.replica_name);
    quotas->observeAlerts([sender = alert_sender.get()](std::vector<identity::AlertDue> due) { sender->offer(std::move(due)); });
    alert_sender->start();
  }
  // GET /readyz answers from this check's last verdict, never from a connection of its own.
  const auto readiness = boot::startReadinessCheck(gateway);
  reloader.startWatch(std::move(boot_catalog->fingerprint));

  boot::Listener listener(options, gateway, admin::makeConsole(gateway),
                          provisioning::makeScim(gateway, std::move(scim_options)));
  if (const int code = listener.open(); code != 0) return code;
  const auto memory_keeper = boot::startMemoryKeeper(listener.threadPool(), gateway, audit.writer());

  // What loading the catalog and migrating freed goes back to the kernel before serving.
  boot::releaseFreeMemory();
  listener.announce(catalog->version);

  const int stop_signal = boot::waitForStop(signals, reloader);
  const int drained = boot::drain({.reloader = reloader,
                      .housekeeping = housekeeping.get(),
                      .listener = listener,
                      .gateway = gateway,
                      .audit = audit,
                      .drain_seconds = options.drain_seconds,
                      .drain_delay_ms = options.drain_delay_ms,
                      .signal = stop_signal});
  tracing.stop();  // the last spans, while the gateway that counts drops is still there
  return drained;
}

}  // namespace

int main(int argc, char** argv) {
  boot::restartWithTunables(argv);
  boot::Settings settings;
  if (const auto code = boot::parseFlags(argc, argv, settings)) return *code;
  return serve(settings);
}
