#include "server/dispatch/planner.h"

#include <algorithm>

namespace sluice::dispatch {

using catalog::Catalog;
using catalog::Resolution;
using catalog::Route;
using catalog::RouteKind;

namespace {

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

}  // namespace

std::expected<Plan, wire::ApiError> planDispatch(const Catalog& catalog, const PlanRequest& request) {
  Plan plan;
  plan.requested_model = request.requested_model.empty() ? catalog.default_model : request.requested_model;
  if (plan.requested_model.empty()) {
    return std::unexpected(wire::ApiError{400, "invalid_request", "the request names no model", "model", {}});
  }
  const Resolution resolution = catalog.resolve(plan.requested_model);
  switch (resolution.kind) {
    case Resolution::Kind::Unknown:
      return std::unexpected(wire::ApiError{
          404, "model_not_found", "model '" + plan.requested_model + "' is not served by this gateway", "model", {}});
    case Resolution::Kind::Retired:
      return std::unexpected(wire::ApiError{404, "retired_model",
                                            "model '" + plan.requested_model + "' is retired; use '" +
                                                resolution.model_id + "' instead",
                                            "model", {}});
    case Resolution::Kind::Model:
    case Resolution::Kind::Alias:
      break;
  }
  plan.model_id = resolution.model_id;
  plan.model = catalog.model(plan.model_id);
  plan.route = chooseRoute(catalog, resolution, request);
  if (plan.model == nullptr || plan.route == nullptr) {
    return std::unexpected(wire::ApiError{
        404, "model_not_found", "model '" + plan.requested_model + "' has no route in this catalog", "model", {}});
  }

  plan.route_match.push_back("route:" + plan.route->id);
  if (plan.route->scope_project) plan.route_match.push_back("scope:project=" + *plan.route->scope_project);
  if (plan.route->strategy != catalog::Strategy::Ordered) {
    plan.route_match.push_back("strategy:" + std::string(catalog::toString(plan.route->strategy)));
  }

  auto add = [&](const catalog::Deployment& deployment, int weight) {
    Attempt attempt;
    attempt.deployment = &deployment;
    attempt.endpoint = catalog.endpoint(deployment.endpoint_key);
    attempt.provider = catalog.provider(deployment.provider_id);
    attempt.credential = attempt.provider ? catalog.credential(attempt.provider->credential_id) : nullptr;
    attempt.weight = weight;
    if (attempt.endpoint && attempt.provider && attempt.credential) plan.attempts.push_back(attempt);
  };
  if (plan.route->deployments.empty()) {
    for (const auto& deployment : catalog.deploymentsOf(plan.model_id)) add(deployment, 1);
  } else {
    for (const auto& pinned : plan.route->deployments) {
      if (const auto* deployment = catalog.deployment(plan.model_id, pinned.endpoint_key)) add(*deployment, pinned.weight);
    }
  }
  if (plan.attempts.empty()) {
    return std::unexpected(wire::ApiError{
        503, "no_deployment", "model '" + plan.model_id + "' has no deployment on route '" + plan.route->id + "'", {}, {}});
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
