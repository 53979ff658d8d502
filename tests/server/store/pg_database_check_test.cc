// PgDatabaseCheck (readiness's ping and heartbeat, the console's fleet view) against a scratch
// PostgreSQL.
#include "server/store/pg_database_check.h"

#include <boost/test/unit_test.hpp>

#include "tests/server/store/scratch_database.h"

using namespace sluice;
using namespace std::chrono;

BOOST_AUTO_TEST_SUITE(pg_database_check)

BOOST_AUTO_TEST_CASE(a_heartbeat_shows_in_the_fleet_view_and_is_replaced_by_the_next) {
  test::ScratchDatabase database;
  store::PgDatabaseCheck check(std::make_shared<store::ConnectionPool>(database.url()));
  check.ping();
  const auto started = system_clock::now() - minutes(5);
  check.heartbeat(store::ReplicaBeat{"replica-b", "v1", started, false});
  check.heartbeat(store::ReplicaBeat{"replica-a", "v1", started, false});
  check.heartbeat(store::ReplicaBeat{"replica-a", "v2", started, true});
  const auto seen = check.replicas();
  BOOST_REQUIRE(seen.size() == 2u);
  BOOST_TEST(seen[0].name == "replica-a");
  BOOST_TEST(seen[0].catalog_version == "v2");
  BOOST_TEST(seen[0].draining);
  BOOST_TEST(seen[0].up_seconds > 290.0);
  BOOST_TEST(seen[0].seen_seconds_ago < 60.0);
  BOOST_TEST(seen[1].name == "replica-b");
}

BOOST_AUTO_TEST_CASE(an_unreachable_database_throws) {
  store::PoolOptions options;
  options.connect_timeout_seconds = 1;
  store::PgDatabaseCheck check(
      std::make_shared<store::ConnectionPool>("postgresql://sluice:sluice@127.0.0.1:1/none", options));
  BOOST_CHECK_THROW(check.ping(), std::exception);
}

BOOST_AUTO_TEST_SUITE_END()
