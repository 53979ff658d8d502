#pragma once
// One request's spans, built from its audit row when it ends: a SERVER span for the request and a
// CLIENT span for each attempt sent to a provider, named and attributed per the OpenTelemetry
// semantic conventions for HTTP and for generative AI (gen_ai.*). Attempts that were skipped
// (breaker open, presence, credential) are events on the SERVER span; so are the first byte sent
// to the client (time to first token for a stream) and data-protection masking (counts only).
// Prompt and completion contents are never put in a span. Pure.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
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
  std::string_view method = "POST";
  std::string_view path;  // the request target; its query is left out of url.path
};

// An attribute's value while a span is walked: views into the row, valid for the call only.
using AttributeView = std::variant<std::string_view, int64_t, bool, double, const std::vector<std::string>*>;

// A value as an Attribute keeps it, and the view of an Attribute's value.
decltype(Attribute::value) ownedValue(const AttributeView& value);
AttributeView viewOf(const Attribute& attribute);

// Everything of a span but its attributes, events and status; views, valid for the call only.
struct SpanHead {
  std::string_view trace_id, span_id, parent_span_id, trace_state, name;
  SpanKind kind = SpanKind::Internal;
  uint64_t start_unix_nano = 0;
  uint64_t end_unix_nano = 0;
  bool sampled = true;
};

// What walkRequestSpans tells, span by span: beginSpan, its attributes, its events (beginEvent,
// their attributes, endEvent), endSpan. The SERVER span comes first, then each CLIENT span. A
// sink may build Span values (requestSpans) or write the spans' encoding straight away
// (otlp_encode.h), so that a traced request allocates next to nothing for its spans.
class SpanSink {
 public:
  virtual void beginSpan(const SpanHead& head) = 0;
  // Of the open event when there is one, else of the span.
  virtual void attribute(std::string_view key, const AttributeView& value) = 0;
  virtual void beginEvent(std::string_view name, uint64_t time_unix_nano) = 0;
  virtual void endEvent() = 0;
  virtual void endSpan(StatusCode status, std::string_view message) = 0;

 protected:
  ~SpanSink() = default;
};

// `catalog` (may be null) names each attempt's provider platform, wire and address.
void walkRequestSpans(const audit::Record& row, const RequestFacts& facts, const RequestTrace& trace,
                      const catalog::Catalog* catalog, audit::TimePoint now, SpanSink& sink);

// The same spans as values.
std::vector<Span> requestSpans(const audit::Record& row, const RequestFacts& facts, const RequestTrace& trace,
                               const catalog::Catalog* catalog, audit::TimePoint now);

// Tells `sink` about spans already built (a test's, or a caller's own).
void walkSpans(const std::vector<Span>& spans, SpanSink& sink);

// "chat" for the three inference endpoints, "embeddings" for /v1/embeddings, else the path's last
// segment ("count_tokens", "generations", ...).
std::string operationName(std::string_view path);

// gen_ai.provider.name for an endpoint: "aws.bedrock" on Bedrock, else by wire: "anthropic",
// "openai", "gcp.gemini".
std::string providerName(const catalog::Provider& provider, const catalog::Endpoint& endpoint);

}  // namespace sluice::telemetry
