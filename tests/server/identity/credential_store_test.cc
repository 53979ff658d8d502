#include "server/identity/credential_store.h"

#include <boost/test/unit_test.hpp>

#include "server/identity/authenticator.h"
#include "server/identity/member_store.h"
#include "tests/server/identity/identity_database.h"
#include "tests/server/store/identity_tables.h"

// Personal credentials sealed, stored, opened and re-sealed, over the PostgreSQL tables and over
// the in-memory fake alike (each case runs on both: tests/server/store/identity_tables.h).

using namespace sluice;
using namespace sluice::identity;
using namespace std::chrono;
using test::kTestNow;

namespace {

MasterKey masterKey(char fill) {
  std::array<unsigned char, 32> bytes{};
  bytes.fill(static_cast<unsigned char>(fill));
  return MasterKey::fromBytes(bytes);
}

const std::string kSecret = "sk-go-THIS-IS-ALICES-PERSONAL-KEY-0123456789";

template <class Tables>
void addMembers(Tables& tables, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    NewMember member;
    member.name = name;
    addMember(tables.members(), member, kTestNow).value();
  }
}

// What is stored for `user`'s `credential`, as the request path reads it.
template <class Tables>
store::SealedRow sealedOf(Tables& tables, const std::string& user, const std::string& credential) {
  for (const store::SealedRow& row : tables.directory()->sealedCredentials(user)) {
    if (row.credential_id == credential) return row;
  }
  BOOST_FAIL("no sealed " + user + "/" + credential);
  return {};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(credential_store)

BOOST_AUTO_TEST_CASE_TEMPLATE(the_store_holds_ciphertext_and_the_authenticator_decrypts_in_memory, Tables,
                              test::IdentityBackends) {
  Tables tables;
  addMembers(tables, {"cs-alice"});
  auto vault = std::make_shared<const Vault>(masterKey('a'));
  BOOST_TEST((setPersonalCredential(tables.credentials(), *vault, "cs-alice", "opencode-go", kSecret, kTestNow) ==
              SetCredentialResult::Created));
  // The stored bytes are not the plaintext, in any encoding.
  const store::SealedRow sealed = sealedOf(tables, "cs-alice", "opencode-go");
  BOOST_TEST(sealed.ciphertext.size() == kSecret.size() + 16);
  BOOST_TEST(sealed.ciphertext.find("ALICES") == std::string::npos);
  BOOST_TEST(toHex(sealed.ciphertext).find(toHex(kSecret.substr(0, 8))) == std::string::npos);
  BOOST_TEST(sealed.nonce.size() == 12u);
  BOOST_TEST(sealed.key_id == vault->keyId());
  if (const auto* database = tables.database()) {
    BOOST_TEST(database->scalar("SELECT position(convert_to('ALICES', 'UTF8') in ciphertext) FROM "
                                "personal_credentials WHERE user_name = 'cs-alice'") == "0");
  }

  Authenticator auth(tables.directory(), vault);
  BOOST_TEST(auth.credentialsFor("cs-alice", kTestNow) == (std::vector<std::string>{"opencode-go"}));
  BOOST_TEST(auth.personalKey("cs-alice", "opencode-go", kTestNow).value() == kSecret);
  const auto missing = auth.personalKey("cs-alice", "other", kTestNow);
  BOOST_TEST((missing.error().reason == CredentialFailureReason::NotSet));
  BOOST_TEST(missing.error().message.find("sluicectl credentials set other --user cs-alice") != std::string::npos);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(replacing_a_value_reseals_with_a_new_nonce, Tables, test::IdentityBackends) {
  Tables tables;
  addMembers(tables, {"cs-bob"});
  const Vault vault(masterKey('a'));
  setPersonalCredential(tables.credentials(), vault, "cs-bob", "opencode-go", "first", kTestNow);
  const std::string nonce = sealedOf(tables, "cs-bob", "opencode-go").nonce;
  BOOST_TEST((setPersonalCredential(tables.credentials(), vault, "cs-bob", "opencode-go", "second", kTestNow + hours(1)) ==
              SetCredentialResult::Replaced));
  BOOST_TEST(sealedOf(tables, "cs-bob", "opencode-go").nonce != nonce);
  Authenticator auth(tables.directory(), std::make_shared<const Vault>(vault));
  BOOST_TEST(auth.personalKey("cs-bob", "opencode-go", kTestNow).value() == "second");
  BOOST_TEST((setPersonalCredential(tables.credentials(), vault, "cs-nobody", "opencode-go", "x", kTestNow) ==
              SetCredentialResult::NoSuchMember));
  const auto listed = listPersonalCredentials(tables.credentials(), std::string("cs-bob"));
  BOOST_REQUIRE(listed.size() == 1u);
  BOOST_TEST(listed[0].credential_id == "opencode-go");
  BOOST_TEST(listed[0].master_key_id == vault.keyId());
  BOOST_TEST((listed[0].updated_at == kTestNow + hours(1)));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_value_copied_into_another_row_or_opened_with_another_key_fails, Tables,
                              test::IdentityBackends) {
  Tables tables;
  addMembers(tables, {"cs-carol", "cs-dan"});
  const Vault vault(masterKey('a'));
  setPersonalCredential(tables.credentials(), vault, "cs-carol", "opencode-go", kSecret, kTestNow);
  setPersonalCredential(tables.credentials(), vault, "cs-dan", "opencode-go", "dans own key", kTestNow);
  // Carol's sealed bytes written into Dan's row, as someone with write access to the table could.
  tables.credentials().upsertSealed("cs-dan", sealedOf(tables, "cs-carol", "opencode-go"), kTestNow);
  Authenticator auth(tables.directory(), std::make_shared<const Vault>(vault));
  const auto copied = auth.personalKey("cs-dan", "opencode-go", kTestNow);
  BOOST_REQUIRE(!copied.has_value());
  BOOST_TEST((copied.error().reason == CredentialFailureReason::Undecryptable));
  BOOST_TEST(copied.error().message.find(kSecret) == std::string::npos);
  Authenticator wrong_key(tables.directory(), std::make_shared<const Vault>(masterKey('b')));
  BOOST_TEST((wrong_key.personalKey("cs-carol", "opencode-go", kTestNow).error().reason ==
              CredentialFailureReason::Undecryptable));
  Authenticator no_key(tables.directory(), nullptr);
  BOOST_TEST((no_key.personalKey("cs-carol", "opencode-go", kTestNow).error().reason ==
              CredentialFailureReason::NoMasterKey));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(rotate_master_reseals_every_row_all_or_nothing, Tables, test::IdentityBackends) {
  Tables tables;
  addMembers(tables, {"rot-a", "rot-b"});
  const Vault old_vault(masterKey('o'));
  setPersonalCredential(tables.credentials(), old_vault, "rot-a", "opencode-go", "key of a", kTestNow);
  setPersonalCredential(tables.credentials(), old_vault, "rot-b", "opencode-go", "key of b", kTestNow);
  setPersonalCredential(tables.credentials(), old_vault, "rot-b", "other", "other key of b", kTestNow);
  const auto ciphertexts = [&] {
    std::vector<std::string> out;
    for (const char* user : {"rot-a", "rot-b"}) {
      for (const auto& row : tables.directory()->sealedCredentials(user)) out.push_back(row.ciphertext);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  const auto before = ciphertexts();

  // Without the old key nothing can be re-sealed, and nothing changes.
  const auto refused = rotateMasterKey(tables.credentials(), Vault(masterKey('n')), kTestNow);
  BOOST_REQUIRE(!refused.has_value());
  BOOST_TEST(refused.error().find("nothing was changed") != std::string::npos);
  BOOST_TEST(ciphertexts() == before);

  const Vault rotation(masterKey('n'), {masterKey('o')});
  const auto report = rotateMasterKey(tables.credentials(), rotation, kTestNow);
  BOOST_REQUIRE_MESSAGE(report.has_value(), report.error());
  BOOST_TEST(report->rotated == 3u);
  BOOST_TEST(report->already_current == 0u);
  for (const auto& listed : listPersonalCredentials(tables.credentials(), std::nullopt)) {
    BOOST_TEST(listed.master_key_id == rotation.keyId());
  }
  // The new key alone opens every value.
  Authenticator auth(tables.directory(), std::make_shared<const Vault>(masterKey('n')));
  BOOST_TEST(auth.personalKey("rot-a", "opencode-go", kTestNow).value() == "key of a");
  BOOST_TEST(auth.personalKey("rot-b", "other", kTestNow).value() == "other key of b");
  const auto again = rotateMasterKey(tables.credentials(), rotation, kTestNow);
  BOOST_TEST(again->rotated == 0u);
  BOOST_TEST(again->already_current == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
