#pragma once
// Exchange: one request taken through the one pipeline, whatever its endpoint. The endpoint's
// Profile (profile.h) says what differs; everything else exists here once:
//
//   Identify  the caller from the head alone (certificate, trusted proxy, API key) and the project
//             scope: a caller without a valid key is refused before a byte of the body is read
//   Read      the profile reads the body, bounded per request and by the process-wide budget;
//             the body reader's refusals are mapped here, the same for every endpoint
//   Plan      the pure plan (route, model, ordered attempts, route_match), with health and a
//             random draw; the token estimate when the body may not fit; conversation affinity;
//             the model's kind checked against the endpoint's
//   Admit     access rules, the quota reservation (RAII ticket)
//   Execute   attempt after attempt: presence and size checks, data protection (raw, masked, or
//             skipped: fails closed), credential and breaker, send, retries, failover before the
//             first byte only; then the profile relays the answer
//   Account   the quota settled; the ledger ends exactly once (audit row, log line, metrics)
//
// A refusal at any phase is answered in the profile's client wire and ends the ledger there. The
// phase is kept: the error boundary reads it (a failure while the body streams closes the
// connection). Not thread-safe: one per request, on the connection's thread or fiber.

#include <expected>
#include <memory>
#include <optional>
#include <string>

#include "catalog/catalog.h"
#include "server/pipeline/admission.h"
#include "server/http/body_budget.h"
#include "server/http/request.h"
#include "server/pipeline/request_ledger.h"
#include "server/http/server_session.h"
#include "server/pipeline/profile.h"

namespace sluice::http {
class Gateway;
}

namespace sluice::pipeline {

enum class Phase { Identify, Read, Plan, Admit, Execute, Account, Done };

class Exchange {
 public:
  // Every reference must outlive the exchange. `body_lease` holds the room of the body the profile
  // reads: it must outlive the profile's copy of the body (serve() below declares it first).
  Exchange(http::Gateway& gateway, Profile& profile, http::Request& request, http::ServerResponse& response,
           http::BodyBudget::Lease& body_lease);

  // Runs every phase; answers the client whatever happens (the error boundary included).
  void run();

  // --- for profiles ---
  http::Gateway& gateway() { return gateway_; }
  http::Request& request() { return request_; }
  http::ServerResponse& response() { return response_; }
  pipeline::RequestLedger& ledger() { return ledger_; }
  http::BodyBudget::Lease& bodyLease() { return body_lease_; }
  // The caller's member name; "" when the gateway runs without identity.
  std::string member() const;
  // The identified caller and scope; nullopt before Identify or when the gateway runs without identity.
  const std::optional<Identified>& who() const;
  Phase phase() const { return phase_; }
  // The whole body within the gateway's limit, or the refusal for it (408 stopped short, 503
  // overloaded with Retry-After, 413 over the limit): the one mapping of the body reader's failures.
  std::expected<std::string, wire::ApiError> readWholeBody();
  // Answers `error` in the client's wire and ends the ledger with it.
  void refuse(const wire::ApiError& error);

 private:
  void runPhases();
  std::expected<dispatch::Plan, dispatch::Refusal> plan(const Inspected& inspected);
  // Route_match with the profile's endpoint segment in front.
  std::vector<std::string> withEndpoint(std::vector<std::string> segments) const;
  // Walks the plan's attempts until one answers; returns how many calls were sent.
  int execute(const dispatch::Plan& plan);
  void internalError(const std::exception& error);

  http::Gateway& gateway_;
  Profile& profile_;
  http::Request& request_;
  http::ServerResponse& response_;
  pipeline::RequestLedger ledger_;
  pipeline::Admission admission_;
  std::shared_ptr<const catalog::Catalog> catalog_;
  http::BodyBudget::Lease& body_lease_;
  size_t body_bytes_ = 0;  // as read() reported it: for max_input_bytes
  Phase phase_ = Phase::Identify;
};

// Serves one request with a profile of type P built from `args`: the handlers' one body.
template <class P, class... Args>
void serve(http::Gateway& gateway, http::Request& request, http::ServerResponse& response, Args&&... args) {
  http::BodyBudget::Lease lease;  // declared first: released after the profile's body is gone
  P profile(std::forward<Args>(args)...);
  Exchange(gateway, profile, request, response, lease).run();
}

}  // namespace sluice::pipeline
