#include "server/identity/access.h"

#include <boost/test/unit_test.hpp>

using namespace sluice;
using namespace sluice::identity;

namespace {

catalog::AccessRule rule(std::string entity, catalog::AccessDefault default_access, std::string why,
                         catalog::AccessBands allow = {}, catalog::AccessBands deny = {}) {
  catalog::AccessRule r;
  r.entity = std::move(entity);
  r.default_access = default_access;
  r.why = std::move(why);
  r.allow = std::move(allow);
  r.deny = std::move(deny);
  return r;
}

catalog::AccessBands bands(std::vector<std::string> person, std::vector<std::string> project,
                           std::vector<std::string> group, std::vector<std::string> role) {
  catalog::AccessBands b;
  b.person = std::move(person);
  b.project = std::move(project);
  b.group = std::move(group);
  b.role = std::move(role);
  return b;
}

constexpr auto kOpen = catalog::AccessDefault::Open;
constexpr auto kClosed = catalog::AccessDefault::Closed;

struct Who {
  std::string user;
  std::string role = "member";
  std::vector<std::string> groups;
  std::optional<std::string> project;
};

Who named(std::string user) {
  Who who;
  who.user = std::move(user);
  return who;
}

AccessSubject subjectOf(const Who& who) {
  AccessSubject s;
  s.user = who.user;
  s.role = who.role;
  s.groups = &who.groups;
  if (who.project) s.project = *who.project;
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(access_decision)

// The table: one rule with every band, and callers that match different bands.
BOOST_AUTO_TEST_CASE(narrowest_matching_band_decides_and_deny_beats_allow_inside_it) {
  const auto the_rule = rule("gateway_route/go-deepseek-v4-pro", kClosed, "Personal Go keys are for the engineering group.",
                             bands({"carol"}, {"odoo-delivery"}, {"engineering"}, {"admin"}),
                             bands({"mallory"}, {"contractors"}, {"interns"}, {}));
  struct Row {
    Who who;
    bool allowed;
    std::string basis;
  };
  const std::vector<Row> table = {
      {{"alice", "member", {"engineering"}, std::nullopt}, true, "allow:group=engineering"},
      {{"bob", "member", {"sales"}, std::nullopt}, false, "default:closed"},
      {{"dave", "admin", {}, std::nullopt}, true, "allow:role=admin"},
      // Deny beats allow in the same band.
      {{"erin", "member", {"engineering", "interns"}, std::nullopt}, false, "deny:group=interns"},
      // A narrower band decides before a wider one: project deny before group allow...
      {{"alice", "member", {"engineering"}, "contractors"}, false, "deny:project=contractors"},
      // ...project allow before group deny...
      {{"erin", "member", {"interns"}, "odoo-delivery"}, true, "allow:project=odoo-delivery"},
      // ...person allow before project deny, person deny before everything.
      {{"carol", "member", {"interns"}, "contractors"}, true, "allow:person=carol"},
      {{"mallory", "admin", {"engineering"}, "odoo-delivery"}, false, "deny:person=mallory"},
      // A project the rule does not name falls through to the next band.
      {{"frank", "member", {"engineering"}, "research"}, true, "allow:group=engineering"},
      {{"grace", "member", {}, "research"}, false, "default:closed"},
  };
  for (const Row& row : table) {
    const Decision decision = decideRule(the_rule, subjectOf(row.who));
    BOOST_TEST(decision.allowed == row.allowed, row.who.user << " " << row.basis);
    BOOST_TEST(decision.basis == row.basis, row.who.user << ": " << decision.basis);
    BOOST_TEST(decision.entity == "gateway_route/go-deepseek-v4-pro");
  }
}

BOOST_AUTO_TEST_CASE(default_open_allows_unless_a_band_denies) {
  const auto the_rule = rule("gateway_route/*", kOpen, "Everyone", {}, bands({}, {}, {}, {"member"}));
  BOOST_TEST(!decideRule(the_rule, subjectOf({"alice", "member", {}, std::nullopt})).allowed);
  BOOST_TEST(decideRule(the_rule, subjectOf({"root", "admin", {}, std::nullopt})).allowed);
  BOOST_TEST(decideRule(rule("gateway_route/*", kOpen, ""), subjectOf(named("x"))).basis == "default:open");
}

BOOST_AUTO_TEST_CASE(a_routes_own_rule_replaces_the_wildcard) {
  const std::vector<catalog::AccessRule> rules = {
      rule("gateway_route/*", kClosed, "Closed unless listed.", bands({}, {}, {"engineering"}, {})),
      rule("gateway_route/claude-haiku", kOpen, "Haiku is for everyone."),
  };
  const Who sales{"bob", "member", {"sales"}, std::nullopt};
  AccessRequest haiku;
  haiku.route_id = "claude-haiku";
  haiku.model_id = "claude-haiku";
  const Decision open = decideAccess(rules, haiku, subjectOf(sales));
  BOOST_TEST(open.allowed);
  BOOST_TEST(open.entity == "gateway_route/claude-haiku");
  AccessRequest sonnet;
  sonnet.route_id = "claude-sonnet";
  sonnet.model_id = "claude-sonnet";
  const Decision closed = decideAccess(rules, sonnet, subjectOf(sales));
  BOOST_TEST(!closed.allowed);
  BOOST_TEST(closed.entity == "gateway_route/*");
  BOOST_TEST(closed.message() == "authz denied [gateway_route/*]: Closed unless listed.");
}

BOOST_AUTO_TEST_CASE(no_rule_at_all_is_open) {
  AccessRequest request;
  request.route_id = "anything";
  const Decision decision = decideAccess({}, request, subjectOf(named("alice")));
  BOOST_TEST(decision.allowed);
  BOOST_TEST(decision.basis == "no_rule");
}

BOOST_AUTO_TEST_CASE(a_model_closed_by_its_own_rule_stays_closed_through_a_policy_route) {
  const std::vector<catalog::AccessRule> rules = {
      rule("gateway_route/*", kOpen, "Open."),
      rule("gateway_route/claude-opus", kClosed, "Opus is for research.", bands({}, {}, {"research"}, {})),
  };
  AccessRequest through_policy;
  through_policy.route_id = "fast-pool";
  through_policy.route_kind = catalog::RouteKind::Policy;
  through_policy.model_id = "claude-opus";
  const Decision denied = decideAccess(rules, through_policy, subjectOf({"bob", "member", {"sales"}, std::nullopt}));
  BOOST_TEST(!denied.allowed);
  BOOST_TEST(denied.message() == "authz denied [gateway_route/claude-opus]: Opus is for research.");
  BOOST_TEST(decideAccess(rules, through_policy, subjectOf({"r", "member", {"research"}, std::nullopt})).allowed);
  // An alias is asked for by its own name: the model's rule does not apply to it.
  AccessRequest alias = through_policy;
  alias.route_id = "opus-alias";
  alias.route_kind = catalog::RouteKind::Alias;
  BOOST_TEST(decideAccess(rules, alias, subjectOf({"bob", "member", {"sales"}, std::nullopt})).allowed);
}

BOOST_AUTO_TEST_CASE(the_shipped_rule_opens_every_route) {
  const std::vector<catalog::AccessRule> rules = {
      rule("gateway_route/*", kOpen, "Every model route is reachable by every signed-in member.")};
  AccessRequest request;
  request.route_id = "go-deepseek-v4-pro";
  request.route_kind = catalog::RouteKind::Alias;
  request.model_id = "deepseek-v4-pro";
  BOOST_TEST(decideAccess(rules, request, subjectOf(named("anyone"))).allowed);
}

BOOST_AUTO_TEST_CASE(subject_from_a_caller_and_its_scope) {
  Caller caller;
  caller.user = "alice";
  caller.role = Role::Admin;
  caller.groups = {"engineering"};
  Scope scope;
  scope.project = "contractors";
  const auto the_rule = rule("gateway_route/x", kClosed, "", bands({}, {}, {"engineering"}, {}),
                             bands({}, {"contractors"}, {}, {}));
  BOOST_TEST(decideRule(the_rule, accessSubject(caller, scope)).basis == "deny:project=contractors");
  scope.project.reset();
  BOOST_TEST(decideRule(the_rule, accessSubject(caller, scope)).basis == "allow:group=engineering");
  BOOST_TEST(std::string(accessSubject(caller, scope).role) == "admin");
}

BOOST_AUTO_TEST_CASE(message_without_a_why) {
  Decision decision;
  decision.allowed = false;
  decision.entity = "gateway_route/x";
  BOOST_TEST(decision.message() == "authz denied [gateway_route/x]");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(mcp_access)

// A server's rule, then its tools': exact name, the first matching pattern in file order, the
// server's wildcard; the server must let the caller in first.
BOOST_AUTO_TEST_CASE(tools_are_decided_by_their_own_rule_then_a_pattern_then_the_wildcard) {
  const std::vector<catalog::AccessRule> rules = {
      rule("mcp_server/github", kOpen, "Contractors do not use GitHub here.", {}, bands({}, {"contractors"}, {}, {})),
      rule("mcp_tool/github/delete_*", kClosed, "Destructive tools need an approval.", bands({}, {}, {"admins"}, {})),
      rule("mcp_tool/github/delete_branch", kOpen, "Branches are cheap."),
      rule("mcp_tool/github/*", kOpen, "Every other tool."),
      rule("mcp_tool/jira/*", kClosed, "Jira is read through the console."),
  };
  Who alice = named("alice");
  Who admin = named("root");
  admin.groups = {"admins"};
  Who contractor = named("carl");
  contractor.project = "contractors";

  BOOST_TEST(decideMcpServer(rules, "github", subjectOf(alice)).allowed);
  BOOST_TEST(decideMcpTool(rules, "github", "create_issue", subjectOf(alice)).allowed);
  const Decision destructive = decideMcpTool(rules, "github", "delete_repository", subjectOf(alice));
  BOOST_TEST(!destructive.allowed);
  BOOST_TEST(destructive.entity == "mcp_tool/github/delete_*");
  BOOST_TEST(destructive.message() == "authz denied [mcp_tool/github/delete_*]: Destructive tools need an approval.");
  BOOST_TEST(decideMcpTool(rules, "github", "delete_repository", subjectOf(admin)).allowed);
  // The exact rule wins over the pattern.
  BOOST_TEST(decideMcpTool(rules, "github", "delete_branch", subjectOf(alice)).allowed);
  // The server's rule decides first: a contractor is refused every tool, whatever the tool's rule.
  const Decision refused = decideMcpTool(rules, "github", "create_issue", subjectOf(contractor));
  BOOST_TEST(!refused.allowed);
  BOOST_TEST(refused.entity == "mcp_server/github");
  BOOST_TEST(refused.basis == "deny:project=contractors");
  // No server rule: open; then the tool wildcard closes.
  BOOST_TEST(decideMcpServer(rules, "jira", subjectOf(alice)).basis == "no_rule");
  BOOST_TEST(!decideMcpTool(rules, "jira", "search", subjectOf(alice)).allowed);
  // Nothing at all: open.
  BOOST_TEST(decideMcpTool(rules, "slack", "post", subjectOf(alice)).allowed);
}

BOOST_AUTO_TEST_CASE(mcp_server_wildcard_governs_servers_without_a_rule) {
  const std::vector<catalog::AccessRule> rules = {
      rule("mcp_server/*", kClosed, "Tool servers are opt-in.", bands({}, {}, {"agents"}, {})),
  };
  Who alice = named("alice");
  Who bot = named("bot");
  bot.groups = {"agents"};
  BOOST_TEST(!decideMcpServer(rules, "github", subjectOf(alice)).allowed);
  BOOST_TEST(decideMcpServer(rules, "github", subjectOf(bot)).allowed);
  BOOST_TEST(decideMcpTool(rules, "github", "anything", subjectOf(bot)).allowed);
  // Model routes are not governed by MCP entities, nor the other way round.
  AccessRequest route;
  route.route_id = "claude-sonnet-5-5";
  BOOST_TEST(decideAccess(rules, route, subjectOf(alice)).allowed);
}

BOOST_AUTO_TEST_SUITE_END()
