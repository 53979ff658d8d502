#include <algorithm>
#include <set>

#include "catalog/glob.h"
#include "catalog/linker.h"

namespace sluice::catalog {

namespace {

std::string routeName(const Route& route) {
  return route.id.empty() ? "route at line " + std::to_string(route.where.line)
                          : "route '" + route.id + "'";
}

// `id: cheap, alias_of: cheap-chat` where `cheap` is a declared model and `cheap-chat` is nothing at
// all: the two were swapped (the old key `alias:` invited it).
bool aliasWrittenBackwards(const LinkState& state, const RouteDraft& draft) {
  return draft.alias && state.checkModels() && state.catalog.model(draft.route.id) != nullptr &&
         state.catalog.model(draft.alias->value) == nullptr && !isGlob(draft.alias->value) &&
         !state.retired.contains(draft.alias->value) && !state.aliases.contains(draft.alias->value);
}

// Route ids are what clients and access rules name, beside model ids, aliases and retired ids.
void checkRouteId(LinkState& state, const RouteDraft& draft,
                  std::map<std::string, Location, std::less<>>& seen) {
  const Route& route = draft.route;
  if (route.id.empty()) return;
  auto [it, inserted] = seen.emplace(route.id, route.where);
  if (!inserted) {
    state.sink.error(route.where, "duplicate route id '" + route.id + "'; first defined at line " +
                                      std::to_string(it->second.line));
    return;
  }
  if (aliasWrittenBackwards(state, draft)) {
    const std::string& target = draft.alias->value;
    state.sink.error(route.where, "route '" + route.id + "' reads backwards: '" + route.id + "' is a declared model and '" +
                                      target + "' is not, but the route id is the new name and " + draft.alias_key +
                                      ": the model it serves; write id: " + target + ", alias_of: " + route.id);
  } else if (const Model* model = state.catalog.model(route.id)) {
    state.sink.error(route.where, "route id '" + route.id + "' collides with model '" + route.id +
                                      "' declared at " + describe(model->where));
  } else if (auto retired = state.retired.find(route.id); retired != state.retired.end()) {
    state.sink.error(route.where, "route id '" + route.id + "' collides with a retired id of model '" +
                                      retired->second.first + "' at " +
                                      describe(retired->second.second));
  }
}

// Checks one exact model id written in a route; true when it names a declared model. Silent when
// models.yaml did not load.
bool checkDeclared(LinkState& state, const Located<std::string>& id, const std::string& what) {
  if (state.catalog.model(id.value) != nullptr) return true;
  if (!state.checkModels()) return false;
  state.sink.error(id.where, what + " names undeclared model '" + id.value + "'" +
                                 undeclaredModelHint(state, id.value));
  return false;
}

void expandModels(LinkState& state, const RouteDraft& draft, const std::string& name,
                  Route& route) {
  auto add = [&](const std::string& id) {
    if (std::ranges::find(route.models, id) == route.models.end()) route.models.push_back(id);
  };
  if (draft.alias) {
    const std::string what = draft.alias_key + " of " + name;
    const Located<std::string>& target = *draft.alias;
    if (isGlob(target.value)) {
      state.sink.error(target.where, what + " must name one model, not the pattern '" + target.value + "'");
    } else if (state.catalog.model(target.value) != nullptr) {
      add(target.value);
    } else if (state.checkModels() && !aliasWrittenBackwards(state, draft)) {
      state.sink.error(target.where, what + " names undeclared model '" + target.value + "'" +
                                         undeclaredModelHint(state, target.value) + "; " + draft.alias_key +
                                         ": names the declared model that the route id is a new name for: id: "
                                         "<new name>, alias_of: <declared model>");
    }
    return;
  }
  if (!draft.models) return;
  for (const Located<std::string>& pattern : *draft.models) {
    if (!isGlob(pattern.value)) {
      if (checkDeclared(state, pattern, "models of " + name)) add(pattern.value);
      continue;
    }
    bool matched = false;
    for (const Model& model : state.catalog.models) {
      if (globMatch(pattern.value, model.id)) {
        add(model.id);
        matched = true;
      }
    }
    if (!matched && state.checkModels()) {
      state.sink.error(pattern.where, "pattern '" + pattern.value + "' in models of " + name +
                                          " matches no declared model");
    }
  }
}

void linkRouteDeployments(LinkState& state, const RouteDraft& draft, const std::string& name,
                          Route& route) {
  std::map<std::string, int, std::less<>> seen;
  for (const RouteDeploymentDraft& entry : draft.deployments) {
    const Endpoint* endpoint = resolveEndpoint(state, entry.endpoint, name);
    if (endpoint == nullptr) continue;
    auto [it, inserted] = seen.emplace(endpoint->key, entry.endpoint.where.line);
    if (!inserted) {
      state.sink.error(entry.endpoint.where, "deployment '" + endpoint->key + "' appears twice in " +
                                                 name + "; first at line " + std::to_string(it->second));
      continue;
    }
    route.deployments.push_back({endpoint->key, entry.weight});
    if (!state.checkDeployments()) continue;
    // Pricing and upstream_model come from the model's own deployment, so it must exist.
    for (const std::string& model_id : route.models) {
      const auto& chain = state.catalog.deploymentsOf(model_id);
      if (chain.empty() || state.catalog.deployment(model_id, endpoint->key) != nullptr) continue;
      std::vector<std::string> keys;
      for (const Deployment& d : chain) keys.push_back(d.endpoint_key);
      state.sink.error(entry.endpoint.where, "deployment '" + endpoint->key + "' of " + name +
                                                 " is not a deployment of model '" + model_id +
                                                 "'; its deployments: " + joinIds(keys));
    }
  }
}

void checkRequirement(LinkState& state, const RouteDraft& draft, const std::string& name,
                      const Deployment& deployment, std::string_view flag, bool satisfied) {
  if (satisfied) return;
  state.sink.error(draft.requires_at, name + " requires " + std::string(flag) + " but deployment '" +
                                          deployment.endpoint_key + "' of model '" +
                                          deployment.model_id + "' is not " + std::string(flag) +
                                          " (provider '" + deployment.provider_id +
                                          "' governance, as overridden by the model)");
}

// Every deployment the route can reach: its pinned deployments of each model it serves, or all of
// that model's deployments, plus all deployments of each context fallback.
void checkRequirements(LinkState& state, const RouteDraft& draft, const std::string& name,
                       const Route& route) {
  if (!route.requirements.any() || !state.checkDeployments()) return;
  auto check = [&](const Deployment& d) {
    Governance governance = state.catalog.governanceOf(d);
    if (route.requirements.european) {
      checkRequirement(state, draft, name, d, "european", governance.european);
    }
    if (route.requirements.no_retain) {
      checkRequirement(state, draft, name, d, "no_retain", governance.no_retain);
    }
  };
  for (const std::string& model_id : route.models) {
    for (const Deployment& d : state.catalog.deploymentsOf(model_id)) {
      bool pinned_out = !route.deployments.empty() &&
                        std::ranges::none_of(route.deployments, [&](const RouteDeployment& r) {
                          return r.endpoint_key == d.endpoint_key;
                        });
      if (!pinned_out) check(d);
    }
  }
  for (const std::string& model_id : route.context_fallbacks) {
    if (std::ranges::find(route.models, model_id) != route.models.end()) continue;
    for (const Deployment& d : state.catalog.deploymentsOf(model_id)) check(d);
  }
}

Route linkRoute(LinkState& state, const RouteDraft& draft) {
  Route route = draft.route;
  std::string name = routeName(route);
  if (draft.alias && draft.models) {
    state.sink.error(draft.alias->where,
                     name + " has both " + draft.alias_key + ": and models:; an alias serves exactly one model");
  } else if (!draft.alias && !draft.models) {
    state.sink.error(route.where, name + " needs models: (ids or patterns) or alias_of: (one model)");
  }
  expandModels(state, draft, name, route);
  route.kind = draft.alias                  ? RouteKind::Alias
               : route.scope_project        ? RouteKind::Scoped
               : !draft.deployments.empty() ? RouteKind::Pinned
                                            : RouteKind::Policy;
  linkRouteDeployments(state, draft, name, route);
  for (const Located<std::string>& fallback : draft.context_fallbacks) {
    if (checkDeclared(state, fallback, "context_fallbacks of " + name) &&
        std::ranges::find(route.context_fallbacks, fallback.value) == route.context_fallbacks.end()) {
      route.context_fallbacks.push_back(fallback.value);
    }
  }
  checkRequirements(state, draft, name, route);
  return route;
}

// A hub polled over plain HTTP can be answered by anyone on the path, and it says where own
// machines without url: are reached (presence_hosts still bounds where): said at load.
void warnPlainHub(LinkState& state) {
  const auto& hub = state.catalog.presence;
  if (!hub || !hub->url.starts_with("http://")) return;
  const std::string_view rest = std::string_view(hub->url).substr(7);
  const std::string_view host = rest.substr(0, rest.find_first_of(":/"));
  if (host == "localhost" || host.starts_with("127.") || rest.starts_with("[::1]")) return;
  for (const Provider& provider : state.catalog.providers) {
    for (const Endpoint& endpoint : provider.endpoints) {
      if (!endpoint.presence_node || !endpoint.url.empty()) continue;
      state.sink.warning(hub->where, "the presence hub is polled over plain HTTP, and endpoint '" + endpoint.key +
                                         "' is reached at the address it reports: use an https:// url for the hub");
      return;
    }
  }
}

}  // namespace

void linkRoutes(LinkState& state) {
  // Aliases first, so that hints about a misplaced alias work wherever it is named.
  for (const RouteDraft& draft : state.draft.routes) {
    if (draft.alias && !draft.route.id.empty()) state.aliases.emplace(draft.route.id, draft.alias->value);
  }
  std::map<std::string, Location, std::less<>> seen;
  for (const RouteDraft& draft : state.draft.routes) {
    checkRouteId(state, draft, seen);
    state.catalog.routes.push_back(linkRoute(state, draft));
  }
  for (const Model& model : state.catalog.models) {
    Route route;
    route.id = model.id;
    route.label = model.display_name;
    route.kind = RouteKind::Implicit;
    route.models = {model.id};
    route.where = model.where;
    state.catalog.routes.push_back(std::move(route));
  }

  if (state.draft.default_model) {
    const Located<std::string>& id = *state.draft.default_model;
    if (checkDeclared(state, id, "default_model")) {
      state.catalog.default_model = id.value;
      const Model* model = state.catalog.model(id.value);
      if (model != nullptr && model->kind != ModelKind::Chat) {
        state.sink.error(id.where, "default_model '" + id.value + "' is of kind " + std::string(toString(model->kind)) +
                                       "; the default serves requests naming no model on the chat endpoints, so it "
                                       "must be a chat model");
      }
    }
  }
  state.catalog.quotas = state.draft.quotas;
  state.catalog.webhooks = state.draft.webhooks;
  state.catalog.identity = state.draft.identity;
  // The proxy's identity header names a member to this gateway; it never reaches a provider.
  if (const auto& proxies = state.catalog.identity.trusted_proxies) {
    for (const Provider& provider : state.catalog.providers) {
      if (std::ranges::find(provider.forward_headers, proxies->header) != provider.forward_headers.end()) {
        state.sink.error(provider.where, "forward_headers of provider '" + provider.id + "' may not name '" +
                                             proxies->header + "': it is the trusted proxies' identity header "
                                             "(gateway.yaml), which never reaches a provider");
      }
    }
  }
  state.catalog.ad_hoc_chains = state.draft.ad_hoc_chains;
  state.catalog.presence = state.draft.presence;
  state.catalog.limits = state.draft.limits;
  state.catalog.telemetry = state.draft.telemetry;
  state.catalog.console = state.draft.console;
  warnPlainHub(state);
  // An own machine is only ever used while a hub says it is up: without a hub it never would be.
  if (state.draft.gateway_loaded && !state.draft.presence_at) {
    for (const Provider& provider : state.catalog.providers) {
      for (const Endpoint& endpoint : provider.endpoints) {
        if (!endpoint.presence_node) continue;
        state.sink.error(endpoint.where, "endpoint '" + endpoint.key + "' names presence node '" + *endpoint.presence_node +
                                             "', but gateway.yaml declares no presence hub (gateway.presence: {url: ...})");
      }
    }
  }
}

}  // namespace sluice::catalog
