#include "server/alerts/alert_sender.h"

#include "server/alerts/alert_message.h"
#include "server/log/json_log.h"

namespace sluice::alerts {

namespace {

std::string transportReason(upstream::TransportFailure failure) {
  switch (failure) {
    case upstream::TransportFailure::Connect: return "connect";
    case upstream::TransportFailure::Timeout: return "timeout";
    case upstream::TransportFailure::Reset: return "reset";
    case upstream::TransportFailure::Tls: return "tls";
    case upstream::TransportFailure::Protocol: return "protocol";
  }
  return "transport";
}

}  // namespace

AlertSender::AlertSender(CatalogSource catalog, upstream::Transport& transport, AlertLedger& ledger,
                         metrics::CounterFamily& sent, std::string replica, SenderOptions options)
    : catalog_(std::move(catalog)),
      transport_(transport),
      ledger_(ledger),
      sent_(sent),
      replica_(std::move(replica)),
      options_(options) {}

AlertSender::~AlertSender() { stop(); }

void AlertSender::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void AlertSender::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void AlertSender::offer(std::vector<identity::AlertDue> alerts) {
  std::vector<identity::AlertDue> dropped;
  {
    std::lock_guard lock(mutex_);
    for (identity::AlertDue& alert : alerts) {
      std::string key = identity::alertKey(alert);
      if (offered_.contains(key)) continue;
      if (queue_.size() >= options_.queue_capacity) {
        dropped.push_back(std::move(alert));  // not remembered: the next request offers it again
        continue;
      }
      if (offered_.size() >= options_.memo_capacity) offered_.clear();  // at worst, one more claim that finds the row
      offered_.insert(std::move(key));
      queue_.push_back(std::move(alert));
    }
  }
  for (const identity::AlertDue& alert : dropped) count(alert, "dropped");
  changed_.notify_one();
}

void AlertSender::loop() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    identity::AlertDue alert = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    deliver(alert);
    lock.lock();
  }
}

void AlertSender::count(const identity::AlertDue& alert, std::string_view outcome) {
  const std::string threshold = std::to_string(alert.percent);
  sent_.with({std::string_view(alert.window_id), std::string_view(threshold), outcome}).inc();
}

void AlertSender::forget(const identity::AlertDue& alert) {
  std::lock_guard lock(mutex_);
  offered_.erase(identity::alertKey(alert));
}

std::string AlertSender::attempt(const identity::AlertDue& alert, const catalog::Webhook& webhook, int& status) {
  status = 0;
  upstream::Request request;
  request.method = "POST";
  request.url = webhook.url;
  request.body = alertBody(alert, webhook.format);
  request.headers = alertHeaders(alert, webhook, request.body, std::chrono::system_clock::now());
  request.timeouts.connect_ms = options_.timeout_ms;
  request.timeouts.first_byte_ms = options_.timeout_ms;
  request.timeouts.idle_ms = options_.timeout_ms;
  try {
    // The transport never follows a redirect: a 3xx is a failed attempt like any other non-2xx.
    auto response = transport_.send(request);
    status = response->status();
    std::string answer;
    while (answer.size() <= kMaxAnswerBytes && response->readSome(answer)) {
    }
    if (answer.size() > kMaxAnswerBytes) response->abort();
    return status >= 200 && status < 300 ? "" : "status_" + std::to_string(status);
  } catch (const upstream::TransportError& error) {
    return transportReason(error.failure());
  } catch (const std::exception&) {
    return "transport";  // the message may name the URL: never logged
  }
}

void AlertSender::deliver(const identity::AlertDue& alert) {
  const std::string where = "budget alert '" + alert.window_id + "' " + std::to_string(alert.percent) + "%";
  try {
    if (!ledger_.claim(alert, replica_)) {
      count(alert, "claimed_elsewhere");
      return;
    }
  } catch (const std::exception&) {
    // Unclaimed: forgotten here so that a later request offers it again.
    log::warn("budget alert not claimed: the database failed", {{"window", alert.window_id}, {"threshold", alert.percent}});
    count(alert, "error");
    forget(alert);
    return;
  }
  std::string outcome = "failed";
  for (int number = 1; number <= options_.max_attempts; ++number) {
    if (number > 1) {
      std::unique_lock lock(mutex_);
      if (changed_.wait_for(lock, retryDelay(number, options_.first_retry, options_.max_retry), [&] { return stopping_; })) {
        return;  // stopping: the claimed alert stays 'pending' in the ledger
      }
    }
    const auto catalog = catalog_();
    const catalog::Webhook* webhook = catalog ? catalog->webhook(alert.webhook) : nullptr;
    if (webhook == nullptr) {
      log::warn("budget alert not sent: its webhook is no longer declared", {{"alert", where}, {"webhook", alert.webhook}});
      break;
    }
    int status = 0;
    const std::string reason = attempt(alert, *webhook, status);
    try {
      ledger_.recordAttempt(alert, number, status, reason.empty() ? "delivered" : reason);
    } catch (const std::exception&) {
      log::warn("budget alert attempt not recorded: the database failed", {{"window", alert.window_id}});
    }
    if (reason.empty()) {
      outcome = "delivered";
      break;
    }
    count(alert, "retried");
    log::warn("budget alert attempt failed", {{"alert", where},
                                              {"webhook", webhook->id},
                                              {"url", redactedUrl(webhook->url)},
                                              {"attempt", number},
                                              {"reason", reason}});
  }
  count(alert, outcome);
  try {
    ledger_.finish(alert, outcome);
  } catch (const std::exception&) {
    log::warn("budget alert outcome not recorded: the database failed", {{"window", alert.window_id}});
  }
  if (outcome == "delivered") log::info("budget alert delivered", {{"alert", where}, {"webhook", alert.webhook}});
}

}  // namespace sluice::alerts
