// Micro-benchmark of what OpenTelemetry costs one audited request (docs/observability.md): the
// ids, its spans, their OTLP encoding, and its audit row as an OTLP log record, each step on its
// own, per request, in microseconds (median and p90 of many rounds of 512 requests, the batch a
// collector gets). The end-to-end figure is the `sluice-pass+otel` lane of scripts/bench.sh.
//
//   build/bin/telemetry_bench [rounds]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "server/audit/record_json.h"
#include "server/telemetry/audit_log.h"
#include "server/telemetry/otlp_encode.h"
#include "server/telemetry/request_spans.h"
#include "server/telemetry/trace_context.h"

using namespace sluice;

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kBatch = 512;

audit::Record makeRecord(size_t sequence) {
  audit::Record record;
  record.id = "0193a7c2f4e07b3d8c1e5a9f-" + std::to_string(sequence);
  record.created_at = audit::Clock::now();
  record.completed_at = record.created_at + std::chrono::milliseconds(850);
  record.user = "alice@example.com";
  record.api_key_id = "key_3f9a2c";
  record.project = "payments";
  record.project_source = "key";
  record.client_family = "openai-node";
  record.client_wire = "openai-chat";
  record.client_address = "10.1.2.3";
  record.requested_model = "gpt-4.1";
  record.model = "gpt-4.1";
  record.route_id = "gpt-4.1";
  record.strategy = "ordered";
  record.provider = "openai";
  record.endpoint = "openai-us";
  record.served_provider = "openai";
  record.served_endpoint = "openai-us";
  record.route_match = "route:gpt-4.1;deployment:openai-us";
  record.attempts.push_back({"openai-us", "openai", 200, "ok", "", 812, record.created_at, "b7ad6b7169203331"});
  record.status = 200;
  record.outcome = "ok";
  record.usage = {1200, 340, 0, 0, 0};
  record.cost_microdollars = 5120;
  record.latency_ms = 850;
  record.ttfb_ms = 240;
  record.upstream_ms = 840;
  record.trace_id = "0af7651916cd43dd8448eb211c80319c";
  record.span_id = "00f067aa0ba902b7";
  return record;
}

// Median and p90 of `rounds` timings of `step` (one batch), per request.
void measure(const char* name, int rounds, const std::function<void()>& step) {
  std::vector<double> per_request;
  for (int i = 0; i < rounds; ++i) {
    const auto start = Clock::now();
    step();
    per_request.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count() / kBatch);
  }
  std::sort(per_request.begin(), per_request.end());
  std::printf("%-34s %8.2f us  (p90 %.2f)\n", name, per_request[per_request.size() / 2],
              per_request[per_request.size() * 9 / 10]);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  std::vector<audit::Record> rows;
  std::vector<std::string> lines;
  for (size_t i = 0; i < kBatch; ++i) {
    rows.push_back(makeRecord(i));
    lines.push_back(audit::toCopyLine(rows.back()));
  }
  telemetry::Sender sender;
  sender.resource.push_back({"service.name", std::string("sluice")});
  const telemetry::RequestTrace trace{"0af7651916cd43dd8448eb211c80319c", "00f067aa0ba902b7", std::nullopt, true};
  const auto now = std::chrono::system_clock::now();

  size_t sink = 0;
  measure("ids (trace, server span, attempt)", rounds, [&] {
    for (size_t i = 0; i < kBatch; ++i) {
      sink += telemetry::newTraceId().size() + telemetry::newSpanId().size() + telemetry::newSpanId().size();
    }
  });
  std::vector<telemetry::Span> spans;
  measure("spans of a row, as values", rounds, [&] {
    spans.clear();
    for (const auto& row : rows) {
      auto built = telemetry::requestSpans(row, {"POST", "/v1/chat/completions"}, trace, nullptr, now);
      for (auto& span : built) spans.push_back(std::move(span));
    }
  });
  measure("  their encoding (protobuf)", rounds, [&] { sink += telemetry::encodeTracesProtobuf(sender, spans).size(); });
  std::vector<telemetry::EncodedSpans> encoded;
  measure("spans of a row encoded (request)", rounds, [&] {
    encoded.clear();
    for (const auto& row : rows) {
      encoded.push_back(telemetry::encodeRequestSpansProtobuf(row, {"POST", "/v1/chat/completions"}, trace, nullptr, now));
    }
  });
  measure("  a batch of them wrapped (export)", rounds, [&] { sink += telemetry::wrapTracesProtobuf(sender, encoded).size(); });
  measure("audit lines as log records (export)", rounds,
          [&] { sink += telemetry::encodeAuditLinesProtobuf(sender, lines, 1).size(); });
  measure("  as values (JSON protocol's path)", rounds, [&] {
    for (const auto& line : lines) sink += telemetry::logRecordOfLine(line, 1).attributes.size();
  });
  measure("  through JSON rows (before)", rounds, [&] {
    for (const auto& line : lines) sink += telemetry::logRecordOfRow(std::string_view(audit::rowJsonOfLine(line)), 1).attributes.size();
  });
  std::printf("(%zu)\n", sink % 10);
  return 0;
}
