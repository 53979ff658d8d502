#pragma once
// Who may use which route: services/access-control/rules.yaml applied to one request.
// Pure: the same rules and subject give the same decision. No I/O, never throws.
//
// The rule for a route is its own entity `gateway_route/<route id>` when rules.yaml has one, else
// `gateway_route/*` (CATALOG.md: `*` is every route without a rule of its own), else none: a route
// that no rule governs is open. Inside a rule the bands are consulted from narrowest to widest:
// person, project, group, role. The first band in which the subject matches a name of `deny` or
// `allow` decides, deny beating allow inside that band; no band matching → the rule's `default`.
//
// The project band matches the project the request is attributed to (identity/scope.h), not every
// project the member belongs to: a member of two projects is judged by the one the request is for.
//
// NOTE: a request is served by one route, but a model is also governed by its implicit route
// (`gateway_route/<model id>`). When a client asks for a model by its own id and another route
// serves it (a policy, pinned or scoped route over that model), a rule of the model's own entity
// must also allow the request, so a model closed by its implicit route is not reachable through a
// policy route that names it. An alias is asked for by its own name: only its rule applies. The
// wildcard is never applied twice.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "server/identity/caller.h"
#include "server/identity/scope.h"

namespace sluice::identity {

struct AccessSubject {
  std::string_view user;
  std::string_view role;                  // "member" | "admin"
  const std::vector<std::string>* groups = nullptr;  // nullptr: none
  std::optional<std::string_view> project;           // the attributed project, if any
};

// The subject for `caller` with the request's `scope`. The result points into both: keep them alive
// while it is used.
AccessSubject accessSubject(const Caller& caller, const Scope& scope);

struct AccessRequest {
  std::string_view route_id;  // the route serving the request (Plan::route->id)
  catalog::RouteKind route_kind = catalog::RouteKind::Implicit;  // Plan::route->kind
  std::string_view model_id;  // the declared model that serves it (Plan::model_id); may be empty
};

struct Decision {
  bool allowed = true;
  std::string entity;  // "gateway_route/<id>" or "gateway_route/*"; empty when no rule applied
  std::string why;     // the rule's why
  // How it was decided, for logs and the audit row: "deny:project=contractors",
  // "allow:group=engineering", "default:closed", "default:open", "no_rule".
  std::string basis;

  // "authz denied [<entity>]: <why>" (why may be empty: "authz denied [<entity>]").
  std::string message() const;
};

Decision decideAccess(const std::vector<catalog::AccessRule>& rules, const AccessRequest& request,
                      const AccessSubject& subject);

// MCP servers and their tools (docs/mcp.md). A server is governed by `mcp_server/<provider>`, else
// `mcp_server/*`, else nothing (open). A tool needs its server allowed first, then is governed by
// the first that exists of: `mcp_tool/<provider>/<tool>`, the first pattern
// `mcp_tool/<provider>/<glob>` in file order that matches it ('*' and '?'), `mcp_tool/<provider>/*`;
// none: the server's decision stands.
Decision decideMcpServer(const std::vector<catalog::AccessRule>& rules, std::string_view provider,
                         const AccessSubject& subject);
Decision decideMcpTool(const std::vector<catalog::AccessRule>& rules, std::string_view provider,
                       std::string_view tool, const AccessSubject& subject);

// The decision of one rule for `subject` (exposed for tests and `catalog explain`).
Decision decideRule(const catalog::AccessRule& rule, const AccessSubject& subject);

}  // namespace sluice::identity
