#pragma once
// The presence poller: a background thread that reads GET <gateway.presence.url>/presence every
// poll_ms through the gateway's upstream client and publishes what it read on a PresenceBoard.
// The catalog is asked again before every poll, so a reload that adds, changes or removes the hub
// takes effect at the next one. A poll that fails (unreachable, not 200, a bad document) keeps the
// last good nodes; once the last success is older than stale_ms every node reads as stale
// (dispatch::presenceState). Bounds: the answer's body is read up to kMaxDocumentBytes, the
// connection and the head each get min(poll_ms, 2000) ms.
//
// Metrics (metrics::GatewayMetrics; this poller is their source): gateway_presence_polls_total{result}
// (ok | error), gateway_presence_node_up{node} (1 usable now, 0 not: absent, unavailable or stale)
// for each node the catalog names, gateway_presence_last_success_age_seconds.
// Thread-safety: start/stop from one thread; the board is read by any.

#include <functional>
#include <memory>
#include <string>

#include "catalog/catalog.h"
#include "server/metrics/gateway_metrics.h"
#include "server/presence/board.h"
#include "server/upstream/transport.h"
#include "server/util/background_task.h"

namespace sluice::presence {

class PresencePoller {
 public:
  using CatalogSource = std::function<std::shared_ptr<const catalog::Catalog>()>;

  // Every reference must outlive the poller.
  PresencePoller(CatalogSource catalog, upstream::Transport& transport, PresenceBoard& board,
                 metrics::GatewayMetrics& metrics);
  ~PresencePoller();
  PresencePoller(const PresencePoller&) = delete;
  PresencePoller& operator=(const PresencePoller&) = delete;

  void start();
  void stop();
  // One poll now, on the caller's thread (tests); returns the wait before the next.
  util::BackgroundTask::Duration pollOnce();

 private:
  CatalogSource catalog_;
  upstream::Transport& transport_;
  PresenceBoard& board_;
  metrics::GatewayMetrics& metrics_;
  std::string polled_url_;  // the hub of the last poll: a new hub starts from nothing
  util::BackgroundTask task_;
};

}  // namespace sluice::presence
