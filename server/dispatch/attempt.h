#pragma once
// One deployment a plan may try, with everything needed to call it resolved. Plain value; the
// pointers point into the catalog snapshot the plan was made from.

#include <cstdint>

#include "catalog/catalog.h"
#include "server/dispatch/breaker.h"

namespace sluice::dispatch {

struct Attempt {
  const catalog::Deployment* deployment = nullptr;
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
