#pragma once
// The live state of every provider endpoint on this process: its circuit breaker and the
// requests in flight to it. The request path takes a Health snapshot before planning, asks the
// breaker before sending (Probe) and tells it what happened after (breakerEventFor).
//
// Breakers are keyed by endpoint key ("provider/endpoint") and created on first use with the
// provider's policy; a catalog reload that changes the policy takes effect when the endpoint's
// breaker is next closed and idle (a breaker in the middle of an open period keeps its own).
// Thread-safe: one mutex guards the breakers (held only for a transition), the in-flight counters
// are atomics.

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "server/dispatch/breaker.h"
#include "server/dispatch/health.h"

namespace sluice::http {

class EndpointStates {
 public:
  // Called after every transition that changed a breaker's state (outside the lock).
  using Listener = std::function<void(const std::string& endpoint_key, const dispatch::Transition&)>;
  void onTransition(Listener listener) { listener_ = std::move(listener); }

  dispatch::Transition apply(const catalog::Endpoint& endpoint, const catalog::BreakerPolicy& policy,
                             const dispatch::BreakerEvent& event, dispatch::TimePoint now);

  dispatch::Health snapshot(dispatch::TimePoint now) const;

  // Every breaker known, by endpoint key, with its state at `now` (for /metrics and the console).
  std::vector<std::pair<std::string, dispatch::BreakerState>> states(dispatch::TimePoint now) const;

  // RAII in-flight count for one endpoint.
  class InFlight {
   public:
    explicit InFlight(std::atomic<int64_t>& counter) : counter_(&counter) { counter_->fetch_add(1); }
    InFlight(InFlight&& other) noexcept : counter_(other.counter_) { other.counter_ = nullptr; }
    InFlight(const InFlight&) = delete;
    InFlight& operator=(const InFlight&) = delete;
    InFlight& operator=(InFlight&&) = delete;
    ~InFlight() {
      if (counter_) counter_->fetch_sub(1);
    }

   private:
    std::atomic<int64_t>* counter_;
  };
  InFlight enter(const std::string& endpoint_key);

 private:
  struct Entry {
    dispatch::Breaker breaker;
    catalog::BreakerPolicy policy;
    std::atomic<int64_t> in_flight{0};
    explicit Entry(const catalog::BreakerPolicy& p) : breaker(p), policy(p) {}
  };
  Entry& entry(const std::string& key, const catalog::BreakerPolicy* policy);  // under mutex_

  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries_;
  Listener listener_;
};

}  // namespace sluice::http
