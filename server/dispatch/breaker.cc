#include "server/dispatch/breaker.h"

#include <algorithm>

namespace sluice::dispatch {

namespace {

using std::chrono::seconds;

std::string secondsText(seconds value) { return std::to_string(value.count()) + "s"; }

// Whole seconds left until `until`, rounded up so "0s left" is never printed while still closed off.
seconds left(TimePoint now, TimePoint until) {
  return std::chrono::ceil<seconds>(until - now);
}

}  // namespace

std::string_view toString(BreakerState state) {
  switch (state) {
    case BreakerState::Closed: return "closed";
    case BreakerState::Open: return "open";
    case BreakerState::HalfOpen: return "half_open";
  }
  return "unknown";
}

Breaker::Breaker(catalog::BreakerPolicy policy) : policy_(policy), cooldown_(base()) {}

seconds Breaker::base() const { return seconds(std::max(1, policy_.cooldown_s)); }

seconds Breaker::cap() const { return std::max(kMaxCooldown, base()); }

Transition Breaker::open(BreakerState from, TimePoint now, seconds cooldown, seconds retry_after, std::string why) {
  state_ = BreakerState::Open;
  cooldown_ = cooldown;
  probe_in_flight_ = false;
  const seconds period = std::max(cooldown, retry_after);
  open_until_ = now + period;
  std::string reason = std::move(why) + "; cooldown " + secondsText(cooldown);
  if (period > cooldown) reason += ", extended to " + secondsText(period) + " by retry-after";
  return {from, state_, true, std::move(reason)};
}

Transition Breaker::apply(const BreakerEvent& event, TimePoint now) {
  using Kind = BreakerEvent::Kind;
  const BreakerState from = state_;
  const bool failed = event.kind == Kind::Failure || event.kind == Kind::RetryAfter;
  const seconds retry_after = event.kind == Kind::RetryAfter ? std::max(seconds(0), event.retry_after) : seconds(0);
  const std::string failure_text =
      event.kind == Kind::RetryAfter ? "failure with retry-after " + secondsText(retry_after) : "failure";

  switch (state_) {
    case BreakerState::Closed: {
      if (event.kind == Kind::Probe) return {from, state_, true, "closed"};
      if (event.kind == Kind::Success) {
        failures_ = 0;
        return {from, state_, true, "closed: success"};
      }
      const int threshold = std::max(1, policy_.failures);
      ++failures_;
      if (failures_ >= threshold) {
        return open(from, now, base(), retry_after,
                    "opened after " + std::to_string(failures_) + " consecutive failures");
      }
      return {from, state_, true,
              "closed: " + failure_text + " " + std::to_string(failures_) + " of " + std::to_string(threshold)};
    }

    case BreakerState::Open: {
      if (event.kind == Kind::Probe) {
        if (now < open_until_) {
          return {from, state_, false, "open: cooling down, " + secondsText(left(now, open_until_)) + " left"};
        }
        state_ = BreakerState::HalfOpen;
        probe_in_flight_ = true;
        probe_started_ = now;
        return {from, state_, true, "cooldown over: half-open, this request probes"};
      }
      if (failed) {
        // A failure of a request sent while open (started before it opened, or every breaker was
        // open) says nothing new; a longer Retry-After still pushes the probe back.
        if (now + retry_after > open_until_) {
          open_until_ = now + retry_after;
          return {from, state_, true, "open: retry-after " + secondsText(retry_after) + " extends the cooldown"};
        }
        return {from, state_, true, "open: " + failure_text + " while open"};
      }
      return {from, state_, true, "open: success of a request not admitted as a probe; waiting for the cooldown"};
    }

    case BreakerState::HalfOpen: {
      if (event.kind == Kind::Probe) {
        if (!probe_in_flight_) {
          probe_in_flight_ = true;
          probe_started_ = now;
          return {from, state_, true, "half-open: this request probes"};
        }
        // NOTE: a probe whose outcome never arrives (the request was abandoned) would keep the
        // breaker half-open forever; after one cooldown its slot is given to the next request.
        if (now - probe_started_ >= cooldown_) {
          probe_started_ = now;
          return {from, state_, true, "half-open: the previous probe expired, this request probes"};
        }
        return {from, state_, false, "half-open: a probe is already in flight"};
      }
      if (event.kind == Kind::Success) {
        state_ = BreakerState::Closed;
        failures_ = 0;
        cooldown_ = base();
        probe_in_flight_ = false;
        return {from, state_, true, "probe succeeded: closed, cooldown reset to " + secondsText(cooldown_)};
      }
      const seconds doubled = std::min(cooldown_ * 2, cap());
      return open(from, now, doubled, retry_after, "probe " + failure_text + ": re-opened");
    }
  }
  return {from, state_, true, "unknown state"};
}

BreakerState Breaker::snapshotState(TimePoint now) const {
  switch (state_) {
    case BreakerState::Closed: return BreakerState::Closed;
    case BreakerState::Open: return now < open_until_ ? BreakerState::Open : BreakerState::HalfOpen;
    case BreakerState::HalfOpen:
      return probe_in_flight_ && now - probe_started_ < cooldown_ ? BreakerState::Open : BreakerState::HalfOpen;
  }
  return state_;
}

}  // namespace sluice::dispatch
