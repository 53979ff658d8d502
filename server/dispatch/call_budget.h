#pragma once
// What one request may still spend upstream (gateway.limits): calls, retries included, and time
// waiting to retry. A model name can expand to 40 targets with a retry budget each: without this,
// one request could make 120 calls. Pure: waits are counted as planned, never measured.
//
//   CallBudget budget(catalog.limits);
//   before each upstream call:  if (!budget.take()) stop (budget.segment() for route_match);
//   before each retry wait:     if (!budget.mayRetry(delay)) fail over instead of waiting;
//
// Not thread-safe; one per request.

#include <chrono>
#include <string>
#include <string_view>

#include "catalog/catalog.h"

namespace sluice::dispatch {

class CallBudget {
 public:
  explicit CallBudget(const catalog::GatewayLimits& limits)
      : max_calls_(limits.max_attempts), max_retry_(limits.max_retry_ms), retry_left_(limits.max_retry_ms) {}

  // One upstream call: true and counted while max_attempts allows, else false (and spent).
  bool take();
  // Whether a call is still left, without taking it.
  bool left() const { return calls_ < max_calls_; }
  int calls() const { return calls_; }

  // A retry of the same endpoint after `delay`: allowed while a call is left and the wait fits in
  // what is left of max_retry_ms; the wait is then counted as spent. False marks the budget spent.
  bool mayRetry(std::chrono::milliseconds delay);

  // Once a limit stopped something: "max_attempts of 10 spent" or "max_retry_ms of 10000 spent";
  // "" while none did.
  const std::string& spentReason() const { return spent_reason_; }
  // The route_match segment: "limit:max_attempts" or "limit:max_retry_ms"; "" while none did.
  const std::string& segment() const { return segment_; }

 private:
  void spend(std::string_view limit, int value);

  int max_calls_;
  int calls_ = 0;
  int max_retry_;
  std::chrono::milliseconds retry_left_;
  std::string spent_reason_;
  std::string segment_;
};

}  // namespace sluice::dispatch
