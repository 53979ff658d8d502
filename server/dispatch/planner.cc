#include "server/dispatch/planner.h"

#include <algorithm>
#include <string_view>

#include <set>
#include <utility>

#include "server/dispatch/chain.h"
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
  attempt.credential = attempt.endpoint ? catalog.credentialOf(*attempt.endpoint) : nullptr;
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

// One model or alias (or, with `forced`, one model under that route): steps 1 to 5 of planner.h.
std::expected<Plan, Refusal> planOne(const Catalog& catalog, const PlanRequest& request, const std::string& requested,
                                     const Route* forced) {
  Plan plan;
  plan.requested_model = requested;
  plan.estimated_input_tokens = request.estimated_input_tokens;
  const Resolution resolution = forced ? Resolution{Resolution::Kind::Model, requested, {}} : catalog.resolve(requested);
  switch (resolution.kind) {
    case Resolution::Kind::Unknown:
      return refuse(404, error_keys::kModelNotFound, "model '" + requested + "' is not served by this gateway", "model");
    case Resolution::Kind::Retired:
      return refuse(404, error_keys::kRetiredModel,
                    "model '" + requested + "' is retired; use '" + resolution.model_id + "' instead", "model");
    case Resolution::Kind::Model:
    case Resolution::Kind::Alias:
      break;
  }
  plan.model_id = resolution.model_id;
  plan.model = catalog.model(plan.model_id);
  plan.route = forced ? forced : chooseRoute(catalog, resolution, request);
  if (plan.model == nullptr || plan.route == nullptr) {
    return refuse(404, error_keys::kModelNotFound, "model '" + requested + "' has no route in this catalog", "model");
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
  for (Attempt& attempt : plan.attempts) {
    attempt.model = plan.model;
    attempt.route = plan.route;
    attempt.max_tokens = plan.max_tokens;
    attempt.max_tokens_clamped = plan.max_tokens_clamped;
  }
  plan.access.push_back({plan.route, plan.model_id});
  return plan;
}


// The route a caller would be planned under when naming `model_id` alone.
const Route* routeNamedAlone(const Catalog& catalog, const std::string& model_id, const PlanRequest& request) {
  return chooseRoute(catalog, Resolution{Resolution::Kind::Model, model_id, {}}, request);
}

// max_tokens for one model: the request's, at most its max_output.
void clampFor(Attempt& attempt, const PlanRequest& request) {
  attempt.max_tokens = request.max_tokens;
  const auto& limit = attempt.model->limits.max_output;
  if (attempt.max_tokens && limit && *attempt.max_tokens > *limit) {
    attempt.max_tokens = limit;
    attempt.max_tokens_clamped = true;
  }
}

struct PieceResult {
  std::vector<Attempt> attempts;
  std::vector<AccessTarget> access;
  std::optional<Refusal> passed_over;  // a refusal that skips the piece, not the chain
};

// The weight the route gives `endpoint_key` when the route narrows its models to its own
// `deployments:` (0: not among them); 1 when it does not narrow.
int routeWeight(const Route& route, const std::string& endpoint_key) {
  if (route.deployments.empty()) return 1;
  for (const auto& pinned : route.deployments) {
    if (pinned.endpoint_key == endpoint_key) return pinned.weight;
  }
  return 0;
}

// `provider/endpoint` (endpoint set) or `provider/*`: each model, in catalog order, through the
// matching deployments; a model that does not fit, a deployment its route's `deployments:` leave
// out, or one lacking a flag the route requires is left out. A pinned piece reaches a model only
// the way naming the model alone would.
PieceResult planPinned(const Catalog& catalog, const PlanRequest& request, const catalog::Provider& provider,
                       const catalog::Endpoint* endpoint, PlanPiece& piece) {
  PieceResult result;
  for (const catalog::Model& model : catalog.models) {
    std::vector<Attempt> attempts;
    const Route* route = routeNamedAlone(catalog, model.id, request);
    if (route == nullptr) continue;
    for (const catalog::Deployment& deployment : catalog.deploymentsOf(model.id)) {
      if (deployment.provider_id != provider.id) continue;
      if (endpoint != nullptr && deployment.endpoint_key != endpoint->key) continue;
      const int weight = routeWeight(*route, deployment.endpoint_key);
      if (weight == 0) continue;
      if (!unmetRequirements(route->requirements, catalog.governanceOf(deployment)).empty()) continue;
      Attempt attempt = makeAttempt(catalog, deployment, weight, request.health);
      if (!attempt.endpoint || !attempt.provider || !attempt.credential) continue;
      attempt.model = &model;
      attempt.route = route;
      clampFor(attempt, request);
      attempts.push_back(attempt);
    }
    if (attempts.empty()) continue;
    if (!fits(model, request.estimated_input_tokens)) {
      if (!result.passed_over) {
        result.passed_over = Refusal{wire::ApiError::make(400, error_keys::kContextWindowExceeded,
                                                          "the request is about " +
                                                              std::to_string(request.estimated_input_tokens) +
                                                              " input tokens (estimated), more than the context window "
                                                              "of model '" + model.id + "'",
                                                          "messages"),
                                     {}};
      }
      continue;
    }
    result.access.push_back({route, model.id});
    for (Attempt& attempt : attempts) result.attempts.push_back(attempt);
  }
  if (!result.attempts.empty()) result.passed_over.reset();
  if (result.attempts.empty() && !result.passed_over) {
    result.passed_over = Refusal{wire::ApiError::make(503, error_keys::kNoDeployment,
                                                      "'" + piece.text + "' reaches no deployment that can serve it"),
                                 {}};
  }
  return result;
}

// A refusal of a piece's own plan that passes over the piece rather than ending the chain.
bool passesOver(const Refusal& refusal) {
  return refusal.key == error_keys::kContextWindowExceeded || refusal.key == error_keys::kGovernanceDenied ||
         refusal.key == error_keys::kNoDeployment;
}

std::expected<PieceResult, Refusal> planPiece(const Catalog& catalog, const PlanRequest& request, PlanPiece& piece,
                                              int depth) {
  if (depth > kMaxChainDepth) {
    return refuse(400, error_keys::kInvalidChain,
                  "piece '" + piece.text + "' nests deeper than " + std::to_string(kMaxChainDepth) + " levels", "model");
  }
  const std::string name(pieceName(catalog, piece.text));
  PieceResult result;
  auto take = [&](std::expected<Plan, Refusal> planned) -> std::optional<Refusal> {
    if (!planned) {
      if (!passesOver(planned.error())) return planned.error();
      if (!result.passed_over) result.passed_over = planned.error();
      return std::nullopt;
    }
    if (piece.route_match.empty()) piece.route_match = planned->route_match;
    for (const Attempt& attempt : planned->attempts) result.attempts.push_back(attempt);
    for (const AccessTarget& target : planned->access) result.access.push_back(target);
    return std::nullopt;
  };
  const Resolution resolution = catalog.resolve(piece.text);
  if (resolution.kind != Resolution::Kind::Unknown) {
    piece.kind = resolution.kind == Resolution::Kind::Alias ? PlanPiece::Kind::Alias : PlanPiece::Kind::Model;
    if (auto refused = take(planOne(catalog, request, piece.text, nullptr))) return std::unexpected(*refused);
  } else if (const Route* route = catalog.route(name)) {
    piece.kind = PlanPiece::Kind::Route;
    if (route->scope_project && route->scope_project != request.project) {
      return refuse(404, error_keys::kModelNotFound,
                    "route '" + route->id + "' (piece '" + piece.text + "') applies only to project '" +
                        *route->scope_project + "'",
                    "model");
    }
    // The route's models are the next level, their deployments the one after.
    if (depth + 2 > kMaxChainDepth) {
      return refuse(400, error_keys::kInvalidChain,
                    "piece '" + piece.text + "' nests deeper than " + std::to_string(kMaxChainDepth) + " levels", "model");
    }
    for (const std::string& model_id : route->models) {
      if (auto refused = take(planOne(catalog, request, model_id, route))) return std::unexpected(*refused);
    }
    piece.route_match.insert(piece.route_match.begin(), "route:" + route->id);
    piece.route_match.erase(std::unique(piece.route_match.begin(), piece.route_match.end()), piece.route_match.end());
    if (!result.attempts.empty()) result.passed_over.reset();
  } else if (const size_t slash = name.find('/'); slash != std::string::npos && slash > 0) {
    const catalog::Provider* provider = catalog.provider(std::string_view(name).substr(0, slash));
    const std::string_view rest = std::string_view(name).substr(slash + 1);
    const catalog::Endpoint* endpoint = provider && rest != "*" ? catalog.endpoint(name) : nullptr;
    if (provider == nullptr || (rest != "*" && endpoint == nullptr)) {
      return refuse(404, error_keys::kModelNotFound,
                    "piece '" + piece.text + "' is not a model, alias, route, provider/endpoint or provider/* of this "
                    "gateway",
                    "model");
    }
    piece.kind = endpoint ? PlanPiece::Kind::Endpoint : PlanPiece::Kind::Provider;
    piece.route_match.push_back((endpoint ? "endpoint:" : "provider:") + name);
    result = planPinned(catalog, request, *provider, endpoint, piece);
  } else {
    return refuse(404, error_keys::kModelNotFound,
                  "piece '" + piece.text + "' is not a model, alias, route, provider/endpoint or provider/* of this "
                  "gateway",
                  "model");
  }
  return result;
}

std::expected<Plan, Refusal> planChain(const Catalog& catalog, const PlanRequest& request, const std::string& requested) {
  const std::string_view text = requested;
  if (!catalog.ad_hoc_chains) {
    return refuse(400, error_keys::kInvalidChain,
                  "'" + requested + "' is an ad-hoc chain, and this gateway does not serve them "
                  "(gateway.ad_hoc_chains: false); ask for one model",
                  "model");
  }
  auto split = splitChain(text);
  if (!split) return refuse(400, error_keys::kInvalidChain, "model '" + requested + "': " + split.error(), "model");
  Plan plan;
  plan.requested_model = requested;
  plan.estimated_input_tokens = request.estimated_input_tokens;
  std::string joined;
  for (const std::string& piece : *split) joined += (joined.empty() ? "" : "|") + piece;
  plan.chain = joined;
  plan.route_match.push_back("chain:" + joined);
  std::optional<Refusal> first_passed_over;
  std::set<std::pair<std::string_view, std::string_view>> seen;  // (model, endpoint)
  for (const std::string& text_piece : *split) {
    PlanPiece piece;
    piece.text = text_piece;
    auto result = planPiece(catalog, request, piece, 2);
    if (!result) {
      Refusal refusal = result.error();
      refusal.route_match = plan.route_match;
      return std::unexpected(std::move(refusal));
    }
    const size_t index = plan.pieces.size();
    if (result->attempts.empty() && result->passed_over) {
      piece.skipped = result->passed_over->key;
      piece.skipped_message = result->passed_over->message;
      plan.route_match.push_back("skip:" + piece.text + "=" + *piece.skipped);
      if (!first_passed_over) first_passed_over = *result->passed_over;
    }
    for (Attempt& attempt : result->attempts) {
      if (!seen.emplace(attempt.deployment->model_id, attempt.deployment->endpoint_key).second) continue;
      attempt.piece = index;
      plan.attempts.push_back(attempt);
      if (plan.attempts.size() > kMaxChainTargets) {
        return refuse(400, error_keys::kInvalidChain,
                      "model '" + requested + "' expands to more than " + std::to_string(kMaxChainTargets) +
                          " targets; name fewer or narrower pieces",
                      "model", plan.route_match);
      }
    }
    for (AccessTarget& target : result->access) {
      const bool known = std::ranges::any_of(plan.access, [&](const AccessTarget& other) {
        return other.route == target.route && other.model_id == target.model_id;
      });
      if (!known) plan.access.push_back(std::move(target));
    }
    plan.pieces.push_back(std::move(piece));
  }
  if (plan.attempts.empty()) {
    Refusal refusal = first_passed_over.value_or(
        Refusal{wire::ApiError::make(503, error_keys::kNoDeployment, "no piece of '" + requested + "' has a deployment"), {}});
    refusal.route_match = plan.route_match;
    return std::unexpected(std::move(refusal));
  }
  const Attempt& lead = plan.attempts.front();
  plan.model = lead.model;
  plan.model_id = lead.model->id;
  plan.route = lead.route;
  plan.strategy = lead.route->strategy;
  plan.max_tokens = lead.max_tokens;
  plan.max_tokens_clamped = lead.max_tokens_clamped;
  return plan;
}

}  // namespace

