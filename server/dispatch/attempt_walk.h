#pragma once
// The bookkeeping of walking a plan's attempts: which one is next, which are skipped or deferred
// and why, and the failover trace (route_match segment, metric labels). Pure: the request path
// does the I/O and the breaker calls, and tells the walk what happened.
//
//   AttemptWalk walk(plan.attempts);
//   while (const Attempt* attempt = walk.next()) {
//     if (auto why = unboundReason(*attempt, caller_has_key)) { walk.skip(*why); continue; }
//     if (!walk.lastResort()) {
//       Transition admission = breakers.apply(key, BreakerEvent::probe(), now);
//       if (!admission.admitted) { walk.defer(admission.reason); continue; }
//     }
//     ... send, retrying per classifyAttempt() while it says RetrySame ...
//     walk.sent(outcome);
//     if (verdict is Success or Final) break;   // NextDeployment: loop on
//   }
//
// Rules it keeps:
// - failover never moves from a platform-paid attempt that was sent to a member-paid one: next()
//   skips those with a reason (attempts skipped or deferred never count as the `from`);
// - an attempt whose breaker refuses it is deferred: once every other attempt was tried, ONE
//   deferred attempt is sent without asking its breaker (lastResort() is then true), so a request
//   is never left unsent because breakers are open, yet open breakers still stop a long plan (a
//   chain of 40 targets) from calling every one of them; a deferred attempt whose endpoint this
//   request already sent to is not a last resort (the endpoint just failed it).
//
// Not thread-safe; one walk per request. It keeps a reference to `attempts`, which must outlive it.

#include <optional>
#include <string>
#include <vector>

#include "server/dispatch/attempt.h"
#include "server/dispatch/failover.h"

namespace sluice::dispatch {

// Why an attempt cannot be sent at all: a platform credential whose secret could not be read at
// load, or a personal credential the caller has no key stored for. nullopt when it can be bound.
std::optional<std::string> unboundReason(const Attempt& attempt, bool caller_has_personal_key);

class AttemptWalk {
 public:
  struct Step {
    enum class Kind { Sent, Skipped, Deferred } kind = Kind::Sent;
    const Attempt* attempt = nullptr;
    std::string reason;  // Sent: failoverReason() of the outcome ("status_200" on success); else why
  };
  // One gateway_upstream_failovers_total increment, by provider id.
  struct Failover {
    std::string from;
    std::string to;
    std::string reason;  // "status_<code>", "transport" or "circuit_open"
  };

  explicit AttemptWalk(const std::vector<Attempt>& attempts);

  // The next attempt to handle, or nullptr when none is left. Each returned attempt must be
  // answered with exactly one of skip(), defer() or sent() before next() is called again.
  const Attempt* next();

  // The attempt next() returned was deferred earlier: send it without asking its breaker.
  bool lastResort() const { return last_resort_; }

  void skip(std::string reason);
  void defer(std::string reason);  // precondition: !lastResort()
  void sent(const AttemptOutcome& outcome);

  const std::vector<Step>& steps() const { return steps_; }
  const std::vector<Failover>& failovers() const { return failovers_; }

  // "failover:<a>-><b>..." over the providers the request moved through: each sent attempt,
  // preceded by those passed over for an open circuit on the way to it (consecutive repeats
  // once); "" when it never moved.
  std::string segment() const;

 private:
  void record(Step::Kind kind, std::string reason);

  const std::vector<Attempt>& attempts_;
  size_t position_ = 0;                  // next index of the first pass
  std::vector<size_t> deferred_;
  size_t deferred_position_ = 0;         // next index into deferred_ once the first pass is over
  bool last_resort_ = false;
  bool last_resort_sent_ = false;        // the one last resort was sent
  std::vector<std::string> sent_endpoints_;  // endpoint keys sent to, in order
  std::optional<size_t> current_;        // returned by next(), not yet answered
  const Attempt* last_sent_ = nullptr;
  std::string last_sent_reason_;
  std::vector<const Attempt*> passed_;   // deferred since the last send
  std::vector<std::string> chain_;       // provider ids for segment()
  std::vector<Step> steps_;
  std::vector<Failover> failovers_;
};

}  // namespace sluice::dispatch
