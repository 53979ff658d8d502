#pragma once
// Boost.Test prints the values of failed assertions; these give the dispatch enums their names.

#include <ostream>

#include "catalog/catalog.h"
#include "server/dispatch/breaker.h"
#include "server/dispatch/failover.h"

namespace sluice::dispatch {

inline std::ostream& operator<<(std::ostream& out, BreakerState state) { return out << toString(state); }
inline std::ostream& operator<<(std::ostream& out, AttemptVerdict verdict) { return out << toString(verdict); }
inline std::ostream& operator<<(std::ostream& out, TransportKind kind) { return out << toString(kind); }
inline std::ostream& operator<<(std::ostream& out, BreakerEvent::Kind kind) {
  switch (kind) {
    case BreakerEvent::Kind::Success: return out << "success";
    case BreakerEvent::Kind::Failure: return out << "failure";
    case BreakerEvent::Kind::RetryAfter: return out << "retry_after";
    case BreakerEvent::Kind::Probe: return out << "probe";
  }
  return out << "unknown";
}

}  // namespace sluice::dispatch

namespace sluice::catalog {

inline std::ostream& operator<<(std::ostream& out, Strategy strategy) { return out << toString(strategy); }
inline std::ostream& operator<<(std::ostream& out, CredentialKind kind) { return out << toString(kind); }

}  // namespace sluice::catalog
