// Which thresholds a counter has reached, and what the webhook is sent: Slack, Teams and signed
// JSON bodies, the signature a receiver recomputes, the retry waits, and URLs kept out of logs.
#include <boost/test/unit_test.hpp>

#include <map>

#include <nlohmann/json.hpp>

#include "server/alerts/alert_message.h"
#include "server/identity/budget_alerts.h"

using namespace sluice;
using namespace std::chrono;

namespace {

identity::TimePoint utc(int y, unsigned m, unsigned d) { return sys_days(year_month_day(year(y), month(m), day(d))); }

// A monthly project budget of $500, research overridden to $5,000, alerts at 50 % and 80 %.
catalog::QuotaWindow budget() {
  catalog::QuotaWindow window;
  window.id = "budget";
  window.per = catalog::QuotaScope::Project;
  window.period = catalog::QuotaPeriod::Month;
  window.max_cost_microdollars = 500'000'000;
  window.alerts = {{50, "finance", {}}, {80, "finance", {}}};
  return window;
}

identity::QuotaCounter counterOf(const catalog::QuotaWindow& window, std::optional<int64_t> override_usd) {
  identity::QuotaCounter counter;
  counter.window = &window;
  counter.scope_kind = "project";
  counter.scope_value = "research";
  counter.span = {utc(2025, 12, 1), utc(2026, 1, 1)};
  if (override_usd) {
    catalog::QuotaLimits limits;
    limits.max_cost_microdollars = *override_usd * 1'000'000;
    counter.applied = identity::AppliedLimits{limits, "project/research"};
  }
  return counter;
}

identity::QuotaUsage spent(int64_t usd) {
  identity::QuotaUsage used;
  used.cost_microdollars = usd * 1'000'000;
  return used;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(budget_alert_thresholds)

BOOST_AUTO_TEST_CASE(a_threshold_is_reached_at_its_percentage_of_the_limit_that_applies_to_the_subject) {
  const catalog::QuotaWindow window = budget();
  const auto research = counterOf(window, 5000);
  BOOST_TEST(identity::alertsDue(research, spent(2499)).empty());  // under 50 % of research's $5,000
  const auto half = identity::alertsDue(research, spent(2500));
  BOOST_REQUIRE(half.size() == 1u);
  BOOST_TEST(half[0].percent == 50);
  BOOST_TEST(half[0].limit == 5'000'000'000);
  BOOST_TEST(half[0].limit_source == "project/research");
  const auto both = identity::alertsDue(research, spent(4000));
  BOOST_REQUIRE(both.size() == 2u);
  BOOST_TEST(both[1].percent == 80);
  // The window's default ($500) for a project no override names: 80 % is $400.
  BOOST_TEST(identity::alertsDue(counterOf(window, std::nullopt), spent(400)).size() == 2u);
  BOOST_TEST(identity::alertsDue(counterOf(window, std::nullopt), spent(399)).size() == 1u);
}

BOOST_AUTO_TEST_CASE(an_unlimited_subject_is_never_alerted) {
  const catalog::QuotaWindow window = budget();
  identity::QuotaCounter ceo = counterOf(window, std::nullopt);
  ceo.applied = identity::AppliedLimits{catalog::QuotaLimits{}, "member/ceo"};
  BOOST_TEST(identity::alertsDue(ceo, spent(1'000'000)).empty());
}

BOOST_AUTO_TEST_CASE(a_request_limit_alerts_when_no_cost_limit_is_set) {
  catalog::QuotaWindow window = budget();
  window.max_cost_microdollars.reset();
  window.max_requests = 10;
  identity::QuotaUsage used;
  used.requests = 8;
  const auto due = identity::alertsDue(counterOf(window, std::nullopt), used);
  BOOST_REQUIRE(due.size() == 2u);
  BOOST_TEST((due[1].measure == identity::QuotaMeasure::Requests));
  BOOST_TEST(due[1].used == 8);
}

BOOST_AUTO_TEST_CASE(an_alert_is_named_by_window_subject_threshold_webhook_and_period) {
  const catalog::QuotaWindow window = budget();
  const auto due = identity::alertsDue(counterOf(window, 5000), spent(4000));
  BOOST_TEST(identity::alertKey(due[1]) == "budget|project|research|80|finance|1764547200");
  BOOST_TEST(alerts::alertId(due[1]) == "a870c349d6645ef2512925e65b1161b7");
  identity::AlertDue next_month = due[1];
  next_month.span = {utc(2026, 1, 1), utc(2026, 2, 1)};
  BOOST_TEST(alerts::alertId(next_month) != alerts::alertId(due[1]));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(budget_alert_message)

BOOST_AUTO_TEST_CASE(the_json_body_names_the_subject_the_threshold_and_the_amounts) {
  const catalog::QuotaWindow window = budget();
  const auto due = identity::alertsDue(counterOf(window, 5000), spent(4012));
  const auto body = nlohmann::json::parse(alerts::alertBody(due[1], catalog::WebhookFormat::Json));
  BOOST_TEST(body["type"] == "budget_alert");
  BOOST_TEST(body["window"] == "budget");
  BOOST_TEST(body["scope_kind"] == "project");
  BOOST_TEST(body["scope_value"] == "research");
  BOOST_TEST(body["threshold_percent"] == 80);
  BOOST_TEST(body["measure"] == "cost");
  BOOST_TEST(body["used_usd"] == "4012.000000");
  BOOST_TEST(body["limit_usd"] == "5000.000000");
  BOOST_TEST(body["limit_source"] == "project/research");
  BOOST_TEST(body["period_start"] == "2025-12-01T00:00:00Z");
  BOOST_TEST(body["period_end"] == "2026-01-01T00:00:00Z");
  BOOST_TEST(body["text"] == "Budget 'budget' for project research: 80% of $5,000.00 reached ($4,012.00 spent; the "
                             "limit of project/research); period 2025-12-01T00:00:00Z to 2026-01-01T00:00:00Z");
}

BOOST_AUTO_TEST_CASE(slack_and_teams_get_their_incoming_webhook_shapes) {
  const catalog::QuotaWindow window = budget();
  const auto due = identity::alertsDue(counterOf(window, std::nullopt), spent(450));
  const auto slack = nlohmann::json::parse(alerts::alertBody(due[1], catalog::WebhookFormat::Slack));
  BOOST_TEST(slack.size() == 1u);
  BOOST_TEST(slack["text"].get<std::string>().starts_with("Budget 'budget' for project research: 80% of $500.00"));
  const auto teams = nlohmann::json::parse(alerts::alertBody(due[1], catalog::WebhookFormat::Teams));
  BOOST_TEST(teams["@type"] == "MessageCard");
  BOOST_TEST(teams["text"] == slack["text"]);
}

BOOST_AUTO_TEST_CASE(the_signature_is_hmac_sha256_of_timestamp_dot_body) {
  // python3: hmac.new(b'whsec-test', b'1764892800.{"a":1}', hashlib.sha256).hexdigest()
  BOOST_TEST(alerts::alertSignature("whsec-test", "1764892800", R"({"a":1})") ==
             "sha256=8220a612e685971c12a3dd0a83bc2a6b26e651900ff935b6a2c0b4813970bb8f");
  const catalog::QuotaWindow window = budget();
  const auto due = identity::alertsDue(counterOf(window, 5000), spent(4000));
  catalog::Webhook webhook;
  webhook.id = "finance";
  webhook.secret = "whsec-test";
  const std::string body = alerts::alertBody(due[1], webhook.format);
  const auto headers = alerts::alertHeaders(due[1], webhook, body, utc(2025, 12, 5) + hours(0));
  std::map<std::string, std::string> named(headers.begin(), headers.end());
  BOOST_TEST(named["X-Sluice-Timestamp"] == "1764892800");
  BOOST_TEST(named["X-Sluice-Signature"] == alerts::alertSignature("whsec-test", "1764892800", body));
  BOOST_TEST(named["X-Sluice-Alert-Id"] == alerts::alertId(due[1]));
  for (const auto& [name, value] : headers) BOOST_TEST(value.find("whsec-test") == std::string::npos);
  webhook.format = catalog::WebhookFormat::Slack;  // Slack and Teams verify their own URLs: no signature
  BOOST_TEST(alerts::alertHeaders(due[1], webhook, body, utc(2025, 12, 5)).size() == 2u);
}

BOOST_AUTO_TEST_CASE(retries_wait_longer_each_time_up_to_a_cap) {
  using ms = std::chrono::milliseconds;
  BOOST_TEST(alerts::retryDelay(2, ms(1000), ms(30'000)).count() == 1000);
  BOOST_TEST(alerts::retryDelay(3, ms(1000), ms(30'000)).count() == 2000);
  BOOST_TEST(alerts::retryDelay(5, ms(1000), ms(30'000)).count() == 8000);
  BOOST_TEST(alerts::retryDelay(60, ms(1000), ms(30'000)).count() == 30'000);
}

BOOST_AUTO_TEST_CASE(a_logged_url_keeps_only_its_scheme_and_host) {
  BOOST_TEST(alerts::redactedUrl("https://hooks.slack.com/services/T0/B0/XYZsecret") == "https://hooks.slack.com/…");
  BOOST_TEST(alerts::redactedUrl("https://user:pw@hooks.example.test?token=abc") == "https://hooks.example.test/…");
  BOOST_TEST(alerts::redactedUrl("no scheme?token=abc") == "(a webhook URL)");
}

BOOST_AUTO_TEST_SUITE_END()
