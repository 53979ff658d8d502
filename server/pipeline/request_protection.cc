#include "server/pipeline/request_protection.h"

#include <time.h>

#include "server/net/fiber.h"
#include "server/pipeline/profile.h"
#include "server/protection/detectors.h"

namespace sluice::pipeline {

namespace {

const std::map<protection::Kind, int> kNoCounts;

// The calling thread's CPU time: the masking budget counts the work done, not the time spent
// waiting for a core on a loaded machine.
std::chrono::nanoseconds threadCpuTime() {
  timespec now{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

}  // namespace

const protection::Mapping* RequestProtection::mapping() const {
  if (!masked_ || !catalog_.data_protection || !catalog_.data_protection->restore) return nullptr;
  return &masked_->mapping;
}

const std::map<protection::Kind, int>& RequestProtection::counts() const {
  return masked_ ? masked_->counts : kNoCounts;
}

void RequestProtection::maskOnce() {
  if (tried_) return;
  tried_ = true;
  const catalog::DataProtection& declared = *catalog_.data_protection;
  if (declared.detector == nullptr) {
    failure_ = "no detector was compiled for this catalog";
    return;
  }
  protection::MaskLimits limits;
  limits.clock = threadCpuTime;
  const auto mask = [&] { return profile_.maskOnce(*declared.detector, limits); };
  auto result = body_bytes_ > kInlineMaskBytes ? net::fiber::compute(mask) : mask();
  if (!result) {
    failure_ = std::move(result.error());
    return;
  }
  for (const std::string& name : declared.block) {
    const auto kind = protection::kindFromString(name);
    if (kind && result->counts.contains(*kind)) blocked_kinds_ += (blocked_kinds_.empty() ? "" : ", ") + name;
  }
  masked_ = std::move(*result);
}

RequestProtection::Decision RequestProtection::decide(const dispatch::Attempt& attempt) {
  if (!catalog_.masks(*attempt.endpoint)) return {};
  maskOnce();
  if (!masked_) {
    failed_reason_ = failure_;
    return {Verdict::Failed, failure_};
  }
  if (attempt.endpoint->trust == catalog::Trust::Public && !blocked_kinds_.empty()) {
    blocked_reason_ = "the request holds " + blocked_kinds_ + ", which is never sent to a public deployment";
    return {Verdict::Blocked, blocked_reason_};
  }
  return {Verdict::Masked, {}};
}

}  // namespace sluice::pipeline
