#pragma once
// Finished spans out of the process: the sampling decision, and a BatchExporter (batch_exporter.h)
// that exports them over OTLP/HTTP (protobuf or JSON, config.h) from a thread of its own: a
// bounded queue, retries on 429/5xx, drops counted. Nothing here ever adds a wait to a request.
//
// Thread-safe.

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "server/telemetry/batch_exporter.h"
#include "server/telemetry/config.h"
#include "server/telemetry/otlp_encode.h"
#include "server/telemetry/request_spans.h"
#include "server/telemetry/span.h"
#include "server/telemetry/trace_context.h"
#include "server/upstream/transport.h"

namespace sluice::telemetry {

class Tracer {
 public:
  // `transport` must outlive the tracer.
  Tracer(TraceExport config, Sender sender, upstream::Transport& transport);
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  const TraceExport& config() const { return config_; }

  // The sampling decision for a request: a client's sampled flag under a parent-based sampler,
  // else the root sampler (ratio by the trace id's last 16 hex digits, as the spec's reference does).
  bool sample(const std::optional<SpanContext>& parent, std::string_view trace_id) const;

  // Queues one request's spans, encoded there and then in the export's protocol (the request's
  // whole cost: no Span values are made for protobuf), or drops them when the queue is full
  // (counted).
  void offerRequest(const audit::Record& row, const RequestFacts& facts, const RequestTrace& trace,
                    const catalog::Catalog* catalog, audit::TimePoint now);
  // Queues spans already built.
  void offer(const std::vector<Span>& spans);

  void start() { exporter_.start(); }
  // Exports what is queued (bounded by the export timeout) and stops the thread.
  void stop() { exporter_.stop(); }

  // Counted drops (spans) go here as well, e.g. a metric; set before start().
  std::function<void(uint64_t spans)> on_drop;

  uint64_t exportedSpans() const { return exporter_.exported(); }
  uint64_t droppedSpans() const { return exporter_.dropped(); }

 private:
  TraceExport config_;
  BatchExporter<EncodedSpans> exporter_;
};

// The resource every span carries: service.name, service.instance.id (the replica), the process's
// telemetry.sdk.* and OTEL_RESOURCE_ATTRIBUTES.
Sender senderFor(const TraceExport& config, std::string_view replica, std::string_view version);

}  // namespace sluice::telemetry
