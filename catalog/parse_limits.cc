// gateway.limits: what one request may cost upstream (catalog.h GatewayLimits).
#include "catalog/parsers.h"

namespace sluice::catalog {

void readGatewayLimits(YamlReader& reader, const Entry& entry, GatewayLimits& limits) {
  Fields fields = reader.fields(entry, "limits", {"max_attempts", "max_retry_ms"});
  if (!fields.ok()) return;
  if (const Entry* attempts = fields.find("max_attempts")) {
    limits.max_attempts =
        static_cast<int>(reader.integer(*attempts, "max_attempts of limits", 1, 100).value_or(limits.max_attempts));
  }
  if (const Entry* retry = fields.find("max_retry_ms")) {
    limits.max_retry_ms =
        static_cast<int>(reader.integer(*retry, "max_retry_ms of limits", 0, 600'000).value_or(limits.max_retry_ms));
  }
}

void readTelemetry(YamlReader& reader, const Entry& entry, TelemetrySettings& telemetry) {
  Fields fields = reader.fields(entry, "telemetry", {"trace_url", "audit_logs"});
  if (!fields.ok()) return;
  if (const Entry* url = fields.find("trace_url")) {
    if (auto text = reader.string(*url, "trace_url of telemetry")) {
      if (!text->starts_with("https://") && !text->starts_with("http://")) {
        reader.error(url->value_at, "trace_url of telemetry must be an http:// or https:// URL, e.g. "
                                    "https://grafana.example.com/explore?traceId={trace_id}");
      } else if (text->find("{trace_id}") == std::string::npos) {
        reader.error(url->value_at, "trace_url of telemetry needs {trace_id} where the trace id goes, e.g. "
                                    "https://jaeger.example.com/trace/{trace_id}");
      } else if (text->size() > 2048) {
        reader.error(url->value_at, "trace_url of telemetry is longer than 2048 characters");
      } else {
        telemetry.trace_url = *text;
      }
    }
  }
  if (const Entry* logs = fields.find("audit_logs")) {
    telemetry.audit_logs = reader.boolean(*logs, "audit_logs of telemetry").value_or(false);
  }
}

}  // namespace sluice::catalog
