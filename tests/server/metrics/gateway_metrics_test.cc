#include "server/metrics/gateway_metrics.h"

#include <cctype>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <boost/test/unit_test.hpp>

using sluice::metrics::AuditFigures;
using sluice::metrics::BreakerLevel;
using sluice::metrics::GatewayMetrics;
using sluice::metrics::Registry;
using sluice::metrics::RequestFigures;

namespace {

bool contains(const std::string& text, const std::string& line) { return text.find(line) != std::string::npos; }

// Every family issue 7 and docs/metrics.md name, with its type.
const std::vector<std::pair<std::string, std::string>>& expectedFamilies() {
  static const std::vector<std::pair<std::string, std::string>> families{
      {"gateway_requests_total", "counter"},
      {"gateway_upstream_failovers_total", "counter"},
      {"gateway_deployment_selected_total", "counter"},
      {"gateway_context_fallbacks_total", "counter"},
      {"gateway_breaker_state", "gauge"},
      {"gateway_upstream_attempts_total", "counter"},
      {"gateway_overhead_seconds", "histogram"},
      {"gateway_request_duration_seconds", "histogram"},
      {"gateway_time_to_first_token_seconds", "histogram"},
      {"gen_ai_client_token_usage", "histogram"},
      {"gen_ai_server_request_duration_seconds", "histogram"},
      {"gen_ai_server_time_to_first_token_seconds", "histogram"},
      {"gen_ai_server_time_per_output_token_seconds", "histogram"},
      {"gateway_tokens_total", "counter"},
      {"gateway_cost_microdollars_total", "counter"},
      {"gateway_project_cost_microdollars_total", "counter"},
      {"gateway_cache_savings_microdollars_total", "counter"},
      {"gateway_inflight_requests", "gauge"},
      {"gateway_client_aborts_total", "counter"},
      {"gateway_catalog_reloads_total", "counter"},
      {"gateway_catalog_info", "gauge"},
      {"gateway_audit_queue_depth", "gauge"},
      {"gateway_audit_rows_written_total", "counter"},
      {"gateway_audit_rows_spooled_total", "counter"},
      {"gateway_audit_rows_replayed_total", "counter"},
      {"gateway_audit_rows_dropped_total", "counter"},
      {"gateway_audit_batches_total", "counter"},
      {"gateway_audit_batch_rows", "histogram"},
      {"gateway_audit_spool_rows", "gauge"},
      {"gateway_audit_spool_bytes", "gauge"},
      {"gateway_audit_database_available", "gauge"},
      {"sluice_metrics_series_dropped_total", "counter"},
      {"sluice_data_protection_masked_total", "counter"},
      {"gateway_units_total", "counter"},
      {"gateway_open_connections", "gauge"},
      {"gateway_connections_refused_total", "counter"},
      {"gateway_requests_timed_out_total", "counter"},
      {"gateway_tls_handshake_failures_total", "counter"},
      {"gateway_affinity_total", "counter"},
      {"gateway_audit_rows_suppressed_total", "counter"},
      {"gateway_console_sign_ins_refused_total", "counter"},
      {"gateway_presence_polls_total", "counter"},
      {"gateway_presence_node_up", "gauge"},
      {"gateway_presence_last_success_age_seconds", "gauge"},
  };
  return families;
}

RequestFigures streamedOk() {
  RequestFigures r;
  r.route = "chat";
  r.model = "claude-sonnet";
  r.served_provider = "anthropic";
  r.client_wire = "openai-chat";
  r.outcome = "ok";
  r.lane = sluice::metrics::lane::kTranslation;
  r.status = 200;
  r.duration_seconds = 2.5;
  r.overhead_seconds = 0.0002;
  r.time_to_first_token_seconds = 0.5;
  r.usage_known = true;
  r.input_tokens = 100;
  r.output_tokens = 41;
  r.cache_read_tokens = 20;
  r.reasoning_tokens = 5;
  r.cost_microdollars = 1234;
  r.cache_savings_microdollars = 36;
  r.project = "research";
  return r;
}

bool wordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// The label names of every sample line: each word before `="`.
std::set<std::string> labelNames(const std::string& text) {
  std::set<std::string> names;
  for (size_t at = text.find("=\""); at != std::string::npos; at = text.find("=\"", at + 2)) {
    size_t begin = at;
    while (begin > 0 && wordChar(text[begin - 1])) --begin;
    if (begin < at) names.insert(text.substr(begin, at - begin));
  }
  return names;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gateway_metrics)

BOOST_AUTO_TEST_CASE(renders_every_family_with_its_type) {
  Registry registry;
  GatewayMetrics metrics(registry);
  const std::string text = "\n" + registry.render();
  for (const auto& [name, type] : expectedFamilies()) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(contains(text, "\n# HELP " + name + " ") == true);
      BOOST_TEST(contains(text, "\n# TYPE " + name + " " + type + "\n") == true);
    }
  }
}

