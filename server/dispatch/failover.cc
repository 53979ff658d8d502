#include "server/dispatch/failover.h"

#include <algorithm>
#include <cstdint>

namespace sluice::dispatch {

namespace {

using std::chrono::milliseconds;

std::string msText(milliseconds value) { return std::to_string(value.count()) + "ms"; }

milliseconds backoff(const catalog::RetryPolicy& policy, int retries_used, milliseconds max_delay) {
  int64_t delay = std::max(0, policy.backoff_ms);
  for (int i = 0; i < retries_used && delay < max_delay.count(); ++i) delay *= 2;
  return std::min(milliseconds(delay), max_delay);
}

}  // namespace

std::string_view toString(AttemptVerdict verdict) {
  switch (verdict) {
    case AttemptVerdict::Success: return "success";
    case AttemptVerdict::RetrySame: return "retry_same";
    case AttemptVerdict::NextDeployment: return "next_deployment";
    case AttemptVerdict::Final: return "final";
  }
  return "unknown";
}

std::string_view toString(TransportKind kind) {
  switch (kind) {
    case TransportKind::Connect: return "connect";
    case TransportKind::Dns: return "dns";
    case TransportKind::Tls: return "tls";
    case TransportKind::Timeout: return "timeout";
    case TransportKind::Reset: return "reset";
    case TransportKind::Protocol: return "protocol";
  }
  return "unknown";
}

bool usesRetryBudget(int status) { return status == 429 || status == 503 || status == 529; }

std::string failoverReason(const AttemptOutcome& outcome) {
  if (outcome.status && !outcome.transport) return "status_" + std::to_string(*outcome.status);
  return "transport";
}

Classification classifyAttempt(const AttemptOutcome& outcome, int retries_used, const catalog::RetryPolicy& policy,
                               milliseconds max_delay) {
  const std::string label = failoverReason(outcome);
  const bool answered = outcome.status && !outcome.transport;
  if (answered && *outcome.status >= 200 && *outcome.status < 300 && !outcome.client_gone) {
    return {AttemptVerdict::Success, {}, label};
  }
  if (outcome.first_byte_sent) {
    return {AttemptVerdict::Final, {}, label + ": after the first byte reached the client, a stream never switches"};
  }
  if (outcome.client_gone) return {AttemptVerdict::Final, {}, label + ": the client is gone"};
  if (!answered) {
    const std::string kind = outcome.transport ? std::string(toString(*outcome.transport)) : "no answer";
    return {AttemptVerdict::NextDeployment, {}, label + " (" + kind + "): next deployment"};
  }

  const int status = *outcome.status;
  if (usesRetryBudget(status)) {
    const int budget = std::max(0, policy.attempts);
    if (retries_used >= budget) {
      return {AttemptVerdict::NextDeployment, {}, label + ": retry budget of " + std::to_string(budget) + " spent"};
    }
    if (outcome.retry_after && *outcome.retry_after > max_delay) {
      return {AttemptVerdict::NextDeployment, {},
              label + ": retry-after " + std::to_string(outcome.retry_after->count()) + "s is beyond the " +
                  msText(max_delay) + " a request waits"};
    }
    const milliseconds delay = outcome.retry_after
                                   ? std::max(milliseconds(0), milliseconds(*outcome.retry_after))
                                   : backoff(policy, retries_used, max_delay);
    return {AttemptVerdict::RetrySame, delay,
            label + ": retry " + std::to_string(retries_used + 1) + " of " + std::to_string(budget) + " in " +
                msText(delay)};
  }
  if (status >= 500 || status < 200 || (status >= 300 && status < 400)) {
    return {AttemptVerdict::NextDeployment, {}, label + ": next deployment"};
  }
  return {AttemptVerdict::Final, {}, label + ": a client error never fails over"};
}

std::string failoverSegment(const std::vector<std::string>& provider_ids) {
  if (provider_ids.size() < 2) return "";
  std::string segment = "failover:";
  for (size_t i = 0; i < provider_ids.size(); ++i) {
    if (i > 0) segment += "->";
    segment += provider_ids[i];
  }
  return segment;
}

bool mayFailOver(const Attempt& from, const Attempt& to) {
  return !(from.paid_by == catalog::CredentialKind::Platform && to.paid_by == catalog::CredentialKind::Personal);
}

std::optional<BreakerEvent> breakerEventFor(const AttemptOutcome& outcome) {
  const bool answered = outcome.status && !outcome.transport;
  if (!answered) {
    // A client that hung up before any answer tells nothing about the endpoint.
    if (outcome.client_gone && !outcome.transport) return std::nullopt;
    return BreakerEvent::failure();
  }
  const int status = *outcome.status;
  if (usesRetryBudget(status)) {
    if (outcome.retry_after) return BreakerEvent::retryAfter(*outcome.retry_after);
    return BreakerEvent::failure();
  }
  if (status >= 500 || status < 200 || (status >= 300 && status < 400)) return BreakerEvent::failure();
  return BreakerEvent::success();
}

}  // namespace sluice::dispatch
