// QuotaCounters held to one contract, against PostgreSQL (PgQuotaCounters) and tests/fakes'
// FakeQuotaCounters: a reservation counts, a refusal keeps empty rows, settling adds, live()
// lists the counters whose window has not ended in key order, prune() drops ended ones. And which
// store failures the console answers with 503.
#include <tuple>

#include <boost/test/unit_test.hpp>

#include "server/store/database_failure.h"
#include "server/store/pg_quota_counters.h"
#include "tests/fakes/fake_quota_counters.h"
#include "tests/server/store/scratch_database.h"

using namespace sluice;
using namespace std::chrono;

namespace {

const store::TimePoint kNow{seconds(1'795'988'400)};  // a whole hour

class PgCounters {
 public:
  store::QuotaCounters& counters() { return counters_; }

 private:
  test::ScratchDatabase database_;
  store::PgQuotaCounters counters_{std::make_shared<store::ConnectionPool>(database_.url())};
};

class FakeCounters {
 public:
  store::QuotaCounters& counters() { return counters_; }

 private:
  fakes::FakeQuotaCounters counters_;
};

using CounterBackends = std::tuple<PgCounters, FakeCounters>;

store::CounterKey hourOf(const std::string& user, store::TimePoint start) {
  return store::CounterKey{"user", user, "hourly", start, start + hours(1)};
}

bool admitAll(const std::vector<store::CounterTotals>&) { return true; }

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_counters)

BOOST_AUTO_TEST_CASE_TEMPLATE(live_lists_what_was_counted_in_windows_not_yet_ended, Backend, CounterBackends) {
  Backend backend;
  auto& counters = backend.counters();
  const auto bob_now = hourOf("bob", kNow);
  const auto alice_now = hourOf("alice", kNow);
  const auto alice_before = hourOf("alice", kNow - hours(1));
  BOOST_TEST(counters.reserve({alice_before}, 5, admitAll));
  BOOST_TEST(counters.reserve({alice_now}, 7, admitAll));
  BOOST_TEST(counters.reserve({bob_now}, 3, admitAll));
  // A refused reservation keeps its (empty) row and counts nothing.
  BOOST_TEST(!counters.reserve({bob_now}, 100, [](const std::vector<store::CounterTotals>& totals) {
    return totals[0].requests < 1;
  }));
  counters.add({alice_now}, store::CounterTotals{0, 2, 11, 40});

  const auto live = counters.live(kNow + minutes(30));
  BOOST_REQUIRE_EQUAL(live.size(), 2u);
  BOOST_TEST(live[0].key.scope_value == "alice");
  BOOST_TEST(live[0].key.window_id == "hourly");
  BOOST_TEST((live[0].key.window_start == kNow));
  BOOST_TEST((live[0].key.window_end == kNow + hours(1)));
  BOOST_TEST(live[0].totals.requests == 1);
  BOOST_TEST(live[0].totals.input_tokens == 9);
  BOOST_TEST(live[0].totals.output_tokens == 11);
  BOOST_TEST(live[0].totals.cost_microdollars == 40);
  BOOST_TEST(live[1].key.scope_value == "bob");
  BOOST_TEST(live[1].totals.requests == 1);
  BOOST_TEST(live[1].totals.input_tokens == 3);
  // A window ending exactly at `now` has ended.
  BOOST_TEST(counters.live(kNow + hours(1)).empty());
  BOOST_TEST(counters.live(kNow - minutes(1)).size() == 3u);

  BOOST_TEST(counters.prune(kNow + seconds(1)) == 1u);  // alice's earlier hour
  BOOST_TEST(counters.live(kNow - minutes(1)).size() == 2u);
}

BOOST_AUTO_TEST_CASE(an_unreachable_database_and_a_busy_pool_are_told_apart_from_other_failures) {
  BOOST_TEST((store::databaseFailureOf(pqxx::broken_connection("gone")) == store::DatabaseFailure::Unreachable));
  BOOST_TEST((store::databaseFailureOf(store::PoolExhausted("busy")) == store::DatabaseFailure::Busy));
  BOOST_TEST(!store::databaseFailureOf(pqxx::sql_error("syntax")).has_value());
  BOOST_TEST(!store::databaseFailureOf(std::runtime_error("bug")).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
