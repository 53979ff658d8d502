#include <algorithm>

#include "catalog/linker.h"

namespace sluice::catalog {

namespace {

constexpr std::string_view kRoutePrefix = "gateway_route/";
constexpr std::string_view kMcpServerPrefix = "mcp_server/";
constexpr std::string_view kMcpToolPrefix = "mcp_tool/";

bool servesMcp(const Catalog& catalog, std::string_view provider_id) {
  const Provider* provider = catalog.provider(provider_id);
  return provider != nullptr &&
         std::ranges::any_of(provider->endpoints, [](const Endpoint& endpoint) { return endpoint.wire == Wire::Mcp; });
}

// mcp_server/<provider> | mcp_server/* | mcp_tool/<provider>/<tool or pattern> | mcp_tool/<provider>/*:
// the message when the entity is malformed or names no MCP server, else "".
std::string mcpEntityProblem(const Catalog& catalog, const std::string& entity, bool check_targets) {
  std::string_view rest = entity;
  std::string provider;
  if (rest.starts_with(kMcpServerPrefix)) {
    rest.remove_prefix(kMcpServerPrefix.size());
    if (rest.empty() || rest.find('/') != std::string_view::npos) {
      return "entity '" + entity + "' must be mcp_server/<provider> or mcp_server/*";
    }
    if (rest == "*") return {};
    provider = std::string(rest);
  } else {
    rest.remove_prefix(kMcpToolPrefix.size());
    const size_t slash = rest.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == rest.size()) {
      return "entity '" + entity + "' must be mcp_tool/<provider>/<tool> (the tool may be a pattern with *)";
    }
    provider = std::string(rest.substr(0, slash));
  }
  if (!check_targets || servesMcp(catalog, provider)) return {};
  return "entity '" + entity + "' names no MCP server: provider '" + provider + "' has no endpoint with wire: mcp";
}

}  // namespace

void linkAccessRules(LinkState& state) {
  bool check_targets = state.draft.gateway_loaded && state.draft.models_loaded;
  std::map<std::string, int, std::less<>> seen;
  for (const AccessRuleDraft& draft : state.draft.access_rules) {
    const AccessRule& rule = draft.rule;
    state.catalog.access_rules.push_back(rule);
    if (rule.entity.empty()) continue;
    auto [it, inserted] = seen.emplace(rule.entity, draft.entity_at.line);
    if (!inserted) {
      state.sink.error(draft.entity_at, "duplicate entity '" + rule.entity + "'; first at line " +
                                            std::to_string(it->second));
      continue;
    }
    if (rule.entity.starts_with(kMcpServerPrefix) || rule.entity.starts_with(kMcpToolPrefix)) {
      const bool providers_known = state.draft.gateway_loaded && state.draft.providers_loaded;
      if (std::string problem = mcpEntityProblem(state.catalog, rule.entity, providers_known); !problem.empty()) {
        state.sink.error(draft.entity_at, problem);
      }
      continue;
    }
    if (!rule.entity.starts_with(kRoutePrefix) || rule.entity.size() == kRoutePrefix.size()) {
      state.sink.error(draft.entity_at, "entity '" + rule.entity +
                                            "' must be gateway_route/<route or model id>, gateway_route/*, "
                                            "mcp_server/<provider> or mcp_tool/<provider>/<tool>");
      continue;
    }
    std::string target = rule.entity.substr(kRoutePrefix.size());
    if (target == "*" || !check_targets || state.catalog.route(target) != nullptr) continue;
    state.sink.error(draft.entity_at, "entity '" + rule.entity + "' names no route, model or alias" +
                                          undeclaredModelHint(state, target));
  }
}

}  // namespace sluice::catalog