BOOST_AUTO_TEST_CASE(closed_sets_render_zero_from_the_start) {
  Registry registry;
  GatewayMetrics metrics(registry);
  const std::string text = registry.render();
  BOOST_TEST(contains(text, "gateway_inflight_requests 0\n"));
  BOOST_TEST(contains(text, "gateway_client_aborts_total{phase=\"before_response\"} 0\n"));
  BOOST_TEST(contains(text, "gateway_client_aborts_total{phase=\"mid_stream\"} 0\n"));
  BOOST_TEST(contains(text, "gateway_catalog_reloads_total{result=\"ok\"} 0\n"));
  BOOST_TEST(contains(text, "gateway_catalog_reloads_total{result=\"refused\"} 0\n"));
  BOOST_TEST(contains(text, "gateway_audit_batch_rows_count 0\n"));
}

BOOST_AUTO_TEST_CASE(a_second_instance_over_the_same_registry_throws) {
  Registry registry;
  GatewayMetrics metrics(registry);
  BOOST_CHECK_THROW(GatewayMetrics again(registry), std::logic_error);
}

BOOST_AUTO_TEST_CASE(record_request_fills_the_gateway_and_gen_ai_families) {
  Registry registry;
  GatewayMetrics metrics(registry);
  metrics.recordRequest(streamedOk());
  const std::string text = registry.render();
  BOOST_TEST(contains(text, "gateway_requests_total{route=\"chat\",model=\"claude-sonnet\",served_provider=\"anthropic\","
                            "client_wire=\"openai-chat\",status=\"200\",outcome=\"ok\"} 1\n"));
  BOOST_TEST(contains(text, "gateway_overhead_seconds_bucket{lane=\"translation\",le=\"0.0001\"} 0\n"));
  BOOST_TEST(contains(text, "gateway_overhead_seconds_bucket{lane=\"translation\",le=\"0.00025\"} 1\n"));
  BOOST_TEST(contains(text, "gateway_overhead_seconds_sum{lane=\"translation\"} 0.0002\n"));
  BOOST_TEST(contains(text, "gateway_request_duration_seconds_bucket{route=\"chat\",model=\"claude-sonnet\",outcome=\"ok\","
                            "le=\"2.5\"} 1\n"));
  BOOST_TEST(contains(text, "gateway_time_to_first_token_seconds_count{route=\"chat\",model=\"claude-sonnet\","
                            "served_provider=\"anthropic\"} 1\n"));
  BOOST_TEST(contains(text, "gateway_tokens_total{model=\"claude-sonnet\",type=\"input\"} 100\n"));
  BOOST_TEST(contains(text, "gateway_tokens_total{model=\"claude-sonnet\",type=\"output\"} 41\n"));
  BOOST_TEST(contains(text, "gateway_tokens_total{model=\"claude-sonnet\",type=\"cache_read\"} 20\n"));
  BOOST_TEST(contains(text, "gateway_tokens_total{model=\"claude-sonnet\",type=\"reasoning\"} 5\n"));
  BOOST_TEST(!contains(text, "type=\"cache_write\""));  // zero counts create no series
  BOOST_TEST(contains(text, "gateway_cost_microdollars_total{model=\"claude-sonnet\",served_provider=\"anthropic\"} 1234\n"));
  BOOST_TEST(contains(text, "gateway_project_cost_microdollars_total{project=\"research\"} 1234\n"));
  BOOST_TEST(contains(text, "gateway_cache_savings_microdollars_total{route=\"chat\",model=\"claude-sonnet\","
                            "served_provider=\"anthropic\"} 36\n"));
  const std::string genai = "gen_ai_operation_name=\"chat\",gen_ai_provider_name=\"anthropic\",gen_ai_request_model=\"claude-sonnet\"";
  BOOST_TEST(contains(text, "gen_ai_client_token_usage_bucket{" + genai + ",gen_ai_token_type=\"input\",le=\"256\"} 1\n"));
  BOOST_TEST(contains(text, "gen_ai_client_token_usage_sum{" + genai + ",gen_ai_token_type=\"input\"} 120\n"));
  BOOST_TEST(contains(text, "gen_ai_client_token_usage_sum{" + genai + ",gen_ai_token_type=\"output\"} 41\n"));
  BOOST_TEST(contains(text, "gen_ai_server_request_duration_seconds_bucket{" + genai + ",error_type=\"\",le=\"2.56\"} 1\n"));
  BOOST_TEST(contains(text, "gen_ai_server_time_to_first_token_seconds_bucket{" + genai + ",le=\"0.5\"} 1\n"));
  // (2.5 s - 0.5 s) over the 40 tokens after the first.
  BOOST_TEST(contains(text, "gen_ai_server_time_per_output_token_seconds_sum{" + genai + "} 0.05\n"));
  BOOST_TEST(contains(text, "gen_ai_server_time_per_output_token_seconds_bucket{" + genai + ",le=\"0.05\"} 1\n"));
}

