#pragma once
// The console's JSON API (docs/console.md lists every path). Each function answers one path for a
// signed-in admin (or, for connect, any member); none throws for bad input (4xx replies), and
// database failures throw what the stores throw: the handler maps them to 503
// (store::databaseFailureOf).

#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include <Poco/Net/HTTPServerRequest.h>

#include "server/admin/context.h"
#include "server/admin/exchange.h"
#include "server/http/request.h"
#include "server/http/server_session.h"
#include "server/identity/caller.h"

namespace sluice::admin {

// gateway_api.cc: /admin/api/gateway/{overview,providers,routes,settings}
Reply gatewayOverview(ConsoleContext& context, const Exchange& exchange);
Reply gatewayProviders(ConsoleContext& context, const Exchange& exchange);
Reply gatewayRoutes(ConsoleContext& context, const Exchange& exchange);
Reply gatewaySettings(ConsoleContext& context, const Exchange& exchange);

// requests_api.cc: /admin/api/requests, /admin/api/requests/<id>, /admin/api/requests/live (SSE)
Reply requestList(ConsoleContext& context, const Exchange& exchange);
// `owner`: a member's own view: another member's row is answered 404.
Reply requestDetail(ConsoleContext& context, const std::string& id, const std::optional<std::string>& owner = std::nullopt);
// Writes server-sent events to `out` until the client leaves, the gateway stops or `signed_in`
// (asked once a second) returns false.
void streamLiveRequests(ConsoleContext& context, std::ostream& out, const std::function<bool()>& signed_in);

// analytics_api.cc: /admin/api/analytics, /admin/api/analytics.csv
Reply analytics(ConsoleContext& context, const Exchange& exchange);
Reply analyticsCsv(ConsoleContext& context, const Exchange& exchange);

// members_api.cc: /admin/api/members. membersJson is its body (the console must have a database);
// with `only`, that member alone and only the counters they spend from (a member's own view,
// /admin/api/me).
Reply members(ConsoleContext& context, const Exchange& exchange);
nlohmann::json membersJson(ConsoleContext& context, const std::optional<std::string>& only);

// sign_on_api.cc: the sign-in page (GET /admin/login) and single sign-on, GET /admin/oidc/start and
// GET /admin/oidc/callback (answered with pages, never JSON).
Reply signInPage(ConsoleContext& context);
Reply ssoStart(ConsoleContext& context, const Poco::Net::HTTPServerRequest& request, const Exchange& exchange);
Reply ssoCallback(ConsoleContext& context, const Poco::Net::HTTPServerRequest& request, const Exchange& exchange);

// account_api.cc: a member's own account (every signed-in member, admins included):
// GET /admin/api/me, POST /admin/api/me/keys/{create,revoke}, POST /admin/api/me/credentials/set.
Reply account(ConsoleContext& context, const Exchange& exchange);
Reply accountKeyCreate(ConsoleContext& context, const Exchange& exchange);
Reply accountKeyRevoke(ConsoleContext& context, const Exchange& exchange);
Reply accountCredentialSet(ConsoleContext& context, const Exchange& exchange);

// member_changes_api.cc: POST /admin/api/members/{add,update,disable,enable},
// POST /admin/api/keys/{create,revoke}, GET /admin/api/members/history[?member=]: each change made
// through identity/member_admin.h and recorded as "console:<exchange.user>".
Reply memberAdd(ConsoleContext& context, const Exchange& exchange);
Reply memberUpdate(ConsoleContext& context, const Exchange& exchange);
Reply memberSetDisabled(ConsoleContext& context, const Exchange& exchange, bool disabled);
Reply keyCreate(ConsoleContext& context, const Exchange& exchange);
Reply keyRevoke(ConsoleContext& context, const Exchange& exchange);
Reply memberHistory(ConsoleContext& context, const Exchange& exchange);

// route_editor.cc: /admin/api/routes/{source,validate,save,diff,history,history/<name>}
Reply routeSource(ConsoleContext& context, const Exchange& exchange);
Reply routeValidate(ConsoleContext& context, const Exchange& exchange);
Reply routeSave(ConsoleContext& context, const Exchange& exchange);
Reply routeDiff(ConsoleContext& context, const Exchange& exchange);
Reply routeHistory(ConsoleContext& context, const std::string& name);

// probe.cc: POST /admin/api/probe {"model", "endpoint"[, "prompt"]}: the Test button, run by the
// one pipeline (endpoints/probe.h) on the console's own request.
Reply probeDeployment(ConsoleContext& context, const Exchange& exchange, http::Request& request,
                      http::ServerResponse& response);

// connect_api.cc: /admin/api/connect for `caller`; `base_url` is how the caller reaches the gateway.
Reply connectProfile(ConsoleContext& context, const identity::Caller& caller, const std::string& base_url);

// access_api.cc: /admin/api/access (rules) and /admin/api/access/check?user=&project=
Reply accessRules(ConsoleContext& context, const Exchange& exchange);
Reply accessCheck(ConsoleContext& context, const Exchange& exchange);
// GET /admin/api/mcp[?user=NAME[&project=P]]: the MCP servers, their rules, the calls per tool
// (7 days), and with `user` that member's standing on each server and tool.
Reply mcpServers(ConsoleContext& context, const Exchange& exchange);

}  // namespace sluice::admin
