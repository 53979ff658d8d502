// identity::QuotaStore's rules (enforce and warn, settle, release, prune) over in-memory counters:
// tests/fakes/fake_quota_counters.h. The same store over PostgreSQL: quota_store_test.cc.
#include "server/identity/quota_store.h"

#include <boost/test/unit_test.hpp>

#include "tests/fakes/fake_quota_counters.h"
#include "tests/server/identity/quota_windows.h"

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;
using test::subject;
using test::window;

namespace {

// 2026-11-29T21:43:20Z.
const TimePoint kNow{seconds(1'795'988'600)};

struct Fixture {
  std::shared_ptr<fakes::FakeQuotaCounters> counters = std::make_shared<fakes::FakeQuotaCounters>();
  QuotaStore store{counters};

  int64_t requests(const std::string& kind, const std::string& value, const std::string& window_id) const {
    const auto totals = counters->totals(kind, value, window_id);
    return totals ? totals->requests : -1;
  }
};

catalog::Quotas hourlyRequests(catalog::QuotaMode mode, int64_t limit) {
  catalog::Quotas quotas;
  quotas.mode = mode;
  quotas.windows.push_back(window("hourly", catalog::QuotaScope::User, 3600));
  quotas.windows.back().max_requests = limit;
  return quotas;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_reservation)

BOOST_FIXTURE_TEST_CASE(enforce_refuses_past_the_limit_and_counts_the_refusal_nowhere, Fixture) {
  const auto quotas = hourlyRequests(catalog::QuotaMode::Enforce, 2);
  BOOST_TEST(store.reserve(quotas, subject("alice"), 10, kNow).admitted);
  BOOST_TEST(store.reserve(quotas, subject("alice"), 10, kNow).admitted);
  const Reservation third = store.reserve(quotas, subject("alice"), 10, kNow);
  BOOST_TEST(!third.admitted);
  BOOST_TEST(third.counted.empty());
  BOOST_REQUIRE(third.breach.has_value());
  BOOST_TEST(third.breach->window_id == "hourly");
  BOOST_TEST(third.breach->scope_value == "alice");
  BOOST_TEST(third.breach->used == 2);
  BOOST_TEST(third.breach->limit == 2);
  BOOST_TEST((third.breach->resets_at == TimePoint(seconds(1'795'989'600))));  // 22:00:00Z
  BOOST_TEST(requests("user", "alice", "hourly") == 2);
  BOOST_TEST(counters->totals("user", "alice", "hourly")->input_tokens == 20);
  // Another member's counter is another row.
  BOOST_TEST(store.reserve(quotas, subject("bob"), 10, kNow).admitted);
}

BOOST_FIXTURE_TEST_CASE(a_new_window_starts_from_zero, Fixture) {
  const auto quotas = hourlyRequests(catalog::QuotaMode::Enforce, 1);
  BOOST_TEST(store.reserve(quotas, subject("carol"), 0, kNow).admitted);
  BOOST_TEST(!store.reserve(quotas, subject("carol"), 0, kNow).admitted);
  BOOST_TEST(store.reserve(quotas, subject("carol"), 0, kNow + hours(1)).admitted);
}

BOOST_FIXTURE_TEST_CASE(warn_admits_and_counts_a_request_past_the_limit_and_reports_the_breach, Fixture) {
  const auto quotas = hourlyRequests(catalog::QuotaMode::Warn, 1);
  const Reservation first = store.reserve(quotas, subject("dora"), 0, kNow);
  BOOST_TEST(first.admitted);
  BOOST_TEST(!first.breach.has_value());
  const Reservation second = store.reserve(quotas, subject("dora"), 0, kNow);
  BOOST_TEST(second.admitted);
  BOOST_REQUIRE(second.breach.has_value());
  BOOST_TEST(second.breach->message() ==
             "quota 'hourly' exceeded for user dora: 1 of 1 requests used; resets at 2026-11-29T22:00:00Z");
  BOOST_TEST(second.counted.size() == 1u);
  BOOST_TEST(requests("user", "dora", "hourly") == 2);
}

BOOST_FIXTURE_TEST_CASE(the_first_exceeded_window_in_catalog_order_is_reported, Fixture) {
  catalog::Quotas quotas;
  quotas.mode = catalog::QuotaMode::Enforce;
  // "zz-" sorts last in lock order but comes first in the catalog.
  quotas.windows.push_back(window("zz-daily", catalog::QuotaScope::User, 86400));
  quotas.windows.back().max_requests = 1;
  quotas.windows.push_back(window("aa-org", catalog::QuotaScope::Organisation, 3600));
  quotas.windows.back().max_requests = 1;
  BOOST_TEST(store.reserve(quotas, subject("erin"), 0, kNow).admitted);
  const Reservation refused = store.reserve(quotas, subject("erin"), 0, kNow);
  BOOST_REQUIRE(refused.breach.has_value());
  BOOST_TEST(refused.breach->window_id == "zz-daily");
  // The organisation window counts everyone.
  const Reservation other = store.reserve(quotas, subject("frank"), 0, kNow);
  BOOST_TEST(!other.admitted);
  BOOST_TEST(other.breach->window_id == "aa-org");
}

BOOST_FIXTURE_TEST_CASE(an_input_token_estimate_that_would_pass_the_limit_is_refused, Fixture) {
  catalog::Quotas quotas;
  quotas.mode = catalog::QuotaMode::Enforce;
  quotas.windows.push_back(window("tokens", catalog::QuotaScope::Project, 3600));
  quotas.windows.back().max_input_tokens = 100;
  BOOST_TEST(store.reserve(quotas, subject("gus", "research"), 60, kNow).admitted);
  const Reservation refused = store.reserve(quotas, subject("gus", "research"), 50, kNow);
  BOOST_TEST(!refused.admitted);
  BOOST_TEST((refused.breach->measure == QuotaMeasure::InputTokens));
  BOOST_TEST(store.reserve(quotas, subject("gus", "research"), 40, kNow).admitted);
}

BOOST_FIXTURE_TEST_CASE(settle_corrects_the_estimate_and_adds_output_and_cost, Fixture) {
  auto quotas = hourlyRequests(catalog::QuotaMode::Enforce, 100);
  quotas.windows.back().max_cost_microdollars = 1'000'000;
  const Reservation reservation = store.reserve(quotas, subject("hana"), 500, kNow);
  BOOST_REQUIRE(reservation.admitted);
  store.settle(reservation, QuotaUsage{1, 420, 77, 600'000});
  const auto totals = counters->totals("user", "hana", "hourly").value();
  BOOST_TEST(totals.requests == 1);
  BOOST_TEST(totals.input_tokens == 420);
  BOOST_TEST(totals.output_tokens == 77);
  BOOST_TEST(totals.cost_microdollars == 600'000);
  store.settle(store.reserve(quotas, subject("hana"), 0, kNow), QuotaUsage{0, 0, 0, 400'000});
  const Reservation spent = store.reserve(quotas, subject("hana"), 0, kNow);
  BOOST_TEST(!spent.admitted);
  BOOST_TEST(spent.breach->message() ==
             "quota 'hourly' exceeded for user hana: $1.00 of $1.00 spent; resets at 2026-11-29T22:00:00Z");
}

BOOST_FIXTURE_TEST_CASE(release_uncounts_a_request_that_was_never_sent, Fixture) {
  const auto quotas = hourlyRequests(catalog::QuotaMode::Enforce, 1);
  const Reservation reservation = store.reserve(quotas, subject("ivan"), 30, kNow);
  BOOST_REQUIRE(reservation.admitted);
  store.release(reservation);
  BOOST_TEST(requests("user", "ivan", "hourly") == 0);
  BOOST_TEST(counters->totals("user", "ivan", "hourly")->input_tokens == 0);
  BOOST_TEST(store.reserve(quotas, subject("ivan"), 30, kNow).admitted);
}

BOOST_FIXTURE_TEST_CASE(refused_and_windowless_reservations_never_reach_the_counters, Fixture) {
  const Reservation free = store.reserve(catalog::Quotas{}, subject("jo"), 10, kNow);
  BOOST_TEST(free.admitted);
  BOOST_TEST(free.counted.empty());
  // A project window skips a request without a project.
  catalog::Quotas quotas;
  quotas.windows.push_back(window("per-project", catalog::QuotaScope::Project, 60));
  quotas.windows.back().max_requests = 1;
  BOOST_TEST(store.reserve(quotas, subject("jo"), 10, kNow).admitted);
  store.settle(free, QuotaUsage{1, 10, 10, 10});
  store.release(free);
  BOOST_TEST(counters->calls() == 0u);
}

BOOST_FIXTURE_TEST_CASE(prune_deletes_the_counters_of_ended_windows_only, Fixture) {
  catalog::Quotas quotas;
  quotas.windows.push_back(window("minute", catalog::QuotaScope::User, 60));
  quotas.windows.push_back(window("day", catalog::QuotaScope::User, 86400));
  BOOST_TEST(store.reserve(quotas, subject("kim"), 0, kNow).admitted);
  BOOST_TEST(counters->counters() == 2u);
  BOOST_TEST(store.prune(kNow + minutes(5)) == 1u);
  BOOST_TEST(!counters->totals("user", "kim", "minute").has_value());
  BOOST_TEST(requests("user", "kim", "day") == 1);
}

BOOST_FIXTURE_TEST_CASE(an_unreachable_store_throws_and_counts_nothing, Fixture) {
  const auto quotas = hourlyRequests(catalog::QuotaMode::Enforce, 5);
  counters->setFailing(true);
  BOOST_CHECK_THROW(store.reserve(quotas, subject("lea"), 0, kNow), std::runtime_error);
  counters->setFailing(false);
  BOOST_TEST(!counters->totals("user", "lea", "hourly").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
