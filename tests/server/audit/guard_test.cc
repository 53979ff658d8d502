#include "server/audit/guard.h"

#include <thread>

#include <boost/test/unit_test.hpp>

#include "server/audit/writer.h"
#include "tests/server/audit/audit_test_support.h"

using namespace sluice;
using namespace std::chrono_literals;

namespace {

struct Fresh {
  Fresh() {
    test::truncateAudit();
    audit::WriterOptions options;
    options.database_url = test::auditDatabase().url();
    options.spool_path = dir.file("audit.spool");
    options.flush_interval_ms = 20;
    writer = std::make_unique<audit::Writer>(options);
    writer->start();
  }
  test::TempDir dir;
  std::unique_ptr<audit::Writer> writer;
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(guard, Fresh)

BOOST_AUTO_TEST_CASE(submits_exactly_one_row_when_it_goes_out_of_scope) {
  {
    audit::RequestAudit audit(writer.get(), "guard-ok");
    audit.record().outcome = audit::outcome::kOk;
    audit.record().status = 200;
    std::this_thread::sleep_for(5ms);
  }
  BOOST_TEST(writer->flush(30s));
  BOOST_TEST(writer->stats().rows_submitted == 1u);
  auto& db = test::auditDatabase();
  BOOST_TEST(db.scalar("SELECT count(*) FROM ai_requests WHERE id = 'guard-ok'") == "1");
  BOOST_TEST(db.scalar("SELECT outcome || ' ' || status FROM ai_requests WHERE id = 'guard-ok'") == "ok 200");
  BOOST_TEST(std::stoll(db.scalar("SELECT latency_ms FROM ai_requests WHERE id = 'guard-ok'")) >= 5);
  BOOST_TEST(db.scalar("SELECT completed_at >= created_at FROM ai_requests WHERE id = 'guard-ok'") == "t");
}

BOOST_AUTO_TEST_CASE(a_request_that_never_set_an_outcome_is_an_internal_error) {
  try {
    audit::RequestAudit audit(writer.get(), "guard-throw");
    audit.record().requested_model = "m";
    throw std::runtime_error("handler bug");
  } catch (const std::runtime_error&) {
  }
  BOOST_TEST(writer->flush(30s));
  BOOST_TEST(test::auditDatabase().scalar("SELECT outcome || ' ' || status FROM ai_requests WHERE id = 'guard-throw'") ==
             "internal_error 500");
}

BOOST_AUTO_TEST_CASE(values_the_request_set_are_kept) {
  {
    audit::RequestAudit audit(writer.get(), "guard-set");
    audit.record().outcome = audit::outcome::kClientGoneMidStream;
    audit.record().status = 499;
    audit.record().aborted = true;
    audit.record().latency_ms = 1234;
    audit.record().ttfb_ms = audit.elapsedMs();
  }
  BOOST_TEST(writer->flush(30s));
  BOOST_TEST(test::auditDatabase().scalar(
                 "SELECT concat_ws(',', outcome, status, aborted, latency_ms) FROM ai_requests WHERE id = 'guard-set'") ==
             "client_gone_mid_stream,499,t,1234");
}

BOOST_AUTO_TEST_CASE(without_a_writer_it_records_nothing) {
  {
    audit::RequestAudit audit(nullptr, "guard-null");
    audit.record().outcome = audit::outcome::kOk;
  }
  BOOST_TEST(writer->stats().rows_submitted == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
