#include "server/identity/member_store.h"

#include <boost/test/unit_test.hpp>

#include "server/identity/key_store.h"
#include "tests/server/identity/identity_database.h"
#include "tests/server/store/identity_tables.h"

// identity's rules for members and keys, over the PostgreSQL tables and over the in-memory fake
// alike (each case runs on both: tests/server/store/identity_tables.h).

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;
using test::kTestNow;

namespace {

Member addPlainMember(store::MemberRoster& roster, const std::string& name, std::vector<std::string> projects = {}) {
  NewMember member;
  member.name = name;
  member.projects = std::move(projects);
  if (!member.projects.empty()) member.primary_project = member.projects.front();
  return addMember(roster, member, kTestNow).value();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(member_store)

BOOST_AUTO_TEST_CASE_TEMPLATE(add_list_find_and_refuse_a_duplicate, Tables, test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  NewMember member;
  member.name = "ms-alice";
  member.role = Role::Admin;
  member.groups = {"engineering", "platform", "engineering"};
  member.projects = {"odoo-delivery", "research"};
  member.primary_project = "research";
  const auto added = addMember(roster, member, kTestNow);
  BOOST_REQUIRE_MESSAGE(added.has_value(), added.error().message);
  BOOST_TEST(added->groups == (std::vector<std::string>{"engineering", "platform"}));
  BOOST_TEST(added->primary_project.value() == "research");
  BOOST_TEST((added->created_at == kTestNow));
  BOOST_TEST(!added->disabled());
  const auto again = addMember(roster, member, kTestNow);
  BOOST_REQUIRE(!again.has_value());
  BOOST_TEST((again.error().kind == MemberErrorKind::AlreadyExists));
  const auto found = findMember(roster, "ms-alice");
  BOOST_REQUIRE(found.has_value());
  BOOST_TEST((found->role == Role::Admin));
  BOOST_TEST(found->projects == (std::vector<std::string>{"odoo-delivery", "research"}));
  bool listed = false;
  for (const Member& m : listMembers(roster)) listed = listed || m.name == "ms-alice";
  BOOST_TEST(listed);
  BOOST_TEST(!findMember(roster, "ms-nobody").has_value());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(invalid_members_are_refused_before_the_database, Tables, test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  NewMember bad;
  bad.name = "has space";
  BOOST_TEST((addMember(roster, bad, kTestNow).error().kind == MemberErrorKind::Invalid));
  NewMember primary;
  primary.name = "ms-bob";
  primary.projects = {"a"};
  primary.primary_project = "b";
  const auto refused = addMember(roster, primary, kTestNow);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().message.find("primary project 'b'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(certificate_subjects_are_stored_normalised_and_stand_for_one_member, Tables,
                              test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  const auto findMembersBySubjects = [&](const std::vector<std::string>& subjects) {
    return subjectMatchesOf(tables.directory()->findMembersBySubjects(subjects));
  };
  NewMember member;
  member.name = "ms-dora";
  member.cert_subjects = {"CN=ms-dora", "email:Dora@Corp.Example", "cn:ms-dora"};
  const auto added = addMember(roster, member, kTestNow);
  BOOST_REQUIRE_MESSAGE(added.has_value(), added.error().message);
  BOOST_TEST(added->cert_subjects == (std::vector<std::string>{"cn:ms-dora", "email:dora@corp.example"}));

  // Another member may not take a subject that already stands for ms-dora: nothing is stored.
  NewMember thief;
  thief.name = "ms-eve";
  thief.cert_subjects = {"cn:ms-eve", "email:dora@corp.example"};
  const auto refused = addMember(roster, thief, kTestNow);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST((refused.error().kind == MemberErrorKind::SubjectTaken));
  BOOST_TEST(refused.error().message == "certificate subject 'email:dora@corp.example' already stands for member ms-dora");
  BOOST_TEST(!findMember(roster, "ms-eve").has_value());

  NewMember bad;
  bad.name = "ms-frank";
  bad.cert_subjects = {"O=Corp"};
  BOOST_TEST((addMember(roster, bad, kTestNow).error().kind == MemberErrorKind::Invalid));
  BOOST_TEST(validateMember(bad).has_value());

  // Added and removed later; lookups find the member behind any of a certificate's subjects.
  BOOST_TEST(addCertSubject(roster, "ms-dora", "uri:spiffe://corp/dora", kTestNow).value() ==
             "uri:spiffe://corp/dora");
  BOOST_TEST(addCertSubject(roster, "ms-dora", "URI:spiffe://corp/dora", kTestNow).has_value());  // idempotent
  BOOST_TEST((addCertSubject(roster, "ms-nobody", "cn:x", kTestNow).error().kind == MemberErrorKind::NoSuchMember));
  const auto matches = findMembersBySubjects({"cn:someone-else", "uri:spiffe://corp/dora"});
  BOOST_REQUIRE(matches.size() == 1u);
  BOOST_TEST(matches[0].subject == "uri:spiffe://corp/dora");
  BOOST_TEST(matches[0].member.name == "ms-dora");
  BOOST_TEST(matches[0].member.cert_subjects.size() == 3u);
  BOOST_TEST(removeCertSubject(roster, "ms-dora", "uri:spiffe://corp/dora"));
  BOOST_TEST(!removeCertSubject(roster, "ms-dora", "uri:spiffe://corp/dora"));
  BOOST_TEST(findMembersBySubjects({"uri:spiffe://corp/dora"}).empty());
  BOOST_TEST(findMembersBySubjects({}).empty());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(disable_is_idempotent_and_knows_unknown_members, Tables, test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  addPlainMember(roster, "ms-carol");
  BOOST_TEST((disableMember(roster, "ms-carol", kTestNow) == DisableResult::Disabled));
  BOOST_TEST((disableMember(roster, "ms-carol", kTestNow + hours(1)) == DisableResult::AlreadyDisabled));
  BOOST_TEST((findMember(roster, "ms-carol")->disabled_at.value() == kTestNow));
  BOOST_TEST((disableMember(roster, "ms-nobody", kTestNow) == DisableResult::NoSuchMember));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(keys_are_created_listed_and_revoked_by_id_or_prefix, Tables, test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  auto& keys = tables.keys();
  addPlainMember(roster, "ms-dave", {"odoo-delivery"});
  NewApiKey request;
  request.user = "ms-dave";
  request.project = "odoo-delivery";
  request.name = "laptop";
  request.expires_at = kTestNow + hours(24 * 90);
  const auto created = createApiKey(roster, keys, request, kTestNow);
  BOOST_REQUIRE_MESSAGE(created.has_value(), created.error().message);
  BOOST_TEST(created->key.starts_with(created->info.prefix));
  BOOST_TEST(created->info.prefix == "sk-sluice-" + created->info.id);
  BOOST_TEST(created->info.project.value() == "odoo-delivery");
  BOOST_TEST(created->info.status(kTestNow) == "active");
  BOOST_TEST(created->info.status(kTestNow + hours(24 * 90)) == "expired");
  // Only the hash is stored.
  if (const auto* database = tables.database()) {
    const std::string stored = database->scalar("SELECT encode(hash, 'hex') || prefix || coalesce(name, '') "
                                                "FROM api_keys WHERE id = '" + created->info.id + "'");
    BOOST_TEST(stored.find(created->key.substr(18)) == std::string::npos);
  }
  // The key is found by its hash alone, marked used, and its record admits its member.
  const auto found = verifiedKeyRecord(
      tables.directory()->findKeyForUse(hashBytes(hashApiKey(created->key)), kTestNow, seconds(60)),
      hashApiKey(created->key));
  BOOST_REQUIRE(found.has_value());
  BOOST_TEST(keyAdmits(found, kTestNow)->user == "ms-dave");
  BOOST_TEST((listApiKeys(keys, std::string("ms-dave"))[0].last_used_at == kTestNow));
  const auto listed = listApiKeys(keys, std::string("ms-dave"));
  BOOST_REQUIRE(listed.size() == 1u);
  BOOST_TEST(listed[0].id == created->info.id);
  BOOST_TEST(keyIdFrom(created->info.prefix).value() == created->info.id);
  BOOST_TEST(keyIdFrom(created->key).value() == created->info.id);
  BOOST_TEST(keyIdFrom(created->info.id).value() == created->info.id);
  BOOST_TEST(!keyIdFrom("nope").has_value());
  ApiKeyInfo info;
  BOOST_TEST((revokeApiKey(keys, created->info.id, kTestNow, &info) == RevokeResult::Revoked));
  BOOST_TEST(info.status(kTestNow) == "revoked");
  BOOST_TEST((revokeApiKey(keys, created->info.id, kTestNow) == RevokeResult::AlreadyRevoked));
  BOOST_TEST((revokeApiKey(keys, "ZZZZZZZZ", kTestNow) == RevokeResult::NoSuchKey));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(keys_are_refused_for_unknown_or_disabled_members_and_foreign_projects, Tables,
                              test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  auto& keys = tables.keys();
  addPlainMember(roster, "ms-erin", {"research"});
  NewApiKey request;
  request.user = "ms-nobody";
  BOOST_TEST((createApiKey(roster, keys, request, kTestNow).error().kind == KeyErrorKind::NoSuchMember));
  request.user = "ms-erin";
  request.project = "payroll";
  BOOST_TEST((createApiKey(roster, keys, request, kTestNow).error().kind == KeyErrorKind::NotInProject));
  request.project.reset();
  request.expires_at = kTestNow - seconds(1);
  BOOST_TEST((createApiKey(roster, keys, request, kTestNow).error().kind == KeyErrorKind::Invalid));
  request.expires_at.reset();
  disableMember(roster, "ms-erin", kTestNow);
  BOOST_TEST((createApiKey(roster, keys, request, kTestNow).error().kind == KeyErrorKind::MemberDisabled));
}

BOOST_AUTO_TEST_SUITE_END()
