// SCIM provisioning (server/identity/provisioning.h) over the in-memory stores, with bodies shaped
// as Okta and Entra ID send them: users created, found, deactivated, adopted and deleted; groups
// created, renamed, filled and emptied in members' groups; roles following admin groups; every
// change an admin event by actor "scim".
#include "server/identity/provisioning.h"

#include <boost/test/unit_test.hpp>

#include "server/identity/group_roles.h"
#include "tests/fakes/fake_admin_events.h"
#include "tests/fakes/fake_directory.h"
#include "tests/fakes/fake_key_directory.h"

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;
using nlohmann::json;

namespace {

const system_clock::time_point kNow{seconds(1'795'988'600)};

struct World {
  fakes::FakeKeyDirectory tables;
  fakes::FakeDirectory directory{tables};
  fakes::FakeAdminEvents events;
  ProvisioningStores stores{directory, tables, events};
  std::vector<std::string> admin_groups;

  ScimAnswer call(const std::string& method, const std::string& path, const std::string& body = "",
                  std::map<std::string, std::string> query = {}) {
    return serveScim(stores, {method, path, std::move(query), body, "https://gw.example.com/scim/v2"}, admin_groups, kNow);
  }
  std::string createUser(const std::string& name) {
    const auto created = call("POST", "/Users", json{{"userName", name}, {"active", true}}.dump());
    BOOST_REQUIRE_MESSAGE(created.status == 201, created.body.dump());
    return created.body["id"];
  }
  store::MemberRow member(const std::string& name) { return *tables.findMember(name); }
  std::vector<std::string> actions(const std::string& target) {
    std::vector<std::string> out;
    for (const auto& event : events.recent(100, target)) out.insert(out.begin(), event.action);
    return out;
  }
  void addCliMember(const std::string& name, const std::string& role = "member") {
    store::MemberRow row;
    row.name = name;
    row.role = role;
    row.created_at = kNow;
    tables.putMember(row);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(provisioning)

BOOST_AUTO_TEST_CASE(okta_creates_finds_and_deactivates_a_user) {
  World world;
  const auto created = world.call("POST", "/Users", R"({"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],
    "userName":"alice@example.com","name":{"givenName":"Alice","familyName":"L"},
    "emails":[{"primary":true,"value":"alice@example.com","type":"work"}],"displayName":"Alice L","active":true,
    "password":"Zz-never-kept-1","externalId":"00u1"})");
  BOOST_REQUIRE_MESSAGE(created.status == 201, created.body.dump());
  const std::string id = created.body["id"];
  BOOST_TEST(created.location == "https://gw.example.com/scim/v2/Users/" + id);
  BOOST_TEST(created.body.dump().find("Zz-never-kept-1") == std::string::npos);
  const auto stored = world.member("alice@example.com");
  BOOST_TEST(stored.source == "scim");
  BOOST_TEST(stored.role == "member");
  BOOST_TEST(*stored.scim_id == id);
  BOOST_TEST(*stored.email == "alice@example.com");

  const auto found = world.call("GET", "/Users", "", {{"filter", "userName eq \"ALICE@example.com\""}, {"startIndex", "1"}, {"count", "100"}});
  BOOST_REQUIRE_EQUAL(found.status, 200);
  BOOST_TEST(found.body["totalResults"] == 1);
  BOOST_TEST(found.body["Resources"][0]["id"] == id);
  BOOST_TEST(world.call("GET", "/Users", "", {{"filter", "userName eq \"nobody\""}}).body["totalResults"] == 0);

  const auto off = world.call("PATCH", "/Users/" + id, R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    "Operations":[{"op":"replace","value":{"active":false}}]})");
  BOOST_REQUIRE_MESSAGE(off.status == 200, off.body.dump());
  BOOST_TEST(off.body["active"] == false);
  BOOST_TEST((world.member("alice@example.com").disabled_at == kNow));
  BOOST_TEST((world.actions("alice@example.com") == std::vector<std::string>{"member.create", "member.disable"}));
  for (const auto& event : world.events.recent(10, std::nullopt)) BOOST_TEST(event.actor == "scim");
}

BOOST_AUTO_TEST_CASE(entra_deactivates_with_a_string_and_reactivates) {
  World world;
  const std::string id = world.createUser("bob@contoso.com");
  const auto off = world.call("PATCH", "/Users/" + id, R"({"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
    "Operations":[{"op":"Replace","path":"active","value":"False"},
    {"op":"Add","path":"emails[type eq \"work\"].value","value":"bob@contoso.com"}]})");
  BOOST_REQUIRE_MESSAGE(off.status == 200, off.body.dump());
  BOOST_TEST(world.member("bob@contoso.com").disabled_at.has_value());
  BOOST_TEST(*world.member("bob@contoso.com").email == "bob@contoso.com");
  const auto on = world.call("PATCH", "/Users/" + id, R"({"Operations":[{"op":"Replace","path":"active","value":"True"}]})");
  BOOST_REQUIRE_EQUAL(on.status, 200);
  BOOST_TEST(!world.member("bob@contoso.com").disabled_at.has_value());
  const auto by_external = world.call("GET", "/Users", "", {{"filter", "externalId eq \"none\""}});
  BOOST_TEST(by_external.body["totalResults"] == 0);
}

BOOST_AUTO_TEST_CASE(a_member_made_elsewhere_is_adopted_and_a_scim_one_is_unique) {
  World world;
  world.addCliMember("carol", "admin");
  const auto adopted = world.call("POST", "/Users", R"({"userName":"carol","externalId":"e-carol","active":true})");
  BOOST_REQUIRE_MESSAGE(adopted.status == 201, adopted.body.dump());
  const auto carol = world.member("carol");
  BOOST_TEST(carol.source == "cli");  // kept
  BOOST_TEST(carol.role == "admin");  // kept
  BOOST_TEST(*carol.external_id == "e-carol");
  BOOST_TEST(adopted.body["id"] == *carol.scim_id);
  BOOST_TEST((world.actions("carol") == std::vector<std::string>{"member.adopt"}));
  // Another identity provider's person of the same name is not this member.
  const auto other = world.call("POST", "/Users", R"({"userName":"carol","externalId":"e-other"})");
  BOOST_TEST(other.status == 409);
  BOOST_TEST(other.body["scimType"] == "uniqueness");
  BOOST_TEST(other.body["status"] == "409");
  world.createUser("dave");
  const auto twice = world.call("POST", "/Users", R"({"userName":"dave"})");
  BOOST_TEST(twice.status == 409);
  BOOST_TEST(twice.body["schemas"][0] == "urn:ietf:params:scim:api:messages:2.0:Error");
}

BOOST_AUTO_TEST_CASE(user_names_follow_the_member_name_rule_and_never_change) {
  World world;
  const auto bad = world.call("POST", "/Users", R"({"userName":"has space"})");
  BOOST_TEST(bad.status == 400);
  BOOST_TEST(bad.body["scimType"] == "invalidValue");
  const std::string id = world.createUser("erin");
  const auto renamed = world.call("PUT", "/Users/" + id, R"({"userName":"erin2","active":true})");
  BOOST_TEST(renamed.status == 400);
  BOOST_TEST(renamed.body["scimType"] == "mutability");
  const auto replaced = world.call("PUT", "/Users/" + id, R"({"userName":"erin","displayName":"Erin E","active":true})");
  BOOST_TEST(replaced.status == 200);
  BOOST_TEST(replaced.body["displayName"] == "Erin E");
  BOOST_TEST(world.call("GET", "/Users/nope").status == 404);
  BOOST_TEST(world.call("GET", "/Users", "", {{"filter", "title eq \"x\""}}).body["scimType"] == "invalidFilter");
  BOOST_TEST(world.call("POST", "/Users", "{bad").body["scimType"] == "invalidSyntax");
}

BOOST_AUTO_TEST_CASE(delete_removes_a_member_without_history_and_detaches_one_with_a_key) {
  World world;
  const std::string plain = world.createUser("fay");
  BOOST_TEST(world.call("DELETE", "/Users/" + plain).status == 204);
  BOOST_TEST(!world.tables.findMember("fay"));
  const std::string keyed = world.createUser("gus");
  store::KeyRow key;
  key.id = "AbCdEf12";
  key.prefix = "sk-sluice-AbCdEf12";
  key.user = "gus";
  key.created_at = kNow;
  world.tables.putKey(key, std::string(32, 'h'));
  BOOST_TEST(world.call("DELETE", "/Users/" + keyed).status == 204);
  const auto gus = world.member("gus");
  BOOST_TEST(gus.disabled_at.has_value());
  BOOST_TEST(!gus.scim_id.has_value());
  BOOST_TEST(world.call("GET", "/Users/" + keyed).status == 404);
  BOOST_TEST((world.actions("gus") == std::vector<std::string>{"member.create", "member.disable", "member.detach"}));
}

BOOST_AUTO_TEST_CASE(groups_are_names_in_members_groups) {
  World world;
  const std::string ann = world.createUser("ann");
  const std::string ben = world.createUser("ben");
  const auto created = world.call("POST", "/Groups", json{{"displayName", "Platform Team"},
                                                          {"members", {{{"value", ann}}}}}.dump());
  BOOST_REQUIRE_MESSAGE(created.status == 201, created.body.dump());
  const std::string group = created.body["id"];
  BOOST_TEST(created.body["members"][0]["value"] == ann);
  BOOST_TEST((world.member("ann").groups == std::vector<std::string>{"Platform Team"}));
  // Entra: add by value array; lookup without members.
  auto added = world.call("PATCH", "/Groups/" + group,
                          json{{"schemas", {"urn:ietf:params:scim:api:messages:2.0:PatchOp"}},
                               {"Operations", {{{"op", "Add"}, {"path", "members"}, {"value", {{{"value", ben}}}}}}}}.dump());
  BOOST_TEST(added.status == 204);
  BOOST_TEST((world.member("ben").groups == std::vector<std::string>{"Platform Team"}));
  const auto looked = world.call("GET", "/Groups", "", {{"filter", "displayName eq \"Platform Team\""}, {"excludedAttributes", "members"}});
  BOOST_TEST(looked.body["totalResults"] == 1);
  BOOST_TEST(!looked.body["Resources"][0].contains("members"));
  // Okta: remove by filtered path; rename without a path.
  BOOST_TEST(world.call("PATCH", "/Groups/" + group,
                        R"({"Operations":[{"op":"remove","path":"members[value eq \")" + ann + R"(\"]"}]})").status == 204);
  BOOST_TEST(world.member("ann").groups.empty());
  BOOST_TEST(world.call("PATCH", "/Groups/" + group, R"({"Operations":[{"op":"replace","value":{"id":"x","displayName":"platform"}}]})").status == 204);
  BOOST_TEST((world.member("ben").groups == std::vector<std::string>{"platform"}));
  BOOST_TEST(world.call("POST", "/Groups", R"({"displayName":"platform"})").status == 409);
  BOOST_TEST(world.call("POST", "/Groups", R"({"displayName":"x","members":[{"value":"no-such-user"}]})").body["scimType"] == "invalidValue");
  BOOST_TEST(world.call("DELETE", "/Groups/" + group).status == 204);
  BOOST_TEST(world.member("ben").groups.empty());
  BOOST_TEST((world.actions("ben") == std::vector<std::string>{"member.create", "group.add_member", "group.remove_member"}));
}

