#pragma once
// Decides which deployments to try, in order, for one request.
// Pure: the same inputs give the same plan. Never blocks, never throws on bad input.
//
// The plan points into the catalog it was made from; the caller keeps that snapshot alive for as
// long as it uses the plan.
//
// Steps, each leaving its route_match segment (CATALOG.md "Dispatch rules"):
//   1. resolve the model (marker stripped; unknown and retired ids refused), choose the route:
//      `route:<id>`, `scope:project=<id>`, `strategy:<name>` when not ordered;
//   2. context window: a request whose estimate does not fit the model's context_window moves to
//      the first of the route's context_fallbacks that fits (`context_window:<a>-><b>`), with that
//      model's own deployments (weight 1 each; the route's strategy still orders them); none fits
//      → 400 context_window_exceeded. The estimate alone is compared (not estimate + max_tokens):
//      the estimator errs low and the provider has the last word;
//   3. governance: with the route's `requires:`, attempts whose effective governance
//      (Catalog::governanceOf) lacks a required flag are removed; none left → 403
//      governance_denied with `requires:<flag>`;
//   4. order by strategy and health (server/dispatch/strategy.h);
//   5. max_tokens clamped to the serving model's max_output.
//
// A requested model holding '|' (or naming a route id, `provider/endpoint` or `provider/*`) is an
// ad-hoc chain: each piece is planned as above on its own and the attempts are concatenated in
// piece order (server/dispatch/chain.h). The plan then says `chain:<pieces>` and carries the
// pieces, each attempt knows its piece, model and route, and Plan::access lists every route and
// model the chain can reach, so admission applies the access rules to each.
//
// NOTE: every deployment of a plain plan serves the same model, and a context window belongs to the
// model, so "a fitting request skips failover deployments whose window is too small" never has
// anything to skip once the model fits; the check is made once, on the model.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.h"
#include "server/dispatch/attempt.h"
#include "server/dispatch/health.h"
#include "server/wire/api_error.h"

namespace sluice::dispatch {

struct PlanRequest {
  std::string requested_model;         // as the client sent it; empty -> the catalog's default_model
  std::optional<std::string> project;  // the project the request is attributed to, if any
  const Health* health = nullptr;      // nullptr: every endpoint Closed and idle
  double draw = 0.0;                   // uniform in [0, 1), for weighted selection
  int64_t estimated_input_tokens = 0;  // estimateInputTokens(); 0 always fits
  std::optional<int64_t> max_tokens = std::nullopt;  // as the client asked
};

// One piece of an ad-hoc chain, as planned.
struct PlanPiece {
  enum class Kind { Model, Alias, Route, Endpoint, Provider };
  std::string text;                      // as written (a "sluice/" prefix kept)
  Kind kind = Kind::Model;
  std::vector<std::string> route_match;  // its own segments (route:, scope:, context_window:, ...)
  std::optional<std::string> skipped;    // why planning passed over it (an error key); no attempts then
  std::string skipped_message;
};
std::string_view toString(PlanPiece::Kind kind);

struct AccessTarget {
  const catalog::Route* route = nullptr;
  std::string model_id;
};

struct Plan {
  std::string requested_model;  // as sent (after defaulting), marker included
  std::string model_id;         // the declared model that serves it (after a context fallback)
  const catalog::Model* model = nullptr;
  const catalog::Route* route = nullptr;
  std::vector<Attempt> attempts;         // failover order
  std::vector<std::string> route_match;  // segments, joined with ';' on the audit row

  catalog::Strategy strategy = catalog::Strategy::Ordered;  // the route's; for metrics
  // The model the request was moved off for its size (gateway_context_fallbacks_total{from,to}).
  std::optional<std::string> context_fallback_from;
  int64_t estimated_input_tokens = 0;
  // The max_tokens to send: the request's, at most the serving model's max_output. nullopt when
  // the request named none (the encoder applies its default).
  std::optional<int64_t> max_tokens;
  bool max_tokens_clamped = false;

  // An ad-hoc chain: the text after `chain:` (the pieces as written, '|'-joined) and the pieces.
  std::optional<std::string> chain;
  std::vector<PlanPiece> pieces;
  // Every (route, model) the plan can reach, each of which the caller must be allowed to name
  // alone (identity/access.h); one entry for a plain plan.
  std::vector<AccessTarget> access;
};

// A plan that cannot be made. It is an ApiError (callers that only want status/key/message keep
// using it as one), plus the route_match segments gathered before the refusal, for the audit row
// (a governance denial ends with `requires:<flag>`).
struct Refusal : wire::ApiError {
  std::vector<std::string> route_match;
};

// Refusals: 404 model_not_found (unknown id), 404 retired_model (names the replacement),
// 400 invalid_request (no model and no default), 503 no_deployment (nothing declared to serve it),
// 400 context_window_exceeded (names the estimate, the limit and the model),
// 403 governance_denied (names the route and the flag). A chain adds 400 invalid_chain (chains
// turned off, an empty piece, more than kMaxChainTargets targets or kMaxChainDepth levels) and
// 404 model_not_found / retired_model naming the piece; a piece that plans to a context-window,
// governance or no-deployment refusal is passed over (`skip:<piece>=<key>`), and when every piece
// is, the first piece's refusal is the chain's.
std::expected<Plan, Refusal> planDispatch(const catalog::Catalog& catalog, const PlanRequest& request);

// route_match's bound: a chain's pieces are written into it (chain:, skip:, piece:), and 40 of
// them would make a field of kilobytes.
inline constexpr size_t kMaxRouteMatch = 1024;

// The segments joined with ';', at most kMaxRouteMatch bytes: a longer text is cut at a UTF-8
// character boundary and ends in "…".
std::string joinRouteMatch(const std::vector<std::string>& segments);

// The route_match of a plan once `served` (one of its attempts, or nullptr) answered: the plan's
// segments, then for a chain `piece:<text>` and that piece's own segments.
std::vector<std::string> servedRouteMatch(const Plan& plan, const Attempt* served);

}  // namespace sluice::dispatch
