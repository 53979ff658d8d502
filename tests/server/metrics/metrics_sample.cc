// Prints the exposition of a GatewayMetrics whose every family holds sample values, tricky
// label values included; CTest pipes it into `promtool check metrics` (see CMakeLists.txt).

#include <cstdio>
#include <limits>
#include <string>

#include "server/metrics/gateway_metrics.h"

int main() {
  using namespace sluice::metrics;
  Registry registry;
  GatewayMetrics metrics(registry);

  RequestFigures ok;
  ok.route = "chat";
  ok.model = "claude \"sonnet\"\\4.5\nnew line";
  ok.served_provider = "anthropic";
  ok.client_wire = "openai-chat";
  ok.outcome = "ok";
  ok.lane = lane::kTranslation;
  ok.status = 200;
  ok.duration_seconds = 3.25;
  ok.overhead_seconds = 0.000042;
  ok.time_to_first_token_seconds = 0.31;
  ok.usage_known = true;
  ok.input_tokens = 1200;
  ok.output_tokens = 350;
  ok.cache_read_tokens = 1024;
  ok.cache_write_tokens = 64;
  ok.reasoning_tokens = 100;
  ok.cost_microdollars = 12345;
  ok.cache_savings_microdollars = 1843;
  metrics.recordRequest(ok);

  RequestFigures refused;
  refused.route = "";
  refused.client_wire = "gemini";
  refused.outcome = "unknown_model";
  refused.status = 404;
  refused.duration_seconds = 0.00008;
  refused.overhead_seconds = 0.00008;
  metrics.recordRequest(refused);

  RequestFigures aborted = ok;
  aborted.model = "caf\xC3\xA9 \xFF invalid utf-8";
  aborted.outcome = "client_gone_mid_stream";
  aborted.status = 499;
  metrics.recordRequest(aborted);

  metrics.upstream_failovers.with({"openai/us", "openai/eu", "status_503"}).inc();
  metrics.deployment_selected.with({"chat", "openai", "least_busy"}).inc(3);
  metrics.context_fallbacks.with({"gpt-small", "gpt-large"}).inc();
  metrics.setBreakerState("openai", "us", BreakerLevel::Open);
  metrics.setBreakerState("openai", "eu", BreakerLevel::HalfOpen);
  metrics.setBreakerState("anthropic", "main", BreakerLevel::Closed);
  metrics.upstream_attempts.with({"openai", "us", "status_503"}).inc();
  metrics.upstream_attempts.with({"openai", "eu", "ok"}).inc();
  metrics.upstream_attempts.with({"openai", "us", "skipped:breaker_open"}).inc();
  metrics.setCatalogVersion("sha256:0123abcd");
  metrics.setCatalogVersion("sha256:4567ef01");
  metrics.recordCatalogReload(true);
  metrics.recordCatalogReload(false);
  InflightScope inflight(metrics);
  metrics.audit_batch_rows.with({}).observe(500);
  metrics.audit_batch_rows.with({}).observe(12);
  metrics.setAuditSource([] {
    AuditFigures figures;
    figures.queue_depth = 3;
    figures.rows_written = 123456;
    figures.rows_spooled = 40;
    figures.rows_replayed = 38;
    figures.batches = 250;
    figures.spool_rows = 2;
    figures.spool_bytes = 2048;
    figures.database_available = true;
    return figures;
  });

  // The registry's own overflow accounting, and special values in a family of its own.
  CounterFamily& tiny = registry.counter("sample_overflow_total", "A family with room for one series.", {"key"});
  tiny.setMaxSeries(1);
  tiny.with({"first"}).inc();
  tiny.with({"second"}).inc();
  GaugeFamily& special = registry.gauge("sample_special_values", "Infinities and NaN.", {"kind"});
  special.with({"plus"}).set(std::numeric_limits<double>::infinity());
  special.with({"minus"}).set(-std::numeric_limits<double>::infinity());
  special.with({"nan"}).set(std::numeric_limits<double>::quiet_NaN());
  special.with({"tiny"}).set(1e-300);

  const std::string text = registry.render();
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
