// PgRequestLog (the console's Requests page) against a scratch PostgreSQL: filters, paging by
// cursor, probes, the live view's newest rows, and ids by prefix.
#include "server/store/pg_request_log.h"

#include <boost/test/unit_test.hpp>

#include "server/audit/fields.h"
#include "server/store/audit_store.h"
#include "tests/server/store/scratch_database.h"

using namespace sluice;
using namespace std::chrono;

namespace {

nlohmann::json row(const std::string& id, system_clock::time_point created, const std::string& user, bool probe = false) {
  return {{"id", id},
          {"created_at", store::formatTimestamp(created)},
          {"user_name", user},
          {"project", "p1"},
          {"model", "m1"},
          {"status", 200},
          {"outcome", "ok"},
          {"probe", probe},
          {"attempts", nlohmann::json::array({{{"endpoint", "e1"}, {"status", 200}, {"result", "ok"}}})}};
}

std::vector<std::string> ids(const std::vector<nlohmann::json>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(r["id"].get<std::string>());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pg_request_log)

BOOST_AUTO_TEST_CASE(pages_filter_and_follow_the_cursor_newest_first) {
  test::ScratchDatabase database;
  const auto now = system_clock::now();
  {
    auto connection = database.connect();
    store::insertAuditRows(*connection, audit::auditColumns(), nlohmann::json::array({row("req-log-a1", now - minutes(30), "alice"),
                                                               row("req-log-a2", now - minutes(20), "alice"),
                                                               row("req-log-b1", now - minutes(8), "bob"),
                                                               row("req-log-p1", now - minutes(5), "alice", true),
                                                               row("req-log-old", now - hours(30), "alice")})
                                                .dump());
  }
  store::PgRequestLog log(std::make_shared<store::ConnectionPool>(database.url()));
  store::RequestPageQuery query;
  query.rows = 10;
  BOOST_TEST(ids(log.page(query)) == (std::vector<std::string>{"req-log-b1", "req-log-a2", "req-log-a1"}));
  query.probes = true;
  BOOST_TEST(log.page(query).size() == 4u);
  query.probes = false;
  query.user = "alice";
  query.rows = 1;
  const auto first = log.page(query);
  BOOST_TEST(ids(first) == std::vector<std::string>{"req-log-a2"});
  BOOST_TEST(first[0]["attempt_count"] == 1);
  query.before = first[0]["cursor"].get<int64_t>();
  BOOST_TEST(ids(log.page(query)) == std::vector<std::string>{"req-log-a1"});
  query.before.reset();
  query.since_seconds = 2 * 86400;
  query.rows = 10;
  BOOST_TEST(log.page(query).size() == 3u);
  // The live view: the last ten minutes, probes included.
  BOOST_TEST(ids(log.latest()) == (std::vector<std::string>{"req-log-p1", "req-log-b1"}));
  BOOST_TEST(ids(log.byIdPrefix("req-log-a", 2)).size() == 2u);
  BOOST_TEST(log.byIdPrefix("req-log-b1", 2)[0]["user_name"] == "bob");
  BOOST_TEST(log.byIdPrefix("req-none", 2).empty());
}

BOOST_AUTO_TEST_SUITE_END()
