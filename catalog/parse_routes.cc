#include <limits>
#include <string>

#include "catalog/parsers.h"

namespace sluice::catalog {

namespace {

constexpr int64_t kMaxWeight = std::numeric_limits<int32_t>::max();

void readRouteDeployments(YamlReader& reader, const Entry& entry, const std::string& owner,
                          RouteDraft& route) {
  std::string what = "deployments of " + owner;
  if (!entry.value.IsSequence()) {
    reader.error(entry.value_at, what + " must be a list of endpoints, got " + describeNode(entry.value));
    return;
  }
  for (const YAML::Node& item : entry.value) {
    Location at = reader.at(item, entry.value_at);
    if (item.IsScalar()) {
      if (auto key = reader.string(item, at, what)) route.deployments.push_back({{*key, at}, 1});
      continue;
    }
    if (!item.IsMap()) {
      reader.error(at, "each item of " + what +
                           " must be 'provider/endpoint' or a mapping with endpoint: and weight:, got " +
                           describeNode(item));
      continue;
    }
    Fields fields = reader.fields(item, at, "a deployment of " + owner, {"endpoint", "weight"});
    const Entry* endpoint = fields.find("endpoint");
    if (endpoint == nullptr) {
      reader.error(at, "a deployment of " + owner + " needs endpoint: provider/endpoint");
      continue;
    }
    auto key = reader.string(*endpoint, "endpoint in " + what);
    if (!key) continue;
    RouteDeploymentDraft deployment{{*key, endpoint->value_at}, 1};
    if (const Entry* weight = fields.find("weight")) {
      deployment.weight = static_cast<int>(
          reader.integer(*weight, "weight of '" + *key + "' in " + owner, 1, kMaxWeight).value_or(1));
    }
    route.deployments.push_back(std::move(deployment));
  }
}

void readWhen(YamlReader& reader, const Entry& entry, const std::string& owner, RouteDraft& route) {
  Fields when = reader.fields(entry, "when of " + owner, {"scope"});
  const Entry* scope = when.find("scope");
  if (scope == nullptr) {
    if (when.ok()) reader.error(entry.key_at, "when of " + owner + " needs scope: {project: ...}");
    return;
  }
  Fields fields = reader.fields(*scope, "scope of " + owner, {"project"});
  const Entry* project = fields.find("project");
  if (project == nullptr) {
    if (fields.ok()) reader.error(scope->key_at, "scope of " + owner + " needs project");
    return;
  }
  auto id = reader.string(*project, "project in scope of " + owner);
  if (id && id->empty()) {
    reader.error(project->value_at, "project in scope of " + owner + " must not be empty");
  } else if (id) {
    route.route.scope_project = *id;
  }
}

// `alias_of: MODEL` makes the route's id a new name for MODEL. The older `alias:` said the same
// but reads backwards ("id: cheap, alias: cheap-chat" looks like naming cheap-chat), so it is still
// read, with a warning that shows the new form.
void readAliasOf(YamlReader& reader, const Fields& fields, const std::string& owner, RouteDraft& draft) {
  const Entry* alias_of = fields.find("alias_of");
  const Entry* alias = fields.find("alias");
  if (alias_of != nullptr && alias != nullptr) {
    reader.error(alias->key_at, owner + " has both alias_of: and alias:, which mean the same; keep alias_of: only");
  }
  const Entry* e = alias_of != nullptr ? alias_of : alias;
  if (e == nullptr) return;
  draft.alias_key = e->key;
  auto text = reader.string(*e, e->key + " of " + owner);
  if (!text) return;
  draft.alias = Located<std::string>{*text, e->value_at};
  if (alias_of == nullptr) {
    reader.warning(e->key_at, "alias: of " + owner + " is deprecated; write alias_of: " + *text +
                                  " (the route id is the new name, alias_of: the declared model it serves)");
  }
}

}  // namespace

RouteDraft readRoute(YamlReader& reader, const YAML::Node& node, const Location& at, size_t index) {
  RouteDraft draft;
  Route& route = draft.route;
  route.where = at;
  draft.requires_at = at;
  std::string owner = ownerName(node, "route", index);
  Fields fields = reader.fields(node, at, owner,
                                {"id", "label", "alias_of", "alias", "models", "when", "deployments",
                                 "strategy", "affinity", "affinity_ttl_s", "context_fallbacks", "requires"});
  if (!fields.ok()) return draft;
  if (const Entry* id = fields.find("id")) {
    if (auto text = reader.string(*id, "id of " + owner)) {
      route.id = *text;
      route.where = id->key_at;
      checkModelId(reader, {*text, id->value_at}, "route");
    }
  } else {
    reader.error(at, owner + " needs id");
  }
  route.label = route.id;
  if (const Entry* e = fields.find("label")) route.label = reader.string(*e, "label of " + owner).value_or(route.id);
  readAliasOf(reader, fields, owner, draft);
  if (const Entry* e = fields.find("models")) {
    // A badly typed list is reported here and counts as written, so "needs models:" does not follow.
    draft.models = reader.stringList(*e, "models of " + owner, true).value_or(std::vector<Located<std::string>>{});
    if (e->value.IsNull() || (e->value.IsSequence() && e->value.size() == 0)) {
      reader.error(e->value_at, "models of " + owner + " must name at least one model or pattern");
    }
  }
  if (const Entry* e = fields.find("when")) readWhen(reader, *e, owner, draft);
  if (const Entry* e = fields.find("deployments")) readRouteDeployments(reader, *e, owner, draft);
  if (const Entry* e = fields.find("strategy")) {
    route.strategy = reader.choice<Strategy>(*e, "strategy of " + owner,
                                             {{"ordered", Strategy::Ordered},
                                              {"weighted", Strategy::Weighted},
                                              {"least_busy", Strategy::LeastBusy}})
                         .value_or(Strategy::Ordered);
  }
  route.affinity = route.strategy != Strategy::Ordered;
  if (const Entry* e = fields.find("affinity")) {
    route.affinity = reader.choice<bool>(*e, "affinity of " + owner, {{"conversation", true}, {"none", false}})
                         .value_or(route.affinity);
  }
  if (const Entry* e = fields.find("affinity_ttl_s")) {
    route.affinity_ttl_seconds = reader.integer(*e, "affinity_ttl_s of " + owner, 0, 30 * 86400).value_or(0);
  }
  if (const Entry* e = fields.find("context_fallbacks")) {
    draft.context_fallbacks =
        reader.stringList(*e, "context_fallbacks of " + owner, true).value_or(std::vector<Located<std::string>>{});
  }
  if (const Entry* e = fields.find("requires")) {
    draft.requires_at = e->key_at;
    Fields flags = reader.fields(*e, "requires of " + owner, {"european", "no_retain"});
    for (const Entry& flag : flags.entries()) {
      bool value = reader.boolean(flag, flag.key + " in requires of " + owner).value_or(false);
      (flag.key == "european" ? route.requirements.european : route.requirements.no_retain) = value;
    }
  }
  return draft;
}

}  // namespace sluice::catalog
