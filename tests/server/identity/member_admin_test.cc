// An administrator's member and key changes (server/identity/member_admin.h) over the in-memory
// stores: each stored change leaves one admin event naming actor, action and target; each refused
// one (the last admin, a bad name, an unknown member, a member with history) leaves none.
#include "server/identity/member_admin.h"

#include <boost/test/unit_test.hpp>

#include "tests/fakes/fake_admin_events.h"
#include "tests/fakes/fake_key_directory.h"

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;

namespace {

const TimePoint kNow{seconds(1'795'988'600)};

struct World {
  fakes::FakeKeyDirectory tables;
  fakes::FakeAdminEvents events;
  AdminStores stores{tables, tables, events, adminActor("console", "root")};

  Member add(const std::string& name, Role role, std::vector<std::string> projects = {"p1"}) {
    NewMember member;
    member.name = name;
    member.role = role;
    member.projects = projects;
    if (!projects.empty()) member.primary_project = projects.front();
    return adminAddMember(stores, member, kNow).value();
  }
  size_t eventCount() { return events.recent(1000, std::nullopt).size(); }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(member_admin)

BOOST_AUTO_TEST_CASE(an_update_moves_a_member_and_records_who_changed_what) {
  World world;
  world.add("root", Role::Admin);
  world.add("ana", Role::Member, {"p1", "p2"});
  MemberUpdate update;
  update.groups = std::vector<std::string>{"ops", "ops", "eng"};
  update.projects = std::vector<std::string>{"p3"};
  const auto moved = adminUpdateMember(world.stores, "ana", update, kNow + seconds(1));
  BOOST_REQUIRE(moved.has_value());
  BOOST_TEST(moved->groups == (std::vector<std::string>{"ops", "eng"}));
  BOOST_TEST(moved->projects == (std::vector<std::string>{"p3"}));
  BOOST_TEST(moved->primary_project.value() == "p3");  // p1 left: the first new project
  const auto events = world.events.recent(1, std::string("ana"));
  BOOST_REQUIRE(events.size() == 1u);
  BOOST_TEST(events[0].actor == "console:root");
  BOOST_TEST(events[0].action == "member.update");
  BOOST_TEST(events[0].detail == "groups - -> ops,eng; projects p1,p2 -> p3; primary p1 -> p3");
  BOOST_TEST((events[0].at == kNow + seconds(1)));
}

BOOST_AUTO_TEST_CASE(the_last_enabled_admin_cannot_be_disabled_demoted_or_deleted) {
  World world;
  world.add("root", Role::Admin);
  const size_t before = world.eventCount();
  const auto disabled = adminSetDisabled(world.stores, "root", true, kNow);
  BOOST_REQUIRE(!disabled.has_value());
  BOOST_TEST((disabled.error().kind == MemberErrorKind::LastAdmin));
  BOOST_TEST(disabled.error().message.find("only enabled admin") != std::string::npos);
  MemberUpdate demote;
  demote.role = Role::Member;
  BOOST_TEST((adminUpdateMember(world.stores, "root", demote, kNow).error().kind == MemberErrorKind::LastAdmin));
  BOOST_TEST((adminDeleteMember(world.stores, "root", kNow).error().kind == MemberErrorKind::LastAdmin));
  BOOST_TEST(world.eventCount() == before);
  BOOST_TEST(!world.tables.findMember("root")->disabled_at.has_value());

  // With a second enabled admin, the first may go.
  world.add("second", Role::Admin);
  BOOST_TEST(adminSetDisabled(world.stores, "root", true, kNow).value() == true);
  BOOST_TEST(adminSetDisabled(world.stores, "root", true, kNow).value() == false);  // already: no event
  BOOST_TEST(adminSetDisabled(world.stores, "root", false, kNow).value() == true);
  const auto events = world.events.recent(2, std::string("root"));
  BOOST_TEST(events[0].action == "member.enable");
  BOOST_TEST(events[1].action == "member.disable");
}

BOOST_AUTO_TEST_CASE(hostile_updates_are_refused_with_a_reason_and_leave_no_event) {
  World world;
  world.add("root", Role::Admin);
  world.add("bo", Role::Member);
  const size_t before = world.eventCount();
  MemberUpdate overlong;
  overlong.groups = std::vector<std::string>{std::string(129, 'g')};
  const auto refused = adminUpdateMember(world.stores, "bo", overlong, kNow);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST((refused.error().kind == MemberErrorKind::Invalid));
  BOOST_TEST(refused.error().message.find("invalid group name") != std::string::npos);
  MemberUpdate primary;
  primary.primary_project = "elsewhere";
  BOOST_TEST(adminUpdateMember(world.stores, "bo", primary, kNow).error().message.find("not one of") !=
             std::string::npos);
  BOOST_TEST((adminUpdateMember(world.stores, "ghost", MemberUpdate{}, kNow).error().kind ==
              MemberErrorKind::NoSuchMember));
  BOOST_TEST((adminSetDisabled(world.stores, "ghost", false, kNow).error().kind == MemberErrorKind::NoSuchMember));
  BOOST_TEST(world.eventCount() == before);
}

BOOST_AUTO_TEST_CASE(keys_made_and_revoked_are_recorded_and_a_member_with_keys_is_kept) {
  World world;
  world.add("root", Role::Admin);
  world.add("cy", Role::Member);
  world.add("typo", Role::Member);
  NewApiKey request;
  request.user = "cy";
  request.name = "laptop";
  const auto created = adminCreateKey(world.stores, request, kNow);
  BOOST_REQUIRE(created.has_value());
  const auto made = world.events.recent(1, std::string("cy"));
  BOOST_TEST(made[0].action == "key.create");
  BOOST_TEST(made[0].detail == "key " + created->info.prefix + " name laptop");
  BOOST_TEST(made[0].detail.find(created->key) == std::string::npos);  // never the key itself
  BOOST_TEST((adminRevokeKey(world.stores, created->info.id, kNow) == RevokeResult::Revoked));
  BOOST_TEST(world.events.recent(1, std::string("cy"))[0].action == "key.revoke");

  const auto kept = adminDeleteMember(world.stores, "cy", kNow);
  BOOST_REQUIRE(!kept.has_value());
  BOOST_TEST((kept.error().kind == MemberErrorKind::HasHistory));
  BOOST_TEST(kept.error().message.find("disable them instead") != std::string::npos);
  BOOST_TEST(adminDeleteMember(world.stores, "typo", kNow).has_value());
  BOOST_TEST(!world.tables.findMember("typo").has_value());
  BOOST_TEST(world.events.recent(1, std::string("typo"))[0].action == "member.delete");
}

BOOST_AUTO_TEST_CASE(an_actor_is_bounded_and_printable) {
  BOOST_TEST(adminActor("cli", "") == "cli:unknown");
  BOOST_TEST(adminActor("cli", "a\nb\x01") == "cli:a?b?");
  BOOST_TEST(adminActor("console", std::string(500, 'x')).size() == 200u);
}

BOOST_AUTO_TEST_SUITE_END()
