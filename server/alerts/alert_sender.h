#pragma once
// Budget alerts sent off the request path. The QuotaStore hands offer() the alerts a reservation
// reached (identity/budget_alerts.h); offer() only queues (bounded; a full queue drops and counts
// the alert, which the subject's next request offers again). One thread of the sender's own then,
// per alert: claims it in PostgreSQL (AlertLedger: exactly one replica of the fleet gets it), posts
// the webhook's body (alert_message.h) with bounded timeouts and no redirect followed, reads at
// most kMaxAnswerBytes of the answer, and retries a failure with doubling waits up to
// max_attempts; every attempt is recorded in the ledger and counted in
// gateway_budget_alerts_total{window,threshold,outcome}. A replica remembers the alerts it has offered
// (bounded), so it asks PostgreSQL once per alert, not once per request.
//
// Never logs the webhook's secret or its URL's path and query (alert_message.h redactedUrl).
// Thread-safe; stop() (and the destructor) returns after the attempt in progress.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "catalog/catalog.h"
#include "server/alerts/alert_ledger.h"
#include "server/identity/budget_alerts.h"
#include "server/metrics/family.h"
#include "server/upstream/transport.h"

namespace sluice::alerts {

inline constexpr size_t kMaxAnswerBytes = 4096;

struct SenderOptions {
  size_t queue_capacity = 256;
  size_t memo_capacity = 20'000;  // alerts remembered as offered; past it the memory starts again
  int max_attempts = 5;
  std::chrono::milliseconds first_retry{1000};
  std::chrono::milliseconds max_retry{30'000};
  int timeout_ms = 5000;  // connect, first byte and between bytes, per attempt
};

class AlertSender {
 public:
  using CatalogSource = std::function<std::shared_ptr<const catalog::Catalog>()>;

  // Every reference must outlive the sender. `sent`: GatewayMetrics::budget_alerts.
  AlertSender(CatalogSource catalog, upstream::Transport& transport, AlertLedger& ledger, metrics::CounterFamily& sent,
              std::string replica, SenderOptions options = {});
  ~AlertSender();
  AlertSender(const AlertSender&) = delete;
  AlertSender& operator=(const AlertSender&) = delete;

  // The request path's side: queues the alerts not offered before. Never waits on I/O.
  void offer(std::vector<identity::AlertDue> alerts);
  void start();
  void stop();

 private:
  void loop();
  void deliver(const identity::AlertDue& alert);
  // One POST; "" when the webhook answered 2xx, else a short reason ("status_500", "timeout", ...).
  std::string attempt(const identity::AlertDue& alert, const catalog::Webhook& webhook, int& status);
  void count(const identity::AlertDue& alert, std::string_view outcome);
  void forget(const identity::AlertDue& alert);

  CatalogSource catalog_;
  upstream::Transport& transport_;
  AlertLedger& ledger_;
  metrics::CounterFamily& sent_;
  std::string replica_;
  SenderOptions options_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<identity::AlertDue> queue_;
  std::unordered_set<std::string> offered_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace sluice::alerts
