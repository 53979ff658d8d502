#include "server/dispatch/call_budget.h"

#include <boost/test/unit_test.hpp>

using sluice::dispatch::CallBudget;
using std::chrono::milliseconds;

BOOST_AUTO_TEST_SUITE(call_budget)

BOOST_AUTO_TEST_CASE(upstream_calls_per_request_stop_at_max_attempts) {
  CallBudget budget(sluice::catalog::GatewayLimits{.max_attempts = 3, .max_retry_ms = 10000});
  BOOST_TEST(budget.take());
  BOOST_TEST(budget.take());
  BOOST_TEST(budget.left());
  BOOST_TEST(budget.take());
  BOOST_TEST(!budget.left());
  BOOST_TEST(budget.segment() == "");  // nothing was stopped yet
  BOOST_TEST(!budget.take());
  BOOST_TEST(budget.calls() == 3);
  BOOST_TEST(budget.segment() == "limit:max_attempts");
  BOOST_TEST(budget.spentReason() == "max_attempts of 3 spent");
}

BOOST_AUTO_TEST_CASE(the_default_caps_a_request_at_ten_calls) {
  CallBudget budget{sluice::catalog::GatewayLimits{}};
  int calls = 0;
  while (budget.take()) ++calls;
  BOOST_TEST(calls == 10);
}

BOOST_AUTO_TEST_CASE(retry_waits_are_summed_against_max_retry_ms) {
  CallBudget budget(sluice::catalog::GatewayLimits{.max_attempts = 100, .max_retry_ms = 1000});
  BOOST_TEST(budget.take());
  BOOST_TEST(budget.mayRetry(milliseconds(600)));
  BOOST_TEST(budget.take());
  BOOST_TEST(budget.mayRetry(milliseconds(400)));
  BOOST_TEST(budget.take());
  BOOST_TEST(!budget.mayRetry(milliseconds(1)));
  BOOST_TEST(budget.segment() == "limit:max_retry_ms");
  BOOST_TEST(budget.spentReason() == "max_retry_ms of 1000 spent");
  // A failover (no wait) may still call.
  BOOST_TEST(budget.take());
}

BOOST_AUTO_TEST_CASE(a_retry_needs_a_call_left_too) {
  CallBudget budget(sluice::catalog::GatewayLimits{.max_attempts = 1, .max_retry_ms = 10000});
  BOOST_TEST(budget.take());
  BOOST_TEST(!budget.mayRetry(milliseconds(0)));
  BOOST_TEST(budget.segment() == "limit:max_attempts");
}

BOOST_AUTO_TEST_SUITE_END()
