#pragma once
// What to do after one try of one attempt, and the traces failover leaves. Pure.
//
// The request path walks Plan::attempts; after every upstream try it classifies the outcome:
//
//   Success         relay the answer.
//   RetrySame       wait `delay`, then try the same attempt again (retries_used + 1).
//   NextDeployment  move to the next attempt the walk may fail over to (mayFailOver); when none is
//                   left the client gets this upstream error in its own format.
//   Final           the client gets this answer as it is (a 4xx other than 429 is the client's to
//                   fix; after the first byte reached the client a stream never switches).
//
// Rules (CATALOG.md "Dispatch rules"), first match wins:
//   2xx (and the client still there)                   Success
//   anything once bytes reached the client             Final
//   the client hung up                                 Final
//   transport failure (connect, DNS, TLS, timeout, reset) NextDeployment
//   429/503/529, budget spent or Retry-After > max     NextDeployment
//   429/503/529, retries_used < policy.attempts        RetrySame; delay = Retry-After, else
//                                                      backoff_ms x 2^retries_used, at most max_delay
//   other 5xx, 1xx, 3xx                                NextDeployment
//   other 4xx                                          Final
//
// NOTE: a Retry-After longer than max_delay is honoured by not retrying that endpoint within the
// request (the next deployment is tried, and the breaker hears the Retry-After) rather than by
// retrying it sooner than the provider asked.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "server/dispatch/attempt.h"
#include "server/dispatch/breaker.h"
#include "server/wire/retry_after.h"

namespace sluice::dispatch {

enum class AttemptVerdict { Success, RetrySame, NextDeployment, Final };
std::string_view toString(AttemptVerdict verdict);  // "success", "retry_same", "next_deployment", "final"

// How a try failed without a usable HTTP answer (server/upstream maps its TransportError onto it).
enum class TransportKind { Connect, Dns, Tls, Timeout, Reset, Protocol };
std::string_view toString(TransportKind kind);  // "connect", "dns", "tls", "timeout", "reset", "protocol"

struct AttemptOutcome {
  std::optional<int> status;                        // the upstream's HTTP status, when one arrived
  std::optional<TransportKind> transport;           // set when the try failed without an answer
  std::optional<std::chrono::seconds> retry_after;  // the answer's Retry-After (wire::parseRetryAfter)
  bool first_byte_sent = false;                     // part of the answer already reached the client
  bool client_gone = false;                         // the client hung up during this try

  static AttemptOutcome http(int status, std::optional<std::chrono::seconds> retry_after = std::nullopt) {
    AttemptOutcome outcome;
    outcome.status = status;
    outcome.retry_after = retry_after;
    return outcome;
  }
  static AttemptOutcome transportFailure(TransportKind kind) {
    AttemptOutcome outcome;
    outcome.transport = kind;
    return outcome;
  }
};

struct Classification {
  AttemptVerdict verdict = AttemptVerdict::Final;
  std::chrono::milliseconds delay{0};  // RetrySame only
  std::string reason;                  // for the log and the attempts list: "status_503: retry 1 of 2 in 200ms"
};

// The longest wait inside a request before retrying the same endpoint.
inline constexpr std::chrono::milliseconds kMaxRetryDelay{5000};

// `retries_used`: how many extra tries this attempt has had already (0 after the first try).
Classification classifyAttempt(const AttemptOutcome& outcome, int retries_used, const catalog::RetryPolicy& policy,
                               std::chrono::milliseconds max_delay = kMaxRetryDelay);

// True for the statuses that use the retry budget: 429, 503 and Anthropic's 529.
bool usesRetryBudget(int status);

// The `reason` label of gateway_upstream_failovers_total: "status_<code>" or "transport".
std::string failoverReason(const AttemptOutcome& outcome);
// The label when an attempt was passed over because its breaker did not admit the request.
inline constexpr std::string_view kCircuitOpenReason = "circuit_open";

// The route_match segment "failover:<a>-><b>[-><c>...]" over the provider ids the request moved
// through, in order; "" when fewer than two.
std::string failoverSegment(const std::vector<std::string>& provider_ids);

// Failover never moves from a platform-paid deployment to a member-paid one. `from` is the last
// attempt actually sent upstream: an attempt skipped before sending (credential not configured,
// breaker denied) is not a `from`, so a request whose platform deployments were all skipped may
// still be served on the member's key.
bool mayFailOver(const Attempt& from, const Attempt& to);

// What the endpoint's breaker should hear about a try: Success when the endpoint answered (2xx, or
// a 4xx other than 429: it is up), RetryAfter for 429/503/529 carrying Retry-After, Failure for the
// other 429/5xx, 1xx/3xx and transport failures, nothing when the client left before any answer.
std::optional<BreakerEvent> breakerEventFor(const AttemptOutcome& outcome);

}  // namespace sluice::dispatch
