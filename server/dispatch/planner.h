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
// NOTE: every deployment in a plan serves the same model, and a context window belongs to the
// model, so "a fitting request skips failover deployments whose window is too small" never has
// anything to skip once the model fits; the check is made once, on the model.

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
// 403 governance_denied (names the route and the flag).
std::expected<Plan, Refusal> planDispatch(const catalog::Catalog& catalog, const PlanRequest& request);

std::string joinRouteMatch(const std::vector<std::string>& segments);

}  // namespace sluice::dispatch