BOOST_AUTO_TEST_CASE(admin_groups_make_admins_but_never_demote_the_last) {
  World world;
  world.admin_groups = {"admins"};
  const std::string hal = world.createUser("hal");
  const auto created = world.call("POST", "/Groups", json{{"displayName", "admins"}, {"members", {{{"value", hal}}}}}.dump());
  BOOST_REQUIRE_EQUAL(created.status, 201);
  BOOST_TEST(world.member("hal").role == "admin");
  // hal is the only enabled admin: leaving the group keeps them admin, with a warning.
  const auto left = world.call("PATCH", "/Groups/" + std::string(created.body["id"]),
                               json{{"Operations", {{{"op", "Remove"}, {"path", "members"}, {"value", {{{"value", hal}}}}}}}}.dump());
  BOOST_TEST(left.status == 204);
  BOOST_TEST(world.member("hal").role == "admin");
  BOOST_TEST(left.warnings.size() == 1u);
  // With another admin, they are demoted; a CLI-made member's role is never the groups'.
  world.addCliMember("root", "admin");
  world.addCliMember("ivy", "member");
  world.call("PATCH", "/Groups/" + std::string(created.body["id"]),
             json{{"Operations", {{{"op", "add"}, {"path", "members"}, {"value", {{{"value", hal}}}}}}}}.dump());
  world.call("PATCH", "/Groups/" + std::string(created.body["id"]), R"({"Operations":[{"op":"remove","path":"members"}]})");
  BOOST_TEST(world.member("hal").role == "member");
}

BOOST_AUTO_TEST_CASE(role_from_groups_is_the_one_rule) {
  BOOST_TEST(!roleFromGroups({"a"}, {}).has_value());
  BOOST_TEST((roleFromGroups({"a", "ops"}, {"ops"}) == Role::Admin));
  BOOST_TEST((roleFromGroups({"a"}, {"ops"}) == Role::Member));
  BOOST_TEST(groupsDecideRole("scim"));
  BOOST_TEST(groupsDecideRole("sso"));
  BOOST_TEST(!groupsDecideRole("cli"));
}

BOOST_AUTO_TEST_CASE(discovery_and_unknown_paths) {
  World world;
  BOOST_TEST(world.call("GET", "/ServiceProviderConfig").body["patch"]["supported"] == true);
  BOOST_TEST(world.call("GET", "/ResourceTypes/User").body["endpoint"] == "/Users");
  BOOST_TEST(world.call("GET", "/Schemas").body["totalResults"] == 3);
  BOOST_TEST(world.call("GET", "/Bulk").status == 404);
  BOOST_TEST(world.call("DELETE", "/Users").status == 405);
}

BOOST_AUTO_TEST_SUITE_END()
