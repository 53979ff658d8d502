#include "server/identity/vault.h"

#include <cstdio>
#include <fstream>

#include <boost/test/unit_test.hpp>

using namespace sluice::identity;

namespace {

const std::string kHexKey = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const std::string kOtherHexKey = "ff0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

MasterKey key(const std::string& text) { return MasterKey::parse(text, "test").value(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(vault)

BOOST_AUTO_TEST_CASE(master_key_reads_hex_and_base64) {
  const MasterKey hex = key(kHexKey);
  // The same 32 bytes in standard base64, URL-safe base64 without padding, and with whitespace.
  BOOST_TEST(key("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=").id() == hex.id());
  BOOST_TEST(key("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8").id() == hex.id());
  BOOST_TEST(key("  " + kHexKey + "\n").id() == hex.id());
  BOOST_TEST(hex.id().size() == 8u);
  BOOST_TEST(key(kOtherHexKey).id() != hex.id());
}

BOOST_AUTO_TEST_CASE(master_key_refuses_other_sizes_without_echoing_the_text) {
  for (const std::string& bad : {std::string(), std::string("short"), kHexKey.substr(2), kHexKey + "00",
                                std::string("not base64 !!"), std::string(64, 'z')}) {
    const auto parsed = MasterKey::parse(bad, "SLUICE_MASTER_KEY");
    BOOST_REQUIRE(!parsed.has_value());
    BOOST_TEST(parsed.error().find("SLUICE_MASTER_KEY") != std::string::npos);
    if (bad.size() > 4) BOOST_TEST(parsed.error().find(bad) == std::string::npos);
  }
}

BOOST_AUTO_TEST_CASE(master_key_from_environment_or_file) {
  BOOST_TEST(!masterKeyFromEnvironment({}).value().has_value());
  BOOST_TEST(masterKeyFromEnvironment({{"SLUICE_MASTER_KEY", kHexKey}}).value()->id() == key(kHexKey).id());
  const std::string path = "vault_test_master_key.txt";
  { std::ofstream(path) << kOtherHexKey << "\n"; }
  BOOST_TEST(masterKeyFromEnvironment({{"SLUICE_MASTER_KEY_FILE", path}}).value()->id() == key(kOtherHexKey).id());
  BOOST_TEST(!masterKeyFromEnvironment({{"SLUICE_MASTER_KEY", kHexKey}, {"SLUICE_MASTER_KEY_FILE", path}}).has_value());
  std::remove(path.c_str());
  const auto missing = masterKeyFromEnvironment({{"SLUICE_MASTER_KEY_FILE", path}});
  BOOST_REQUIRE(!missing.has_value());
  BOOST_TEST(missing.error().find(path) != std::string::npos);
  const auto old = vaultFromEnvironment({{"SLUICE_MASTER_KEY", kHexKey}, {"SLUICE_MASTER_KEY_OLD", kOtherHexKey}});
  BOOST_REQUIRE(old.has_value());
  BOOST_TEST((*old)->canOpen(key(kOtherHexKey).id()));
  BOOST_TEST(!vaultFromEnvironment({{"SLUICE_MASTER_KEY_OLD", kOtherHexKey}}).has_value());
  BOOST_TEST(!vaultFromEnvironment({}).value().has_value());
}

BOOST_AUTO_TEST_CASE(seal_then_open_round_trips_with_a_fresh_nonce_each_time) {
  const Vault vault(key(kHexKey));
  const Sealed a = vault.seal("sk-go-personal-secret", "alice/opencode-go");
  const Sealed b = vault.seal("sk-go-personal-secret", "alice/opencode-go");
  BOOST_TEST(a.nonce.size() == 12u);
  BOOST_TEST(a.ciphertext.size() == std::string("sk-go-personal-secret").size() + 16);
  BOOST_TEST(a.nonce != b.nonce);
  BOOST_TEST(a.ciphertext != b.ciphertext);
  BOOST_TEST(a.ciphertext.find("sk-go") == std::string::npos);
  BOOST_TEST(a.key_id == vault.keyId());
  BOOST_TEST(vault.open(a, "alice/opencode-go").value() == "sk-go-personal-secret");
  BOOST_TEST(vault.open(b, "alice/opencode-go").value() == "sk-go-personal-secret");
  BOOST_TEST(vault.open(vault.seal("", "x"), "x").value().empty());
}

BOOST_AUTO_TEST_CASE(tampering_is_detected) {
  const Vault vault(key(kHexKey));
  const Sealed good = vault.seal("secret value", "alice/opencode-go");
  for (size_t i = 0; i < good.ciphertext.size(); ++i) {
    Sealed bad = good;
    bad.ciphertext[i] = static_cast<char>(bad.ciphertext[i] ^ 0x01);
    BOOST_TEST(!vault.open(bad, "alice/opencode-go").has_value(), "byte " << i);
  }
  Sealed bad_nonce = good;
  bad_nonce.nonce[0] = static_cast<char>(bad_nonce.nonce[0] ^ 0x80);
  BOOST_TEST(!vault.open(bad_nonce, "alice/opencode-go").has_value());
  Sealed truncated = good;
  truncated.ciphertext.resize(10);
  BOOST_TEST(!vault.open(truncated, "alice/opencode-go").has_value());
  // Another row's associated data: a value copied into bob's row does not open.
  const auto moved = vault.open(good, "bob/opencode-go");
  BOOST_REQUIRE(!moved.has_value());
  BOOST_TEST(moved.error().find("secret value") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(wrong_or_unknown_master_key_fails_and_old_keys_still_open) {
  const Vault first(key(kHexKey));
  const Sealed sealed = first.seal("secret value", "ad");
  const Vault other(key(kOtherHexKey));
  const auto unknown = other.open(sealed, "ad");
  BOOST_REQUIRE(!unknown.has_value());
  BOOST_TEST(unknown.error().find(first.keyId()) != std::string::npos);
  // Same id claimed, different key bytes: authentication fails.
  Sealed forged = sealed;
  forged.key_id = other.keyId();
  BOOST_TEST(!other.open(forged, "ad").has_value());
  const Vault rotated(key(kOtherHexKey), {key(kHexKey)});
  BOOST_TEST(rotated.open(sealed, "ad").value() == "secret value");
  BOOST_TEST(rotated.seal("x", "ad").key_id == other.keyId());
}

BOOST_AUTO_TEST_SUITE_END()
