// The sender off the request path: one claim per alert, retries with backoff until the webhook
// answers 2xx, each attempt recorded and counted, and nothing sent for an alert another replica
// claimed. Fake transport and ledger; the PostgreSQL claim across replicas is tests/fleet's.
#include <boost/test/unit_test.hpp>

#include <set>
#include <thread>

#include "server/alerts/alert_sender.h"
#include "server/metrics/gateway_metrics.h"
#include "tests/fakes/fake_transport.h"

using namespace sluice;
using namespace std::chrono_literals;

namespace {

class FakeLedger : public alerts::AlertLedger {
 public:
  explicit FakeLedger(bool wins = true) : wins_(wins) {}
  bool claim(const identity::AlertDue& alert, std::string_view) override {
    std::lock_guard lock(mutex_);
    ++claims;
    return wins_ && claimed_.insert(identity::alertKey(alert)).second;
  }
  void recordAttempt(const identity::AlertDue&, int attempt, int status, std::string_view reason) override {
    std::lock_guard lock(mutex_);
    attempts.push_back(std::to_string(attempt) + ":" + std::to_string(status) + ":" + std::string(reason));
  }
  void finish(const identity::AlertDue&, std::string_view outcome) override {
    std::lock_guard lock(mutex_);
    outcomes.emplace_back(outcome);
  }
  std::vector<std::string> snapshotOutcomes() {
    std::lock_guard lock(mutex_);
    return outcomes;
  }
  std::mutex mutex_;
  int claims = 0;
  std::vector<std::string> attempts;
  std::vector<std::string> outcomes;

 private:
  bool wins_;
  std::set<std::string> claimed_;
};

std::shared_ptr<catalog::Catalog> catalogWithFinance() {
  auto catalog = std::make_shared<catalog::Catalog>();
  catalog::Webhook webhook;
  webhook.id = "finance";
  webhook.url = "http://127.0.0.1:9/hooks/finance?token=do-not-log";
  webhook.secret = "whsec-test";
  catalog->webhooks.push_back(webhook);
  return catalog;
}

identity::AlertDue alert80() {
  identity::AlertDue alert;
  alert.window_id = "budget";
  alert.scope_kind = "project";
  alert.scope_value = "research";
  alert.webhook = "finance";
  alert.percent = 80;
  alert.used = 4'000'000'000;
  alert.limit = 5'000'000'000;
  return alert;
}

// Waits (bounded) until the ledger has `count` outcomes.
bool waitForOutcomes(FakeLedger& ledger, size_t count) {
  for (int i = 0; i < 500; ++i) {
    if (ledger.snapshotOutcomes().size() >= count) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

alerts::SenderOptions fast() {
  alerts::SenderOptions options;
  options.first_retry = 10ms;
  options.max_retry = 40ms;
  options.max_attempts = 3;
  options.timeout_ms = 500;
  return options;
}

// One sender over a fake transport and ledger, with the metrics it counts into.
struct Rig {
  explicit Rig(bool wins = true) : ledger(wins), gateway_metrics(registry) {}
  alerts::AlertSender sender(std::string replica, alerts::SenderOptions options = fast()) {
    const auto catalog = catalogWithFinance();
    return alerts::AlertSender([catalog] { return catalog; }, transport, ledger, gateway_metrics.budget_alerts,
                               std::move(replica), options);
  }
  fakes::FakeTransport transport;
  FakeLedger ledger;
  metrics::Registry registry;
  metrics::GatewayMetrics gateway_metrics;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(budget_alert_sender)

BOOST_AUTO_TEST_CASE(a_webhook_that_answers_500_then_200_is_retried_and_the_alert_delivered_once) {
  Rig rig;
  rig.transport.script("/hooks/finance", fakes::FakeTransport::json(500, "{}"));
  rig.transport.script("/hooks/finance", fakes::FakeTransport::json(200, "ok"));
  auto sender = rig.sender("replica-a");
  sender.start();
  sender.offer({alert80()});
  sender.offer({alert80()});  // the next request sees the same threshold: remembered, not queued again
  BOOST_REQUIRE(waitForOutcomes(rig.ledger, 1));
  sender.stop();
  BOOST_TEST(rig.ledger.claims == 1);
  BOOST_TEST(rig.transport.sentCount() == 2u);
  BOOST_TEST((rig.ledger.attempts == std::vector<std::string>{"1:500:status_500", "2:200:delivered"}));
  BOOST_TEST((rig.ledger.outcomes == std::vector<std::string>{"delivered"}));
  const std::string exposition = rig.registry.render();
  BOOST_TEST(exposition.find(R"(gateway_budget_alerts_total{window="budget",threshold="80",outcome="delivered"} 1)") != std::string::npos);
  BOOST_TEST(exposition.find(R"(gateway_budget_alerts_total{window="budget",threshold="80",outcome="retried"} 1)") != std::string::npos);
  const auto sent = rig.transport.sent();
  BOOST_TEST(sent[0].body == sent[1].body);
}

BOOST_AUTO_TEST_CASE(a_webhook_that_never_answers_2xx_is_given_up_after_the_bounded_attempts) {
  Rig rig;
  for (int i = 0; i < 5; ++i) rig.transport.script("/hooks/finance", fakes::FakeTransport::json(302, ""));
  auto sender = rig.sender("replica-a");
  sender.start();
  sender.offer({alert80()});
  BOOST_REQUIRE(waitForOutcomes(rig.ledger, 1));
  sender.stop();
  BOOST_TEST(rig.transport.sentCount() == 3u);  // a redirect is a failure, never followed
  BOOST_TEST((rig.ledger.outcomes == std::vector<std::string>{"failed"}));
}

BOOST_AUTO_TEST_CASE(an_alert_another_replica_claimed_is_not_sent) {
  Rig rig(/*wins=*/false);
  auto sender = rig.sender("replica-b");
  sender.start();
  sender.offer({alert80()});
  for (int i = 0; i < 200 && rig.registry.render().find(R"(outcome="claimed_elsewhere"} 1)") == std::string::npos; ++i) {
    std::this_thread::sleep_for(10ms);
  }
  sender.stop();
  BOOST_TEST(rig.ledger.claims == 1);
  BOOST_TEST(rig.transport.sentCount() == 0u);
  BOOST_TEST(rig.registry.render().find(R"(outcome="claimed_elsewhere"} 1)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_full_queue_drops_and_counts_instead_of_blocking_the_request) {
  Rig rig;
  alerts::SenderOptions options = fast();
  options.queue_capacity = 1;
  auto sender = rig.sender("replica-a", options);
  identity::AlertDue second = alert80();
  second.scope_value = "marketing";
  sender.offer({alert80(), second});  // not started: the first fills the queue
  BOOST_TEST(rig.registry.render().find(R"(outcome="dropped"} 1)") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
