#pragma once
// What the planner knows about the live state of endpoints: a value snapshot taken by the request
// path just before planning (breaker table + in-flight counters), so planning stays pure and the
// plan is reproducible from its inputs.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "server/dispatch/breaker.h"

namespace sluice::dispatch {

struct EndpointHealth {
  // Breaker::snapshotState(now): HalfOpen means a probe may be sent now; Open means nothing would
  // be admitted now.
  BreakerState breaker = BreakerState::Closed;
  int64_t in_flight = 0;  // requests of this process currently sent to the endpoint
};

struct Health {
  std::map<std::string, EndpointHealth, std::less<>> endpoints;  // by endpoint key "provider/endpoint"

  // An endpoint the snapshot does not name is healthy and idle.
  EndpointHealth of(std::string_view endpoint_key) const {
    const auto it = endpoints.find(endpoint_key);
    return it == endpoints.end() ? EndpointHealth{} : it->second;
  }
};

}  // namespace sluice::dispatch
