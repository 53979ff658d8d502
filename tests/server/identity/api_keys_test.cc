#include "server/identity/api_keys.h"

#include <set>

#include <boost/test/unit_test.hpp>

using namespace sluice::identity;

BOOST_AUTO_TEST_SUITE(api_keys)

BOOST_AUTO_TEST_CASE(generated_keys_have_the_prefix_the_id_and_256_bits_in_base62) {
  const GeneratedKey generated = generateApiKey();
  BOOST_TEST(generated.key.size() == kKeyLength);
  BOOST_TEST(generated.key.starts_with("sk-sluice-" + generated.id));
  BOOST_TEST(generated.id.size() == 8u);
  const auto parsed = parseApiKey(generated.key);
  BOOST_REQUIRE(parsed.has_value());
  BOOST_TEST(parsed->id == generated.id);
  BOOST_TEST(parsed->secret.size() == 43u);
  BOOST_TEST(sameHash(generated.hash, hashApiKey(generated.key)));
}

BOOST_AUTO_TEST_CASE(generated_keys_and_ids_do_not_repeat) {
  std::set<std::string> keys, ids;
  for (int i = 0; i < 2000; ++i) {
    const auto generated = generateApiKey();
    keys.insert(generated.key);
    ids.insert(generated.id);
  }
  BOOST_TEST(keys.size() == 2000u);
  BOOST_TEST(ids.size() == 2000u);
}

BOOST_AUTO_TEST_CASE(secret_characters_are_spread_over_the_whole_alphabet) {
  std::set<char> seen;
  for (int i = 0; i < 200; ++i) {
    const auto generated = generateApiKey();
    for (const char c : generated.key.substr(kKeyPrefix.size() + kKeyIdLength + 1)) seen.insert(c);
  }
  BOOST_TEST(seen.size() == 62u);
}

BOOST_AUTO_TEST_CASE(hash_is_sha256_of_the_whole_key) {
  // SHA-256("abc")
  BOOST_TEST(toHex(std::string_view(reinterpret_cast<const char*>(hashApiKey("abc").data()), 32)) ==
             "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const auto a = hashApiKey("sk-sluice-a");
  const auto b = hashApiKey("sk-sluice-b");
  BOOST_TEST(sameHash(a, a));
  BOOST_TEST(!sameHash(a, b));
}

BOOST_AUTO_TEST_CASE(parse_refuses_anything_but_a_well_formed_key) {
  const std::string good = generateApiKey().key;
  BOOST_TEST(parseApiKey(good).has_value());
  for (const std::string& bad :
       {std::string(), std::string("sk-sluice-"), good.substr(0, good.size() - 1), good + "x",
        "sk-other-" + good.substr(9), "sk-ant-api03-" + std::string(48, 'a'), good.substr(0, 20) + "-" + good.substr(21),
        good.substr(0, 30) + " " + good.substr(31), std::string("Bearer ") + good}) {
    BOOST_TEST(!parseApiKey(bad).has_value(), bad);
  }
}

BOOST_AUTO_TEST_CASE(presented_key_comes_from_bearer_or_x_api_key) {
  BOOST_TEST(presentedKey("Bearer abc", "") == "abc");
  BOOST_TEST(presentedKey("bearer   abc  ", "") == "abc");
  BOOST_TEST(presentedKey("BEARER abc", "other") == "abc");
  BOOST_TEST(presentedKey("", " xyz ") == "xyz");
  BOOST_TEST(presentedKey("", "").empty());
  BOOST_TEST(presentedKey("  ", "").empty());
  // Another scheme is passed through whole, so it fails as malformed rather than missing.
  BOOST_TEST(presentedKey("Basic dXNlcjpwYXNz", "") == "Basic dXNlcjpwYXNz");
}

BOOST_AUTO_TEST_CASE(visible_prefix_names_the_id) { BOOST_TEST(visiblePrefix("Ab3dE6gH") == "sk-sluice-Ab3dE6gH"); }

BOOST_AUTO_TEST_SUITE_END()
