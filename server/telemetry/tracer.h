#pragma once
// Finished spans out of the process: a bounded queue the request path offers to (never waiting),
// and a thread that exports them in batches over OTLP/HTTP (protobuf or JSON, config.h) through a
// upstream::Transport. A batch the collector answers 429, 502, 503 or 504 (or that cannot reach it)
// is tried again after a backoff, at most three times in all; then, or on any other answer, it is
// dropped and counted. A full queue drops the new spans and counts them. Nothing here ever adds
// a wait to a request: offer() only takes a lock long enough to move a vector.
//
// Thread-safe.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "server/telemetry/config.h"
#include "server/telemetry/span.h"
#include "server/telemetry/trace_context.h"
#include "server/upstream/transport.h"

namespace sluice::telemetry {

class Tracer {
 public:
  // `transport` must outlive the tracer.
  Tracer(TraceExport config, Sender sender, upstream::Transport& transport);
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  const TraceExport& config() const { return config_; }

  // The sampling decision for a request: a client's sampled flag under a parent-based sampler,
  // else the root sampler (ratio by the trace id's last 16 hex digits, as the spec's reference does).
  bool sample(const std::optional<SpanContext>& parent, std::string_view trace_id) const;

  // Queues `spans` (one request's), or drops them when the queue is full (counted).
  void offer(std::vector<Span> spans);

  void start();
  // Exports what is queued (bounded by the export timeout) and stops the thread.
  void stop();

  // Counted drops (spans) go here as well, e.g. a metric; set before start().
  std::function<void(uint64_t spans)> on_drop;

  uint64_t exportedSpans() const { return exported_.load(); }
  uint64_t droppedSpans() const { return dropped_.load(); }

 private:
  void run();
  bool exportBatch(const std::vector<Span>& batch);
  void drop(uint64_t spans);

  TraceExport config_;
  Sender sender_;
  upstream::Transport& transport_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Span> queue_;
  bool stopping_ = false;
  std::thread thread_;
  std::atomic<uint64_t> exported_{0};
  std::atomic<uint64_t> dropped_{0};
};

// The resource every span carries: service.name, service.instance.id (the replica), the process's
// telemetry.sdk.* and OTEL_RESOURCE_ATTRIBUTES.
Sender senderFor(const TraceExport& config, std::string_view replica, std::string_view version);

}  // namespace sluice::telemetry