std::string_view toString(PlanPiece::Kind kind) {
  switch (kind) {
    case PlanPiece::Kind::Model: return "model";
    case PlanPiece::Kind::Alias: return "alias";
    case PlanPiece::Kind::Route: return "route";
    case PlanPiece::Kind::Endpoint: return "endpoint";
    case PlanPiece::Kind::Provider: return "provider";
  }
  return "unknown";
}

std::expected<Plan, Refusal> planDispatch(const Catalog& catalog, const PlanRequest& request) {
  const std::string requested = request.requested_model.empty() ? catalog.default_model : request.requested_model;
  if (requested.empty()) return refuse(400, error_keys::kInvalidRequest, "the request names no model", "model");
  if (isAdHocName(catalog, requested)) return planChain(catalog, request, requested);
  return planOne(catalog, request, requested, nullptr);
}

std::vector<std::string> servedRouteMatch(const Plan& plan, const Attempt* served) {
  std::vector<std::string> segments = plan.route_match;
  if (!plan.chain || served == nullptr || served->piece >= plan.pieces.size()) return segments;
  const PlanPiece& piece = plan.pieces[served->piece];
  segments.push_back("piece:" + piece.text);
  segments.insert(segments.end(), piece.route_match.begin(), piece.route_match.end());
  return segments;
}

std::string joinRouteMatch(const std::vector<std::string>& segments) {
  std::string joined;
  for (const auto& segment : segments) {
    if (!joined.empty()) joined += ';';
    joined += segment;
    if (joined.size() > kMaxRouteMatch) break;
  }
  if (joined.size() <= kMaxRouteMatch) return joined;
  constexpr std::string_view kCut = "…";
  size_t end = kMaxRouteMatch - kCut.size();
  // Back to the first byte of a character (continuation bytes are 10xxxxxx).
  while (end > 0 && (static_cast<unsigned char>(joined[end]) & 0xC0) == 0x80) --end;
  joined.resize(end);
  joined += kCut;
  return joined;
}

}  // namespace sluice::dispatch
