// The roster's changes after a member is added (update, enable, remove) and the admin_events log,
// each held to one contract against PostgreSQL and the in-memory fakes of tests/fakes.
#include <boost/test/unit_test.hpp>

#include "server/store/pg_admin_events.h"
#include "tests/fakes/fake_admin_events.h"
#include "tests/server/store/identity_tables.h"

using namespace sluice;
using namespace std::chrono;

namespace {

const store::TimePoint kNow{seconds(1'795'988'600)};

store::MemberRow member(const std::string& name) {
  store::MemberRow row;
  row.name = name;
  row.role = "member";
  row.groups = {"eng"};
  row.projects = {"p1"};
  row.primary_project = "p1";
  row.created_at = kNow;
  row.cert_subjects = {"cn:" + name};
  return row;
}

class PgEvents {
 public:
  PgEvents() : pool_(std::make_shared<store::ConnectionPool>(database_.url())), events_(pool_) {}
  store::AdminEvents& events() { return events_; }

 private:
  test::ScratchDatabase database_;
  std::shared_ptr<store::ConnectionPool> pool_;
  store::PgAdminEvents events_;
};

class FakeEvents {
 public:
  store::AdminEvents& events() { return events_; }

 private:
  fakes::FakeAdminEvents events_;
};

using EventBackends = std::tuple<PgEvents, FakeEvents>;

}  // namespace

BOOST_AUTO_TEST_SUITE(member_changes)

BOOST_AUTO_TEST_CASE_TEMPLATE(an_update_replaces_role_groups_and_projects_and_keeps_the_rest, Tables,
                              test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  BOOST_REQUIRE(roster.insertMember(member("gail")).has_value());
  BOOST_REQUIRE((roster.setDisabled("gail", kNow + seconds(1)) == store::DisableChange::Disabled));
  store::MemberRow changed = member("gail");
  changed.role = "admin";
  changed.groups = {"ops", "eng"};
  changed.projects = {"p2"};
  changed.primary_project = "p2";
  changed.cert_subjects = {};          // not the update's to change
  changed.created_at = kNow + hours(5);  // nor this
  const auto updated = roster.updateMember(changed);
  BOOST_REQUIRE(updated.has_value());
  BOOST_TEST(updated->role == "admin");
  BOOST_TEST(updated->groups == (std::vector<std::string>{"ops", "eng"}));
  BOOST_TEST(updated->projects == (std::vector<std::string>{"p2"}));
  BOOST_TEST(updated->primary_project.value() == "p2");
  BOOST_TEST(updated->cert_subjects == (std::vector<std::string>{"cn:gail"}));
  BOOST_TEST((updated->created_at == kNow));
  BOOST_TEST(updated->disabled_at.has_value());
  // The request path reads the same row.
  BOOST_TEST(tables.directory()->findMember("gail")->projects == (std::vector<std::string>{"p2"}));

  const auto missing = roster.updateMember(member("nobody"));
  BOOST_REQUIRE(!missing.has_value());
  BOOST_TEST((missing.error().kind == store::RosterConflict::Kind::NoSuchMember));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_disabled_member_is_enabled_once, Tables, test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  BOOST_REQUIRE(roster.insertMember(member("hal")).has_value());
  BOOST_TEST((roster.clearDisabled("hal") == store::EnableChange::AlreadyEnabled));
  BOOST_REQUIRE((roster.setDisabled("hal", kNow) == store::DisableChange::Disabled));
  BOOST_TEST((roster.clearDisabled("hal") == store::EnableChange::Enabled));
  BOOST_TEST(!roster.findMember("hal")->disabled_at.has_value());
  BOOST_TEST((roster.clearDisabled("hal") == store::EnableChange::AlreadyEnabled));
  BOOST_TEST((roster.clearDisabled("nobody") == store::EnableChange::NoSuchMember));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_member_with_a_key_is_never_removed_one_without_is_with_its_subjects, Tables,
                              test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  BOOST_REQUIRE(roster.insertMember(member("ivy")).has_value());
  BOOST_REQUIRE(roster.insertMember(member("jon")).has_value());
  store::KeyRow key;
  key.id = "IVYKEY01";
  key.user = "ivy";
  key.created_at = kNow;
  BOOST_REQUIRE(tables.keys().insertKey(key, std::string(32, 'i')).has_value());
  BOOST_REQUIRE(tables.keys().setRevoked("IVYKEY01", kNow).has_value());

  BOOST_TEST((roster.removeMember("ivy") == store::RemoveChange::HasHistory));  // even a revoked key counts
  BOOST_TEST(roster.findMember("ivy").has_value());
  BOOST_TEST((roster.removeMember("jon") == store::RemoveChange::Removed));
  BOOST_TEST(!roster.findMember("jon").has_value());
  BOOST_TEST(tables.directory()->findMembersBySubjects({"cn:jon"}).empty());
  BOOST_TEST((roster.removeMember("jon") == store::RemoveChange::NoSuchMember));
  // The name is free again, and its subject.
  BOOST_TEST(roster.insertMember(member("jon")).has_value());
}

BOOST_AUTO_TEST_CASE(a_member_an_audited_request_names_is_never_removed) {
  test::PgIdentityTables tables;
  BOOST_REQUIRE(tables.members().insertMember(member("kim")).has_value());
  tables.database()->scalar("SELECT sluice_ensure_ai_requests_partition(current_date)");
  tables.database()->scalar(
      "INSERT INTO ai_requests (id, created_at, outcome, user_name) VALUES ('r-kim', now(), 'ok', 'kim') RETURNING 1");
  BOOST_TEST((tables.members().removeMember("kim") == store::RemoveChange::HasHistory));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(admin_events_come_back_newest_first_and_by_target, Backend, EventBackends) {
  Backend backend;
  auto& events = backend.events();
  const auto first = events.append({0, kNow, "cli:root", "member.add", "lee", "role member"});
  const auto second = events.append({0, kNow, "console:ann", "member.update", "lee", "groups - -> ops"});
  events.append({0, kNow - seconds(5), "console:ann", "key.create", "max", "key MAXKEY01"});
  BOOST_TEST(second.id > first.id);
  const auto all = events.recent(10, std::nullopt);
  BOOST_REQUIRE(all.size() == 3u);
  BOOST_TEST(all[0].action == "member.update");  // same time: the later id first
  BOOST_TEST(all[0].actor == "console:ann");
  BOOST_TEST(all[0].detail == "groups - -> ops");
  BOOST_TEST((all[0].at == kNow));
  BOOST_TEST(all[1].action == "member.add");
  BOOST_TEST(all[2].target == "max");
  BOOST_TEST(events.recent(1, std::nullopt).size() == 1u);
  const auto lee = events.recent(10, std::string("lee"));
  BOOST_TEST(lee.size() == 2u);
  BOOST_TEST(events.recent(10, std::string("nobody")).empty());
}

BOOST_AUTO_TEST_SUITE_END()
