// The identity tables' store interfaces (MemberRoster, KeyRegistry, CredentialLocker with the
// KeyDirectory reading the same rows) held to one contract: each case runs against PostgreSQL and
// against tests/fakes' FakeKeyDirectory.
#include <boost/test/unit_test.hpp>

#include "tests/server/store/identity_tables.h"

using namespace sluice;
using namespace std::chrono;

namespace {

const store::TimePoint kNow{seconds(1'795'988'600)};

store::MemberRow member(const std::string& name, std::vector<std::string> subjects = {}) {
  store::MemberRow row;
  row.name = name;
  row.role = "member";
  row.projects = {"p1"};
  row.primary_project = "p1";
  row.created_at = kNow;
  row.cert_subjects = std::move(subjects);
  return row;
}

store::KeyRow key(const std::string& id, const std::string& user, store::TimePoint created) {
  store::KeyRow row;
  row.id = id;
  row.user = user;
  row.name = "laptop";
  row.created_at = created;
  return row;
}

std::string hash(char fill) { return std::string(32, fill); }

}  // namespace

BOOST_AUTO_TEST_SUITE(identity_tables)

BOOST_AUTO_TEST_CASE_TEMPLATE(a_member_and_its_subjects_are_stored_whole_or_not_at_all, Tables, test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  const auto added = roster.insertMember(member("bob", {"email:b@x", "cn:bob"}));
  BOOST_REQUIRE(added.has_value());
  BOOST_TEST(added->cert_subjects == (std::vector<std::string>{"cn:bob", "email:b@x"}));
  BOOST_TEST((added->created_at == kNow));
  BOOST_TEST(!added->disabled_at.has_value());

  const auto twice = roster.insertMember(member("bob"));
  BOOST_REQUIRE(!twice.has_value());
  BOOST_TEST((twice.error().kind == store::RosterConflict::Kind::NameTaken));

  // A subject standing for bob already: alice is not stored at all, not even her free subject.
  const auto taken = roster.insertMember(member("alice", {"cn:alice", "email:b@x"}));
  BOOST_REQUIRE(!taken.has_value());
  BOOST_TEST((taken.error().kind == store::RosterConflict::Kind::SubjectTaken));
  BOOST_TEST(taken.error().subject == "email:b@x");
  BOOST_TEST(taken.error().holder == "bob");
  BOOST_TEST(!roster.findMember("alice").has_value());
  BOOST_TEST(tables.directory()->findMembersBySubjects({"cn:alice"}).empty());

  BOOST_REQUIRE(roster.insertMember(member("alice")).has_value());
  std::vector<std::string> names;
  for (const auto& row : roster.listMembers()) names.push_back(row.name);
  BOOST_TEST(names == (std::vector<std::string>{"alice", "bob"}));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(subjects_are_added_once_removed_once_and_members_disabled_once, Tables,
                              test::IdentityBackends) {
  Tables tables;
  auto& roster = tables.members();
  BOOST_REQUIRE(roster.insertMember(member("carol", {"cn:carol"})).has_value());
  BOOST_REQUIRE(roster.insertMember(member("dan")).has_value());
  BOOST_TEST(roster.insertSubject("carol", "uri:spiffe://c", kNow).value() == true);
  BOOST_TEST(roster.insertSubject("carol", "uri:spiffe://c", kNow).value() == false);  // already hers
  const auto theirs = roster.insertSubject("dan", "cn:carol", kNow);
  BOOST_REQUIRE(!theirs.has_value());
  BOOST_TEST((theirs.error().kind == store::RosterConflict::Kind::SubjectTaken));
  BOOST_TEST(theirs.error().holder == "carol");
  BOOST_TEST((roster.insertSubject("nobody", "cn:x", kNow).error().kind == store::RosterConflict::Kind::NoSuchMember));
  BOOST_TEST(roster.findMember("carol")->cert_subjects == (std::vector<std::string>{"cn:carol", "uri:spiffe://c"}));
  const auto matches = tables.directory()->findMembersBySubjects({"uri:spiffe://c", "cn:none"});
  BOOST_REQUIRE(matches.size() == 1u);
  BOOST_TEST(matches[0].member.name == "carol");

  BOOST_TEST(!roster.deleteSubject("dan", "uri:spiffe://c"));  // not dan's
  BOOST_TEST(roster.deleteSubject("carol", "uri:spiffe://c"));
  BOOST_TEST(!roster.deleteSubject("carol", "uri:spiffe://c"));
  BOOST_TEST(tables.directory()->findMembersBySubjects({"uri:spiffe://c"}).empty());

  BOOST_TEST((roster.setDisabled("carol", kNow) == store::DisableChange::Disabled));
  BOOST_TEST((roster.setDisabled("carol", kNow + hours(1)) == store::DisableChange::AlreadyDisabled));
  BOOST_TEST((roster.findMember("carol")->disabled_at.value() == kNow));
  BOOST_TEST((roster.setDisabled("nobody", kNow) == store::DisableChange::NoSuchMember));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_key_is_stored_under_its_hash_listed_newest_first_and_revoked_once, Tables,
                              test::IdentityBackends) {
  Tables tables;
  BOOST_REQUIRE(tables.members().insertMember(member("erin")).has_value());
  BOOST_REQUIRE(tables.members().insertMember(member("finn")).has_value());
  auto& keys = tables.keys();
  auto first = key("AAAAAAA1", "erin", kNow);
  first.project = "p1";
  first.expires_at = kNow + hours(24);
  const auto stored = keys.insertKey(first, hash('a'));
  BOOST_REQUIRE(stored.has_value());
  BOOST_TEST(stored->prefix == "sk-sluice-AAAAAAA1");
  BOOST_TEST(stored->project.value() == "p1");
  BOOST_TEST((stored->expires_at.value() == kNow + hours(24)));
  BOOST_TEST(!stored->revoked_at.has_value());
  BOOST_TEST(!keys.insertKey(key("AAAAAAA1", "erin", kNow), hash('b')).has_value());  // the id is taken
  BOOST_TEST(!keys.insertKey(key("AAAAAAA2", "erin", kNow), hash('a')).has_value());  // the hash is taken
  BOOST_REQUIRE(keys.insertKey(key("AAAAAAA3", "erin", kNow + seconds(5)), hash('c')).has_value());
  BOOST_REQUIRE(keys.insertKey(key("AAAAAAA4", "finn", kNow + seconds(9)), hash('d')).has_value());

  std::vector<std::string> ids;
  for (const auto& row : keys.listKeys(std::nullopt)) ids.push_back(row.id);
  BOOST_TEST(ids == (std::vector<std::string>{"AAAAAAA4", "AAAAAAA3", "AAAAAAA1"}));
  BOOST_TEST(keys.listKeys(std::string("finn")).size() == 1u);

  // The directory finds it by hash, with its member, and marks it used.
  const auto found = tables.directory()->findKeyForUse(hash('a'), kNow + minutes(1), seconds(60));
  BOOST_REQUIRE(found.has_value());
  BOOST_TEST(found->key.id == "AAAAAAA1");
  BOOST_TEST(found->hash == hash('a'));
  BOOST_TEST(found->projects == (std::vector<std::string>{"p1"}));

  const auto revoked = keys.setRevoked("AAAAAAA1", kNow + hours(1));
  BOOST_REQUIRE(revoked.has_value());
  BOOST_TEST(revoked->changed);
  BOOST_TEST((revoked->key.revoked_at.value() == kNow + hours(1)));
  BOOST_TEST((revoked->key.last_used_at.value() == kNow + minutes(1)));
  const auto again = keys.setRevoked("AAAAAAA1", kNow + hours(2));
  BOOST_TEST(!again->changed);
  BOOST_TEST((again->key.revoked_at.value() == kNow + hours(1)));
  BOOST_TEST(!keys.setRevoked("ZZZZZZZZ", kNow).has_value());
  BOOST_TEST(tables.directory()->findKeyById("AAAAAAA1")->key.revoked_at.has_value());
}

BOOST_AUTO_TEST_CASE_TEMPLATE(sealed_credentials_are_upserted_listed_and_resealed_all_or_nothing, Tables,
                              test::IdentityBackends) {
  Tables tables;
  BOOST_REQUIRE(tables.members().insertMember(member("gina")).has_value());
  BOOST_REQUIRE(tables.members().insertMember(member("hal")).has_value());
  auto& locker = tables.credentials();
  const auto sealed = [](const std::string& id, const std::string& bytes, const std::string& key_id) {
    return store::SealedRow{id, bytes, std::string(12, 'n'), key_id};
  };
  BOOST_TEST((locker.upsertSealed("gina", sealed("zeta", "z-old", "k1"), kNow) == store::SealedChange::Created));
  BOOST_TEST((locker.upsertSealed("gina", sealed("alpha", "a-old", "k1"), kNow) == store::SealedChange::Created));
  BOOST_TEST((locker.upsertSealed("hal", sealed("alpha", "h-old", "k2"), kNow) == store::SealedChange::Created));
  BOOST_TEST((locker.upsertSealed("gina", sealed("zeta", "z-new", "k1"), kNow + hours(1)) ==
              store::SealedChange::Replaced));
  BOOST_TEST((locker.upsertSealed("nobody", sealed("alpha", "x", "k1"), kNow) == store::SealedChange::NoSuchMember));

  const auto listed = locker.listSealed(std::nullopt);
  BOOST_REQUIRE(listed.size() == 3u);
  BOOST_TEST(listed[0].user + "/" + listed[0].credential_id == "gina/alpha");
  BOOST_TEST(listed[1].user + "/" + listed[1].credential_id == "gina/zeta");
  BOOST_TEST((listed[1].updated_at == kNow + hours(1)));
  BOOST_TEST(listed[2].user + "/" + listed[2].credential_id == "hal/alpha");
  BOOST_TEST(locker.listSealed(std::string("hal")).size() == 1u);

  // Re-sealing that fails on the last row leaves even the rows it had already re-sealed.
  std::vector<std::string> visited;
  const auto refused = locker.resealAll(
      [&](const std::string& user, const store::SealedRow& row)
          -> std::expected<std::optional<store::SealedRow>, std::string> {
        visited.push_back(user + "/" + row.credential_id);
        if (user == "hal") return std::unexpected("cannot open hal's");
        return store::SealedRow{row.credential_id, row.ciphertext + "+", row.nonce, "k9"};
      },
      kNow + hours(2));
  BOOST_TEST(refused.error() == "cannot open hal's");
  BOOST_TEST(visited == (std::vector<std::string>{"gina/alpha", "gina/zeta", "hal/alpha"}));
  BOOST_TEST(tables.directory()->sealedCredentials("gina").size() == 2u);
  for (const auto& row : tables.directory()->sealedCredentials("gina")) BOOST_TEST(row.key_id == "k1");

  // Rows left as they are (nullopt) are not counted.
  const auto resealed = locker.resealAll(
      [&](const std::string&, const store::SealedRow& row) -> std::expected<std::optional<store::SealedRow>, std::string> {
        if (row.key_id == "k2") return std::nullopt;
        return store::SealedRow{row.credential_id, row.ciphertext + "+", row.nonce, "k2"};
      },
      kNow + hours(3));
  BOOST_TEST(resealed.value() == 2u);
  for (const auto& row : tables.directory()->sealedCredentials("gina")) {
    BOOST_TEST(row.key_id == "k2");
    BOOST_TEST((row.ciphertext.ends_with("-old+") || row.ciphertext.ends_with("-new+")));
  }
  for (const auto& row : locker.listSealed(std::string("gina"))) BOOST_TEST((row.updated_at == kNow + hours(3)));
  BOOST_TEST((locker.listSealed(std::string("hal"))[0].updated_at == kNow));
}

BOOST_AUTO_TEST_SUITE_END()
