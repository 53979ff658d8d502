#include "server/audit/writer.h"

#include <fstream>
#include <mutex>

#include <nlohmann/json.hpp>

#include <boost/test/unit_test.hpp>

#include "server/audit/record_json.h"
#include "tests/server/audit/audit_test_support.h"
#include "tests/server/audit/tcp_proxy.h"

using namespace sluice;
using namespace std::chrono_literals;

namespace {

struct Fresh {
  Fresh() { test::truncateAudit(); }
  test::TempDir dir;

  audit::WriterOptions options(std::string url = test::auditDatabase().url()) const {
    audit::WriterOptions options;
    options.database_url = std::move(url);
    options.spool_path = dir.file("audit.spool");
    options.flush_interval_ms = 20;
    options.retry_interval_ms = 100;
    return options;
  }
};

std::string id(const std::string& prefix, int n) { return prefix + "-" + std::to_string(n); }

// A URL whose port nothing listens on.
std::string closedPortUrl() {
  const auto [host, port] = test::hostPort(test::auditDatabase().url());
  (void)port;
  return test::withHostPort(test::auditDatabase().url(), host, 1);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(writer, Fresh)

BOOST_AUTO_TEST_CASE(writes_exactly_one_row_per_submit) {
  audit::Writer writer(options());
  writer.start();
  for (int i = 0; i < 1234; ++i) writer.submit(test::sampleRecord(id("one", i)));
  BOOST_TEST(writer.flush(30s));
  writer.stop();
  BOOST_TEST(test::auditRows() == 1234);
  BOOST_TEST(test::distinctAuditIds() == 1234);
  const auto stats = writer.stats();
  BOOST_TEST(stats.rows_submitted == 1234u);
  BOOST_TEST(stats.rows_written == 1234u);
  BOOST_TEST(stats.rows_spooled == 0u);
  BOOST_TEST(stats.queue_depth == 0u);
  BOOST_TEST(stats.database_available);
  BOOST_TEST(test::auditDatabase().scalar("SELECT sum(requests) FROM ai_usage_hourly") == "1234");
}

BOOST_AUTO_TEST_CASE(rows_are_written_in_batches_of_batch_size) {
  auto settings = options();
  settings.batch_size = 100;
  audit::Writer writer(settings);
  for (int i = 0; i < 1000; ++i) writer.submit(test::sampleRecord(id("batch", i)));  // queued before start
  BOOST_TEST(writer.stats().queue_depth == 1000u);
  writer.start();
  BOOST_TEST(writer.flush(30s));
  const auto stats = writer.stats();
  BOOST_TEST(stats.batches == 10u);
  BOOST_TEST(stats.last_batch_size == 100u);
  BOOST_TEST(stats.last_flush_ms > 0.0);
  BOOST_TEST(test::auditRows() == 1000);
}

// Live rows go in with COPY; a batch where COPY meets a row already there (the same request
// submitted twice) falls back to the insert that skips it, and still counts it once.
BOOST_AUTO_TEST_CASE(a_live_batch_holding_a_row_twice_keeps_it_once_and_counts_it_once) {
  audit::Writer writer(options());
  const auto record = test::sampleRecord("twice-1");
  writer.submit(record);
  writer.submit(test::sampleRecord("twice-2"));
  writer.submit(record);
  writer.start();
  BOOST_TEST(writer.flush(30s));
  writer.stop();
  BOOST_TEST(test::auditRows() == 2);
  BOOST_TEST(writer.stats().rows_written == 3u);
  BOOST_TEST(test::auditDatabase().scalar("SELECT sum(requests) FROM ai_usage_hourly") == "2");
  BOOST_TEST(test::auditDatabase().scalar("SELECT sum(requests) FROM ai_route_usage_daily") == "2");
}

BOOST_AUTO_TEST_CASE(the_row_keeps_every_field) {
  audit::Writer writer(options());
  writer.start();
  auto record = test::sampleRecord("fields-1");
  record.attempts.insert(record.attempts.begin(), {"bedrock-us", "bedrock", 503, "status_503", "overloaded", 40});
  record.usage = {1000, 200, 300, 50, 20};
  record.ttfb_ms = 33;
  record.upstream_ms = 110;
  record.is_streaming = true;
  record.route_match = "route:claude-sonnet-4;fallback:anthropic-us";
  writer.submit(record);
  writer.stop();
  auto& db = test::auditDatabase();
  BOOST_TEST(db.scalar("SELECT jsonb_array_length(attempts) FROM ai_requests WHERE id = 'fields-1'") == "2");
  BOOST_TEST(db.scalar("SELECT attempts->0->>'result' FROM ai_requests WHERE id = 'fields-1'") == "status_503");
  BOOST_TEST(db.scalar("SELECT concat_ws(',', input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, "
                       "reasoning_tokens, cost_microdollars, ttfb_ms, upstream_ms, latency_ms, is_streaming) "
                       "FROM ai_requests WHERE id = 'fields-1'") == "1000,200,300,50,20,600,33,110,120,t");
  BOOST_TEST(db.scalar("SELECT route_match FROM ai_requests WHERE id = 'fields-1'") ==
             "route:claude-sonnet-4;fallback:anthropic-us");
}

BOOST_AUTO_TEST_CASE(rows_go_to_the_spool_while_postgres_is_unreachable_and_are_replayed_when_it_returns) {
  const auto [host, port] = test::hostPort(test::auditDatabase().url());
  test::TcpProxy proxy(host, port);
  proxy.setUp(false);
  audit::Writer writer(options(test::withHostPort(test::auditDatabase().url(), "127.0.0.1", proxy.port())));
  writer.start();
  for (int i = 0; i < 50; ++i) writer.submit(test::sampleRecord(id("down", i)));
  BOOST_TEST(writer.flush(30s));
  BOOST_TEST(writer.stats().rows_spooled == 50u);
  BOOST_TEST(writer.stats().spool_bytes > 0u);
  BOOST_TEST(!writer.stats().database_available);
  BOOST_TEST(test::auditRows() == 0);

  proxy.setUp(true);
  BOOST_TEST(test::eventually([&] { return writer.stats().spool_bytes == 0; }));
  BOOST_TEST(test::auditRows() == 50);
  BOOST_TEST(writer.stats().rows_replayed == 50u);

  // PostgreSQL goes away under a live connection, then comes back.
  proxy.setUp(false);
  for (int i = 50; i < 80; ++i) writer.submit(test::sampleRecord(id("down", i)));
  BOOST_TEST(writer.flush(30s));
  proxy.setUp(true);
  for (int i = 80; i < 100; ++i) writer.submit(test::sampleRecord(id("down", i)));
  BOOST_TEST(test::eventually([&] { return test::auditRows() == 100 && writer.stats().spool_bytes == 0; }));
  writer.stop();
  BOOST_TEST(test::auditRows() == 100);
  BOOST_TEST(test::distinctAuditIds() == 100);
  BOOST_TEST(test::auditDatabase().scalar("SELECT sum(requests) FROM ai_usage_hourly") == "100");
}

// The OTLP audit logs are fed from here: a row is handed over once it is committed, never while
// it waits in the spool, and a replayed row when its replay commits.
BOOST_AUTO_TEST_CASE(committed_rows_are_handed_over_once_and_spooled_ones_only_when_replayed) {
  const auto [host, port] = test::hostPort(test::auditDatabase().url());
  test::TcpProxy proxy(host, port);
  std::mutex mutex;
  std::vector<std::string> ids;
  audit::WriterOptions writer_options = options(test::withHostPort(test::auditDatabase().url(), "127.0.0.1", proxy.port()));
  writer_options.on_committed = [&](std::vector<std::string> lines) {
    std::lock_guard lock(mutex);
    for (const auto& line : lines) ids.push_back(nlohmann::json::parse(audit::rowJsonOfLine(line))["id"]);
  };
  const auto handed = [&] {
    std::lock_guard lock(mutex);
    return ids;
  };
  audit::Writer writer(writer_options);
  writer.start();
  for (int i = 0; i < 3; ++i) writer.submit(test::sampleRecord(id("live", i)));
  BOOST_TEST(writer.flush(30s));
  BOOST_TEST((handed() == std::vector<std::string>{"live-0", "live-1", "live-2"}));

  proxy.setUp(false);
  writer.submit(test::sampleRecord("spooled"));
  BOOST_TEST(writer.flush(30s));
  BOOST_TEST(writer.stats().rows_spooled == 1u);
  BOOST_TEST(handed().size() == 3u);  // not committed: not handed over

  proxy.setUp(true);
  BOOST_TEST(test::eventually([&] { return writer.stats().spool_bytes == 0; }));
  writer.stop();
  BOOST_TEST((handed() == std::vector<std::string>{"live-0", "live-1", "live-2", "spooled"}));
}

BOOST_AUTO_TEST_CASE(a_writer_pointed_at_a_closed_port_spools_and_the_next_start_replays) {
  const std::string spool = dir.file("audit.spool");
  {
    audit::Writer writer(options(closedPortUrl()));
    writer.start();
    for (int i = 0; i < 25; ++i) writer.submit(test::sampleRecord(id("closed", i)));
    writer.stop();
    BOOST_TEST(writer.stats().rows_spooled == 25u);
  }
  BOOST_TEST(std::filesystem::file_size(spool) > 0u);
  audit::Writer writer(options());
  writer.start();
  BOOST_TEST(test::eventually([&] { return writer.stats().spool_bytes == 0; }));
  writer.stop();
  BOOST_TEST(test::auditRows() == 25);
  BOOST_TEST(std::filesystem::file_size(spool) == 0u);
}

BOOST_AUTO_TEST_CASE(a_full_queue_sends_rows_to_the_spool_and_none_is_lost) {
  auto settings = options();
  settings.queue_capacity = 10;
  audit::Writer writer(settings);
  for (int i = 0; i < 30; ++i) writer.submit(test::sampleRecord(id("full", i)));  // not started: the queue fills
  auto stats = writer.stats();
  BOOST_TEST(stats.queue_depth == 10u);
  BOOST_TEST(stats.rows_spooled == 20u);
  writer.start();
  BOOST_TEST(writer.flush(30s));
  BOOST_TEST(test::eventually([&] { return writer.stats().spool_bytes == 0; }));
  writer.stop();
  BOOST_TEST(test::auditRows() == 30);
  BOOST_TEST(test::distinctAuditIds() == 30);
}

BOOST_AUTO_TEST_CASE(a_spool_left_by_a_crash_is_replayed_at_start_without_duplicates) {
  const std::string spool = dir.file("audit.spool");
  std::vector<audit::Record> records;
  for (int i = 0; i < 3; ++i) records.push_back(test::sampleRecord(id("crash", i)));
  {
    // The crashed run had written crash-0 to PostgreSQL and spooled all three; its last append was torn.
    audit::Writer earlier(options());
    earlier.start();
    earlier.submit(records[0]);
    earlier.stop();
  }
  {
    std::ofstream out(spool, std::ios::trunc);
    for (const auto& record : records) out << audit::toRowJson(record) << "\n";
    out << R"({"id":"crash-torn","created_at":"20)";
  }
  // The first replay of crash-0 (from the earlier writer) must not count twice either.
  const auto usage_before = test::auditDatabase().scalar("SELECT sum(requests) FROM ai_usage_hourly");
  BOOST_TEST(usage_before == "1");
  audit::Writer writer(options());
  writer.start();
  BOOST_TEST(test::eventually([&] { return writer.stats().spool_bytes == 0; }));
  writer.stop();
  BOOST_TEST(test::auditRows() == 3);
  BOOST_TEST(test::auditDatabase().scalar("SELECT count(*) FROM ai_requests WHERE id = 'crash-torn'") == "0");
  BOOST_TEST(test::auditDatabase().scalar("SELECT sum(requests) FROM ai_usage_hourly") == "3");
  BOOST_TEST(test::auditDatabase().scalar("SELECT sum(requests) FROM ai_usage_daily") == "3");
}

BOOST_AUTO_TEST_CASE(a_slow_postgres_sends_the_batch_to_the_spool_and_it_is_replayed_later) {
  auto settings = options();
  settings.write_timeout_ms = 300;
  audit::Writer writer(settings);
  writer.start();
  writer.submit(test::sampleRecord("slow-warmup"));
  BOOST_TEST(writer.flush(30s));
  auto blocker = test::auditDatabase().connect();
  {
    pqxx::work hold(*blocker);
    hold.exec("LOCK TABLE ai_usage_hourly IN ACCESS EXCLUSIVE MODE");
    for (int i = 0; i < 5; ++i) writer.submit(test::sampleRecord(id("slow", i)));
    BOOST_TEST(writer.flush(30s));
    BOOST_TEST(writer.stats().rows_spooled == 5u);
    hold.commit();  // releases the lock
  }
  BOOST_TEST(test::eventually([&] { return writer.stats().spool_bytes == 0; }));
  writer.stop();
  BOOST_TEST(test::auditRows() == 6);
}

BOOST_AUTO_TEST_CASE(rows_postgres_refuses_for_their_content_are_set_aside_and_do_not_block_the_rest) {
  const std::string spool = dir.file("audit.spool");
  {
    std::ofstream out(spool, std::ios::trunc);
    out << audit::toRowJson(test::sampleRecord("good-1")) << "\n";
    out << R"({"id":"bad-1","created_at":"not a time","outcome":"ok","status":0})" << "\n";
    out << audit::toRowJson(test::sampleRecord("good-2")) << "\n";
  }
  audit::Writer writer(options());
  writer.start();
  BOOST_TEST(test::eventually([&] { return writer.stats().spool_bytes == 0; }));
  writer.submit(test::sampleRecord("good-3"));
  writer.stop();
  BOOST_TEST(test::auditRows() == 3);
  std::ifstream rejected(spool + ".rejected");
  std::string line;
  BOOST_REQUIRE(std::getline(rejected, line));
  BOOST_TEST(line.find("bad-1") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(stop_drains_the_queue_and_later_rows_go_to_the_spool) {
  auto settings = options();
  settings.flush_interval_ms = 60'000;
  settings.batch_size = 10'000;
  audit::Writer writer(settings);
  writer.start();
  for (int i = 0; i < 100; ++i) writer.submit(test::sampleRecord(id("drain", i)));
  writer.stop();
  BOOST_TEST(test::auditRows() == 100);
  writer.submit(test::sampleRecord("after-stop"));
  BOOST_TEST(writer.stats().rows_spooled == 1u);
  writer.stop();  // idempotent
}

BOOST_AUTO_TEST_SUITE_END()
