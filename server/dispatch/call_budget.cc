#include "server/dispatch/call_budget.h"

namespace sluice::dispatch {

void CallBudget::spend(std::string_view limit, int value) {
  if (!segment_.empty()) return;  // the first limit reached is the one that stopped it
  segment_ = "limit:" + std::string(limit);
  spent_reason_ = std::string(limit) + " of " + std::to_string(value) + " spent";
}

bool CallBudget::take() {
  if (calls_ >= max_calls_) {
    spend("max_attempts", max_calls_);
    return false;
  }
  ++calls_;
  return true;
}

bool CallBudget::mayRetry(std::chrono::milliseconds delay) {
  if (calls_ >= max_calls_) {
    spend("max_attempts", max_calls_);
    return false;
  }
  if (delay > retry_left_) {
    spend("max_retry_ms", max_retry_);
    return false;
  }
  retry_left_ -= delay;
  return true;
}

}  // namespace sluice::dispatch
