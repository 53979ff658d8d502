#include "server/identity/quota_store.h"

#include <atomic>
#include <latch>
#include <thread>

#include <boost/test/unit_test.hpp>

#include "tests/server/identity/identity_database.h"
#include "tests/server/identity/quota_windows.h"

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;
using test::subject;
using test::window;
using test::identityDatabase;
using test::kTestNow;

namespace {

std::shared_ptr<store::QuotaCounters> counters() { return test::quotaCounters(identityDatabase().url()); }

std::string counter(const std::string& kind, const std::string& value, const std::string& window_id,
                    const std::string& column) {
  return identityDatabase().scalar("SELECT coalesce(sum(" + column + "), 0) FROM quota_counters WHERE scope_kind = '" +
                                   kind + "' AND scope_value = '" + value + "' AND window_id = '" + window_id + "'");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(quota_store)

BOOST_AUTO_TEST_CASE(fifty_concurrent_reservers_on_their_own_connections_admit_exactly_the_limit) {
  constexpr int kReservers = 50;
  constexpr int64_t kLimit = 17;
  catalog::Quotas quotas;
  quotas.mode = catalog::QuotaMode::Enforce;
  quotas.windows.push_back(window("qs-hourly", catalog::QuotaScope::User, 3600));
  quotas.windows.back().max_requests = kLimit;
  quotas.windows.push_back(window("qs-org", catalog::QuotaScope::Organisation, 86400));
  quotas.windows.back().max_requests = 1'000'000;
  // Each reserver is its own "replica": its own pool with one connection, opened before the start.
  std::vector<std::unique_ptr<QuotaStore>> stores;
  for (int i = 0; i < kReservers; ++i) {
    store::PoolOptions options;
    options.max_connections = 1;
    auto own = std::make_shared<store::ConnectionPool>(identityDatabase().url(), options);
    own->run([](pqxx::connection&) {});
    stores.push_back(std::make_unique<QuotaStore>(std::make_shared<store::PgQuotaCounters>(own)));
  }
  std::latch start(kReservers);
  std::atomic<int> admitted{0}, refused{0}, errors{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kReservers; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        const Reservation r = stores[i]->reserve(quotas, subject("qs-alice"), 100, kTestNow);
        (r.admitted ? admitted : refused)++;
      } catch (const std::exception&) {
        ++errors;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  BOOST_TEST(errors.load() == 0);
  BOOST_TEST(admitted.load() == kLimit);
  BOOST_TEST(refused.load() == kReservers - kLimit);
  BOOST_TEST(counter("user", "qs-alice", "qs-hourly", "requests") == std::to_string(kLimit));
  BOOST_TEST(counter("user", "qs-alice", "qs-hourly", "input_tokens") == std::to_string(kLimit * 100));
  // Refused requests are counted nowhere, in no window.
  BOOST_TEST(std::stoll(counter("organisation", "organisation", "qs-org", "requests")) >= kLimit);
}

BOOST_AUTO_TEST_CASE(enforce_refuses_with_the_window_the_limit_and_the_reset) {
  catalog::Quotas quotas;
  quotas.mode = catalog::QuotaMode::Enforce;
  quotas.windows.push_back(window("qs-minute", catalog::QuotaScope::User, 60));
  quotas.windows.back().max_requests = 2;
  QuotaStore store(counters());
  BOOST_TEST(store.reserve(quotas, subject("qs-bob"), 0, kTestNow).admitted);
  BOOST_TEST(store.reserve(quotas, subject("qs-bob"), 0, kTestNow).admitted);
  const Reservation third = store.reserve(quotas, subject("qs-bob"), 0, kTestNow + seconds(30));
  BOOST_TEST(!third.admitted);
  BOOST_REQUIRE(third.breach.has_value());
  BOOST_TEST(third.breach->window_id == "qs-minute");
  BOOST_TEST(third.breach->limit == 2);
  BOOST_TEST(third.breach->used == 2);
  BOOST_TEST(formatUtc(third.breach->resets_at) == "2026-11-29T21:44:00Z");
  BOOST_TEST(third.counted.empty());
  // The next minute is a new window.
  BOOST_TEST(store.reserve(quotas, subject("qs-bob"), 0, kTestNow + seconds(40)).admitted);
  // Another user has their own counter.
  BOOST_TEST(store.reserve(quotas, subject("qs-bob2"), 0, kTestNow).admitted);
}

BOOST_AUTO_TEST_CASE(warn_admits_counts_and_reports_the_breach) {
  catalog::Quotas quotas;
  quotas.mode = catalog::QuotaMode::Warn;
  quotas.windows.push_back(window("qs-warn", catalog::QuotaScope::User, 3600));
  quotas.windows.back().max_requests = 1;
  QuotaStore store(counters());
  const Reservation first = store.reserve(quotas, subject("qs-carol"), 0, kTestNow);
  BOOST_TEST(first.admitted);
  BOOST_TEST(!first.breach.has_value());
  const Reservation second = store.reserve(quotas, subject("qs-carol"), 0, kTestNow);
  BOOST_TEST(second.admitted);
  BOOST_REQUIRE(second.breach.has_value());
  BOOST_TEST(toString(second.breach->measure) == "requests");
  BOOST_TEST(counter("user", "qs-carol", "qs-warn", "requests") == "2");
}

BOOST_AUTO_TEST_CASE(settle_corrects_tokens_and_adds_cost_until_the_budget_is_spent) {
  catalog::Quotas quotas;
  quotas.mode = catalog::QuotaMode::Enforce;
  quotas.windows.push_back(window("qs-cost", catalog::QuotaScope::Project, 2'592'000));
  quotas.windows.back().max_cost_microdollars = 1'000'000;
  quotas.windows.back().max_input_tokens = 10'000;
  QuotaStore store(counters());
  const Reservation r = store.reserve(quotas, subject("qs-dave", "qs-proj"), 4'000, kTestNow);
  BOOST_REQUIRE(r.admitted);
  BOOST_TEST(counter("project", "qs-proj", "qs-cost", "input_tokens") == "4000");
  QuotaUsage usage;
  usage.input_tokens = 3'500;
  usage.output_tokens = 800;
  usage.cost_microdollars = 600'000;
  store.settle(r, usage);
  BOOST_TEST(counter("project", "qs-proj", "qs-cost", "input_tokens") == "3500");
  BOOST_TEST(counter("project", "qs-proj", "qs-cost", "output_tokens") == "800");
  BOOST_TEST(counter("project", "qs-proj", "qs-cost", "cost_microdollars") == "600000");
  // The estimate must fit what is left of the input tokens.
  const Reservation too_big = store.reserve(quotas, subject("qs-dave", "qs-proj"), 7'000, kTestNow);
  BOOST_TEST(!too_big.admitted);
  BOOST_TEST(toString(too_big.breach->measure) == "input_tokens");
  // The budget is overrun by at most the requests in flight: the second is admitted at $0.60.
  const Reservation second = store.reserve(quotas, subject("qs-dave", "qs-proj"), 100, kTestNow);
  BOOST_REQUIRE(second.admitted);
  usage.cost_microdollars = 500'000;
  store.settle(second, usage);
  const Reservation third = store.reserve(quotas, subject("qs-dave", "qs-proj"), 100, kTestNow);
  BOOST_TEST(!third.admitted);
  BOOST_TEST(toString(third.breach->measure) == "cost");
  BOOST_TEST(third.breach->message().find("$1.10 of $1.00 spent") != std::string::npos, third.breach->message());
  // Without a project the project window does not apply.
  BOOST_TEST(store.reserve(quotas, subject("qs-dave"), 100, kTestNow).admitted);
}

BOOST_AUTO_TEST_CASE(release_uncounts_a_request_that_was_never_sent) {
  catalog::Quotas quotas;
  quotas.mode = catalog::QuotaMode::Enforce;
  quotas.windows.push_back(window("qs-release", catalog::QuotaScope::ApiKey, 3600));
  quotas.windows.back().max_requests = 1;
  QuotaStore store(counters());
  QuotaSubject s = subject("qs-erin");
  s.api_key_id = "ReLeAsE1";
  const Reservation r = store.reserve(quotas, s, 50, kTestNow);
  BOOST_REQUIRE(r.admitted);
  BOOST_TEST(!store.reserve(quotas, s, 50, kTestNow).admitted);
  store.release(r);
  BOOST_TEST(counter("api_key", "ReLeAsE1", "qs-release", "requests") == "0");
  BOOST_TEST(counter("api_key", "ReLeAsE1", "qs-release", "input_tokens") == "0");
  BOOST_TEST(store.reserve(quotas, s, 50, kTestNow).admitted);
}

BOOST_AUTO_TEST_CASE(no_window_means_no_database_and_old_windows_are_pruned) {
  QuotaStore offline(test::quotaCounters("postgresql://sluice:sluice@127.0.0.1:1/none"));
  BOOST_TEST(offline.reserve(catalog::Quotas{}, subject("qs-frank"), 10, kTestNow).admitted);
  catalog::Quotas quotas;
  quotas.windows.push_back(window("qs-prune", catalog::QuotaScope::User, 60));
  quotas.windows.back().max_requests = 100;
  QuotaStore store(counters());
  store.reserve(quotas, subject("qs-frank"), 0, kTestNow - hours(2));
  store.reserve(quotas, subject("qs-frank"), 0, kTestNow);
  BOOST_TEST(store.prune(kTestNow - hours(1)) >= 1u);
  BOOST_TEST(counter("user", "qs-frank", "qs-prune", "requests") == "1");
}

BOOST_AUTO_TEST_SUITE_END()
