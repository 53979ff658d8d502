#pragma once
// How traces are exported, read from the environment variables every OpenTelemetry component
// reads (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/ and
// .../protocol/exporter/): OTEL_SDK_DISABLED, OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT,
// OTEL_EXPORTER_OTLP_[TRACES_]HEADERS, OTEL_EXPORTER_OTLP_[TRACES_]PROTOCOL,
// OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES,
// OTEL_TRACES_SAMPLER[_ARG], OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
// OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_EXPORT_TIMEOUT. Pure: the environment is a function.
//
// Tracing is on when an endpoint is set and the SDK is not disabled. A value that cannot be read
// keeps the default and says so in `warnings` (logged at start, never with a header's value).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sluice::telemetry {

enum class Protocol { Protobuf, Json };

enum class SamplerKind { AlwaysOn, AlwaysOff, TraceIdRatio };

struct Sampler {
  SamplerKind root = SamplerKind::AlwaysOn;  // for a trace the gateway starts
  bool parent_based = true;                  // a client's sampled flag decides for its trace
  double ratio = 1.0;                        // TraceIdRatio
};

// Where and how one signal (traces, logs) is sent, and the batch queue in front of it.
struct ExportTarget {
  std::string url;  // the whole signal URL: .../v1/traces, .../v1/logs
  Protocol protocol = Protocol::Protobuf;
  std::vector<std::pair<std::string, std::string>> headers;
  int timeout_ms = 10'000;
  size_t max_queue = 2048;  // items waiting; beyond it new ones are dropped (and counted)
  size_t max_batch = 512;   // items per export
  int schedule_delay_ms = 5000;
};

struct TraceExport : ExportTarget {
  bool enabled = false;
  std::string service_name = "sluice";
  std::vector<std::pair<std::string, std::string>> resource;  // OTEL_RESOURCE_ATTRIBUTES, in order
  Sampler sampler;
  std::vector<std::string> warnings;
};

// Audit rows as OTLP log records: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT (always exported), or the
// generic OTEL_EXPORTER_OTLP_ENDPOINT (exported while the catalog says gateway.telemetry.audit_logs:
// true); OTEL_EXPORTER_OTLP_[LOGS_]HEADERS, _PROTOCOL and _TIMEOUT; OTEL_BLRP_MAX_QUEUE_SIZE,
// OTEL_BLRP_MAX_EXPORT_BATCH_SIZE, OTEL_BLRP_SCHEDULE_DELAY (default 1000 ms).
struct LogExport : ExportTarget {
  bool enabled = false;       // a logs URL is known and the SDK is not disabled
  bool own_endpoint = false;  // OTEL_EXPORTER_OTLP_LOGS_ENDPOINT named it: no catalog switch needed
  std::vector<std::string> warnings;
};

using Environment = std::function<std::optional<std::string>(std::string_view name)>;

TraceExport readTraceExport(const Environment& environment);
LogExport readLogExport(const Environment& environment);

// "k1=v1,k2=v2" as the W3C Baggage-like list the spec uses for headers and resource attributes:
// entries trimmed, values percent-decoded; an entry without '=' or with an empty key is skipped
// (and counted in `skipped`).
std::vector<std::pair<std::string, std::string>> readKeyValueList(std::string_view text, size_t* skipped = nullptr);

}  // namespace sluice::telemetry
