#include "server/http/endpoint_states.h"

namespace sluice::http {

namespace {

bool samePolicy(const catalog::BreakerPolicy& a, const catalog::BreakerPolicy& b) {
  return a.failures == b.failures && a.cooldown_s == b.cooldown_s;
}

}  // namespace

EndpointStates::Entry& EndpointStates::entry(const std::string& key, const catalog::BreakerPolicy* policy) {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    it = entries_.emplace(key, std::make_unique<Entry>(policy ? *policy : catalog::BreakerPolicy{})).first;
  } else if (policy && !samePolicy(it->second->policy, *policy) &&
             it->second->breaker.state() == dispatch::BreakerState::Closed &&
             it->second->breaker.consecutiveFailures() == 0) {
    it->second->breaker = dispatch::Breaker(*policy);
    it->second->policy = *policy;
  }
  return *it->second;
}

dispatch::Transition EndpointStates::apply(const catalog::Endpoint& endpoint, const catalog::BreakerPolicy& policy,
                                           const dispatch::BreakerEvent& event, dispatch::TimePoint now) {
  dispatch::Transition transition;
  {
    std::lock_guard lock(mutex_);
    transition = entry(endpoint.key, &policy).breaker.apply(event, now);
  }
  if (transition.changed() && listener_) listener_(endpoint.key, transition);
  return transition;
}

dispatch::Health EndpointStates::snapshot(dispatch::TimePoint now) const {
  dispatch::Health health;
  std::lock_guard lock(mutex_);
  for (const auto& [key, item] : entries_) {
    dispatch::EndpointHealth state;
    state.breaker = item->breaker.snapshotState(now);
    state.in_flight = item->in_flight.load(std::memory_order_relaxed);
    health.endpoints.emplace(key, state);
  }
  return health;
}

std::vector<std::pair<std::string, dispatch::BreakerState>> EndpointStates::states(dispatch::TimePoint now) const {
  std::vector<std::pair<std::string, dispatch::BreakerState>> out;
  std::lock_guard lock(mutex_);
  for (const auto& [key, item] : entries_) out.emplace_back(key, item->breaker.snapshotState(now));
  return out;
}

EndpointStates::InFlight EndpointStates::enter(const std::string& key) {
  std::lock_guard lock(mutex_);
  return InFlight(entry(key, nullptr).in_flight);
}

}  // namespace sluice::http
