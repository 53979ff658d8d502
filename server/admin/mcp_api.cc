// /admin/mcp: the MCP servers of the catalog (docs/mcp.md), the rules that govern them and their
// tools, a member's standing on each server, and the calls per tool from the audit trail.
#include <chrono>

#include "server/admin/api.h"
#include "server/identity/access.h"
#include "server/identity/member_store.h"
#include "server/identity/scope.h"

namespace sluice::admin {

namespace {

using nlohmann::json;

constexpr int kMaxToolRows = 500;

// Scheme, host and path of a server's URL: never a query string (it may hold a token).
std::string shownUrl(const std::string& url) { return url.substr(0, url.find_first_of("?#")); }

json ruleJson(const catalog::AccessRule& rule) {
  return {{"entity", rule.entity},
          {"default", rule.default_access == catalog::AccessDefault::Open ? "open" : "closed"},
          {"why", rule.why},
          {"allow", {{"person", rule.allow.person}, {"project", rule.allow.project}, {"group", rule.allow.group},
                     {"role", rule.allow.role}}},
          {"deny", {{"person", rule.deny.person}, {"project", rule.deny.project}, {"group", rule.deny.group},
                    {"role", rule.deny.role}}}};
}

}  // namespace

Reply mcpServers(ConsoleContext& context, const Exchange& exchange) {
  const auto catalog = context.gateway.catalog();
  std::optional<identity::AccessSubject> subject;
  identity::Caller caller;
  std::optional<identity::Scope> scope;
  if (const auto user = exchange.optionalParam("user")) {
    if (!context.members) return Reply::error(503, "no_database", "this gateway has no database");
    const auto member = identity::findMember(*context.members, *user);
    if (!member) return Reply::error(404, "no_such_member", "no member " + *user);
    caller.user = member->name;
    caller.role = member->role;
    caller.groups = member->groups;
    caller.projects = member->projects;
    caller.primary_project = member->primary_project;
    const auto project = exchange.optionalParam("project");
    auto attributed =
        identity::attributeScope(caller, project ? std::optional<std::string_view>(*project) : std::nullopt);
    if (!attributed) return Reply::error(403, "scope_denied", attributed.error().message);
    scope = std::move(*attributed);
    subject = identity::accessSubject(caller, *scope);
  }
  json servers = json::array();
  for (const catalog::Provider& provider : catalog->providers) {
    for (const catalog::Endpoint& endpoint : provider.endpoints) {
      if (endpoint.wire != catalog::Wire::Mcp) continue;
      const catalog::Credential* credential = catalog->credentialOf(endpoint);
      json rules = json::array();
      for (const catalog::AccessRule& rule : catalog->access_rules) {
        if (rule.entity == "mcp_server/" + provider.id || rule.entity == "mcp_server/*" ||
            rule.entity.starts_with("mcp_tool/" + provider.id + "/")) {
          rules.push_back(ruleJson(rule));
        }
      }
      json server = {{"server", provider.id},
                     {"name", provider.display_name.empty() ? provider.id : provider.display_name},
                     {"path", "/mcp/" + provider.id},
                     {"url", shownUrl(endpoint.url)},
                     {"trust", std::string(catalog::toString(endpoint.trust))},
                     {"masked", catalog->masks(endpoint)},
                     {"credential", credential ? json(credential->id) : json(nullptr)},
                     {"paid_by", credential ? json(std::string(catalog::toString(credential->kind))) : json(nullptr)},
                     {"auth_header", endpoint.auth_header.empty() ? "Authorization: Bearer" : endpoint.auth_header},
                     {"rules", rules}};
      if (subject) {
        const identity::Decision decision = identity::decideMcpServer(catalog->access_rules, provider.id, *subject);
        server["member"] = {{"allowed", decision.allowed},
                            {"entity", decision.entity},
                            {"basis", decision.basis},
                            {"why", decision.why}};
      }
      servers.push_back(std::move(server));
      break;  // one MCP endpoint is served per provider
    }
  }
  json tools = json::array();
  if (context.traffic) {
    const auto since = std::chrono::system_clock::now() - std::chrono::hours(24 * 7);
    for (const store::ToolCalls& entry : context.traffic->toolCalls(since, kMaxToolRows)) {
      json row = {{"server", entry.server}, {"tool", entry.tool},       {"calls", entry.calls},
                  {"refused", entry.refused}, {"failed", entry.failed}};
      row["p50_ms"] = entry.p50_ms ? json(*entry.p50_ms) : json(nullptr);
      if (subject) {
        row["member_may_call"] =
            identity::decideMcpTool(catalog->access_rules, entry.server, entry.tool, *subject).allowed;
      }
      tools.push_back(std::move(row));
    }
  }
  json members = json::array();
  if (context.members) {
    for (const auto& member : identity::listMembers(*context.members)) members.push_back(member.name);
  }
  json answer = {{"version", catalog->version}, {"servers", servers}, {"tools", tools}, {"members", members}};
  if (subject) {
    answer["member"] = {{"user", caller.user},
                        {"project", scope && scope->project ? json(*scope->project) : json(nullptr)}};
  }
  return Reply::json(answer);
}

}  // namespace sluice::admin
