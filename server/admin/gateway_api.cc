// The Gateway page's data: what the catalog declares and how this process is dispatching.
#include <chrono>
#include <map>
#include <optional>
#include <set>


#include "server/dispatch/target_check.h"
#include "server/admin/api.h"
#include "server/admin/json_time.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

std::string breakerName(const std::map<std::string, std::string>& states, const std::string& key) {
  auto it = states.find(key);
  return it == states.end() ? "closed" : it->second;
}

// Whether a cloud credential (AWS keys, a Google or Azure identity) can be used now, or why not.
std::optional<json> cloudStanding(http::Gateway& gateway, const catalog::Catalog& catalog, const std::string& id) {
  for (const auto& standing : gateway.cloudAuth().standing(catalog)) {
    if (standing.id == id) return json{{"usable", standing.usable}, {"detail", standing.detail}};
  }
  for (const auto& standing : gateway.awsCredentials().standing(catalog, std::chrono::system_clock::now())) {
    if (standing.id == id) {
      return json{{"usable", standing.usable}, {"pending", standing.pending}, {"detail", standing.detail}};
    }
  }
  return std::nullopt;
}

std::map<std::string, std::string> breakerStates(http::Gateway& gateway) {
  std::map<std::string, std::string> states;
  for (const auto& [key, state] : gateway.endpoints().states(std::chrono::steady_clock::now())) {
    states[key] = std::string(dispatch::toString(state));
  }
  return states;
}

json deploymentJson(const catalog::Catalog& catalog, const catalog::Deployment& deployment,
                    const std::map<std::string, std::string>& states) {
  const auto* provider = catalog.provider(deployment.provider_id);
  const auto* endpoint = catalog.endpoint(deployment.endpoint_key);
  const auto* credential = provider ? catalog.credential(provider->credential_id) : nullptr;
  json out = {{"endpoint", deployment.endpoint_key},
              {"provider", deployment.provider_id},
              {"upstream_model", deployment.upstream_model},
              {"wire", endpoint ? std::string(catalog::toString(endpoint->wire)) : ""},
              {"breaker", breakerName(states, deployment.endpoint_key)},
              {"credential", credential ? credential->id : ""},
              {"credential_kind", credential ? std::string(catalog::toString(credential->kind)) : ""},
              {"configured", credential && credential->configured()},
              {"price_input_per_million", deployment.pricing.input_per_million},
              {"price_output_per_million", deployment.pricing.output_per_million}};
  const auto governance = catalog.governanceOf(deployment);
  out["european"] = governance.european;
  out["no_retain"] = governance.no_retain;
  return out;
}

json quotasJson(const catalog::Quotas& quotas) {
  json windows = json::array();
  for (const auto& window : quotas.windows) {
    json row = {{"id", window.id}, {"per", std::string(catalog::toString(window.per))}, {"seconds", window.seconds}};
    if (window.max_requests) row["max_requests"] = *window.max_requests;
    if (window.max_input_tokens) row["max_input_tokens"] = *window.max_input_tokens;
    if (window.max_output_tokens) row["max_output_tokens"] = *window.max_output_tokens;
    if (window.max_cost_microdollars) row["max_cost_microdollars"] = *window.max_cost_microdollars;
    windows.push_back(row);
  }
  return {{"mode", quotas.mode == catalog::QuotaMode::Enforce ? "enforce" : "warn"}, {"windows", windows}};
}

// Today (UTC) across the fleet: spend, the five costliest members, and the error rate with quota
// refusals (the caller's limit) counted apart from provider failures (the deployments'). Null
// without a database.
json todayJson(store::TrafficStats& traffic) {
  const auto now = std::chrono::system_clock::now();
  const auto midnight = std::chrono::floor<std::chrono::days>(now);
  const auto members = traffic.usage(store::UsageDimension::User, midnight);
  int64_t spend = 0;
  json top = json::array();
  for (const auto& row : members) {
    spend += row.cost_microdollars;
    if (top.size() < 5 && row.cost_microdollars > 0) {
      top.push_back({{"member", row.key}, {"requests", row.requests}, {"cost_microdollars", row.cost_microdollars}});
    }
  }
  const store::DayOutcomes outcomes = traffic.todayOutcomes(now);
  const auto share = [&](int64_t count) {
    return outcomes.requests ? static_cast<double>(count) / static_cast<double>(outcomes.requests) : 0.0;
  };
  return {{"since", std::chrono::duration_cast<std::chrono::seconds>(midnight.time_since_epoch()).count()},
          {"spend_microdollars", spend},
          {"top_spenders", top},
          {"requests", outcomes.requests},
          {"failed", outcomes.failed},
          {"quota_refused", outcomes.quota_refused},
          {"provider_failed", outcomes.provider_failed},
          {"error_rate", share(outcomes.failed)},
          {"quota_refusal_rate", share(outcomes.quota_refused)},
          {"provider_error_rate", share(outcomes.provider_failed)}};
}

}  // namespace

