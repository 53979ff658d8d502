#pragma once
// RequestAudit: the RAII guard that makes "exactly one audit row per request" structural.
// Construct it first thing on a request's thread; fill record() as the request proceeds; the
// destructor submits the row once, whatever path the request took (return, refusal, exception,
// client hang-up).
//
//   audit::RequestAudit audit(gateway.audit(), request_id);
//   audit.record().client_wire = "anthropic";
//   …
//   audit.record().outcome = audit::outcome::kOk;   // forgetting this is reported as internal_error
//
// On destruction, when unset: completed_at = now, latency_ms = time since construction (steady
// clock), outcome = "internal_error" (and status 500 if no status was set). Never throws.
// Not thread-safe: one request thread owns it. Non-copyable, non-movable.

#include <chrono>
#include <cstdint>
#include <string>

#include "server/audit/record.h"

namespace sluice::audit {

class Sink;

class RequestAudit {
 public:
  // `sink` may be null (no database configured): the guard then records nothing.
  RequestAudit(Sink* sink, std::string request_id);
  ~RequestAudit();
  RequestAudit(const RequestAudit&) = delete;
  RequestAudit& operator=(const RequestAudit&) = delete;

  Record& record() { return record_; }
  const Record& record() const { return record_; }

  // The row is not submitted: it is accounted for elsewhere (a RefusalThrottle summary).
  void discard();
  Sink* sink() const { return sink_; }

  // Milliseconds since construction (steady clock): use for ttfb_ms, upstream_ms.
  int64_t elapsedMs() const;

 private:
  Sink* sink_;
  std::chrono::steady_clock::time_point started_;
  Record record_;
};

}  // namespace sluice::audit
