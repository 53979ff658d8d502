#include "server/dispatch/attempt_walk.h"

#include <memory>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "server/dispatch/planner.h"
#include "tests/server/dispatch/catalog_fixture.h"
#include "tests/server/dispatch/printers.h"
#include "tests/server/dispatch/resilience_fixture.h"

using sluice::dispatch::Attempt;
using sluice::dispatch::AttemptOutcome;
using sluice::dispatch::AttemptWalk;
using sluice::dispatch::Plan;
using sluice::dispatch::TransportKind;
using Kind = sluice::dispatch::AttemptWalk::Step::Kind;

namespace {

const sluice::catalog::Catalog& resilience() {
  static const auto catalog = sluice::testing::resilienceCatalog();
  return *catalog;
}

Plan plan(const std::string& model) {
  sluice::dispatch::PlanRequest request;
  request.requested_model = model;
  auto result = sluice::dispatch::planDispatch(resilience(), request);
  if (!result) throw std::runtime_error(result.error().message);
  return *result;
}

std::string key(const Attempt* attempt) { return attempt ? attempt->endpoint->key : "none"; }

std::string failovers(const AttemptWalk& walk) {
  std::string text;
  for (const auto& f : walk.failovers()) text += (text.empty() ? "" : " ") + f.from + ">" + f.to + ":" + f.reason;
  return text;
}

std::string kinds(const AttemptWalk& walk) {
  std::string text;
  for (const auto& step : walk.steps()) {
    text += step.kind == Kind::Sent ? 'S' : step.kind == Kind::Skipped ? 'K' : 'D';
  }
  return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(attempt_walk)

BOOST_AUTO_TEST_CASE(a_first_attempt_that_succeeds_leaves_no_failover) {
  const Plan p = plan("chain-model");
  AttemptWalk walk(p.attempts);
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  BOOST_TEST(!walk.lastResort());
  walk.sent(AttemptOutcome::http(200));
  BOOST_TEST(walk.segment() == "");
  BOOST_TEST(walk.failovers().empty());
  BOOST_TEST(kinds(walk) == "S");
  BOOST_TEST(walk.steps().front().reason == "status_200");
}

BOOST_AUTO_TEST_CASE(each_failure_moves_to_the_next_and_leaves_its_reason) {
  const Plan p = plan("chain-model");
  AttemptWalk walk(p.attempts);
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  walk.sent(AttemptOutcome::transportFailure(TransportKind::Connect));
  BOOST_TEST(key(walk.next()) == "deepseek-eu/api");
  walk.sent(AttemptOutcome::http(503));
  BOOST_TEST(key(walk.next()) == "fireworks/api");
  walk.sent(AttemptOutcome::http(200));
  BOOST_TEST(walk.next() == nullptr);
  BOOST_TEST(walk.segment() == "failover:deepseek->deepseek-eu->fireworks");
  BOOST_TEST(failovers(walk) == "deepseek>deepseek-eu:transport deepseek-eu>fireworks:status_503");
}

BOOST_AUTO_TEST_CASE(a_breaker_refusal_defers_the_attempt_and_counts_as_circuit_open) {
  const Plan p = plan("chain-model");
  AttemptWalk walk(p.attempts);
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  walk.defer("open: cooling down, 20s left");
  BOOST_TEST(key(walk.next()) == "deepseek-eu/api");
  walk.sent(AttemptOutcome::http(200));
  BOOST_TEST(walk.segment() == "failover:deepseek->deepseek-eu");
  BOOST_TEST(failovers(walk) == "deepseek>deepseek-eu:circuit_open");
  BOOST_TEST(kinds(walk) == "DS");
  BOOST_TEST(walk.steps().front().reason == "circuit_open: open: cooling down, 20s left");
}

BOOST_AUTO_TEST_CASE(deferred_attempts_are_tried_last_in_order_without_asking_the_breaker) {
  const Plan p = plan("chain-model");
  AttemptWalk walk(p.attempts);
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  walk.defer("open");
  BOOST_TEST(key(walk.next()) == "deepseek-eu/api");
  walk.sent(AttemptOutcome::http(503));
  BOOST_TEST(key(walk.next()) == "fireworks/api");
  BOOST_TEST(!walk.lastResort());
  walk.sent(AttemptOutcome::http(502));
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  BOOST_TEST(walk.lastResort());
  walk.sent(AttemptOutcome::http(200));
  BOOST_TEST(walk.next() == nullptr);
  BOOST_TEST(walk.segment() == "failover:deepseek->deepseek-eu->fireworks->deepseek");
  BOOST_TEST(failovers(walk) ==
             "deepseek>deepseek-eu:circuit_open deepseek-eu>fireworks:status_503 fireworks>deepseek:status_502");
}

BOOST_AUTO_TEST_CASE(when_every_breaker_refuses_one_deferred_attempt_is_still_sent_and_no_more) {
  const Plan p = plan("chain-model");
  AttemptWalk walk(p.attempts);
  for (int i = 0; i < 3; ++i) {
    BOOST_REQUIRE(walk.next() != nullptr);
    walk.defer("open");
  }
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  BOOST_TEST(walk.lastResort());
  walk.sent(AttemptOutcome::http(500));
  // Open breakers stop the rest: the request was not left unsent, and that is all it gets.
  BOOST_TEST(walk.next() == nullptr);
  BOOST_TEST(kinds(walk) == "DDDSKK");
  BOOST_TEST(walk.steps().back().reason == "circuit_open: one last resort was already tried");
}

BOOST_AUTO_TEST_CASE(a_last_resort_that_could_not_be_bound_lets_the_next_deferred_one_go) {
  const Plan p = plan("chain-model");
  AttemptWalk walk(p.attempts);
  for (int i = 0; i < 3; ++i) {
    BOOST_REQUIRE(walk.next() != nullptr);
    walk.defer("open");
  }
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  walk.skip("credential 'deepseek' is not configured");
  BOOST_TEST(key(walk.next()) == "deepseek-eu/api");
  BOOST_TEST(walk.lastResort());
  walk.sent(AttemptOutcome::http(200));
  BOOST_TEST(kinds(walk) == "DDDKS");
}

BOOST_AUTO_TEST_CASE(open_breakers_stop_a_chain_on_one_endpoint_after_it_failed) {
  // Two models on one endpoint: its breaker opened while the first was tried; the second is
  // deferred and must not be the last resort (the endpoint has just failed this request).
  const auto catalog = sluice::testing::dispatchCatalog();
  const auto planned = sluice::dispatch::planDispatch(*catalog, {"claude-sonnet-5-5|claude-haiku-5-5", std::nullopt});
  BOOST_REQUIRE(planned.has_value());
  AttemptWalk walk(planned->attempts);
  BOOST_TEST(key(walk.next()) == "anthropic/api");
  walk.sent(AttemptOutcome::http(503));
  BOOST_TEST(key(walk.next()) == "anthropic/api");
  walk.defer("open: cooling down");
  BOOST_TEST(walk.next() == nullptr);
  BOOST_TEST(kinds(walk) == "SDK");
  BOOST_TEST(walk.steps().back().reason == "circuit_open: 'anthropic/api' already failed this request");
}

BOOST_AUTO_TEST_CASE(failover_never_moves_from_a_sent_platform_attempt_to_a_personal_one) {
  const Plan p = plan("mixed-model");
  AttemptWalk walk(p.attempts);
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  walk.sent(AttemptOutcome::http(503));
  BOOST_TEST(walk.next() == nullptr);
  BOOST_TEST(kinds(walk) == "SK");
  BOOST_TEST(walk.steps().back().reason ==
             "failover never moves from platform-paid 'deepseek/api' to member-paid 'opencode-go/chat'");
  BOOST_TEST(walk.segment() == "");
}

BOOST_AUTO_TEST_CASE(a_skipped_platform_attempt_does_not_count_as_the_from) {
  const Plan p = plan("mixed-model");
  AttemptWalk walk(p.attempts);
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  walk.skip("credential 'deepseek' is not configured");
  BOOST_TEST(key(walk.next()) == "opencode-go/chat");
  walk.sent(AttemptOutcome::http(200));
  BOOST_TEST(walk.segment() == "");
  BOOST_TEST(kinds(walk) == "KS");
}

BOOST_AUTO_TEST_CASE(a_deferred_platform_attempt_does_not_count_as_the_from) {
  const Plan p = plan("mixed-model");
  AttemptWalk walk(p.attempts);
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  walk.defer("open");
  BOOST_TEST(key(walk.next()) == "opencode-go/chat");
  walk.sent(AttemptOutcome::http(500));
  // Back to the deferred platform one: personal -> platform is allowed.
  BOOST_TEST(key(walk.next()) == "deepseek/api");
  BOOST_TEST(walk.lastResort());
  walk.sent(AttemptOutcome::http(200));
  BOOST_TEST(failovers(walk) == "deepseek>opencode-go:circuit_open opencode-go>deepseek:status_500");
}

BOOST_AUTO_TEST_CASE(unbound_attempts_say_why) {
  auto catalog = std::make_shared<sluice::catalog::Catalog>(resilience());
  for (auto& credential : catalog->credentials) {
    if (credential.id == "deepseek") credential.secret.reset();
  }
  sluice::dispatch::PlanRequest request;
  request.requested_model = "mixed-model";
  const auto p = sluice::dispatch::planDispatch(*catalog, request);
  BOOST_REQUIRE(p.has_value());
  const Attempt& platform = p->attempts[0];
  const Attempt& personal = p->attempts[1];
  BOOST_TEST(sluice::dispatch::unboundReason(platform, true).value_or("") ==
             "credential 'deepseek' is not configured");
  BOOST_TEST(sluice::dispatch::unboundReason(personal, false).value_or("") ==
             "needs the caller's own 'opencode-go' key");
  BOOST_TEST(!sluice::dispatch::unboundReason(personal, true).has_value());
  const Plan bound = plan("mixed-model");
  BOOST_TEST(!sluice::dispatch::unboundReason(bound.attempts[0], false).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
