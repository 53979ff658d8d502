#include "server/audit/database_link.h"

#include <boost/test/unit_test.hpp>

#include "server/audit/record_json.h"
#include "tests/server/audit/audit_test_support.h"

using namespace sluice;

namespace {

audit::QueuedRow liveRow(const audit::Record& record) {
  return audit::QueuedRow{{}, audit::toCopyLine(record), audit::rollupFacts(record)};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(database_link)

BOOST_AUTO_TEST_CASE(without_a_database_url_every_batch_is_left_to_the_spool) {
  test::TempDir dir;
  audit::WriterOptions options;
  options.spool_path = dir.file("audit.spool");
  audit::DatabaseLink link(options);
  BOOST_TEST(link.ensureConnected() == nullptr);
  std::vector<audit::QueuedRow> rows = {liveRow(test::sampleRecord("nowhere"))};
  BOOST_TEST(!link.write(rows));
  BOOST_TEST(!link.writeJson({audit::toRowJson(test::sampleRecord("nowhere"))}));
  audit::WriterStats stats;
  link.addStats(stats);
  BOOST_TEST(!stats.database_available);
  BOOST_TEST(stats.batches == 0u);
}

BOOST_AUTO_TEST_CASE(a_live_batch_goes_in_by_copy_and_the_same_row_replayed_is_not_duplicated) {
  test::truncateAudit();
  test::TempDir dir;
  audit::WriterOptions options;
  options.database_url = test::auditDatabase().url();
  options.spool_path = dir.file("audit.spool");
  size_t batch_rows = 0;
  options.on_batch = [&](size_t rows, double) { batch_rows += rows; };
  audit::DatabaseLink link(options);
  const audit::Record record = test::sampleRecord("linked");
  std::vector<audit::QueuedRow> rows = {liveRow(record)};
  BOOST_TEST(link.write(rows));
  // A replay of the same row (the spool, a journal) takes the insert that skips it.
  std::vector<audit::QueuedRow> again = {liveRow(record)};
  BOOST_TEST(link.write(again));
  BOOST_TEST(link.writeJson({audit::toRowJson(record)}));
  BOOST_TEST(test::auditRows() == 1);
  BOOST_TEST(test::auditDatabase().scalar("SELECT sum(requests) FROM ai_usage_hourly") == "1");
  audit::WriterStats stats;
  link.addStats(stats);
  BOOST_TEST(stats.database_available);
  BOOST_TEST(stats.batches == 3u);
  BOOST_TEST(stats.rows_written == 3u);  // rows handled, present before or not
  BOOST_TEST(batch_rows == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
