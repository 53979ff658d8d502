#include "server/identity/access.h"

#include <algorithm>

#include "catalog/glob.h"

namespace sluice::identity {

namespace {

constexpr std::string_view kRoutePrefix = "gateway_route/";
constexpr std::string_view kWildcard = "gateway_route/*";

const catalog::AccessRule* findRule(const std::vector<catalog::AccessRule>& rules, std::string_view entity) {
  for (const catalog::AccessRule& rule : rules) {
    if (rule.entity == entity) return &rule;
  }
  return nullptr;
}

std::string entityOf(std::string_view route_id) { return std::string(kRoutePrefix) + std::string(route_id); }

bool listed(const std::vector<std::string>& names, std::string_view value) {
  return std::find(names.begin(), names.end(), value) != names.end();
}

// The first name of `names` found among `values`, if any.
std::optional<std::string> firstListed(const std::vector<std::string>& names, const std::vector<std::string>& values) {
  for (const std::string& value : values) {
    if (listed(names, value)) return value;
  }
  return std::nullopt;
}

struct BandMatch {
  bool deny = false;
  std::string band;
  std::string value;
};

// The band that decides, narrowest first.
std::optional<BandMatch> decidingBand(const catalog::AccessRule& rule, const AccessSubject& subject) {
  const auto single = [](const std::vector<std::string>& deny, const std::vector<std::string>& allow,
                         std::optional<std::string_view> value, const char* band) -> std::optional<BandMatch> {
    if (!value || value->empty()) return std::nullopt;
    if (listed(deny, *value)) return BandMatch{true, band, std::string(*value)};
    if (listed(allow, *value)) return BandMatch{false, band, std::string(*value)};
    return std::nullopt;
  };
  if (auto m = single(rule.deny.person, rule.allow.person, subject.user, "person")) return m;
  if (auto m = single(rule.deny.project, rule.allow.project, subject.project, "project")) return m;
  if (subject.groups != nullptr) {
    if (auto group = firstListed(rule.deny.group, *subject.groups)) return BandMatch{true, "group", *group};
    if (auto group = firstListed(rule.allow.group, *subject.groups)) return BandMatch{false, "group", *group};
  }
  if (auto m = single(rule.deny.role, rule.allow.role, subject.role, "role")) return m;
  return std::nullopt;
}

}  // namespace

AccessSubject accessSubject(const Caller& caller, const Scope& scope) {
  AccessSubject subject;
  subject.user = caller.user;
  subject.role = toString(caller.role);
  subject.groups = &caller.groups;
  if (scope.project) subject.project = *scope.project;
  return subject;
}

std::string Decision::message() const {
  std::string text = "authz denied [" + entity + "]";
  if (!why.empty()) text += ": " + why;
  return text;
}

Decision decideRule(const catalog::AccessRule& rule, const AccessSubject& subject) {
  Decision decision;
  decision.entity = rule.entity;
  decision.why = rule.why;
  if (const auto match = decidingBand(rule, subject)) {
    decision.allowed = !match->deny;
    decision.basis = std::string(match->deny ? "deny:" : "allow:") + match->band + "=" + match->value;
  } else {
    decision.allowed = rule.default_access == catalog::AccessDefault::Open;
    decision.basis = decision.allowed ? "default:open" : "default:closed";
  }
  return decision;
}

Decision decideAccess(const std::vector<catalog::AccessRule>& rules, const AccessRequest& request,
                      const AccessSubject& subject) {
  const catalog::AccessRule* own = findRule(rules, entityOf(request.route_id));
  const catalog::AccessRule* rule = own != nullptr ? own : findRule(rules, kWildcard);
  Decision decision;
  if (rule == nullptr) {
    decision.basis = "no_rule";
  } else {
    decision = decideRule(*rule, subject);
  }
  if (!decision.allowed || request.route_kind == catalog::RouteKind::Alias || request.model_id.empty() ||
      request.model_id == request.route_id) {
    return decision;
  }
  if (const catalog::AccessRule* model_rule = findRule(rules, entityOf(request.model_id))) {
    Decision model_decision = decideRule(*model_rule, subject);
    if (!model_decision.allowed) return model_decision;
  }
  return decision;
}

Decision decideMcpServer(const std::vector<catalog::AccessRule>& rules, std::string_view provider,
                         const AccessSubject& subject) {
  const catalog::AccessRule* rule = findRule(rules, "mcp_server/" + std::string(provider));
  if (rule == nullptr) rule = findRule(rules, "mcp_server/*");
  if (rule == nullptr) {
    Decision open;
    open.basis = "no_rule";
    return open;
  }
  return decideRule(*rule, subject);
}

Decision decideMcpTool(const std::vector<catalog::AccessRule>& rules, std::string_view provider,
                       std::string_view tool, const AccessSubject& subject) {
  Decision server = decideMcpServer(rules, provider, subject);
  if (!server.allowed) return server;
  const std::string prefix = "mcp_tool/" + std::string(provider) + "/";
  const catalog::AccessRule* rule = findRule(rules, prefix + std::string(tool));
  if (rule == nullptr) {
    for (const catalog::AccessRule& candidate : rules) {
      if (!candidate.entity.starts_with(prefix)) continue;
      const std::string_view pattern = std::string_view(candidate.entity).substr(prefix.size());
      if (pattern == "*" || !catalog::isGlob(pattern)) continue;
      if (catalog::globMatch(pattern, tool)) {
        rule = &candidate;
        break;
      }
    }
  }
  if (rule == nullptr) rule = findRule(rules, prefix + "*");
  return rule == nullptr ? server : decideRule(*rule, subject);
}

}  // namespace sluice::identity
