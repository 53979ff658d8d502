#include "catalog/linker.h"

namespace sluice::catalog {

namespace {

constexpr std::string_view kRoutePrefix = "gateway_route/";

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
    if (!rule.entity.starts_with(kRoutePrefix) || rule.entity.size() == kRoutePrefix.size()) {
      state.sink.error(draft.entity_at, "entity '" + rule.entity +
                                            "' must be gateway_route/<route or model id> or gateway_route/*");
      continue;
    }
    std::string target = rule.entity.substr(kRoutePrefix.size());
    if (target == "*" || !check_targets || state.catalog.route(target) != nullptr) continue;
    state.sink.error(draft.entity_at, "entity '" + rule.entity + "' names no route, model or alias" +
                                          undeclaredModelHint(state, target));
  }
}

}  // namespace sluice::catalog