BOOST_AUTO_TEST_CASE(a_refusal_counts_in_gateway_families_only) {
  Registry registry;
  GatewayMetrics metrics(registry);
  RequestFigures r;
  r.route = "chat";
  r.model = "";
  r.client_wire = "anthropic";
  r.outcome = "unknown_model";
  r.status = 404;
  r.duration_seconds = 0.0001;
  r.overhead_seconds = 0.0001;
  metrics.recordRequest(r);
  const std::string text = registry.render();
  BOOST_TEST(contains(text, "gateway_requests_total{route=\"chat\",model=\"\",served_provider=\"\",client_wire=\"anthropic\","
                            "status=\"404\",outcome=\"unknown_model\"} 1\n"));
  BOOST_TEST(contains(text, "gateway_overhead_seconds_count{lane=\"local\"} 1\n"));
  BOOST_TEST(!contains(text, "gen_ai_server_request_duration_seconds_count{"));
  BOOST_TEST(!contains(text, "gateway_tokens_total{"));
}

BOOST_AUTO_TEST_CASE(an_upstream_error_carries_error_type_and_no_time_to_first_token) {
  Registry registry;
  GatewayMetrics metrics(registry);
  RequestFigures r = streamedOk();
  r.outcome = "all_deployments_failed";
  r.status = 502;
  r.time_to_first_token_seconds.reset();
  r.usage_known = false;
  r.cost_microdollars = 0;
  r.cache_savings_microdollars = 0;
  metrics.recordRequest(r);
  const std::string text = registry.render();
  BOOST_TEST(contains(text, "error_type=\"all_deployments_failed\",le=\"+Inf\"} 1\n"));
  BOOST_TEST(!contains(text, "gen_ai_server_time_to_first_token_seconds_count{"));
  BOOST_TEST(!contains(text, "gen_ai_client_token_usage_count{"));
  BOOST_TEST(!contains(text, "gateway_cost_microdollars_total{"));
  BOOST_TEST(!contains(text, "gateway_cache_savings_microdollars_total{"));  // nothing saved, no series
}

BOOST_AUTO_TEST_CASE(client_hang_ups_count_by_phase) {
  Registry registry;
  GatewayMetrics metrics(registry);
  RequestFigures r = streamedOk();
  r.outcome = "client_gone_mid_stream";
  r.status = 499;
  metrics.recordRequest(r);
  r.outcome = "client_gone_before_response";
  metrics.recordRequest(r);
  metrics.recordRequest(r);
  const std::string text = registry.render();
  BOOST_TEST(contains(text, "gateway_client_aborts_total{phase=\"before_response\"} 2\n"));
  BOOST_TEST(contains(text, "gateway_client_aborts_total{phase=\"mid_stream\"} 1\n"));
}

BOOST_AUTO_TEST_CASE(breaker_levels_order_by_severity) {
  Registry registry;
  GatewayMetrics metrics(registry);
  metrics.setBreakerState("openai", "us", BreakerLevel::Open);
  metrics.setBreakerState("openai", "eu", BreakerLevel::HalfOpen);
  metrics.setBreakerState("anthropic", "main", BreakerLevel::Closed);
  metrics.setBreakerState("gone", "old", BreakerLevel::Open);
  metrics.forgetBreaker("gone", "old");
  const std::string text = registry.render();
  BOOST_TEST(contains(text, "# TYPE gateway_breaker_state gauge\n"
                            "gateway_breaker_state{provider=\"anthropic\",endpoint=\"main\"} 0\n"
                            "gateway_breaker_state{provider=\"openai\",endpoint=\"eu\"} 1\n"
                            "gateway_breaker_state{provider=\"openai\",endpoint=\"us\"} 2\n"
                            "# HELP "));
  BOOST_TEST(metrics.breaker_state.seriesCount() == 3u);  // removed from prometheus-cpp, not hidden
  metrics.setBreakerState("gone", "old", BreakerLevel::HalfOpen);  // back in the catalog: a fresh series
  BOOST_TEST(contains(registry.render(), "gateway_breaker_state{provider=\"gone\",endpoint=\"old\"} 1\n"));
}

