#include "server/dispatch/breaker.h"

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include <boost/test/data/monomorphic.hpp>
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include "tests/server/dispatch/printers.h"

using sluice::catalog::BreakerPolicy;
using sluice::dispatch::Breaker;
using sluice::dispatch::BreakerEvent;
using sluice::dispatch::BreakerState;
using sluice::dispatch::kMaxCooldown;
using sluice::dispatch::TimePoint;
using sluice::dispatch::Transition;
namespace data = boost::unit_test::data;
using namespace std::chrono_literals;

namespace {

// The fake clock: a point `ms` milliseconds after an arbitrary epoch.
TimePoint at(std::chrono::milliseconds ms) { return TimePoint{} + 1000h + ms; }
TimePoint atS(int64_t seconds) { return at(std::chrono::seconds(seconds)); }

BreakerPolicy policy(int failures, int cooldown_s) {
  BreakerPolicy p;
  p.failures = failures;
  p.cooldown_s = cooldown_s;
  return p;
}

// Opens `breaker` at `now` with `failures` consecutive failures.
void trip(Breaker& breaker, int failures, TimePoint now) {
  for (int i = 0; i < failures; ++i) breaker.apply(BreakerEvent::failure(), now);
}

struct Step {
  int64_t at_s;
  BreakerEvent event;
  BreakerState state;     // after the step
  bool admitted;          // Transition::admitted
  std::string reason_has; // a fragment of the reason
};

struct Scenario {
  std::string name;
  int failures;
  int cooldown_s;
  std::vector<Step> steps;
};

std::ostream& operator<<(std::ostream& out, const Scenario& scenario) { return out << scenario.name; }

const auto S = BreakerEvent::success();
const auto F = BreakerEvent::failure();
const auto P = BreakerEvent::probe();
BreakerEvent RA(int64_t seconds) { return BreakerEvent::retryAfter(std::chrono::seconds(seconds)); }
constexpr auto C = BreakerState::Closed;
constexpr auto O = BreakerState::Open;
constexpr auto H = BreakerState::HalfOpen;

const std::vector<Scenario> kScenarios = {
    {"closed_admits_and_success_keeps_it_closed", 3, 30,
     {{0, P, C, true, "closed"}, {0, S, C, true, "success"}, {1, P, C, true, "closed"}}},
    {"failures_below_the_threshold_keep_it_closed", 3, 30,
     {{0, F, C, true, "1 of 3"}, {1, F, C, true, "2 of 3"}, {2, P, C, true, "closed"}}},
    {"consecutive_failures_open_it", 3, 30,
     {{0, F, C, true, "1 of 3"}, {1, F, C, true, "2 of 3"}, {2, F, O, true, "opened after 3 consecutive failures"}}},
    {"a_success_between_failures_resets_the_count", 3, 30,
     {{0, F, C, true, "1 of 3"}, {1, F, C, true, "2 of 3"}, {2, S, C, true, "success"}, {3, F, C, true, "1 of 3"},
      {4, F, C, true, "2 of 3"}, {5, F, O, true, "opened"}}},
    {"open_refuses_requests_during_the_cooldown", 1, 30,
     {{0, F, O, true, "cooldown 30s"}, {1, P, O, false, "29s left"}, {29, P, O, false, "1s left"}}},
    {"after_the_cooldown_one_request_probes", 1, 30,
     {{0, F, O, true, "opened"}, {30, P, H, true, "this request probes"}, {31, P, H, false, "already in flight"}}},
    {"probe_success_closes_and_resets_the_cooldown", 1, 30,
     {{0, F, O, true, "cooldown 30s"}, {30, P, H, true, "probes"}, {31, S, C, true, "cooldown reset to 30s"},
      {32, F, O, true, "cooldown 30s"}}},
    {"probe_failure_reopens_with_a_doubled_cooldown", 1, 30,
     {{0, F, O, true, "cooldown 30s"}, {30, P, H, true, "probes"}, {31, F, O, true, "cooldown 60s"},
      {90, P, O, false, "1s left"}, {91, P, H, true, "probes"}, {92, F, O, true, "cooldown 120s"}}},
    {"probe_failure_with_retry_after_reopens_for_the_longer_of_the_two", 1, 30,
     {{0, F, O, true, "opened"}, {30, P, H, true, "probes"}, {31, RA(300), O, true, "extended to 300s"},
      {330, P, O, false, "1s left"}, {331, P, H, true, "probes"}}},
    {"retry_after_longer_than_the_cooldown_extends_an_open_breaker", 1, 30,
     {{0, F, O, true, "opened"}, {10, RA(100), O, true, "extends the cooldown"}, {30, P, O, false, "80s left"},
      {110, P, H, true, "probes"}}},
    {"retry_after_shorter_than_the_cooldown_changes_nothing", 1, 30,
     {{0, F, O, true, "opened"}, {10, RA(5), O, true, "while open"}, {30, P, H, true, "probes"}}},
    {"retry_after_counts_as_a_failure_while_closed", 2, 30,
     {{0, RA(10), C, true, "retry-after 10s 1 of 2"}, {1, RA(90), O, true, "extended to 90s"},
      {60, P, O, false, "31s left"}, {91, P, H, true, "probes"}}},
    {"the_tripping_retry_after_extends_the_first_cooldown", 1, 30,
     {{0, RA(45), O, true, "extended to 45s"}, {44, P, O, false, "1s left"}, {45, P, H, true, "probes"}}},
    {"a_success_while_open_does_not_close_it", 1, 30,
     {{0, F, O, true, "opened"}, {5, S, O, true, "waiting for the cooldown"}, {6, P, O, false, "left"}}},
    {"a_failure_while_open_does_not_extend_it", 1, 30,
     {{0, F, O, true, "opened"}, {20, F, O, true, "failure while open"}, {30, P, H, true, "probes"}}},
    {"a_lost_probe_expires_after_one_cooldown", 1, 30,
     {{0, F, O, true, "opened"}, {30, P, H, true, "probes"}, {59, P, H, false, "already in flight"},
      {60, P, H, true, "previous probe expired"}, {61, S, C, true, "probe succeeded"}}},
    {"any_success_while_half_open_closes_it", 1, 30,
     {{0, F, O, true, "opened"}, {30, P, H, true, "probes"}, {31, S, C, true, "closed"}, {32, P, C, true, "closed"}}},
    {"a_probe_may_arrive_long_after_the_cooldown", 2, 10,
     {{0, F, C, true, "1 of 2"}, {0, F, O, true, "cooldown 10s"}, {10000, P, H, true, "probes"},
      {10001, S, C, true, "closed"}}},
    {"the_cooldown_caps_at_ten_minutes", 1, 200,
     {{0, F, O, true, "cooldown 200s"}, {200, P, H, true, ""}, {200, F, O, true, "cooldown 400s"},
      {600, P, H, true, ""}, {600, F, O, true, "cooldown 600s"}, {1200, P, H, true, ""},
      {1200, F, O, true, "cooldown 600s"}}},
    {"a_policy_cooldown_above_the_cap_is_kept", 1, 900,
     {{0, F, O, true, "cooldown 900s"}, {900, P, H, true, ""}, {900, F, O, true, "cooldown 900s"}}},
    {"reopen_after_close_starts_again_from_the_first_cooldown", 1, 30,
     {{0, F, O, true, "cooldown 30s"}, {30, P, H, true, ""}, {30, F, O, true, "cooldown 60s"},
      {90, P, H, true, ""}, {90, S, C, true, "reset to 30s"}, {100, F, O, true, "cooldown 30s"}}},
    {"a_threshold_of_zero_is_treated_as_one", 0, 30, {{0, F, O, true, "opened after 1"}}},
};

}  // namespace

