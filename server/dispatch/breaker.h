#pragma once
// The circuit breaker of one provider endpoint: an explicit state and exactly one function that
// changes it (apply). Pure: time comes in as `now`; nothing here reads a clock.
//
// Not thread-safe: the request path keeps one Breaker per endpoint key in a table behind a mutex
// and calls apply() under it. Breakers are per process, as Envoy's outlier detection.
//
//   Closed ──(policy.failures consecutive Failure/RetryAfter)──▶ Open (cooldown = policy.cooldown_s)
//   Open ──(Probe once the cooldown is over)──▶ HalfOpen: that request is the one probe
//   HalfOpen ──Success──▶ Closed (cooldown back to policy.cooldown_s)
//   HalfOpen ──Failure/RetryAfter──▶ Open with the cooldown doubled, at most kMaxCooldown
//   a RetryAfter longer than what is left of the cooldown extends the open period to it
//
// Every call returns a Transition with a reason string meant for the log and the audit row.

#include <chrono>
#include <string>
#include <string_view>

#include "catalog/catalog.h"

namespace sluice::dispatch {

using TimePoint = std::chrono::steady_clock::time_point;

enum class BreakerState { Closed, Open, HalfOpen };
std::string_view toString(BreakerState state);  // "closed", "open", "half_open"

// The cap of the doubling. A policy whose first cooldown is already longer keeps its own.
inline constexpr std::chrono::seconds kMaxCooldown{600};

struct BreakerEvent {
  enum class Kind {
    Success,     // the endpoint answered (any 2xx, or a 4xx other than 429: it is alive)
    Failure,     // 5xx, 429 without Retry-After, transport failure
    RetryAfter,  // 429/503 carrying Retry-After: a failure that also says how long to stay away
    Probe,       // a request asks to send now; Transition::admitted answers
  };
  Kind kind = Kind::Success;
  std::chrono::seconds retry_after{0};  // RetryAfter only

  static BreakerEvent success() { return {Kind::Success, {}}; }
  static BreakerEvent failure() { return {Kind::Failure, {}}; }
  static BreakerEvent retryAfter(std::chrono::seconds seconds) { return {Kind::RetryAfter, seconds}; }
  static BreakerEvent probe() { return {Kind::Probe, {}}; }
};

struct Transition {
  BreakerState from = BreakerState::Closed;
  BreakerState to = BreakerState::Closed;
  // Probe: whether this request may send to the endpoint now. Always true for other events.
  bool admitted = true;
  std::string reason;  // "opened after 5 consecutive failures; cooldown 30s", ...

  bool changed() const { return from != to; }
};

class Breaker {
 public:
  explicit Breaker(catalog::BreakerPolicy policy = {});

  // The one transition function. Probe semantics by state:
  //   Closed: admitted, no change.
  //   Open before the cooldown is over: not admitted.
  //   Open after it: moves to HalfOpen and admits this request as the probe.
  //   HalfOpen with a probe in flight: not admitted, unless that probe has been out longer than
  //     the current cooldown (its outcome was lost), in which case this request probes instead.
  //   HalfOpen with no probe in flight: admitted as the probe.
  // Success while Open (a request started before it opened, or sent with every breaker open)
  // changes nothing: only a probe after the cooldown closes it.
  Transition apply(const BreakerEvent& event, TimePoint now);

  BreakerState state() const { return state_; }

  // The state a planner should assume at `now` (what Health carries): Closed; HalfOpen when a
  // probe may be sent now (Open with its cooldown over, or HalfOpen with no live probe); Open when
  // nothing would be admitted before the cooldown ends or the probe in flight reports.
  BreakerState snapshotState(TimePoint now) const;

  int consecutiveFailures() const { return failures_; }
  std::chrono::seconds cooldown() const { return cooldown_; }  // of the current (or last) open period
  TimePoint openUntil() const { return open_until_; }

 private:
  Transition open(BreakerState from, TimePoint now, std::chrono::seconds cooldown, std::chrono::seconds retry_after,
                  std::string why);
  std::chrono::seconds base() const;
  std::chrono::seconds cap() const;

  catalog::BreakerPolicy policy_;
  BreakerState state_ = BreakerState::Closed;
  int failures_ = 0;
  std::chrono::seconds cooldown_;
  TimePoint open_until_{};
  bool probe_in_flight_ = false;
  TimePoint probe_started_{};
};

}  // namespace sluice::dispatch
