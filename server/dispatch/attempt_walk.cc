#include "server/dispatch/attempt_walk.h"

#include <algorithm>
#include <cassert>

namespace sluice::dispatch {

namespace {

const std::string& providerOf(const Attempt& attempt) {
  static const std::string kUnknown = "unknown";
  return attempt.provider ? attempt.provider->id : kUnknown;
}

std::string endpointOf(const Attempt& attempt) {
  return attempt.endpoint ? attempt.endpoint->key : providerOf(attempt);
}

}  // namespace

std::optional<std::string> unboundReason(const Attempt& attempt, bool caller_has_personal_key) {
  if (attempt.credential == nullptr) return "no credential";
  if (attempt.credential->kind == catalog::CredentialKind::Personal) {
    if (caller_has_personal_key) return std::nullopt;
    return "needs the caller's own '" + attempt.credential->id + "' key";
  }
  if (!attempt.credential->configured()) return "credential '" + attempt.credential->id + "' is not configured";
  return std::nullopt;
}

AttemptWalk::AttemptWalk(const std::vector<Attempt>& attempts) : attempts_(attempts) {}

const Attempt* AttemptWalk::next() {
  assert(!current_ && "answer the previous attempt with skip(), defer() or sent() first");
  while (true) {
    size_t index;
    if (position_ < attempts_.size()) {
      index = position_++;
      last_resort_ = false;
    } else if (deferred_position_ < deferred_.size()) {
      // From here on the deferred attempts are the last resort: none is passed over any more.
      if (deferred_position_ == 0) passed_.clear();
      index = deferred_[deferred_position_++];
      last_resort_ = true;
    } else {
      return nullptr;
    }
    const Attempt& candidate = attempts_[index];
    current_ = index;
    if (last_resort_ && last_resort_sent_) {
      record(Step::Kind::Skipped, std::string(kCircuitOpenReason) + ": one last resort was already tried");
      continue;
    }
    if (last_resort_ && std::ranges::find(sent_endpoints_, endpointOf(candidate)) != sent_endpoints_.end()) {
      record(Step::Kind::Skipped, std::string(kCircuitOpenReason) + ": '" + endpointOf(candidate) +
                                      "' already failed this request");
      continue;
    }
    if (last_sent_ && !mayFailOver(*last_sent_, candidate)) {
      record(Step::Kind::Skipped, "failover never moves from platform-paid '" + endpointOf(*last_sent_) +
                                      "' to member-paid '" + endpointOf(candidate) + "'");
      continue;
    }
    return &candidate;
  }
}

void AttemptWalk::record(Step::Kind kind, std::string reason) {
  assert(current_);
  steps_.push_back({kind, &attempts_[*current_], std::move(reason)});
  current_.reset();
}

void AttemptWalk::skip(std::string reason) { record(Step::Kind::Skipped, std::move(reason)); }

void AttemptWalk::defer(std::string reason) {
  assert(current_ && !last_resort_);
  const Attempt& attempt = attempts_[*current_];
  deferred_.push_back(*current_);
  passed_.push_back(&attempt);
  record(Step::Kind::Deferred, std::string(kCircuitOpenReason) + ": " + reason);
}

void AttemptWalk::sent(const AttemptOutcome& outcome) {
  assert(current_);
  const Attempt& attempt = attempts_[*current_];
  const std::string& provider = providerOf(attempt);
  if (last_sent_) failovers_.push_back({providerOf(*last_sent_), provider, last_sent_reason_});
  auto extend = [&](const std::string& id) {
    if (chain_.empty() || chain_.back() != id) chain_.push_back(id);
  };
  for (const Attempt* passed : passed_) {
    failovers_.push_back({providerOf(*passed), provider, std::string(kCircuitOpenReason)});
    extend(providerOf(*passed));
  }
  passed_.clear();
  extend(provider);
  if (last_resort_) last_resort_sent_ = true;
  sent_endpoints_.push_back(endpointOf(attempt));
  last_sent_ = &attempt;
  last_sent_reason_ = failoverReason(outcome);
  record(Step::Kind::Sent, last_sent_reason_);
}

std::string AttemptWalk::segment() const { return failoverSegment(chain_); }

}  // namespace sluice::dispatch
