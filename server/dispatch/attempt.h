#pragma once
// One deployment a plan may try, with everything needed to call it resolved. Plain value; the
// pointers point into the catalog snapshot the plan was made from.

#include <cstddef>
#include <cstdint>
#include <optional>

#include "catalog/catalog.h"
#include "server/dispatch/breaker.h"

namespace sluice::dispatch {

struct Attempt {
  const catalog::Deployment* deployment = nullptr;
  // The model this attempt serves (its deployment's) and the route it was planned under: the same
  // for every attempt of a plain plan; per piece for an ad-hoc chain (server/dispatch/chain.h).
  const catalog::Model* model = nullptr;
  const catalog::Route* route = nullptr;
  size_t piece = 0;  // a chain's piece that reached it (index into Plan::pieces); 0 otherwise
  // The max_tokens to send to this attempt: the request's, at most its model's max_output.
  std::optional<int64_t> max_tokens;
  bool max_tokens_clamped = false;
  const catalog::Endpoint* endpoint = nullptr;
  const catalog::Provider* provider = nullptr;
  const catalog::Credential* credential = nullptr;
  int weight = 1;
  // Who pays for a call: the company (platform credential) or the member (personal credential).
  catalog::CredentialKind paid_by = catalog::CredentialKind::Platform;
  // The endpoint's health in the snapshot the plan was made from.
  BreakerState breaker = BreakerState::Closed;
  int64_t in_flight = 0;
};

}  // namespace sluice::dispatch
