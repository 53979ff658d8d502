#pragma once
// gateway.telemetry of the catalog (docs/observability.md). Plain values; see catalog/catalog.h.

#include <string>
#include <string_view>

namespace sluice::catalog {

// gateway.telemetry: what the OpenTelemetry export (docs/observability.md) takes from the catalog;
// where it goes comes from the OTEL_* environment.
struct TelemetrySettings {
  // A link to a trace in the tracing backend, "{trace_id}" replaced by the row's trace id; shown
  // by the console's request page and `sluicectl requests show`. "" = no link.
  std::string trace_url;
  // Audit rows as OTLP log records through the generic OTEL_EXPORTER_OTLP_ENDPOINT (with
  // OTEL_EXPORTER_OTLP_LOGS_ENDPOINT set they are exported whatever this says).
  bool audit_logs = false;
};

// trace_url with every {trace_id} replaced by `trace_id`; "" when there is no template or the id is
// not 32 lowercase hex digits (an id read from a row is never put into a link unchecked).
std::string traceLink(const TelemetrySettings& telemetry, std::string_view trace_id);

}  // namespace sluice::catalog
