#pragma once
// Signals and the end of serving: SIGTERM/SIGINT stop the gateway, SIGHUP reloads the catalog;
// then in-flight requests drain, bounded by --drain-seconds.

#include <csignal>

#include "server/boot/audit_trail.h"
#include "server/boot/catalog_reloader.h"
#include "server/boot/listener.h"
#include "server/http/gateway.h"
#include "server/util/background_task.h"

namespace sluice::boot {

// Blocks SIGTERM, SIGINT and SIGHUP in the calling thread (every thread started later inherits
// the mask; main takes them synchronously) and ignores SIGPIPE. Returns the blocked set.
sigset_t blockSignals();

// Until SIGTERM or SIGINT (returned); each SIGHUP reloads the catalog meanwhile.
int waitForStop(const sigset_t& signals, CatalogReloader& reloader);

// What the drain stops, in order.
struct Serving {
  CatalogReloader& reloader;
  util::BackgroundTask* housekeeping;  // nullptr: none
  Listener& listener;
  http::Gateway& gateway;
  AuditTrail& audit;
  int drain_seconds;
  // SIGTERM (an orchestrator's stop): /readyz fails and answers carry Connection: close for this
  // long while the gateway still accepts and serves, so load balancers stop sending first.
  // SIGINT (Ctrl-C) skips it.
  int drain_delay_ms = 0;
  int signal = SIGTERM;
};

// On SIGTERM with a drain delay: marks the gateway draining (readiness 503, no keep-alive) and
// keeps serving for the delay. Then stops the watch and the housekeeping, logs "draining", stops accepting, waits up to
// drain_seconds for open connections, stops the audit trail, logs "stopped". Returns 0; when
// connections are still open after the bound, ends the process with exit code 0 instead.
int drain(const Serving& serving);

}  // namespace sluice::boot