Reply gatewayOverview(ConsoleContext& context, const Exchange&) {
  const auto catalog = context.gateway.catalog();
  const auto states = breakerStates(context.gateway);
  // Recent traffic per model from the audit trail (this and every other replica).
  std::map<std::string, json> recent;
  if (context.traffic) {
    for (const auto& [model, traffic] : context.traffic->recentByModel()) {
      recent[model] = {{"requests", traffic.requests}, {"failed", traffic.failed}, {"failed_over", traffic.failed_over}};
    }
  }
  json models = json::array();
  for (const auto& model : catalog->models) {
    json deployments = json::array();
    for (const auto& deployment : catalog->deploymentsOf(model.id)) {
      deployments.push_back(deploymentJson(*catalog, deployment, states));
    }
    json row = {{"id", model.id}, {"display_name", model.display_name}, {"deployments", deployments}};
    auto it = recent.find(model.id);
    row["recent"] = it == recent.end() ? json{{"requests", 0}, {"failed", 0}, {"failed_over", 0}} : it->second;
    models.push_back(row);
  }
  json breakers = json::array();
  for (const auto& [key, state] : states) breakers.push_back({{"endpoint", key}, {"state", state}});
  return Reply::json({{"version", catalog->version},
                      {"in_flight", static_cast<int64_t>(context.gateway.metrics().inflight_requests.value())},
                      {"window_minutes", 15},
                      {"today", context.traffic ? todayJson(*context.traffic) : json(nullptr)},
                      {"models", models},
                      {"breakers", breakers}});
}

Reply gatewayProviders(ConsoleContext& context, const Exchange&) {
  const auto catalog = context.gateway.catalog();
  const auto states = breakerStates(context.gateway);
  const auto presence = context.gateway.presence().snapshot();
  const auto now = std::chrono::steady_clock::now();
  json providers = json::array();
  for (const auto& provider : catalog->providers) {
    const auto* credential = catalog->credential(provider.credential_id);
    json endpoints = json::array();
    for (const auto& endpoint : provider.endpoints) {
      json row = {{"key", endpoint.key},
                  {"id", endpoint.id},
                  {"wire", std::string(catalog::toString(endpoint.wire))},
                  {"url", endpoint.url},
                  {"breaker", breakerName(states, endpoint.key)}};
      if (endpoint.max_input_bytes) row["max_input_bytes"] = *endpoint.max_input_bytes;
      if (endpoint.presence_node) {
        // An own machine: what the hub last said, as the request path would judge it now.
        const auto state = dispatch::presenceState(presence, *endpoint.presence_node, endpoint.skip_busy, now);
        const auto node = presence.nodes.find(*endpoint.presence_node);
        json shown = {{"node", *endpoint.presence_node},
                      {"state", state ? std::string(*state) : std::string("available")},
                      {"skip_busy", endpoint.skip_busy},
                      {"reason", node != presence.nodes.end() ? node->second.reason : std::string()}};
        if (node != presence.nodes.end()) {
          shown["busy"] = node->second.busy;
          if (!node->second.host.empty()) shown["address"] = node->second.host + ":" + std::to_string(node->second.port);
        }
        if (state && *state == "stale" && !presence.last_error.empty()) shown["reason"] = presence.last_error;
        row["presence"] = std::move(shown);
      }
      endpoints.push_back(std::move(row));
    }
    json models = json::array();
    for (const auto& [model_id, deployments] : catalog->deployments) {
      for (const auto& deployment : deployments) {
        if (deployment.provider_id == provider.id) {
          models.push_back({{"model", model_id}, {"endpoint", deployment.endpoint_key},
                            {"upstream_model", deployment.upstream_model}});
        }
      }
    }
    providers.push_back({{"id", provider.id},
                         {"display_name", provider.display_name},
                         {"credential", provider.credential_id},
                         {"credential_kind", credential ? std::string(catalog::toString(credential->kind)) : ""},
                         {"configured", credential && credential->configured()},
                         {"european", provider.governance.european},
                         {"no_retain", provider.governance.no_retain},
                         {"retry_attempts", provider.retry.attempts},
                         {"breaker_failures", provider.breaker.failures},
                         {"breaker_cooldown_s", provider.breaker.cooldown_s},
                         {"timeouts", {{"connect_ms", provider.timeouts.connect_ms},
                                       {"first_byte_ms", provider.timeouts.first_byte_ms},
                                       {"idle_ms", provider.timeouts.idle_ms}}},
                         {"endpoints", endpoints},
                         {"models", models},
                         {"where", provider.where.file + ":" + std::to_string(provider.where.line)}});
    if (auto standing = cloudStanding(context.gateway, *catalog, provider.credential_id)) {
      providers.back()["cloud_credential"] = std::move(*standing);
    }
  }
  return Reply::json({{"version", catalog->version}, {"providers", providers}});
}

