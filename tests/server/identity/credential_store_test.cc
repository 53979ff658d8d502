#include "server/identity/credential_store.h"

#include <boost/test/unit_test.hpp>

#include "server/identity/authenticator.h"
#include "tests/server/identity/identity_database.h"

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;
using test::identityDatabase;
using test::kTestNow;

namespace {

MasterKey masterKey(char fill) {
  std::array<unsigned char, 32> bytes{};
  bytes.fill(static_cast<unsigned char>(fill));
  return MasterKey::fromBytes(bytes);
}

const std::string kSecret = "sk-go-THIS-IS-ALICES-PERSONAL-KEY-0123456789";

std::string stored(const std::string& user, const std::string& credential, const std::string& column) {
  return identityDatabase().scalar("SELECT " + column + " FROM personal_credentials WHERE user_name = '" + user +
                                   "' AND credential_id = '" + credential + "'");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(credential_store)

BOOST_AUTO_TEST_CASE(the_table_holds_ciphertext_and_the_authenticator_decrypts_in_memory) {
  test::addTestMember("cs-alice");
  auto vault = std::make_shared<const Vault>(masterKey('a'));
  auto connection = identityDatabase().connect();
  BOOST_TEST((setPersonalCredential(*connection, *vault, "cs-alice", "opencode-go", kSecret, kTestNow) ==
              SetCredentialResult::Created));
  // The bytes in the table are not the plaintext, in any encoding PostgreSQL would show.
  const std::string ciphertext_hex = stored("cs-alice", "opencode-go", "encode(ciphertext, 'hex')");
  BOOST_TEST(ciphertext_hex.size() == (kSecret.size() + 16) * 2);
  BOOST_TEST(ciphertext_hex.find(toHex(kSecret.substr(0, 8))) == std::string::npos);
  BOOST_TEST(stored("cs-alice", "opencode-go", "position(convert_to('ALICES', 'UTF8') in ciphertext)") == "0");
  BOOST_TEST(stored("cs-alice", "opencode-go", "octet_length(nonce)") == "12");
  BOOST_TEST(stored("cs-alice", "opencode-go", "master_key_id") == vault->keyId());

  Authenticator auth(test::keyDirectory(), vault);
  BOOST_TEST(auth.credentialsFor("cs-alice", kTestNow) == (std::vector<std::string>{"opencode-go"}));
  BOOST_TEST(auth.personalKey("cs-alice", "opencode-go", kTestNow).value() == kSecret);
  const auto missing = auth.personalKey("cs-alice", "other", kTestNow);
  BOOST_TEST((missing.error().reason == CredentialFailureReason::NotSet));
  BOOST_TEST(missing.error().message.find("sluicectl credentials set other --user cs-alice") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(replacing_a_value_reseals_with_a_new_nonce) {
  test::addTestMember("cs-bob");
  const Vault vault(masterKey('a'));
  auto connection = identityDatabase().connect();
  setPersonalCredential(*connection, vault, "cs-bob", "opencode-go", "first", kTestNow);
  const std::string nonce = stored("cs-bob", "opencode-go", "encode(nonce, 'hex')");
  BOOST_TEST((setPersonalCredential(*connection, vault, "cs-bob", "opencode-go", "second", kTestNow) ==
              SetCredentialResult::Replaced));
  BOOST_TEST(stored("cs-bob", "opencode-go", "encode(nonce, 'hex')") != nonce);
  Authenticator auth(test::keyDirectory(), std::make_shared<const Vault>(vault));
  BOOST_TEST(auth.personalKey("cs-bob", "opencode-go", kTestNow).value() == "second");
  BOOST_TEST((setPersonalCredential(*connection, vault, "cs-nobody", "opencode-go", "x", kTestNow) ==
              SetCredentialResult::NoSuchMember));
  const auto listed = listPersonalCredentials(*connection, std::string("cs-bob"));
  BOOST_REQUIRE(listed.size() == 1u);
  BOOST_TEST(listed[0].credential_id == "opencode-go");
}

BOOST_AUTO_TEST_CASE(a_value_copied_into_another_row_or_opened_with_another_key_fails) {
  test::addTestMember("cs-carol");
  test::addTestMember("cs-dan");
  const Vault vault(masterKey('a'));
  auto connection = identityDatabase().connect();
  setPersonalCredential(*connection, vault, "cs-carol", "opencode-go", kSecret, kTestNow);
  setPersonalCredential(*connection, vault, "cs-dan", "opencode-go", "dans own key", kTestNow);
  {
    pqxx::work copy(*connection);
    copy.exec("UPDATE personal_credentials d SET ciphertext = c.ciphertext, nonce = c.nonce FROM personal_credentials c "
              "WHERE d.user_name = 'cs-dan' AND c.user_name = 'cs-carol'");
    copy.commit();
  }
  Authenticator auth(test::keyDirectory(), std::make_shared<const Vault>(vault));
  const auto copied = auth.personalKey("cs-dan", "opencode-go", kTestNow);
  BOOST_REQUIRE(!copied.has_value());
  BOOST_TEST((copied.error().reason == CredentialFailureReason::Undecryptable));
  BOOST_TEST(copied.error().message.find(kSecret) == std::string::npos);
  Authenticator wrong_key(test::keyDirectory(), std::make_shared<const Vault>(masterKey('b')));
  BOOST_TEST((wrong_key.personalKey("cs-carol", "opencode-go", kTestNow).error().reason ==
              CredentialFailureReason::Undecryptable));
  Authenticator no_key(test::keyDirectory(), nullptr);
  BOOST_TEST((no_key.personalKey("cs-carol", "opencode-go", kTestNow).error().reason ==
              CredentialFailureReason::NoMasterKey));
}

BOOST_AUTO_TEST_CASE(rotate_master_reseals_every_row_in_one_transaction) {
  // Its own database: rotation touches every row of the table.
  test::ScratchDatabase database;
  auto connection = database.connect();
  for (const char* name : {"rot-a", "rot-b"}) {
    NewMember member;
    member.name = name;
    addMember(*connection, member, kTestNow).value();
  }
  const Vault old_vault(masterKey('o'));
  setPersonalCredential(*connection, old_vault, "rot-a", "opencode-go", "key of a", kTestNow);
  setPersonalCredential(*connection, old_vault, "rot-b", "opencode-go", "key of b", kTestNow);
  setPersonalCredential(*connection, old_vault, "rot-b", "other", "other key of b", kTestNow);
  const std::string before = database.scalar("SELECT string_agg(encode(ciphertext, 'hex'), ',') FROM personal_credentials");

  // Without the old key nothing can be re-sealed, and nothing changes.
  const auto refused = rotateMasterKey(*connection, Vault(masterKey('n')), kTestNow);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().find("nothing was changed") != std::string::npos);
  BOOST_TEST(database.scalar("SELECT string_agg(encode(ciphertext, 'hex'), ',') FROM personal_credentials") == before);

  const Vault rotation(masterKey('n'), {masterKey('o')});
  const auto report = rotateMasterKey(*connection, rotation, kTestNow);
  BOOST_REQUIRE_MESSAGE(report.has_value(), report.error());
  BOOST_TEST(report->rotated == 3u);
  BOOST_TEST(report->already_current == 0u);
  BOOST_TEST(database.scalar("SELECT count(*) FROM personal_credentials WHERE master_key_id = '" + rotation.keyId() +
                             "'") == "3");
  // The new key alone opens every value.
  Authenticator auth(test::keyDirectory(database.url()), std::make_shared<const Vault>(masterKey('n')));
  BOOST_TEST(auth.personalKey("rot-a", "opencode-go", kTestNow).value() == "key of a");
  BOOST_TEST(auth.personalKey("rot-b", "other", kTestNow).value() == "other key of b");
  const auto again = rotateMasterKey(*connection, rotation, kTestNow);
  BOOST_TEST(again->rotated == 0u);
  BOOST_TEST(again->already_current == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
