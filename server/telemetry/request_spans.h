#pragma once
// One request's spans, built from its audit row when it ends: a SERVER span for the request and a
// CLIENT span for each attempt sent to a provider, named and attributed per the OpenTelemetry
// semantic conventions for HTTP and for generative AI (gen_ai.*). Attempts that were skipped
// (breaker open, presence, credential) are events on the SERVER span; so are the first byte sent
// to the client (time to first token for a stream) and data-protection masking (counts only).
// Prompt and completion contents are never put in a span. Pure.

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "server/audit/record.h"
#include "server/telemetry/span.h"
#include "server/telemetry/trace_context.h"

namespace sluice::telemetry {

struct RequestTrace {
  std::string trace_id;
  std::string server_span_id;
  std::optional<SpanContext> parent;  // the client's traceparent, when it sent a valid one
  bool sampled = true;
};

struct RequestFacts {
  std::string method = "POST";
  std::string path;  // the request target; its query is left out of url.path
};

// `catalog` (may be null) names each attempt's provider platform, wire and address.
std::vector<Span> requestSpans(const audit::Record& row, const RequestFacts& facts, const RequestTrace& trace,
                               const catalog::Catalog* catalog, audit::TimePoint now);

// "chat" for the three inference endpoints, "embeddings" for /v1/embeddings, else the path's last
// segment ("count_tokens", "generations", ...).
std::string operationName(std::string_view path);

// gen_ai.provider.name for an endpoint: "aws.bedrock" on Bedrock, else by wire: "anthropic",
// "openai", "gcp.gemini".
std::string providerName(const catalog::Provider& provider, const catalog::Endpoint& endpoint);

}  // namespace sluice::telemetry
