#pragma once
// Exchange: one inference request (/v1/messages, /v1/chat/completions, /v1/responses) taken
// through the pipeline, one phase after another:
//
//   Identify  the API key and the project scope, from the head alone: a caller without a valid
//             key is refused before a byte of the body is read or held    (admission.h)
//   Read      the body, bounded per request and by the process-wide body budget; the top-level
//             members scanned                                             (client_body.h)
//   Plan      the pure plan: route, model, ordered attempts, route_match  (dispatch/planner.h)
//   Admit     access rules for the route and model, the quota reservation (admission.h)
//   Execute   attempt after attempt until one answers: bind, breaker, send, retry, fail over
//             before the first byte only; then relay, translated when the wires differ
//                                                                         (attempt_runner.h, relay.h)
//   Account   the quota settled; the audit row, log line and metrics      (request_ledger.h)
//
// A refusal at any phase is answered in the client's wire and ends the ledger there. The client
// hanging up while the provider is silent cancels the upstream exchange at once.
// Not thread-safe: one per request, on the connection's thread or fiber.

#include <memory>
#include <optional>

#include "catalog/catalog.h"
#include "server/http/admission.h"
#include "server/http/body_budget.h"
#include "server/http/client_body.h"
#include "server/responses/conversation.h"
#include "server/http/request_ledger.h"

namespace sluice::http {

class Gateway;
class Request;
class ServerResponse;

class Exchange {
 public:
  enum class Phase { Identify, Read, Plan, Admit, Execute, Account, Done };

  Exchange(Gateway& gateway, catalog::Wire client_wire, Request& request, ServerResponse& response);

  // Runs every phase; answers the client whatever happens, except when an exception escapes (a bug
  // or the allocator giving up): the caller then calls internalError().
  void run();
  // Answers 500 in the client's wire when nothing was sent yet; the ledger records it.
  void internalError(const std::exception& error);
  Phase phase() const { return phase_; }

 private:
  std::expected<dispatch::Plan, dispatch::Refusal> plan();
  // Walks the plan's attempts until one answers; returns how many calls were sent.
  int execute(const dispatch::Plan& plan);
  void refuse(const wire::ApiError& error);
  // Responses clients with the gateway's store: the raw body with the stored items inlined
  // (previous_response_id, item_reference); the refusal when one is missing.
  std::expected<std::string, wire::ApiError> expandStored(std::string raw);
  // The conversation this request belongs to, for affinity; nullopt when nothing names one.
  std::optional<std::string> conversationKey();
  // After a served Responses answer that asked to be stored: keeps it (never fails the request).
  void keepStored();

  Gateway& gateway_;
  catalog::Wire client_wire_;
  Request& request_;
  ServerResponse& response_;
  RequestLedger ledger_;
  Admission admission_;
  std::shared_ptr<const catalog::Catalog> catalog_;
  BodyBudget::Lease body_lease_;  // before body_: the body goes first, then its room
  std::optional<ClientBody> body_;
  std::optional<responses::Expansion> stored_turn_;  // its body moved on; input and previous id kept
  std::optional<responses::ResponseCapture> capture_;
  Phase phase_ = Phase::Read;
};

}  // namespace sluice::http
