// identity::Authenticator's rules (a key's state, its member's, caching and single flight, personal
// keys) over an in-memory directory: tests/fakes/fake_key_directory.h. The same over PostgreSQL:
// authenticator_test.cc and credential_store_test.cc.
#include "server/identity/authenticator.h"

#include <boost/test/unit_test.hpp>

#include "server/identity/api_keys.h"
#include "server/identity/credential_store.h"
#include "tests/fakes/fake_key_directory.h"

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;

namespace {

// 2026-11-29T21:43:20Z.
const TimePoint kNow{seconds(1'795'988'600)};

struct Fixture {
  std::shared_ptr<fakes::FakeKeyDirectory> directory = std::make_shared<fakes::FakeKeyDirectory>();

  Fixture() {
    store::MemberRow alice;
    alice.name = "alice";
    alice.role = "admin";
    alice.groups = {"platform"};
    alice.projects = {"research", "odoo"};
    alice.primary_project = "research";
    alice.cert_subjects = {"cn:alice", "email:alice@example.com"};
    directory->putMember(alice);
    store::MemberRow bob;
    bob.name = "bob";
    bob.role = "member";
    bob.cert_subjects = {"cn:shared"};
    directory->putMember(bob);
  }

  // A new key of `user`; its id in `id`.
  std::string newKey(const std::string& user, std::optional<TimePoint> expires_at = std::nullopt,
                     std::optional<std::string> project = std::nullopt, std::string* id = nullptr) {
    GeneratedKey generated = generateApiKey();
    store::KeyRow row;
    row.id = generated.id;
    row.prefix = visiblePrefix(generated.id);
    row.user = user;
    row.project = std::move(project);
    row.created_at = kNow - hours(1);
    row.expires_at = expires_at;
    directory->putKey(row, std::string(hashBytes(generated.hash)));
    if (id) *id = generated.id;
    return generated.key;
  }
};

std::shared_ptr<Authenticator> authenticator(std::shared_ptr<store::KeyDirectory> directory,
                                             std::shared_ptr<const Vault> vault = nullptr) {
  return std::make_shared<Authenticator>(std::move(directory), std::move(vault));
}

AuthFailureReason reasonOf(const std::expected<Caller, AuthFailure>& result) {
  BOOST_REQUIRE(!result.has_value());
  return result.error().reason;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(key_authentication)

BOOST_FIXTURE_TEST_CASE(an_active_key_admits_its_member_with_the_key_project, Fixture) {
  std::string id;
  const std::string key = newKey("alice", std::nullopt, "odoo", &id);
  const auto caller = authenticator(directory)->authenticate(key, kNow);
  BOOST_REQUIRE(caller.has_value());
  BOOST_TEST(caller->user == "alice");
  BOOST_TEST((caller->role == Role::Admin));
  BOOST_TEST(caller->groups == std::vector<std::string>{"platform"});
  BOOST_TEST(caller->projects == (std::vector<std::string>{"research", "odoo"}));
  BOOST_TEST(caller->primary_project.value() == "research");
  BOOST_TEST(caller->api_key_id == id);
  BOOST_TEST(caller->key_project.value() == "odoo");
  BOOST_TEST((caller->source == IdentitySource::Key));
}

BOOST_FIXTURE_TEST_CASE(a_revoked_key_is_refused_once_the_cache_entry_ages_out, Fixture) {
  std::string id;
  const std::string key = newKey("alice", std::nullopt, std::nullopt, &id);
  auto auth = authenticator(directory);
  BOOST_REQUIRE(auth->authenticate(key, kNow).has_value());
  directory->revokeKey(id, kNow);
  // Within the TTL (2 s) the cached answer stands; after it, the revocation is seen.
  BOOST_TEST(auth->authenticate(key, kNow + milliseconds(1500)).has_value());
  const auto refused = auth->authenticate(key, kNow + seconds(3));
  BOOST_TEST((reasonOf(refused) == AuthFailureReason::Revoked));
  BOOST_TEST(refused.error().message == "API key " + visiblePrefix(id) + " was revoked");
  BOOST_TEST(refused.error().message.find(key) == std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(an_expired_key_stops_at_once_without_a_lookup, Fixture) {
  const std::string key = newKey("alice", kNow + seconds(1));
  auto auth = authenticator(directory);
  BOOST_REQUIRE(auth->authenticate(key, kNow).has_value());
  const size_t lookups = directory->lookups();
  BOOST_TEST((reasonOf(auth->authenticate(key, kNow + seconds(1))) == AuthFailureReason::Expired));
  BOOST_TEST(directory->lookups() == lookups);
}

BOOST_FIXTURE_TEST_CASE(a_disabled_or_deleted_member_is_refused, Fixture) {
  const std::string alice_key = newKey("alice");
  const std::string bob_key = newKey("bob");
  directory->disableMember("alice", kNow);
  directory->deleteMember("bob");
  auto auth = authenticator(directory);
  const auto disabled = auth->authenticate(alice_key, kNow);
  BOOST_TEST((reasonOf(disabled) == AuthFailureReason::MemberDisabled));
  BOOST_TEST(disabled.error().message == "member alice is disabled");
  BOOST_TEST((reasonOf(auth->authenticate(bob_key, kNow)) == AuthFailureReason::Unknown));
}

BOOST_FIXTURE_TEST_CASE(missing_and_malformed_keys_never_reach_the_directory, Fixture) {
  auto auth = authenticator(directory);
  BOOST_TEST((reasonOf(auth->authenticate("", kNow)) == AuthFailureReason::Missing));
  BOOST_TEST((reasonOf(auth->authenticate("sk-other-123", kNow)) == AuthFailureReason::Malformed));
  BOOST_TEST(directory->lookups() == 0u);
}

BOOST_FIXTURE_TEST_CASE(an_unknown_key_is_refused_and_remembered_for_the_ttl, Fixture) {
  const std::string stranger = generateApiKey().key;
  auto auth = authenticator(directory);
  BOOST_TEST((reasonOf(auth->authenticate(stranger, kNow)) == AuthFailureReason::Unknown));
  BOOST_TEST((reasonOf(auth->authenticate(stranger, kNow + seconds(1))) == AuthFailureReason::Unknown));
  BOOST_TEST(directory->lookups() == 1u);
  BOOST_TEST(auth->stats().key_queries == 1u);
}

BOOST_FIXTURE_TEST_CASE(last_used_is_marked_at_most_once_a_minute, Fixture) {
  std::string id;
  const std::string key = newKey("alice", std::nullopt, std::nullopt, &id);
  auto auth = authenticator(directory);
  BOOST_REQUIRE(auth->authenticate(key, kNow).has_value());
  BOOST_TEST((directory->key(id).last_used_at.value() == kNow));
  BOOST_REQUIRE(auth->authenticate(key, kNow + seconds(30)).has_value());
  BOOST_TEST((directory->key(id).last_used_at.value() == kNow));
  BOOST_REQUIRE(auth->authenticate(key, kNow + seconds(90)).has_value());
  BOOST_TEST((directory->key(id).last_used_at.value() == kNow + seconds(90)));
}

BOOST_FIXTURE_TEST_CASE(a_failed_lookup_throws_and_is_not_remembered, Fixture) {
  const std::string key = newKey("alice");
  auto auth = authenticator(directory);
  directory->setFailing(true);
  BOOST_CHECK_THROW(auth->authenticate(key, kNow), std::runtime_error);
  directory->setFailing(false);
  BOOST_TEST(auth->authenticate(key, kNow).has_value());
}

BOOST_FIXTURE_TEST_CASE(certificate_subjects_map_to_one_member_or_are_refused, Fixture) {
  auto auth = authenticator(directory);
  const auto alice = auth->authenticateCertificate({"cn:nobody", "email:alice@example.com"}, kNow);
  BOOST_REQUIRE(alice.has_value());
  BOOST_TEST(alice->user == "alice");
  BOOST_TEST(alice->subject == "email:alice@example.com");
  BOOST_TEST((alice->source == IdentitySource::Certificate));
  BOOST_TEST((reasonOf(auth->authenticateCertificate({"cn:nobody"}, kNow)) == AuthFailureReason::UnmappedCertificate));
  BOOST_TEST((reasonOf(auth->authenticateCertificate({"cn:alice", "cn:shared"}, kNow)) ==
              AuthFailureReason::AmbiguousCertificate));
}

BOOST_FIXTURE_TEST_CASE(a_trusted_proxy_names_a_member_by_name_or_email, Fixture) {
  auto auth = authenticator(directory);
  const auto by_name = auth->authenticateProxy("bob", false, kNow);
  BOOST_REQUIRE(by_name.has_value());
  BOOST_TEST(by_name->subject == "name:bob");
  BOOST_TEST(auth->authenticateProxy("alice@example.com", true, kNow).value().user == "alice");
  BOOST_TEST((reasonOf(auth->authenticateProxy("carol", false, kNow)) == AuthFailureReason::UnknownMember));
  directory->disableMember("bob", kNow);
  BOOST_TEST((reasonOf(auth->authenticateProxy("bob", false, kNow + seconds(3))) == AuthFailureReason::MemberDisabled));
}

BOOST_FIXTURE_TEST_CASE(personal_keys_open_with_the_vault_and_name_what_is_missing, Fixture) {
  std::array<unsigned char, 32> bytes{};
  bytes.fill('k');
  const auto vault = std::make_shared<const Vault>(MasterKey::fromBytes(bytes));
  const Sealed sealed = vault->seal("sk-upstream-secret", credentialAssociatedData("alice", "openai"));
  directory->putSealed("alice", store::SealedRow{"openai", sealed.ciphertext, sealed.nonce, sealed.key_id});
  auto auth = authenticator(directory, vault);
  BOOST_TEST(auth->personalKey("alice", "openai", kNow).value() == "sk-upstream-secret");
  BOOST_TEST(auth->credentialsFor("alice", kNow) == std::vector<std::string>{"openai"});
  const auto missing = auth->personalKey("alice", "anthropic", kNow);
  BOOST_TEST((missing.error().reason == CredentialFailureReason::NotSet));
  // Sealed for another member: the associated data does not match.
  directory->putSealed("bob", store::SealedRow{"openai", sealed.ciphertext, sealed.nonce, sealed.key_id});
  BOOST_TEST((auth->personalKey("bob", "openai", kNow).error().reason == CredentialFailureReason::Undecryptable));
  BOOST_TEST((authenticator(directory)->personalKey("alice", "openai", kNow).error().reason ==
              CredentialFailureReason::NoMasterKey));
}

BOOST_AUTO_TEST_SUITE_END()