BOOST_AUTO_TEST_SUITE(breaker)

BOOST_DATA_TEST_CASE(scenario_steps_give_the_expected_states_and_reasons, data::make(kScenarios), scenario) {
  Breaker breaker(policy(scenario.failures, scenario.cooldown_s));
  for (size_t i = 0; i < scenario.steps.size(); ++i) {
    const Step& step = scenario.steps[i];
    BOOST_TEST_CONTEXT("step " << i << " at " << step.at_s << "s") {
      const BreakerState before = breaker.state();
      const Transition transition = breaker.apply(step.event, atS(step.at_s));
      BOOST_TEST(transition.from == before);
      BOOST_TEST(transition.to == step.state);
      BOOST_TEST(breaker.state() == step.state);
      BOOST_TEST(transition.admitted == step.admitted);
      BOOST_TEST(!transition.reason.empty());
      BOOST_TEST(transition.reason.find(step.reason_has) != std::string::npos,
                 "reason '" << transition.reason << "' lacks '" << step.reason_has << "'");
    }
  }
}

BOOST_DATA_TEST_CASE(opens_after_exactly_the_threshold_of_consecutive_failures,
                     data::xrange(1, 11) * data::make({1, 5, 30, 120}), failures, cooldown_s) {
  Breaker breaker(policy(failures, cooldown_s));
  for (int i = 1; i < failures; ++i) {
    const auto transition = breaker.apply(BreakerEvent::failure(), atS(i));
    BOOST_TEST(transition.to == BreakerState::Closed);
    BOOST_TEST(breaker.consecutiveFailures() == i);
  }
  const auto opened = breaker.apply(BreakerEvent::failure(), atS(failures));
  BOOST_TEST(opened.from == BreakerState::Closed);
  BOOST_TEST(opened.to == BreakerState::Open);
  BOOST_TEST(opened.changed());
  BOOST_TEST((breaker.openUntil() == atS(failures + cooldown_s)));
  BOOST_TEST(breaker.cooldown().count() == cooldown_s);
}