BOOST_AUTO_TEST_CASE(breaker_transitions_and_forgetting_may_race) {
  Registry registry;
  GatewayMetrics metrics(registry);
  std::thread forgetter([&] {
    for (int i = 0; i < 2000; ++i) metrics.forgetBreaker("p", "e");
  });
  for (int i = 0; i < 2000; ++i) metrics.setBreakerState("p", "e", i % 2 == 0 ? BreakerLevel::Open : BreakerLevel::Closed);
  forgetter.join();
  metrics.setBreakerState("p", "e", BreakerLevel::Open);
  BOOST_TEST(contains(registry.render(), "gateway_breaker_state{provider=\"p\",endpoint=\"e\"} 2\n"));
}

BOOST_AUTO_TEST_CASE(catalog_info_shows_only_the_current_version) {
  Registry registry;
  GatewayMetrics metrics(registry);
  metrics.setCatalogVersion("v1");
  metrics.setCatalogVersion("v2");
  metrics.setCatalogVersion("v2");
  metrics.recordCatalogReload(true);
  metrics.recordCatalogReload(false);
  metrics.recordCatalogReload(false);
  const std::string text = registry.render();
  BOOST_TEST(contains(text, "# TYPE gateway_catalog_info gauge\ngateway_catalog_info{version=\"v2\"} 1\n# HELP "));
  BOOST_TEST(contains(text, "gateway_catalog_reloads_total{result=\"ok\"} 1\n"));
  BOOST_TEST(contains(text, "gateway_catalog_reloads_total{result=\"refused\"} 2\n"));
  metrics.setCatalogVersion("v1");
  BOOST_TEST(contains(registry.render(), "# TYPE gateway_catalog_info gauge\ngateway_catalog_info{version=\"v1\"} 1\n# HELP "));
  for (int version = 0; version < 3 * 1000; ++version) metrics.setCatalogVersion(std::to_string(version));
  BOOST_TEST(metrics.catalog_info.seriesCount() == 1u);  // swapped-out versions take no memory nor limit
  BOOST_TEST(contains(registry.render(), "gateway_catalog_info{version=\"2999\"} 1\n# HELP "));
}

BOOST_AUTO_TEST_CASE(presence_families_read_the_source_at_every_render) {
  Registry registry;
  GatewayMetrics metrics(registry);
  BOOST_TEST(contains(registry.render(), "# TYPE gateway_presence_node_up gauge\n# HELP "));
  sluice::metrics::Samples nodes{{{"studio"}, 1}, {{"attic"}, 0}};
  metrics.setPresenceSource([&] { return nodes; }, [] { return sluice::metrics::Samples{{{}, 2.5}}; });
  std::string text = registry.render();
  BOOST_TEST(contains(text, "# TYPE gateway_presence_node_up gauge\ngateway_presence_node_up{node=\"attic\"} 0\n"
                            "gateway_presence_node_up{node=\"studio\"} 1\n# HELP "));
  BOOST_TEST(contains(text, "gateway_presence_last_success_age_seconds 2.5\n"));
  nodes.pop_back();
  BOOST_TEST(!contains(registry.render(), "node=\"attic\""));
  metrics.setPresenceSource({}, {});
  text = registry.render();
  BOOST_TEST(contains(text, "# TYPE gateway_presence_node_up gauge\n# HELP "));
  BOOST_TEST(contains(text, "# TYPE gateway_presence_last_success_age_seconds gauge\n# HELP "));
}

