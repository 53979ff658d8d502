// The audit trail survives its database: PostgreSQL stopped under load (pg_ctlcluster stop) and
// started again, then the gateway killed with SIGKILL while rows wait in its spool; and its disk:
// a spool volume (a 256 KiB tmpfs) filled to 4 KiB free. Afterwards every answered request has
// exactly one row. Runs alone (RUN_SERIAL): it stops the shared server.

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/small_volume.h"
#include "tests/support/test_env.h"
#include "tests/support/wait_until.h"

using sluice::test::capture;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;
using sluice::test::waitUntil;

namespace {

std::string cluster() {
  const char* value = std::getenv("SLUICE_PG_CLUSTER");
  return value ? value : "15 main";
}

void postgres(const std::string& action) {
  int code = -1;
  const std::string out = capture("pg_ctlcluster " + cluster() + " " + action + " 2>&1", &code);
  BOOST_REQUIRE_MESSAGE(code == 0, "pg_ctlcluster " << action << ": " << out);
}

// Restarts PostgreSQL if a test stopped it and failed before starting it again.
struct PostgresGuard {
  ~PostgresGuard() {
    int code = -1;
    capture("pg_ctlcluster " + cluster() + " start 2>&1", &code);
  }
};

// How many rows the audit table holds for `ids`, and how many distinct ids among them, polling until
// every id is there (or `limit` passes).
std::pair<size_t, size_t> rowsFor(const std::vector<std::string>& ids, std::chrono::seconds limit) {
  std::string list;
  for (const auto& id : ids) list += (list.empty() ? "'" : ",'") + id + "'";
  // Thousands of ids: the query goes in a file, not on a command line.
  const std::string file = "/tmp/sluice-it-outage-query-" + std::to_string(::getpid()) + ".sql";
  std::ofstream(file) << "select count(*), count(distinct id) from ai_requests where id in (" << list << ");\n";
  std::pair<size_t, size_t> counts{0, 0};
  // Each look runs psql: a slower poll than usual.
  sluice::test::pollUntil(
      [&] {
        int code = -1;
        const std::string out = capture("psql '" + testDatabaseUrl() + "' -At -f " + file + " 2>&1", &code);
        const size_t bar = out.find('|');
        if (code != 0 || bar == std::string::npos) return false;
        counts = {std::stoul(out.substr(0, bar)), std::stoul(out.substr(bar + 1))};
        return counts.first >= ids.size();
      },
      limit, std::chrono::milliseconds(250));
  return counts;
}

// The value of the gateway's unlabelled metric `name` (gateway_audit_…), -1 when it is not there.
double metric(Gateway& gateway, const std::string& name) {
  const std::string text = "\n" + gateway.call("GET", "/metrics").body;
  const size_t at = text.find("\n" + name + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size() + 2));
}

GatewayOptions outageOptions(const std::string& spool) {
  GatewayOptions options;
  // The test is about the audit trail: callers need no key, so traffic keeps flowing while the
  // database is away.
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool", spool};
  return options;
}

const std::string kBody = R"({"model":"claude-haiku-5-5","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})";

}  // namespace

BOOST_AUTO_TEST_SUITE(audit_outage)

BOOST_AUTO_TEST_CASE(postgres_stopped_under_load_loses_no_row_and_duplicates_none) {
  PostgresGuard guard;
  const std::string spool = "/tmp/sluice-it-outage-" + std::to_string(::getpid()) + ".spool";
  Gateway gateway(outageOptions(spool));
  std::mutex mutex;
  std::vector<std::string> ids;
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::string first_failure;  // what the first failed call got, for the message
  std::vector<std::thread> callers;
  for (int i = 0; i < 4; ++i) {
    callers.emplace_back([&] {
      while (!stop.load()) {
        const auto answer = gateway.call("POST", "/v1/messages", {}, kBody);
        if (answer.status != 200) {
          if (++failures == 1) {
            std::lock_guard lock(mutex);
            first_failure = std::to_string(answer.status) + " " + answer.body.substr(0, 300);
          }
          continue;
        }
        std::lock_guard lock(mutex);
        ids.push_back(answer.header("x-sluice-request-id"));
      }
    });
  }
  const auto answered = [&] {
    std::lock_guard lock(mutex);
    return ids.size();
  };
  // Each phase lasts until the gateway has shown it went through it, under the callers' load.
  waitUntil([&] { return answered() >= 20 && metric(gateway, "gateway_audit_rows_written_total") >= 1; },
            std::chrono::seconds(15), "20 requests answered and rows written while PostgreSQL is up");
  postgres("stop -m fast");
  const size_t before_outage = answered();
  const double spooled_before = metric(gateway, "gateway_audit_rows_spooled_total");
  waitUntil(
      [&] {
        return answered() >= before_outage + 20 &&
               metric(gateway, "gateway_audit_rows_spooled_total") >= spooled_before + 20;
      },
      std::chrono::seconds(15), "20 more requests answered and 20 rows spooled while PostgreSQL is down");
  postgres("start");
  const size_t after_outage = answered();
  waitUntil(
      [&] {
        return answered() >= after_outage + 20 && metric(gateway, "gateway_audit_rows_replayed_total") > 0;
      },
      std::chrono::seconds(30), "20 more requests answered and the spool's replay begun once PostgreSQL is back");
  // The replay need not finish under this load (the spool grows while it runs): rowsFor() waits.
  stop = true;
  for (auto& caller : callers) caller.join();
  BOOST_TEST(failures.load() == 0, "the first failure: " << first_failure);  // the database being away never fails a request
  BOOST_TEST_MESSAGE(ids.size() << " requests answered across the outage");
  BOOST_REQUIRE(ids.size() > 20u);
  const auto [rows, distinct] = rowsFor(ids, std::chrono::seconds(30));
  BOOST_TEST(rows == ids.size());
  BOOST_TEST(distinct == ids.size());
}

