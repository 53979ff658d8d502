// Runs the real sluicectl binary against a scratch database and checks what it prints.

#include <boost/test/unit_test.hpp>
#include <nlohmann/json.hpp>

#include "server/audit/fields.h"
#include "server/store/audit_store.h"
#include "tests/server/store/scratch_database.h"
#include "tests/cli/sluicectl_run.h"

using namespace sluice;
using namespace std::chrono;

namespace {

using test::runSluicectl;
using test::squeeze;

// The module's database, migrated by `sluicectl migrate` in the first test.
test::ScratchDatabase& database() {
  static test::ScratchDatabase instance(false);
  return instance;
}

std::vector<std::string> withUrl(std::vector<std::string> args) {
  args.push_back("--database-url");
  args.push_back(database().url());
  return args;
}

const auto kNow = system_clock::now();

nlohmann::json row(const std::string& id, system_clock::time_point created, const std::string& user,
                   const std::string& model, const std::string& outcome, int64_t cost) {
  return {{"id", id},
          {"created_at", store::formatTimestamp(created)},
          {"completed_at", store::formatTimestamp(created + milliseconds(1500))},
          {"user_name", user},
          {"api_key_id", "key_" + user},
          {"project", "research"},
          {"project_source", "header"},
          {"client_family", "anthropic-sdk-python"},
          {"client_wire", "anthropic"},
          {"client_address", "203.0.113.7"},
          {"trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"},
          {"span_id", "00f067aa0ba902b7"},
          {"requested_model", "sonnet"},
          {"model", model},
          {"route_id", model + "-route"},
          {"strategy", "ordered"},
          {"provider", "anthropic"},
          {"endpoint", "anthropic-us"},
          {"served_provider", outcome == "ok" ? "bedrock" : ""},
          {"served_endpoint", outcome == "ok" ? "bedrock-us" : ""},
          {"route_match", "route:" + model + ";failover:bedrock-us"},
          {"attempts", nlohmann::json::array({{{"endpoint", "anthropic-us"}, {"provider", "anthropic"}, {"status", 503},
                                               {"result", "status_503"}, {"error", "overloaded"}, {"duration_ms", 120}},
                                              {{"endpoint", "bedrock-us"}, {"provider", "bedrock"}, {"status", 200},
                                               {"result", "ok"}, {"duration_ms", 1300}}})},
          {"is_streaming", true},
          {"status", outcome == "ok" ? 200 : 502},
          {"outcome", outcome},
          {"error_key", outcome == "ok" ? nlohmann::json() : nlohmann::json("upstream_error")},
          {"input_tokens", 1200},
          {"output_tokens", 300},
          {"cache_read_tokens", 1000},
          {"cache_write_tokens", 0},
          {"reasoning_tokens", 40},
          {"cost_microdollars", cost},
          {"cache_savings_microdollars", outcome == "ok" ? 900 : 0},  // 1,000 cache reads x $0.90/M
          {"latency_ms", 1500},
          {"ttfb_ms", 400},
          {"upstream_ms", 1420}};
}

void seed() {
  static bool seeded = false;
  if (seeded) return;
  seeded = true;
  auto connection = database().connect();
  store::insertAuditRows(*connection, audit::auditColumns(),
                         nlohmann::json::array({row("0192f0c4-aaaa-7000-8000-000000000001", kNow - minutes(10), "alice",
                                                    "claude-sonnet-4", "ok", 12345),
                                                row("0192f0c4-aaaa-7000-8000-000000000002", kNow - minutes(20), "bob",
                                                    "claude-sonnet-4", "upstream_error", 0),
                                                row("0192f0c4-bbbb-7000-8000-000000000003", kNow - minutes(30), "alice",
                                                    "gpt-4.1", "ok", 2'500'000),
                                                row("0192f0c4-cccc-7000-8000-000000000004", kNow - hours(30), "carol",
                                                    "gpt-4.1", "ok", 7)})
                             .dump());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sluicectl)

BOOST_AUTO_TEST_CASE(migrate_applies_then_reports_up_to_date) {
  auto first = runSluicectl(withUrl({"migrate"}));
  BOOST_TEST(first.code == 0, first.err);
  BOOST_TEST(first.out.find("applied 0001_ai_requests") != std::string::npos, first.out);
  auto again = runSluicectl(withUrl({"migrate", "--json"}));
  BOOST_TEST(again.code == 0);
  const auto report = nlohmann::json::parse(again.out);
  BOOST_TEST(report["applied_now"].empty());
  BOOST_TEST(report["pending"].empty());
  BOOST_TEST(!report["applied"].empty());
  const auto status = runSluicectl(withUrl({"migrate", "--status"}));
  BOOST_TEST(status.out.find("schema up to date") != std::string::npos, status.out);
}

BOOST_AUTO_TEST_CASE(audit_prints_one_request_by_id_or_unique_prefix) {
  seed();
  const auto run = runSluicectl(withUrl({"audit", "0192f0c4-bbbb"}));
  BOOST_TEST(run.code == 0, run.err);
  const std::string text = squeeze(run.out);
  for (const char* expected :
       {"request           0192f0c4-bbbb-7000-8000-000000000003", "requested model   sonnet", "model             gpt-4.1",
        "provider          anthropic (primary endpoint anthropic-us)", "served by         bedrock (endpoint bedrock-us)",
        "route_match       route:gpt-4.1;failover:bedrock-us", "status_503", "overloaded", "1,300 ms",
        "tokens            input 1,200, output 300, cache read 1,000, cache write 0, reasoning 40",
        "cost              $2.50 (2,500,000 microdollars)",
        "cache savings     $0.0009 (900 microdollars)", "time to first byte  400 ms",
        "gateway overhead  80 ms", "outcome           ok (HTTP 200)", "user              alice (key key_alice)",
        "project           research (from header)", "client address    203.0.113.7"}) {
    BOOST_TEST(text.find(squeeze(expected)) != std::string::npos, "missing: " << expected << "\n" << run.out);
  }
}

BOOST_AUTO_TEST_CASE(audit_names_the_trace_and_links_to_it_with_the_trace_url) {
  seed();
  const auto bare = runSluicectl(withUrl({"--services", "/nonexistent", "audit", "0192f0c4-bbbb"}));
  BOOST_TEST(bare.code == 0, bare.err);
  BOOST_TEST(squeeze(bare.out).find(squeeze("trace             4bf92f3577b34da6a3ce929d0e0e4736\n")) != std::string::npos, bare.out);
  const auto linked = runSluicectl(
      withUrl({"audit", "0192f0c4-bbbb", "--trace-url", "https://jaeger.example/trace/{trace_id}"}));
  BOOST_TEST(linked.code == 0, linked.err);
  BOOST_TEST(linked.out.find("4bf92f3577b34da6a3ce929d0e0e4736  https://jaeger.example/trace/4bf92f3577b34da6a3ce929d0e0e4736") !=
                 std::string::npos,
             linked.out);
  const auto json = runSluicectl(
      withUrl({"--json", "audit", "0192f0c4-bbbb", "--trace-url", "https://jaeger.example/trace/{trace_id}"}));
  BOOST_TEST(nlohmann::json::parse(json.out)["trace_url"] == "https://jaeger.example/trace/4bf92f3577b34da6a3ce929d0e0e4736");
}

BOOST_AUTO_TEST_CASE(audit_json_is_the_row_with_cost_in_dollars) {
  seed();
  const auto run = runSluicectl(withUrl({"--json", "audit", "0192f0c4-aaaa-7000-8000-000000000001"}));
  BOOST_TEST(run.code == 0, run.err);
  const auto row = nlohmann::json::parse(run.out);
  BOOST_TEST(row["id"] == "0192f0c4-aaaa-7000-8000-000000000001");
  BOOST_TEST(row["cost_microdollars"] == 12345);
  BOOST_TEST(row["cost_usd"] == "0.012345");
  BOOST_TEST(row["gateway_overhead_ms"] == 80);
  BOOST_TEST(row["attempts"].size() == 2u);
  BOOST_TEST(row["cache_read_tokens"] == 1000);
  BOOST_TEST(row["cache_savings_microdollars"] == 900);
  BOOST_TEST(row["cache_savings_usd"] == "0.0009");
}

BOOST_AUTO_TEST_CASE(audit_exit_codes_for_ambiguous_unknown_and_unreachable) {
  seed();
  const auto ambiguous = runSluicectl(withUrl({"audit", "0192f0c4-aaaa"}));
  BOOST_TEST(ambiguous.code == 2);
  BOOST_TEST(ambiguous.err.find("matches 2 requests") != std::string::npos, ambiguous.err);
  const auto unknown = runSluicectl(withUrl({"audit", "ffffffff"}));
  BOOST_TEST(unknown.code == 1);
  BOOST_TEST(unknown.err.find("no request") != std::string::npos);
  const auto no_url = runSluicectl({"audit", "0192f0c4"});
  BOOST_TEST(no_url.code == 2);
  BOOST_TEST(no_url.err.find("SLUICE_DATABASE_URL") != std::string::npos);
  const auto down = runSluicectl({"audit", "0192f0c4", "--database-url", "postgresql://sluice:secret@127.0.0.1:1/x"});
  BOOST_TEST(down.code == 1);
  BOOST_TEST(down.err.find("secret") == std::string::npos, "the password leaked: " << down.err);
}

BOOST_AUTO_TEST_CASE(requests_list_text_filters_and_limits) {
  seed();
  const auto all = runSluicectl(withUrl({"requests", "list", "--since", "1h"}));
  BOOST_TEST(all.code == 0, all.err);
  BOOST_TEST(all.out.starts_with("TIME (UTC)"));
  BOOST_TEST(all.out.find("3 requests since") != std::string::npos, all.out);
  BOOST_TEST(all.out.find("carol") == std::string::npos);  // 30 h ago
  // Newest first.
  BOOST_TEST(all.out.find("000000000001") < all.out.find("000000000002"));
  const auto alice = runSluicectl(withUrl({"requests", "list", "--since", "2d", "--user", "alice", "--model", "gpt-4.1"}));
  BOOST_TEST(alice.out.find("1 request since") != std::string::npos, alice.out);
  BOOST_TEST(alice.out.find("$2.50") != std::string::npos, alice.out);
  const auto failed = runSluicectl(withUrl({"requests", "list", "--since", "1h", "--outcome", "upstream_error"}));
  BOOST_TEST(failed.out.find("bob") != std::string::npos);
  BOOST_TEST(failed.out.find("alice") == std::string::npos);
  const auto limited = runSluicectl(withUrl({"requests", "list", "--since", "7d", "--limit", "2"}));
  BOOST_TEST(limited.out.find("limit reached") != std::string::npos, limited.out);
}

BOOST_AUTO_TEST_CASE(requests_list_json_and_csv) {
  seed();
  const auto json = runSluicectl(withUrl({"requests", "list", "--since", "2d", "--json"}));
  BOOST_TEST(json.code == 0, json.err);
  const auto rows = nlohmann::json::parse(json.out);
  BOOST_REQUIRE(rows.size() == 4u);
  BOOST_TEST(rows[0]["user"] == "alice");
  BOOST_TEST(rows[1]["outcome"] == "upstream_error");
  BOOST_TEST(rows[3]["cost_microdollars"] == 7);
  const auto csv = runSluicectl(withUrl({"requests", "list", "--since", "2d", "--csv", "--project", "research"}));
  BOOST_TEST(csv.code == 0, csv.err);
  BOOST_TEST(csv.out.starts_with("id,created_at,user,project,requested_model,model,served_provider,streaming,status,"
                                 "outcome,input_tokens,output_tokens,cost_microdollars,latency_ms\r\n"));
  BOOST_TEST(std::count(csv.out.begin(), csv.out.end(), '\n') == 5);
  BOOST_TEST(csv.out.find(",alice,research,sonnet,gpt-4.1,bedrock,true,200,ok,1200,300,2500000,1500\r\n") !=
                 std::string::npos,
             csv.out);
}

BOOST_AUTO_TEST_CASE(usage_by_user_and_model_with_totals) {
  seed();
  const auto by_user = runSluicectl(withUrl({"usage", "--since", "30d", "--by", "user"}));
  BOOST_TEST(by_user.code == 0, by_user.err);
  BOOST_TEST(by_user.out.find("USER   REQUESTS") != std::string::npos, by_user.out);
  BOOST_TEST(by_user.out.find("TOTAL") != std::string::npos);
  BOOST_TEST(by_user.out.find("$2.51") != std::string::npos, by_user.out);  // 2,512,352 microdollars in all
  // alice is the costliest, so she comes first.
  BOOST_TEST(by_user.out.find("alice") < by_user.out.find("carol"));
  const auto json = runSluicectl(withUrl({"usage", "--since", "1h", "--by", "model", "--json"}));
  BOOST_TEST(json.code == 0, json.err);
  const auto report = nlohmann::json::parse(json.out);
  BOOST_TEST(report["by"] == "model");
  BOOST_REQUIRE(report["rows"].size() == 2u);
  BOOST_TEST(report["rows"][0]["model"] == "gpt-4.1");
  BOOST_TEST(report["total"]["requests"] == 3);
  BOOST_TEST(report["total"]["failed"] == 1);
  BOOST_TEST(report["total"]["input_tokens"] == 3600);
  const auto provider = runSluicectl(withUrl({"usage", "--by", "provider", "--csv"}));
  BOOST_TEST(provider.out.find("bedrock,3,0,3600,") != std::string::npos, provider.out);
}

BOOST_AUTO_TEST_CASE(usage_shows_the_cache_hit_ratio_and_savings_per_user) {
  seed();
  const auto text = runSluicectl(withUrl({"usage", "--since", "30d", "--by", "user"}));
  BOOST_TEST(text.code == 0, text.err);
  BOOST_TEST(text.out.find("CACHE HIT") != std::string::npos, text.out);
  BOOST_TEST(text.out.find("CACHE SAVED") != std::string::npos, text.out);
  // alice: 2,000 of 2,400 prompt tokens from the cache, 2 x 900 microdollars saved.
  BOOST_TEST(squeeze(text.out).find("alice 2 0 2,400 600 2,000 0 80 $2.51 83.3% $0.0018") != std::string::npos, text.out);
  BOOST_TEST(squeeze(text.out).find("TOTAL 4 1 4,800 1,200 4,000 0 160 $2.51 83.3% $0.0027") != std::string::npos,
             text.out);
  const auto json = runSluicectl(withUrl({"usage", "--since", "30d", "--by", "user", "--json"}));
  const auto report = nlohmann::json::parse(json.out);
  BOOST_TEST(report["rows"][0]["user"] == "alice");
  BOOST_TEST(report["rows"][0]["cache_hit_ratio"] == 0.8333);
  BOOST_TEST(report["rows"][0]["cache_savings_microdollars"] == 1800);
  BOOST_TEST(report["rows"][0]["cache_savings_usd"] == "0.0018");
  BOOST_TEST(report["total"]["cache_savings_microdollars"] == 2700);
}

BOOST_AUTO_TEST_CASE(usage_by_route_and_by_deployment) {
  seed();
  const auto route = runSluicectl(withUrl({"usage", "--since", "30d", "--by", "route", "--json"}));
  BOOST_TEST(route.code == 0, route.err);
  const auto by_route = nlohmann::json::parse(route.out);
  BOOST_TEST(by_route["by"] == "route");
  BOOST_REQUIRE(by_route["rows"].size() == 2u);
  BOOST_TEST(by_route["rows"][0]["route"] == "gpt-4.1-route");  // costliest first; carol's row is 30 h old
  BOOST_TEST(by_route["rows"][0]["requests"] == 2);
  BOOST_TEST(by_route["rows"][0]["cache_savings_microdollars"] == 1800);
  BOOST_TEST(by_route["rows"][1]["route"] == "claude-sonnet-4-route");
  BOOST_TEST(by_route["rows"][1]["requests"] == 2);
  BOOST_TEST(by_route["rows"][1]["cache_savings_microdollars"] == 900);  // bob's failed request saved nothing
  BOOST_TEST(by_route["rows"][1]["cache_hit_ratio"] == 0.8333);

  const auto deployment = runSluicectl(withUrl({"usage", "--since", "30d", "--by", "deployment"}));
  BOOST_TEST(deployment.code == 0, deployment.err);
  BOOST_TEST(deployment.out.find("DEPLOYMENT") != std::string::npos, deployment.out);
  BOOST_TEST(squeeze(deployment.out).find("bedrock-us 3 0 3,600 900 3,000 0 120 $2.51 83.3% $0.0027") !=
                 std::string::npos,
             deployment.out);
  BOOST_TEST(squeeze(deployment.out).find("(none) 1 1 1,200 300 1,000 0 40 $0.00 83.3% $0.00") != std::string::npos,
             deployment.out);

  // The last hour only: read from the hourly rollup and the audit rows, not the day's.
  const auto csv = runSluicectl(withUrl({"usage", "--since", "1h", "--by", "deployment", "--csv"}));
  BOOST_TEST(csv.code == 0, csv.err);
  BOOST_TEST(csv.out.starts_with("deployment,requests,failed,input_tokens,output_tokens,cache_read_tokens,"
                                 "cache_write_tokens,reasoning_tokens,cost_microdollars,cache_hit_ratio,"
                                 "cache_savings_microdollars\r\n"),
             csv.out);
  BOOST_TEST(csv.out.find("bedrock-us,2,0,2400,600,2000,0,80,2512345,0.8333,1800\r\n") != std::string::npos, csv.out);
  BOOST_TEST(csv.out.find("\r\n,1,1,1200,300,1000,0,40,0,0.8333,0\r\n") != std::string::npos, csv.out);
}

BOOST_AUTO_TEST_CASE(catalog_explain_prints_an_mcp_server_and_its_tool_rules) {
  const std::string services = sluice::test::sourceDir() + "/services";
  const auto text = runSluicectl({"--services", services, "catalog", "explain", "mcp:github", "--member", "ida"});
  BOOST_TEST(text.code == 0, text.err);
  BOOST_TEST(text.out.find("MCP server github at /mcp/github") != std::string::npos, text.out);
  BOOST_TEST(text.out.find("mcp_tool/github/delete_*  default closed") != std::string::npos, text.out);
  BOOST_TEST(text.out.find("[ida: denied, default:closed]") != std::string::npos, text.out);
  BOOST_TEST(text.out.find("ida: the server is open (no_rule)") != std::string::npos, text.out);
  const auto json = runSluicectl({"--services", services, "--json", "catalog", "explain", "mcp:github"});
  BOOST_TEST(json.code == 0, json.err);
  BOOST_TEST(json.out.find("\"path\": \"/mcp/github\"") != std::string::npos, json.out);
  const auto unknown = runSluicectl({"--services", services, "catalog", "explain", "mcp:jira"});
  BOOST_TEST(unknown.code == 2);
  BOOST_TEST(unknown.err.find("no MCP server 'jira' is declared; the MCP servers: 'github'") != std::string::npos,
             unknown.err);
}

BOOST_AUTO_TEST_CASE(invalid_input_exits_2) {
  BOOST_TEST(runSluicectl(withUrl({"requests", "list", "--since", "yesterday"})).code == 2);
  BOOST_TEST(runSluicectl(withUrl({"usage", "--by", "color"})).code == 2);
  BOOST_TEST(runSluicectl(withUrl({"usage", "--json", "--csv"})).code == 2);
  BOOST_TEST(runSluicectl(withUrl({"requests", "list", "--limit", "0"})).code == 2);
  BOOST_TEST(runSluicectl({"requests"}).code == 2);
}

BOOST_AUTO_TEST_SUITE_END()
