#include "server/audit/refusal_throttle.h"

#include <boost/test/unit_test.hpp>

using namespace sluice;
using namespace std::chrono_literals;
using audit::RefusalThrottle;

namespace {

const RefusalThrottle::SteadyClock::time_point t0{std::chrono::hours(1)};

}  // namespace

BOOST_AUTO_TEST_SUITE(refusal_throttle)

BOOST_AUTO_TEST_CASE(row2_keyless_refusals_beyond_the_bound_are_counted_into_one_summary) {
  RefusalThrottle throttle({.rows_per_window = 3, .window = 10s});
  int written = 0;
  for (int i = 0; i < 1000; ++i) written += throttle.admit("203.0.113.9", t0 + std::chrono::milliseconds(i)) ? 1 : 0;
  BOOST_TEST(written == 3);
  BOOST_TEST(throttle.suppressedTotal() == 997u);
  BOOST_TEST(throttle.due(t0 + 9s).empty());  // the window has not ended
  const auto summaries = throttle.due(t0 + 10s);
  BOOST_TEST_REQUIRE(summaries.size() == 1u);
  BOOST_TEST(summaries[0].peer == "203.0.113.9");
  BOOST_TEST(summaries[0].suppressed == 997u);
  // Nothing lost: every refusal is a row or counted in the summary.
  BOOST_TEST(written + summaries[0].suppressed == 1000u);
  // The next window writes rows again.
  BOOST_TEST(throttle.admit("203.0.113.9", t0 + 11s));
  BOOST_TEST(throttle.due(t0 + 30s).empty());  // no refusal was counted in that window: no summary
}

BOOST_AUTO_TEST_CASE(each_address_has_its_own_budget) {
  RefusalThrottle throttle({.rows_per_window = 1, .window = 10s});
  BOOST_TEST(throttle.admit("a", t0));
  BOOST_TEST(!throttle.admit("a", t0 + 1s));
  BOOST_TEST(throttle.admit("b", t0 + 1s));  // another caller's rows are not spent by the flooder
  const auto summaries = throttle.due(t0 + 20s);
  BOOST_TEST_REQUIRE(summaries.size() == 1u);
  BOOST_TEST(summaries[0].peer == "a");
  BOOST_TEST(summaries[0].suppressed == 1u);
}

BOOST_AUTO_TEST_CASE(the_table_of_addresses_is_bounded) {
  RefusalThrottle throttle({.rows_per_window = 1, .window = 10s, .max_peers = 4});
  for (int i = 0; i < 1000; ++i) throttle.admit("198.51.100." + std::to_string(i), t0);
  BOOST_TEST(throttle.peers() <= 5u);  // four addresses and the shared entry
  const auto summaries = throttle.due(t0 + 10s);
  BOOST_TEST_REQUIRE(summaries.size() == 1u);
  BOOST_TEST(summaries[0].peer == std::string(RefusalThrottle::kOtherPeers));
  BOOST_TEST(summaries[0].suppressed == 995u);  // 4 own rows, 1 shared row, the rest counted
}

BOOST_AUTO_TEST_CASE(no_limit_writes_every_row) {
  RefusalThrottle throttle({.rows_per_window = 0});
  for (int i = 0; i < 100; ++i) BOOST_TEST(throttle.admit("a", t0));
  BOOST_TEST(throttle.suppressedTotal() == 0u);
}

BOOST_AUTO_TEST_CASE(drain_all_returns_unfinished_windows_at_shutdown) {
  RefusalThrottle throttle({.rows_per_window = 1, .window = 10s});
  throttle.admit("a", t0);
  throttle.admit("a", t0);
  const auto summaries = throttle.drainAll();
  BOOST_TEST_REQUIRE(summaries.size() == 1u);
  BOOST_TEST(summaries[0].suppressed == 1u);
  BOOST_TEST(throttle.peers() == 0u);
}

BOOST_AUTO_TEST_CASE(the_summary_row_is_an_unauthenticated_row_that_says_how_many) {
  const RefusalThrottle::Summary summary{"203.0.113.9", 42, t0, t0 + 10s};
  const auto wall = audit::Clock::now();
  const auto row = RefusalThrottle::summaryRow(summary, "id-1", wall, t0 + 11s);
  BOOST_TEST(row.status == 401);
  BOOST_TEST(row.outcome == "unauthenticated");
  BOOST_TEST(row.error_key == "unauthenticated_rows_suppressed");
  BOOST_TEST(row.route_match == "suppressed:42");
  BOOST_TEST(row.error_message.find("42 further requests") != std::string::npos);
  BOOST_TEST(row.error_message.find("203.0.113.9") != std::string::npos);
  BOOST_TEST((row.created_at == wall - 11s));
  BOOST_TEST((row.completed_at == wall - 1s));
  BOOST_TEST(*row.latency_ms == 10000);
}

BOOST_AUTO_TEST_SUITE_END()