BOOST_AUTO_TEST_CASE(audit_families_read_the_source_at_every_render) {
  Registry registry;
  GatewayMetrics metrics(registry);
  BOOST_TEST(contains(registry.render(), "# TYPE gateway_audit_queue_depth gauge\n# HELP "));
  AuditFigures figures;
  figures.queue_depth = 7;
  figures.rows_written = 1000;
  figures.rows_spooled = 30;
  figures.rows_replayed = 10;
  figures.batches = 4;
  figures.spool_rows = 20;
  figures.spool_bytes = 4096;
  figures.database_available = true;
  metrics.setAuditSource([&] { return figures; });
  std::string text = registry.render();
  BOOST_TEST(contains(text, "gateway_audit_queue_depth 7\n"));
  BOOST_TEST(contains(text, "gateway_audit_rows_written_total 1000\n"));
  BOOST_TEST(contains(text, "gateway_audit_rows_spooled_total 30\n"));
  BOOST_TEST(contains(text, "gateway_audit_rows_replayed_total 10\n"));
  BOOST_TEST(contains(text, "gateway_audit_rows_dropped_total 0\n"));
  BOOST_TEST(contains(text, "gateway_audit_batches_total 4\n"));
  BOOST_TEST(contains(text, "gateway_audit_spool_rows 20\n"));
  BOOST_TEST(contains(text, "gateway_audit_spool_bytes 4096\n"));
  BOOST_TEST(contains(text, "gateway_audit_database_available 1\n"));
  figures.queue_depth = 0;
  BOOST_TEST(contains(registry.render(), "gateway_audit_queue_depth 0\n"));
  metrics.audit_batch_rows.with({}).observe(500);
  BOOST_TEST(contains(registry.render(), "gateway_audit_batch_rows_bucket{le=\"500\"} 1\n"));
  figures.rows_written = 1500;
  BOOST_TEST(contains(registry.render(), "gateway_audit_rows_written_total 1500\n"));
  metrics.setAuditSource({});
  BOOST_TEST(contains(registry.render(), "# TYPE gateway_audit_rows_written_total counter\n# HELP "));
}

BOOST_AUTO_TEST_CASE(the_audit_callbacks_outlive_the_metrics_object) {
  Registry registry;
  {
    GatewayMetrics metrics(registry);
    metrics.setAuditSource([] { return AuditFigures{}; });
  }
  BOOST_TEST(contains(registry.render(), "gateway_audit_queue_depth 0\n"));
}

BOOST_AUTO_TEST_CASE(inflight_scope_counts_while_alive) {
  Registry registry;
  GatewayMetrics metrics(registry);
  {
    sluice::metrics::InflightScope one(metrics);
    sluice::metrics::InflightScope two(metrics);
    BOOST_TEST(contains(registry.render(), "gateway_inflight_requests 2\n"));
  }
  BOOST_TEST(contains(registry.render(), "gateway_inflight_requests 0\n"));
}

BOOST_AUTO_TEST_CASE(semconv_buckets_are_the_specified_ones) {
  Registry registry;
  GatewayMetrics metrics(registry);
  const auto bounds = [](const sluice::metrics::HistogramFamily& family) { return family.bounds(); };
  BOOST_TEST(bounds(metrics.genai_token_usage) ==
                 (std::vector<double>{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216,
                                      67108864}),
             boost::test_tools::per_element());
  BOOST_TEST(bounds(metrics.genai_request_duration) ==
                 (std::vector<double>{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96,
                                      81.92}),
             boost::test_tools::per_element());
  BOOST_TEST(bounds(metrics.genai_time_to_first_token) ==
                 (std::vector<double>{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0,
                                      7.5, 10.0}),
             boost::test_tools::per_element());
  BOOST_TEST(bounds(metrics.genai_time_per_output_token) ==
                 (std::vector<double>{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5}),
             boost::test_tools::per_element());
  BOOST_TEST(bounds(metrics.overhead_seconds).front() == 0.00001);
  BOOST_TEST(bounds(metrics.overhead_seconds).back() == 1.0);
}

BOOST_AUTO_TEST_CASE(no_label_names_a_user_a_key_or_a_request) {
  Registry registry;
  GatewayMetrics metrics(registry);
  metrics.recordRequest(streamedOk());
  // The one exception (docs/metrics.md): spend by the project charged, a set admins declare.
  std::string text = registry.render();
  for (size_t at; (at = text.find("gateway_project_cost_microdollars_total")) != std::string::npos;) {
    text.erase(at, text.find('\n', at) - at);
  }
  const std::set<std::string> names = labelNames(text);
  BOOST_TEST(names.contains("served_provider"));
  for (const std::string& name : names) {
    BOOST_TEST_CONTEXT(name) {
      for (const char* forbidden : {"user", "key", "request_id", "principal", "project", "email", "ip"}) {
        BOOST_TEST(name.find(forbidden) == std::string::npos);
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