Reply gatewayRoutes(ConsoleContext& context, const Exchange&) {
  const auto catalog = context.gateway.catalog();
  const auto states = breakerStates(context.gateway);
  json routes = json::array();
  int position = 0;
  for (const auto& route : catalog->routes) {
    json deployments = json::array();
    if (!route.deployments.empty()) {
      for (const auto& entry : route.deployments) {
        const catalog::Deployment* found = nullptr;
        for (const auto& model_id : route.models) {
          if ((found = catalog->deployment(model_id, entry.endpoint_key))) break;
        }
        json row = found ? deploymentJson(*catalog, *found, states) : json{{"endpoint", entry.endpoint_key}};
        row["weight"] = entry.weight;
        if (found) row["model"] = found->model_id;
        deployments.push_back(row);
      }
    } else {
      for (const auto& model_id : route.models) {
        for (const auto& deployment : catalog->deploymentsOf(model_id)) {
          json row = deploymentJson(*catalog, deployment, states);
          row["weight"] = 1;
          row["model"] = model_id;
          deployments.push_back(row);
        }
      }
    }
    json requires_list = json::array();
    if (route.requirements.european) requires_list.push_back("european");
    if (route.requirements.no_retain) requires_list.push_back("no_retain");
    routes.push_back({{"position", ++position},
                      {"id", route.id},
                      {"label", route.label},
                      {"kind", std::string(catalog::toString(route.kind))},
                      {"models", route.models},
                      {"scope_project", route.scope_project ? *route.scope_project : ""},
                      {"strategy", std::string(catalog::toString(route.strategy))},
                      {"context_fallbacks", route.context_fallbacks},
                      {"requires", requires_list},
                      {"deployments", deployments},
                      {"where", route.where.file.empty() ? "" : route.where.file + ":" + std::to_string(route.where.line)}});
  }
  return Reply::json({{"version", catalog->version}, {"routes", routes}});
}

Reply gatewaySettings(ConsoleContext& context, const Exchange&) {
  const auto catalog = context.gateway.catalog();
  const auto status = context.gateway.catalogStatus();
  json reload = {{"version", status.version},
                 {"loaded_at", isoTime(status.loaded_at)},
                 {"loaded_by", status.loaded_by},
                 {"reloads_accepted", status.reloads_accepted},
                 {"reloads_refused", status.reloads_refused},
                 {"refused_at", status.refused_at ? json(isoTime(*status.refused_at)) : json(nullptr)},
                 {"refused_diagnostics", status.refused_diagnostics},
                 {"reload_refused_now", status.refusal_standing}};
  // The fleet: every replica's heartbeat of the last minute (fleet_replicas), so a fleet serving
  // two catalog versions shows here whichever replica the console is on.
  json replicas = json::array();
  if (context.fleet) {
    try {
      for (const store::ReplicaSeen& replica : context.fleet->replicas()) {
        replicas.push_back({{"name", replica.name},
                            {"catalog_version", replica.catalog_version},
                            {"seen_seconds_ago", replica.seen_seconds_ago},
                            {"up_seconds", replica.up_seconds},
                            {"draining", replica.draining}});
      }
    } catch (const std::exception&) {
      // The settings still answer without the fleet view.
    }
  }
  std::set<std::string> versions;
  for (const auto& replica : replicas) versions.insert(replica["catalog_version"].get<std::string>());
  return Reply::json({{"version", catalog->version},
                      {"replica", context.gateway.options().replica_name},
                      {"fleet", {{"replicas", replicas}, {"versions", versions.size()}}},
                      {"default_model", catalog->default_model},
                      {"services_dir", context.gateway.options().services_dir},
                      {"counts", {{"credentials", catalog->credentials.size()},
                                  {"providers", catalog->providers.size()},
                                  {"models", catalog->models.size()},
                                  {"routes", catalog->routes.size()},
                                  {"access_rules", catalog->access_rules.size()}}},
                      {"quotas", quotasJson(catalog->quotas)},
                      {"reload", reload}});
}

}  // namespace sluice::admin
