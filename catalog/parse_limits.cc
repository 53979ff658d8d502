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

}  // namespace sluice::catalog