BOOST_AUTO_TEST_CASE(a_gateway_killed_with_rows_in_its_spool_replays_them_at_the_next_start) {
  PostgresGuard guard;
  const std::string spool = "/tmp/sluice-it-kill-" + std::to_string(::getpid()) + ".spool";
  std::vector<std::string> ids;
  {
    Gateway gateway(outageOptions(spool));
    postgres("stop -m fast");
    for (int i = 0; i < 25; ++i) {
      const auto answer = gateway.call("POST", "/v1/messages", {}, kBody);
      BOOST_REQUIRE_EQUAL(answer.status, 200);
      ids.push_back(answer.header("x-sluice-request-id"));
    }
    waitUntil([&] { return metric(gateway, "gateway_audit_rows_spooled_total") >= 25; }, std::chrono::seconds(15),
              "the 25 rows to reach the spool (fsync per batch)");
    gateway.process().sendSignal(SIGKILL);
    gateway.process().waitForExit(std::chrono::seconds(5));
    postgres("start");
  }
  Gateway restarted(outageOptions(spool));
  const auto [rows, distinct] = rowsFor(ids, std::chrono::seconds(30));
  BOOST_TEST(rows == ids.size());
  BOOST_TEST(distinct == ids.size());
}

// The journal is a file mapped in memory: with its pages not reserved on disk, a full volume made
// the next write into the mapping a SIGBUS (the process died mid-request, then again at every
// restart while the disk stayed full, and answered requests lost their rows).
BOOST_AUTO_TEST_CASE(a_full_spool_volume_neither_kills_the_gateway_nor_loses_a_row) {
  sluice::test::SmallVolume volume(256u << 10);  // throws, failing the test, when it cannot mount
  const std::string spool = volume.file("audit.spool");
  std::vector<std::string> ids;
  const auto serve = [&](Gateway& gateway) {
    const auto answer = gateway.call("POST", "/v1/messages", {}, kBody);
    BOOST_REQUIRE_MESSAGE(answer.status == 200, answer.status << " " << answer.body.substr(0, 300));
    ids.push_back(answer.header("x-sluice-request-id"));
  };
  {
    Gateway gateway(outageOptions(spool));
    BOOST_TEST(metric(gateway, "gateway_audit_journal_off") == 0);
    volume.fill(4096);
    // Each request journals a begin and an end line (about 1 KiB): the journal must grow past the
    // room it has, which the volume no longer has.
    while (metric(gateway, "gateway_audit_journal_off") != 1 && ids.size() < 3000) {
      for (int i = 0; i < 20; ++i) serve(gateway);
    }
    BOOST_TEST_MESSAGE(ids.size() << " requests answered until the journal turned off");
    BOOST_REQUIRE(gateway.process().running());
    BOOST_REQUIRE_EQUAL(metric(gateway, "gateway_audit_journal_off"), 1);
    BOOST_TEST(gateway.process().waitForStderr("audit journal off", std::chrono::seconds(5)));
    for (int i = 0; i < 100; ++i) serve(gateway);  // off: still served, still audited
    BOOST_REQUIRE(gateway.process().running());
    // Off, the rows still reach PostgreSQL (only a kill before they do would lose them: they are
    // in memory alone then, which is what the alert is for).
    const auto [rows_before, distinct_before] = rowsFor(ids, std::chrono::seconds(30));
    BOOST_TEST(rows_before == ids.size());
    BOOST_TEST(distinct_before == ids.size());
    // Killed outright with the volume still full: the next start must read what the journal holds
    // without touching a page it never reserved.
    gateway.process().sendSignal(SIGKILL);
    gateway.process().waitForExit(std::chrono::seconds(5));
  }
  Gateway restarted(outageOptions(spool));
  for (int i = 0; i < 20; ++i) serve(restarted);
  BOOST_TEST(restarted.process().running());
  const auto [rows, distinct] = rowsFor(ids, std::chrono::seconds(30));
  BOOST_TEST(rows == ids.size());
  BOOST_TEST(distinct == ids.size());
  // Every row names where the request came from.
  const nlohmann::json row = sluice::test::auditRow(testDatabaseUrl(), ids.back());
  BOOST_TEST(row.value("client_address", "") == "127.0.0.1", row.dump());
  // Room again: the journal turns itself back on at its next compaction.
  volume.release();
  waitUntil([&] { return metric(restarted, "gateway_audit_journal_off") == 0; }, std::chrono::seconds(15),
            "the journal to turn back on once the volume has room");
}

BOOST_AUTO_TEST_SUITE_END()
