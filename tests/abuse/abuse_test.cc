// Hostile callers against the real gateway: each case reproduces a finding of docs/security.md and
// shows it refused or bounded. Raw sockets, so the test can lie about lengths and trickle bytes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "tests/integration/audit_rows.h"
#include "tests/integration/gateway_fixture.h"
#include "tests/support/raw_connection.h"
#include "tests/support/test_env.h"
#include "tests/support/wait_until.h"

using sluice::test::Gateway;
using sluice::test::GatewayOptions;
using sluice::test::testDatabaseUrl;
using namespace std::chrono_literals;

namespace {

// A raw connection to the gateway (from another loopback address for another peer).
using Raw = sluice::test::RawConnection;
using sluice::test::portOf;

long rssKiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

double inflight(Gateway& gateway) {
  const std::string text = gateway.call("GET", "/metrics").body;
  const std::string name = "\ngateway_inflight_requests ";
  const size_t at = text.find(name);
  return at == std::string::npos ? -1 : std::stod(text.substr(at + name.size()));
}

const std::string kMessages = R"({"model":"claude-haiku-5-5","max_tokens":20,"messages":[{"role":"user","content":"hi"}]})";

std::string head(const std::string& path, size_t content_length, const std::string& extra = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + extra +
         "Content-Length: " + std::to_string(content_length) + "\r\n\r\n";
}

GatewayOptions withDatabase(bool auth, std::vector<std::string> extra = {}) {
  GatewayOptions options;
  options.auth = auth;
  options.extra_args = {"--database-url", testDatabaseUrl(), "--audit-spool",
                        "/tmp/sluice-abuse-" + std::to_string(::getpid())};
  for (auto& arg : extra) options.extra_args.push_back(std::move(arg));
  return options;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(abuse)

// Row 1: the key is checked from the head; a caller without one gets 401 and the connection is
// closed, without the gateway reading (or holding) the 32 MiB the head promised.
BOOST_AUTO_TEST_CASE(row1_a_caller_without_a_key_is_refused_before_the_body) {
  Gateway gateway(withDatabase(true));
  Raw raw(portOf(gateway.baseUrl()));
  BOOST_REQUIRE(raw.send(head("/v1/messages", 32u << 20) + "{"));
  bool closed = false;
  const std::string answer = raw.readUntilClosed(5s, &closed);
  BOOST_TEST(answer.rfind("HTTP/1.1 401", 0) == 0, answer.substr(0, 200));
  BOOST_TEST(closed);
}

// Row 1: memory grows with the bytes that arrived, never with what Content-Length promised.
BOOST_AUTO_TEST_CASE(row1_memory_follows_the_bytes_that_arrived_not_the_declared_length) {
  Gateway gateway;  // no keys: every caller reaches the body
  const long before = rssKiB(gateway.process().pid());
  std::vector<Raw> liars;
  for (int i = 0; i < 20; ++i) {
    liars.emplace_back(portOf(gateway.baseUrl()));
    BOOST_REQUIRE(liars.back().send(head("/v1/messages", 32u << 20) + "{"));
  }
  sluice::test::waitUntil([&] { return inflight(gateway) >= 20; }, 5s, "20 requests reading their bodies");
  const long after = rssKiB(gateway.process().pid());
  BOOST_TEST_MESSAGE("RSS with 20 bodies promising 32 MiB each: " << before / 1024 << " -> " << after / 1024 << " MiB");
  BOOST_TEST(after - before < 40 * 1024, "RSS grew by " << (after - before) / 1024 << " MiB");  // not 640 MiB
}

// Row 1: bodies held across all connections are one budget; beyond it a body is refused with 503
// overloaded instead of growing, and the room comes back when those requests end.
BOOST_AUTO_TEST_CASE(row1_the_body_budget_answers_503_overloaded_beyond_its_bound) {
  Gateway gateway(GatewayOptions{{"--max-buffered-bytes", "1048576"}, {}, "", false});
  std::vector<Raw> holders;
  std::string refused;
  for (int i = 0; i < 24 && refused.empty(); ++i) {
    holders.emplace_back(portOf(gateway.baseUrl()));
    BOOST_REQUIRE(holders.back().send(head("/v1/messages", 4u << 20) + std::string(70000, ' ')));
    const std::string answer = holders.back().readUntilClosed(300ms);
    // 503, which the Anthropic wire spells 529 (overloaded_error), as its SDKs expect.
    if (answer.rfind("HTTP/1.1 503", 0) == 0 || answer.rfind("HTTP/1.1 529", 0) == 0) refused = answer;
  }
  BOOST_REQUIRE_MESSAGE(!refused.empty(), "no body was refused within 24 connections of 4 MiB each");
  BOOST_TEST(refused.find("overloaded") != std::string::npos, refused);
  holders.clear();
  sluice::test::waitUntil([&] { return inflight(gateway) == 0; }, 5s, "the holders' requests to end");
  BOOST_TEST(gateway.call("POST", "/v1/messages", {}, kMessages).status == 200);
}

// Row 2: client strings are bounded on the audit row: a 2 MB model name writes a small row.
BOOST_AUTO_TEST_CASE(row2_a_huge_model_name_writes_a_bounded_audit_row) {
  Gateway gateway(withDatabase(false));
  const std::string model(2u << 20, 'm');
  const auto answer = gateway.call("POST", "/v1/messages", {},
                                   R"({"model":")" + model + R"(","max_tokens":5,"messages":[]})");
  BOOST_TEST(answer.status == 404);
  const nlohmann::json row = sluice::test::auditRow(testDatabaseUrl(), answer.header("x-sluice-request-id"));
  BOOST_REQUIRE(row.is_object());
  BOOST_TEST(row["requested_model"].get<std::string>().size() < 300u);
  BOOST_TEST(row.dump().size() < 8192u);
}

// Row 2: rows for refusals without a key are rate-limited per peer address, and the refusals
// beyond the bound are counted into one summary row per window: none is silently lost.
BOOST_AUTO_TEST_CASE(row2_keyless_refusals_are_rate_limited_per_peer_and_counted_in_a_summary_row) {
  Gateway gateway(withDatabase(true, {"--unauthenticated-rows-per-peer", "5"}));
  const int port = portOf(gateway.baseUrl());
  constexpr int kRefusals = 200;
  // Summary rows of earlier runs (the same address, the same database) are older than this.
  int clock_code = 0;
  std::string started = sluice::test::capture("psql '" + testDatabaseUrl() + "' -Atc 'select now()'", &clock_code);
  BOOST_REQUIRE(clock_code == 0);
  while (!started.empty() && (started.back() == '\n' || started.back() == '\r')) started.pop_back();
  std::vector<std::string> ids;
  for (int i = 0; i < kRefusals; ++i) {
    Raw raw(port, "127.0.0.77");
    BOOST_REQUIRE(raw.send(head("/v1/messages", kMessages.size()) + kMessages));
    const std::string answer = raw.readUntilClosed(5s);
    BOOST_REQUIRE(answer.rfind("HTTP/1.1 401", 0) == 0);
    const size_t at = answer.find("x-sluice-request-id: ");
    BOOST_REQUIRE(at != std::string::npos);
    ids.push_back(answer.substr(at + 21, answer.find("\r\n", at) - at - 21));
  }
  // A caller from another address keeps its own rows.
  Raw other(port, "127.0.0.78");
  BOOST_REQUIRE(other.send(head("/v1/messages", kMessages.size()) + kMessages));
  const std::string other_answer = other.readUntilClosed(5s);
  const size_t other_at = other_answer.find("x-sluice-request-id: ");
  BOOST_REQUIRE(other_at != std::string::npos);
  const std::string other_id = other_answer.substr(other_at + 21, other_answer.find("\r\n", other_at) - other_at - 21);
  BOOST_TEST(sluice::test::auditRow(testDatabaseUrl(), other_id).is_object());

  const std::string metrics = gateway.call("GET", "/metrics").body;
  BOOST_TEST(metrics.find("\ngateway_audit_rows_suppressed_total " + std::to_string(kRefusals - 5)) != std::string::npos);

  // The individual rows (5) and the summary row's count (195) add up to every refusal; the
  // summary is written when the address's 10 s window ends.
  std::string id_list;
  for (const auto& id : ids) id_list += (id_list.empty() ? "'" : ",'") + id + "'";
  const std::string sql = "select (select count(*) from ai_requests where id in (" + id_list + ")) || ' ' || "
                          "coalesce((select sum(substr(route_match, 12)::int) from ai_requests where "
                          "error_key = 'unauthenticated_rows_suppressed' and error_message like '% 127.0.0.77 %' "
                          "and created_at >= '" + started + "'::timestamptz), 0)";
  const std::string file = "/tmp/sluice-abuse-rows-" + std::to_string(::getpid()) + ".sql";
  std::ofstream(file) << sql << ";\n";
  std::string counted;
  const bool summed = sluice::test::pollUntil([&] {
    int code = 0;
    counted = sluice::test::capture("psql '" + testDatabaseUrl() + "' -At -f " + file + " 2>&1", &code);
    return code == 0 && counted.find(" " + std::to_string(kRefusals - 5)) != std::string::npos;
  }, 30s, 250ms);
  std::remove(file.c_str());
  BOOST_TEST(summed, "rows and summary: " << counted);
  BOOST_TEST(counted.rfind("5 ", 0) == 0, counted);
}

// The flood: hostile connections of every kind at once from one address, while a legitimate
// client on another address keeps being served and the gateway's memory stays bounded.
BOOST_AUTO_TEST_CASE(a_hostile_flood_leaves_a_legitimate_client_served_and_memory_bounded) {
  Gateway gateway;
  const int port = portOf(gateway.baseUrl());
  const long before = rssKiB(gateway.process().pid());
  std::vector<Raw> hostile;
  for (int i = 0; i < 1000; ++i) {
    hostile.emplace_back(port);
    switch (i % 4) {
      case 0: hostile.back().send(head("/v1/messages", 32u << 20) + "{\"model\":"); break;  // a lying length
      case 1: hostile.back().send("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "); break;  // a head that never ends
      case 2: hostile.back().send(std::string(2000, '\x07') + "\r\n\r\n"); break;              // junk
      case 3:  // a huge model name, all but its end
        hostile.back().send(head("/v1/messages", 200000) + R"({"model":")" + std::string(199980, 'x'));
        break;
    }
  }
  const std::string request = head("/v1/messages", kMessages.size(), "Connection: close\r\n") + kMessages;
  std::vector<double> latencies_ms;
  int served = 0;
  for (int i = 0; i < 50; ++i) {
    const auto started = std::chrono::steady_clock::now();
    Raw legitimate(port, "127.0.0.2");
    BOOST_REQUIRE(legitimate.send(request));
    if (legitimate.readUntilClosed(10s).rfind("HTTP/1.1 200", 0) == 0) ++served;
    latencies_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count());
  }
  std::sort(latencies_ms.begin(), latencies_ms.end());
  const long during = rssKiB(gateway.process().pid());
  BOOST_TEST_MESSAGE("flood of 1000 hostile connections: legitimate client served "
                     << served << "/50, p50 " << latencies_ms[25] << " ms, p99 " << latencies_ms[49] << " ms; RSS "
                     << before / 1024 << " -> " << during / 1024 << " MiB");
  BOOST_TEST(served == 50);
  BOOST_TEST(during < 200 * 1024, "RSS " << during / 1024 << " MiB");
}

BOOST_AUTO_TEST_SUITE_END()
