// /admin/access-control: the rules of rules.yaml as the catalog compiled them, and "check a
// member": for every route, whether that member (attributed to a project) may use it, and why,
// decided by the same identity::decideAccess the request path uses.
#include "server/admin/api.h"
#include "server/identity/access.h"
#include "server/identity/member_store.h"
#include "server/identity/scope.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

json bandsJson(const catalog::AccessBands& bands) {
  return {{"person", bands.person}, {"project", bands.project}, {"group", bands.group}, {"role", bands.role}};
}

}  // namespace

Reply accessRules(ConsoleContext& context, const Exchange&) {
  const auto catalog = context.gateway.catalog();
  json rules = json::array();
  for (const auto& rule : catalog->access_rules) {
    rules.push_back({{"entity", rule.entity},
                     {"default", rule.default_access == catalog::AccessDefault::Open ? "open" : "closed"},
                     {"why", rule.why},
                     {"allow", bandsJson(rule.allow)},
                     {"deny", bandsJson(rule.deny)},
                     {"where", rule.where.file + ":" + std::to_string(rule.where.line)}});
  }
  json members = json::array();
  if (context.members) {
    for (const auto& member : identity::listMembers(*context.members)) {
      members.push_back({{"name", member.name}, {"projects", member.projects}, {"disabled", member.disabled()}});
    }
  }
  return Reply::json({{"version", catalog->version}, {"rules", rules}, {"members", members}});
}

Reply accessCheck(ConsoleContext& context, const Exchange& exchange) {
  const auto user = exchange.optionalParam("user");
  if (!user) return Reply::error(400, "no_user", "user: the member to check");
  if (!context.members) return Reply::error(503, "no_database", "this gateway has no database");
  const auto member = identity::findMember(*context.members, *user);
  if (!member) return Reply::error(404, "no_such_member", "no member " + *user);
  identity::Caller caller;
  caller.user = member->name;
  caller.role = member->role;
  caller.groups = member->groups;
  caller.projects = member->projects;
  caller.primary_project = member->primary_project;
  const auto project = exchange.optionalParam("project");
  const auto scope = identity::attributeScope(caller, project ? std::optional<std::string_view>(*project) : std::nullopt);
  if (!scope) return Reply::error(403, "scope_denied", scope.error().message);
  const auto subject = identity::accessSubject(caller, *scope);
  const auto catalog = context.gateway.catalog();
  json routes = json::array();
  for (const auto& route : catalog->routes) {
    identity::AccessRequest request;
    request.route_id = route.id;
    request.route_kind = route.kind;
    request.model_id = route.models.empty() ? std::string_view() : std::string_view(route.models.front());
    const auto decision = identity::decideAccess(catalog->access_rules, request, subject);
    routes.push_back({{"route", route.id},
                      {"label", route.label},
                      {"kind", std::string(catalog::toString(route.kind))},
                      {"models", route.models},
                      {"allowed", decision.allowed},
                      {"entity", decision.entity},
                      {"basis", decision.basis},
                      {"why", decision.why}});
  }
  return Reply::json({{"user", member->name},
                      {"role", std::string(identity::toString(member->role))},
                      {"groups", member->groups},
                      {"disabled", member->disabled()},
                      {"project", scope->project ? json(*scope->project) : json(nullptr)},
                      {"project_source", std::string(identity::toString(scope->source))},
                      {"routes", routes}});
}

}  // namespace sluice::admin