BOOST_DATA_TEST_CASE(a_success_resets_the_consecutive_count, data::xrange(2, 11), failures) {
  Breaker breaker(policy(failures, 30));
  trip(breaker, failures - 1, atS(0));
  breaker.apply(BreakerEvent::success(), atS(1));
  BOOST_TEST(breaker.consecutiveFailures() == 0);
  trip(breaker, failures - 1, atS(2));
  BOOST_TEST(breaker.state() == BreakerState::Closed);
  breaker.apply(BreakerEvent::failure(), atS(3));
  BOOST_TEST(breaker.state() == BreakerState::Open);
}

BOOST_DATA_TEST_CASE(half_opens_exactly_when_the_cooldown_is_over, data::make({1, 2, 10, 30, 59, 300, 600}), cooldown_s) {
  Breaker breaker(policy(1, cooldown_s));
  breaker.apply(BreakerEvent::failure(), atS(100));
  const auto early = breaker.apply(BreakerEvent::probe(), at(std::chrono::seconds(100 + cooldown_s) - 1ms));
  BOOST_TEST(!early.admitted);
  BOOST_TEST(early.to == BreakerState::Open);
  BOOST_TEST(breaker.snapshotState(at(std::chrono::seconds(100 + cooldown_s) - 1ms)) == BreakerState::Open);
  BOOST_TEST(breaker.snapshotState(atS(100 + cooldown_s)) == BreakerState::HalfOpen);
  const auto probe = breaker.apply(BreakerEvent::probe(), atS(100 + cooldown_s));
  BOOST_TEST(probe.admitted);
  BOOST_TEST(probe.to == BreakerState::HalfOpen);
}

// Each failed probe doubles the cooldown until ten minutes (or the policy's own, if longer).
BOOST_DATA_TEST_CASE(the_cooldown_doubles_on_each_reopen_up_to_ten_minutes,
                     data::make({1, 5, 7, 30, 45, 100, 150, 299, 300, 301, 599, 600, 900}), base_s) {
  Breaker breaker(policy(2, base_s));
  int64_t now = 0;
  trip(breaker, 2, atS(now));
  int64_t expected = base_s;
  const int64_t cap = std::max<int64_t>(600, base_s);
  for (int reopen = 0; reopen < 12; ++reopen) {
    BOOST_TEST_CONTEXT("reopen " << reopen) {
      BOOST_TEST(breaker.cooldown().count() == expected);
      BOOST_TEST((breaker.openUntil() == atS(now + expected)));
      now += expected;
      BOOST_TEST(breaker.apply(BreakerEvent::probe(), atS(now)).admitted);
      const auto reopened = breaker.apply(BreakerEvent::failure(), atS(now));
      BOOST_TEST(reopened.from == BreakerState::HalfOpen);
      BOOST_TEST(reopened.to == BreakerState::Open);
      expected = std::min(expected * 2, cap);
    }
  }
  BOOST_TEST(breaker.cooldown().count() <= std::max<int64_t>(kMaxCooldown.count(), base_s));
}

struct RetryAfterCase {
  int cooldown_s;
  int retry_after_s;
  int expected_open_s;
};
std::ostream& operator<<(std::ostream& out, const RetryAfterCase& c) {
  return out << "cooldown " << c.cooldown_s << "s, retry-after " << c.retry_after_s << "s";
}

BOOST_DATA_TEST_CASE(a_retry_after_longer_than_the_cooldown_extends_the_open_period,
                     data::make(std::vector<RetryAfterCase>{{30, 0, 30},
                                                            {30, 1, 30},
                                                            {30, 29, 30},
                                                            {30, 30, 30},
                                                            {30, 31, 31},
                                                            {30, 120, 120},
                                                            {30, 3600, 3600},
                                                            {600, 599, 600},
                                                            {600, 601, 601},
                                                            {1, 2, 2},
                                                            {5, -3, 5}}),
                     c) {
  // On the tripping event.
  Breaker tripped(policy(1, c.cooldown_s));
  tripped.apply(BreakerEvent::retryAfter(std::chrono::seconds(c.retry_after_s)), atS(0));
  BOOST_TEST((tripped.openUntil() == atS(c.expected_open_s)));
  BOOST_TEST(tripped.cooldown().count() == c.cooldown_s);  // the doubling base is unchanged

  // While open, counted from when it arrives.
  Breaker open(policy(1, c.cooldown_s));
  open.apply(BreakerEvent::failure(), atS(0));
  open.apply(BreakerEvent::retryAfter(std::chrono::seconds(c.retry_after_s)), atS(0));
  BOOST_TEST((open.openUntil() == atS(c.expected_open_s)));
  BOOST_TEST(open.state() == BreakerState::Open);
}

