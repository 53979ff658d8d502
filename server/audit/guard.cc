#include "server/audit/guard.h"

#include "server/audit/sink.h"

namespace sluice::audit {

RequestAudit::RequestAudit(Sink* sink, std::string request_id)
    : sink_(sink), started_(std::chrono::steady_clock::now()) {
  record_.id = std::move(request_id);
  record_.created_at = Clock::now();
}

int64_t RequestAudit::elapsedMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_).count();
}

void RequestAudit::discard() {
  if (sink_ != nullptr) sink_->abandon(record_.id);
  sink_ = nullptr;
}

RequestAudit::~RequestAudit() {
  if (!sink_) return;
  if (!record_.latency_ms) record_.latency_ms = elapsedMs();
  if (record_.completed_at == TimePoint{}) {
    // From the steady clock, so a wall-clock step during the request cannot make it negative.
    record_.completed_at = record_.created_at + std::chrono::milliseconds(*record_.latency_ms);
  }
  if (record_.outcome.empty()) {
    record_.outcome = outcome::kInternalError;
    if (record_.status == 0) record_.status = 500;
  }
  sink_->submit(std::move(record_));  // noexcept
}

}  // namespace sluice::audit
