#include "server/dispatch/planner.h"

#include <algorithm>
#include <string_view>

#include "server/dispatch/strategy.h"

namespace sluice::dispatch {

namespace error_keys = wire::error_keys;
using catalog::Catalog;
using catalog::Resolution;
using catalog::Route;
using catalog::RouteKind;

namespace {

// `param` "" means none (wire::ApiError::make).
std::unexpected<Refusal> refuse(int status, std::string_view key, std::string message, std::string param,
                                std::vector<std::string> route_match = {}) {
  return std::unexpected(
      Refusal{wire::ApiError::make(status, key, std::move(message), std::move(param)), std::move(route_match)});
}

bool serves(const Route& route, const std::string& model_id) {
  return std::find(route.models.begin(), route.models.end(), model_id) != route.models.end();
}

// First match wins in file order: an alias route is chosen by its id; otherwise the first explicit
// non-alias route that serves the model and whose scope (if any) is the request's project; else the
// model's implicit route.
const Route* chooseRoute(const Catalog& catalog, const Resolution& resolution, const PlanRequest& request) {
  if (resolution.kind == Resolution::Kind::Alias) return catalog.route(resolution.alias_route);
  for (const Route& route : catalog.routes) {
    if (route.kind == RouteKind::Alias || route.kind == RouteKind::Implicit) continue;
    if (!serves(route, resolution.model_id)) continue;
    if (route.scope_project && route.scope_project != request.project) continue;
    return &route;
  }
  return catalog.route(resolution.model_id);
}

bool fits(const catalog::Model& model, int64_t estimate) {
  return !model.limits.context_window || estimate <= *model.limits.context_window;
}

// The route's flags a deployment's effective governance lacks, in a fixed order.
std::vector<std::string_view> unmetRequirements(const catalog::Requirements& needed, const catalog::Governance& has) {
  std::vector<std::string_view> unmet;
  if (needed.european && !has.european) unmet.push_back("european");
  if (needed.no_retain && !has.no_retain) unmet.push_back("no_retain");
  return unmet;
}

Attempt makeAttempt(const Catalog& catalog, const catalog::Deployment& deployment, int weight, const Health* health) {
  Attempt attempt;
  attempt.deployment = &deployment;
  attempt.endpoint = catalog.endpoint(deployment.endpoint_key);
  attempt.provider = catalog.provider(deployment.provider_id);
  attempt.credential = attempt.provider ? catalog.credential(attempt.provider->credential_id) : nullptr;
  attempt.weight = weight;
  if (attempt.credential) attempt.paid_by = attempt.credential->kind;
  if (health) {
    const EndpointHealth state = health->of(deployment.endpoint_key);
    attempt.breaker = state.breaker;
    attempt.in_flight = state.in_flight;
  }
  return attempt;
}

// The route's pinned deployments (with their weights) when it serves `model_id` through them,
// else the model's own deployments in failover order.
std::vector<Attempt> candidates(const Catalog& catalog, const Route& route, const std::string& model_id,
                                bool own_deployments, const Health* health) {
  std::vector<Attempt> attempts;
  auto add = [&](const catalog::Deployment& deployment, int weight) {
    Attempt attempt = makeAttempt(catalog, deployment, weight, health);
    if (attempt.endpoint && attempt.provider && attempt.credential) attempts.push_back(attempt);
  };
  if (own_deployments || route.deployments.empty()) {
    for (const auto& deployment : catalog.deploymentsOf(model_id)) add(deployment, 1);
  } else {
    for (const auto& pinned : route.deployments) {
      if (const auto* deployment = catalog.deployment(model_id, pinned.endpoint_key)) add(*deployment, pinned.weight);
    }
  }
  return attempts;
}

}  // namespace

std::expected<Plan, Refusal> planDispatch(const Catalog& catalog, const PlanRequest& request) {
  Plan plan;
  plan.requested_model = request.requested_model.empty() ? catalog.default_model : request.requested_model;
  plan.estimated_input_tokens = request.estimated_input_tokens;
  if (plan.requested_model.empty()) return refuse(400, error_keys::kInvalidRequest, "the request names no model", "model");
  const Resolution resolution = catalog.resolve(plan.requested_model);
  switch (resolution.kind) {
    case Resolution::Kind::Unknown:
      return refuse(404, error_keys::kModelNotFound, "model '" + plan.requested_model + "' is not served by this gateway",
                    "model");
    case Resolution::Kind::Retired:
      return refuse(404, error_keys::kRetiredModel,
                    "model '" + plan.requested_model + "' is retired; use '" + resolution.model_id + "' instead",
                    "model");
    case Resolution::Kind::Model:
    case Resolution::Kind::Alias:
      break;
  }
  plan.model_id = resolution.model_id;
  plan.model = catalog.model(plan.model_id);
  plan.route = chooseRoute(catalog, resolution, request);
  if (plan.model == nullptr || plan.route == nullptr) {
    return refuse(404, error_keys::kModelNotFound, "model '" + plan.requested_model + "' has no route in this catalog", "model");
  }
  const Route& route = *plan.route;
  plan.strategy = route.strategy;

  plan.route_match.push_back("route:" + route.id);
  if (route.scope_project) plan.route_match.push_back("scope:project=" + *route.scope_project);
  if (route.strategy != catalog::Strategy::Ordered) {
    plan.route_match.push_back("strategy:" + std::string(catalog::toString(route.strategy)));
  }

  // Context window: checked before any upstream call.
  const int64_t estimate = request.estimated_input_tokens;
  if (!fits(*plan.model, estimate)) {
    const catalog::Model* fallback = nullptr;
    for (const auto& id : route.context_fallbacks) {
      const catalog::Model* candidate = catalog.model(id);
      if (candidate && fits(*candidate, estimate)) {
        fallback = candidate;
        break;
      }
    }
    if (fallback == nullptr) {
      std::string message = "the request is about " + std::to_string(estimate) +
                            " input tokens (estimated), more than the context window of " +
                            std::to_string(*plan.model->limits.context_window) + " tokens of model '" +
                            plan.model_id + "'";
      if (!route.context_fallbacks.empty()) {
        std::string names;
        for (const auto& id : route.context_fallbacks) names += (names.empty() ? "" : ", ") + id;
        message += ", and no context fallback (" + names + ") fits it";
      }
      return refuse(400, error_keys::kContextWindowExceeded, message, "messages", plan.route_match);
    }
    plan.route_match.push_back("context_window:" + plan.model_id + "->" + fallback->id);
    plan.context_fallback_from = plan.model_id;
    plan.model_id = fallback->id;
    plan.model = fallback;
  }

  std::vector<Attempt> attempts =
      candidates(catalog, route, plan.model_id, plan.context_fallback_from.has_value(), request.health);
  if (attempts.empty()) {
    return refuse(503, error_keys::kNoDeployment, "model '" + plan.model_id + "' has no deployment on route '" + route.id + "'",
                  "", plan.route_match);
  }

  // Governance: the boot check already refuses a catalog whose route can reach a deployment that
  // lacks a required flag; this keeps the promise per request whatever the catalog says.
  if (route.requirements.any()) {
    std::vector<std::string_view> denied_flags;
    std::erase_if(attempts, [&](const Attempt& attempt) {
      const auto unmet = unmetRequirements(route.requirements, catalog.governanceOf(*attempt.deployment));
      for (auto flag : unmet) {
        if (std::ranges::find(denied_flags, flag) == denied_flags.end()) denied_flags.push_back(flag);
      }
      return !unmet.empty();
    });
    if (attempts.empty()) {
      std::ranges::sort(denied_flags);  // "european" before "no_retain", whatever the deployment order
      std::string flags;
      for (auto flag : denied_flags) {
        plan.route_match.push_back("requires:" + std::string(flag));
        flags += (flags.empty() ? "" : " and ") + std::string(flag);
      }
      return refuse(403, error_keys::kGovernanceDenied,
                    "route '" + route.id + "' requires " + flags + ", and no deployment of model '" + plan.model_id +
                        "' satisfies it",
                    "", plan.route_match);
    }
  }

  plan.attempts = orderAttempts(std::move(attempts), route.strategy, request.draw);

  plan.max_tokens = request.max_tokens;
  if (plan.max_tokens && plan.model->limits.max_output && *plan.max_tokens > *plan.model->limits.max_output) {
    plan.max_tokens = plan.model->limits.max_output;
    plan.max_tokens_clamped = true;
  }
  return plan;
}

std::string joinRouteMatch(const std::vector<std::string>& segments) {
  std::string joined;
  for (const auto& segment : segments) {
    if (!joined.empty()) joined += ';';
    joined += segment;
  }
  return joined;
}

}  // namespace sluice::dispatch
