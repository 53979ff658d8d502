#include "server/dispatch/failover.h"

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include "tests/server/dispatch/printers.h"

using sluice::catalog::CredentialKind;
using sluice::catalog::RetryPolicy;
using sluice::dispatch::Attempt;
using sluice::dispatch::AttemptOutcome;
using sluice::dispatch::AttemptVerdict;
using sluice::dispatch::BreakerEvent;
using sluice::dispatch::classifyAttempt;
using sluice::dispatch::TransportKind;
namespace data = boost::unit_test::data;
using namespace std::chrono_literals;


namespace {

RetryPolicy retry(int attempts, int backoff_ms) {
  RetryPolicy policy;
  policy.attempts = attempts;
  policy.backoff_ms = backoff_ms;
  return policy;
}

AttemptOutcome sentThenFailed(AttemptOutcome outcome) {
  outcome.first_byte_sent = true;
  return outcome;
}

struct ClassifyCase {
  std::string name;
  AttemptOutcome outcome;
  int retries_used;
  RetryPolicy policy;
  AttemptVerdict verdict;
  int64_t delay_ms;
  std::string reason_has;
};
std::ostream& operator<<(std::ostream& out, const ClassifyCase& c) { return out << c.name; }

constexpr auto Success = AttemptVerdict::Success;
constexpr auto RetrySame = AttemptVerdict::RetrySame;
constexpr auto Next = AttemptVerdict::NextDeployment;
constexpr auto Final = AttemptVerdict::Final;
const auto http = AttemptOutcome::http;
const auto transport = AttemptOutcome::transportFailure;

AttemptOutcome stalledAfterHeaders() {
  AttemptOutcome outcome = AttemptOutcome::http(200);
  outcome.transport = TransportKind::Timeout;
  return outcome;
}

AttemptOutcome clientGone(std::optional<int> status, bool first_byte_sent) {
  AttemptOutcome outcome;
  outcome.status = status;
  outcome.client_gone = true;
  outcome.first_byte_sent = first_byte_sent;
  return outcome;
}

const std::vector<ClassifyCase> kClassifyCases = {
    {"ok_is_success", http(200, std::nullopt), 0, retry(2, 200), Success, 0, "status_200"},
    {"created_is_success", http(201, std::nullopt), 0, retry(2, 200), Success, 0, "status_201"},
    {"429_first_retry_backs_off", http(429, std::nullopt), 0, retry(2, 200), RetrySame, 200, "retry 1 of 2 in 200ms"},
    {"429_second_retry_doubles", http(429, std::nullopt), 1, retry(2, 200), RetrySame, 400, "retry 2 of 2 in 400ms"},
    {"429_budget_spent_fails_over", http(429, std::nullopt), 2, retry(2, 200), Next, 0, "retry budget of 2 spent"},
    {"503_retries_first", http(503, std::nullopt), 0, retry(1, 200), RetrySame, 200, "status_503"},
    {"503_budget_of_one_spent", http(503, std::nullopt), 1, retry(1, 200), Next, 0, "spent"},
    {"529_is_overloaded_and_retries", http(529, std::nullopt), 0, retry(1, 200), RetrySame, 200, "status_529"},
    {"529_budget_spent", http(529, std::nullopt), 1, retry(1, 200), Next, 0, "status_529"},
    {"no_budget_fails_over_at_once", http(429, std::nullopt), 0, retry(0, 200), Next, 0, "retry budget of 0 spent"},
    {"retry_after_sets_the_delay", http(429, 2s), 0, retry(2, 200), RetrySame, 2000, "in 2000ms"},
    {"retry_after_zero_retries_at_once", http(503, 0s), 0, retry(2, 200), RetrySame, 0, "in 0ms"},
    {"retry_after_at_the_cap_is_waited", http(429, 5s), 0, retry(2, 200), RetrySame, 5000, "in 5000ms"},
    {"retry_after_beyond_the_cap_fails_over", http(429, 6s), 0, retry(2, 200), Next, 0, "beyond the 5000ms"},
    {"retry_after_an_hour_fails_over", http(503, 3600s), 0, retry(5, 200), Next, 0, "retry-after 3600s"},
    {"retry_after_with_the_budget_spent_fails_over", http(429, 1s), 2, retry(2, 200), Next, 0, "spent"},
    {"backoff_is_capped_at_the_max_delay", http(429, std::nullopt), 3, retry(5, 1000), RetrySame, 5000, "5000ms"},
    {"backoff_grows_to_the_cap", http(429, std::nullopt), 2, retry(5, 1000), RetrySame, 4000, "4000ms"},
    {"a_zero_backoff_retries_at_once", http(503, std::nullopt), 0, retry(3, 0), RetrySame, 0, "in 0ms"},
    {"500_fails_over", http(500, std::nullopt), 0, retry(2, 200), Next, 0, "status_500"},
    {"502_fails_over", http(502, std::nullopt), 0, retry(2, 200), Next, 0, "status_502"},
    {"504_fails_over", http(504, std::nullopt), 0, retry(2, 200), Next, 0, "status_504"},
    {"500_never_uses_the_retry_budget", http(500, 1s), 0, retry(9, 200), Next, 0, "status_500"},
    {"400_is_final", http(400, std::nullopt), 0, retry(2, 200), Final, 0, "never fails over"},
    {"401_is_final", http(401, std::nullopt), 0, retry(2, 200), Final, 0, "status_401"},
    {"403_is_final", http(403, std::nullopt), 0, retry(2, 200), Final, 0, "status_403"},
    {"404_is_final", http(404, std::nullopt), 0, retry(2, 200), Final, 0, "status_404"},
    {"413_is_final", http(413, std::nullopt), 0, retry(2, 200), Final, 0, "status_413"},
    {"422_is_final", http(422, std::nullopt), 0, retry(2, 200), Final, 0, "status_422"},
    {"a_redirect_fails_over", http(302, std::nullopt), 0, retry(2, 200), Next, 0, "status_302"},
    {"connect_refused_fails_over", transport(TransportKind::Connect), 0, retry(2, 200), Next, 0, "transport (connect)"},
    {"dns_fails_over", transport(TransportKind::Dns), 0, retry(2, 200), Next, 0, "transport (dns)"},
    {"tls_fails_over", transport(TransportKind::Tls), 0, retry(2, 200), Next, 0, "transport (tls)"},
    {"timeout_before_the_first_byte_fails_over", transport(TransportKind::Timeout), 0, retry(2, 200), Next, 0,
     "transport (timeout)"},
    {"reset_before_the_first_byte_fails_over", transport(TransportKind::Reset), 0, retry(2, 200), Next, 0, "reset"},
    {"a_stall_after_headers_before_the_client_saw_anything_fails_over", stalledAfterHeaders(), 0, retry(2, 200), Next,
     0, "transport"},
    {"a_stall_after_the_first_byte_is_final", sentThenFailed(stalledAfterHeaders()), 0, retry(2, 200), Final, 0,
     "never switches"},
    {"a_reset_after_the_first_byte_is_final", sentThenFailed(transport(TransportKind::Reset)), 0, retry(2, 200), Final,
     0, "never switches"},
    {"a_429_after_the_first_byte_is_final", sentThenFailed(http(429, std::nullopt)), 0, retry(2, 200), Final, 0,
     "never switches"},
    {"a_500_after_the_first_byte_is_final", sentThenFailed(http(500, std::nullopt)), 0, retry(2, 200), Final, 0,
     "never switches"},
    {"the_client_gone_mid_stream_is_final", clientGone(200, true), 0, retry(2, 200), Final, 0, "never switches"},
    {"the_client_gone_before_anything_is_final", clientGone(std::nullopt, false), 0, retry(2, 200), Final, 0,
     "client is gone"},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(failover)

BOOST_DATA_TEST_CASE(classifies_each_outcome_by_the_dispatch_rules, data::make(kClassifyCases), c) {
  const auto result = classifyAttempt(c.outcome, c.retries_used, c.policy);
  BOOST_TEST(toString(result.verdict) == toString(c.verdict));
  BOOST_TEST(result.delay.count() == c.delay_ms);
  BOOST_TEST(result.reason.find(c.reason_has) != std::string::npos,
             "reason '" << result.reason << "' lacks '" << c.reason_has << "'");
}

// Every status, against the rule for its class, with and without retries left.
BOOST_DATA_TEST_CASE(every_status_follows_its_class,
                     data::make({100, 101, 200, 201, 202, 204, 206, 299, 300, 301, 302, 304, 307, 308, 400, 401, 402,
                                 403, 404, 405, 406, 408, 409, 410, 411, 412, 413, 414, 415, 416, 418, 421, 422, 423,
                                 424, 425, 426, 428, 429, 431, 451, 499, 500, 501, 502, 503, 504, 505, 507, 508, 510,
                                 511, 520, 522, 524, 529, 599}) *
                         data::make({0, 1, 2, 3}),
                     status, retries_used) {
  const RetryPolicy policy = retry(2, 100);
  const auto result = classifyAttempt(AttemptOutcome::http(status), retries_used, policy);
  AttemptVerdict expected;
  if (status >= 200 && status < 300) {
    expected = Success;
  } else if (status == 429 || status == 503 || status == 529) {
    expected = retries_used < policy.attempts ? RetrySame : Next;
  } else if (status >= 400 && status < 500) {
    expected = Final;
  } else {
    expected = Next;
  }
  BOOST_TEST(toString(result.verdict) == toString(expected));
  if (expected != RetrySame) BOOST_TEST(result.delay.count() == 0);

  // Once the client has bytes, nothing but success moves anywhere.
  AttemptOutcome sent = AttemptOutcome::http(status);
  sent.first_byte_sent = true;
  const auto after = classifyAttempt(sent, retries_used, policy);
  BOOST_TEST(toString(after.verdict) == toString(status >= 200 && status < 300 ? Success : Final));
}

BOOST_DATA_TEST_CASE(every_transport_failure_fails_over_before_the_first_byte_only,
                     data::make({TransportKind::Connect, TransportKind::Dns, TransportKind::Tls, TransportKind::Timeout,
                                 TransportKind::Reset, TransportKind::Protocol}) *
                         data::make({0, 1, 5}),
                     kind, retries_used) {
  const auto before = classifyAttempt(AttemptOutcome::transportFailure(kind), retries_used, retry(2, 200));
  BOOST_TEST(toString(before.verdict) == "next_deployment");
  BOOST_TEST(sluice::dispatch::failoverReason(AttemptOutcome::transportFailure(kind)) == "transport");
  AttemptOutcome after = AttemptOutcome::transportFailure(kind);
  after.first_byte_sent = true;
  BOOST_TEST(toString(classifyAttempt(after, retries_used, retry(2, 200)).verdict) == "final");
}

BOOST_DATA_TEST_CASE(the_retry_delay_never_exceeds_the_cap,
                     data::make({0, 1, 50, 200, 999, 2500, 5000, 10000}) * data::xrange(0, 8), backoff_ms, retries_used) {
  const auto result = classifyAttempt(AttemptOutcome::http(429), retries_used, retry(100, backoff_ms));
  BOOST_TEST(toString(result.verdict) == "retry_same");
  int64_t expected = backoff_ms;
  for (int i = 0; i < retries_used; ++i) expected = std::min<int64_t>(expected * 2, 1'000'000);
  BOOST_TEST(result.delay.count() == std::min<int64_t>(expected, 5000));
  const auto custom = classifyAttempt(AttemptOutcome::http(429), retries_used, retry(100, backoff_ms), 1000ms);
  BOOST_TEST(custom.delay.count() <= 1000);
}

BOOST_AUTO_TEST_CASE(failover_reasons_are_metric_labels) {
  BOOST_TEST(sluice::dispatch::failoverReason(AttemptOutcome::http(503)) == "status_503");
  BOOST_TEST(sluice::dispatch::failoverReason(AttemptOutcome::http(429, 3s)) == "status_429");
  BOOST_TEST(sluice::dispatch::failoverReason(AttemptOutcome::transportFailure(TransportKind::Dns)) == "transport");
  BOOST_TEST(sluice::dispatch::failoverReason(stalledAfterHeaders()) == "transport");
  BOOST_TEST(sluice::dispatch::kCircuitOpenReason == "circuit_open");
}

BOOST_AUTO_TEST_CASE(the_failover_segment_lists_the_providers_in_order) {
  using sluice::dispatch::failoverSegment;
  BOOST_TEST(failoverSegment({}) == "");
  BOOST_TEST(failoverSegment({"anthropic"}) == "");
  BOOST_TEST(failoverSegment({"anthropic", "bedrock"}) == "failover:anthropic->bedrock");
  BOOST_TEST(failoverSegment({"deepseek", "deepseek-eu", "fireworks"}) == "failover:deepseek->deepseek-eu->fireworks");
}

struct PayCase {
  CredentialKind from;
  CredentialKind to;
  bool allowed;
};
std::ostream& operator<<(std::ostream& out, const PayCase& c) {
  return out << toString(c.from) << " -> " << toString(c.to);
}

BOOST_DATA_TEST_CASE(failover_never_moves_from_platform_to_personal,
                     data::make(std::vector<PayCase>{{CredentialKind::Platform, CredentialKind::Platform, true},
                                                     {CredentialKind::Platform, CredentialKind::Personal, false},
                                                     {CredentialKind::Personal, CredentialKind::Platform, true},
                                                     {CredentialKind::Personal, CredentialKind::Personal, true}}),
                     c) {
  Attempt from;
  from.paid_by = c.from;
  Attempt to;
  to.paid_by = c.to;
  BOOST_TEST(sluice::dispatch::mayFailOver(from, to) == c.allowed);
}

struct EventCase {
  std::string name;
  AttemptOutcome outcome;
  std::optional<BreakerEvent::Kind> kind;
  int64_t retry_after_s;
};
std::ostream& operator<<(std::ostream& out, const EventCase& c) { return out << c.name; }

BOOST_DATA_TEST_CASE(
    the_breaker_hears_what_the_endpoint_did,
    data::make(std::vector<EventCase>{
        {"2xx_is_success", AttemptOutcome::http(200), BreakerEvent::Kind::Success, 0},
        {"a_client_error_means_the_endpoint_is_up", AttemptOutcome::http(400), BreakerEvent::Kind::Success, 0},
        {"401_means_the_endpoint_is_up", AttemptOutcome::http(401), BreakerEvent::Kind::Success, 0},
        {"429_without_retry_after_is_a_failure", AttemptOutcome::http(429), BreakerEvent::Kind::Failure, 0},
        {"429_with_retry_after", AttemptOutcome::http(429, 30s), BreakerEvent::Kind::RetryAfter, 30},
        {"503_with_retry_after", AttemptOutcome::http(503, 120s), BreakerEvent::Kind::RetryAfter, 120},
        {"529_is_a_failure", AttemptOutcome::http(529), BreakerEvent::Kind::Failure, 0},
        {"500_is_a_failure", AttemptOutcome::http(500), BreakerEvent::Kind::Failure, 0},
        {"500_ignores_retry_after", AttemptOutcome::http(500, 9s), BreakerEvent::Kind::Failure, 0},
        {"a_redirect_is_a_failure", AttemptOutcome::http(301), BreakerEvent::Kind::Failure, 0},
        {"connect_is_a_failure", AttemptOutcome::transportFailure(TransportKind::Connect), BreakerEvent::Kind::Failure, 0},
        {"a_stall_is_a_failure", sentThenFailed(stalledAfterHeaders()), BreakerEvent::Kind::Failure, 0},
        {"the_client_leaving_mid_stream_is_a_success", clientGone(200, true), BreakerEvent::Kind::Success, 0},
        {"the_client_leaving_before_an_answer_says_nothing", clientGone(std::nullopt, false), std::nullopt, 0},
    }),
    c) {
  const auto event = sluice::dispatch::breakerEventFor(c.outcome);
  BOOST_REQUIRE(event.has_value() == c.kind.has_value());
  if (!event) return;
  BOOST_TEST((event->kind == *c.kind));
  BOOST_TEST(event->retry_after.count() == c.retry_after_s);
}

BOOST_AUTO_TEST_CASE(verdict_and_transport_names_are_stable) {
  BOOST_TEST(toString(AttemptVerdict::Success) == "success");
  BOOST_TEST(toString(AttemptVerdict::RetrySame) == "retry_same");
  BOOST_TEST(toString(AttemptVerdict::NextDeployment) == "next_deployment");
  BOOST_TEST(toString(AttemptVerdict::Final) == "final");
  BOOST_TEST(toString(TransportKind::Connect) == "connect");
  BOOST_TEST(toString(TransportKind::Dns) == "dns");
  BOOST_TEST(toString(TransportKind::Tls) == "tls");
  BOOST_TEST(toString(TransportKind::Timeout) == "timeout");
}

BOOST_AUTO_TEST_SUITE_END()