BOOST_AUTO_TEST_CASE(only_one_probe_is_admitted_at_a_time) {
  Breaker breaker(policy(1, 30));
  breaker.apply(BreakerEvent::failure(), atS(0));
  int admitted = 0;
  for (int i = 0; i < 50; ++i) admitted += breaker.apply(BreakerEvent::probe(), at(30s + std::chrono::milliseconds(i))).admitted;
  BOOST_TEST(admitted == 1);
  BOOST_TEST(breaker.snapshotState(atS(31)) == BreakerState::Open);  // nothing more admitted now
}

BOOST_AUTO_TEST_CASE(snapshot_state_tells_the_planner_what_would_be_admitted) {
  Breaker breaker(policy(1, 30));
  BOOST_TEST(breaker.snapshotState(atS(0)) == BreakerState::Closed);
  breaker.apply(BreakerEvent::failure(), atS(0));
  BOOST_TEST(breaker.snapshotState(atS(10)) == BreakerState::Open);
  BOOST_TEST(breaker.snapshotState(atS(30)) == BreakerState::HalfOpen);  // a probe may go
  BOOST_TEST(breaker.state() == BreakerState::Open);                     // a snapshot changes nothing
  breaker.apply(BreakerEvent::probe(), atS(30));
  BOOST_TEST(breaker.snapshotState(atS(31)) == BreakerState::Open);      // the probe is out
  BOOST_TEST(breaker.snapshotState(atS(60)) == BreakerState::HalfOpen);  // and has expired
  breaker.apply(BreakerEvent::success(), atS(31));
  BOOST_TEST(breaker.snapshotState(atS(31)) == BreakerState::Closed);
}

BOOST_AUTO_TEST_CASE(state_names_are_stable) {
  BOOST_TEST(sluice::dispatch::toString(BreakerState::Closed) == "closed");
  BOOST_TEST(sluice::dispatch::toString(BreakerState::Open) == "open");
  BOOST_TEST(sluice::dispatch::toString(BreakerState::HalfOpen) == "half_open");
}

// Random event streams: only the legal edges are ever taken, every transition has a reason, and
// an open breaker never admits before its cooldown is over.
BOOST_DATA_TEST_CASE(random_event_streams_only_take_legal_edges, data::xrange(0, 40), seed) {
  std::mt19937_64 rng(static_cast<uint64_t>(seed) * 7919 + 1);
  std::uniform_int_distribution<int> pick(0, 9);
  std::uniform_int_distribution<int> step_ms(0, 20'000);
  Breaker breaker(policy(1 + seed % 5, 1 + seed % 40));
  std::chrono::milliseconds now{0};
  for (int i = 0; i < 500; ++i) {
    now += std::chrono::milliseconds(step_ms(rng));
    const int r = pick(rng);
    const BreakerEvent event = r < 3   ? BreakerEvent::probe()
                               : r < 6 ? BreakerEvent::success()
                               : r < 9 ? BreakerEvent::failure()
                                       : BreakerEvent::retryAfter(std::chrono::seconds(r * 7));
    const TimePoint open_until = breaker.openUntil();
    const Transition t = breaker.apply(event, at(now));
    BOOST_REQUIRE(!t.reason.empty());
    if (t.changed()) {
      const bool legal = (t.from == BreakerState::Closed && t.to == BreakerState::Open) ||
                         (t.from == BreakerState::Open && t.to == BreakerState::HalfOpen) ||
                         (t.from == BreakerState::HalfOpen && t.to == BreakerState::Closed) ||
                         (t.from == BreakerState::HalfOpen && t.to == BreakerState::Open);
      BOOST_REQUIRE_MESSAGE(legal, "illegal edge: " << toString(t.from) << " -> " << toString(t.to));
    }
    if (t.from == BreakerState::Open && event.kind == BreakerEvent::Kind::Probe) {
      BOOST_REQUIRE(t.admitted == (at(now) >= open_until));
    }
    if (event.kind != BreakerEvent::Kind::Probe) BOOST_REQUIRE(t.admitted);
    BOOST_REQUIRE(breaker.cooldown().count() <= std::max<int64_t>(kMaxCooldown.count(), 1 + seed % 40));
  }
}

BOOST_AUTO_TEST_SUITE_END()
