// server/identity/oidc.h with strings and a fixed clock: discovery, PKCE, the token request, ID
// token verification (tokens signed here with cjose, RS256 and ES256, and hostile ones built by
// hand) and the claims that name a member.
#include "server/identity/oidc.h"

#include <memory>

#include <boost/test/unit_test.hpp>
#include <cjose/cjose.h>
#include <nlohmann/json.hpp>

using namespace sluice;
using namespace sluice::identity::oidc;
using nlohmann::json;

namespace {

constexpr int64_t kNow = 1'800'000'000;
const TimePoint now = TimePoint(std::chrono::seconds(kNow));
constexpr const char* kIssuer = "https://login.example.com/realms/acme";

// A signing key made here, its public JWKS entry and tokens it signs.
struct Signer {
  std::shared_ptr<cjose_jwk_t> jwk;
  std::string alg;
  std::string kid;

  static Signer rsa(const std::string& kid) {
    cjose_err error{};
    Signer signer{std::shared_ptr<cjose_jwk_t>(cjose_jwk_create_RSA_random(2048, nullptr, 0, &error), cjose_jwk_release), "RS256", kid};
    cjose_jwk_set_kid(signer.jwk.get(), kid.c_str(), kid.size(), &error);
    return signer;
  }
  static Signer ec(const std::string& kid) {
    cjose_err error{};
    Signer signer{std::shared_ptr<cjose_jwk_t>(cjose_jwk_create_EC_random(CJOSE_JWK_EC_P_256, &error), cjose_jwk_release), "ES256", kid};
    cjose_jwk_set_kid(signer.jwk.get(), kid.c_str(), kid.size(), &error);
    return signer;
  }
  json publicJwk() const {
    cjose_err error{};
    char* text = cjose_jwk_to_json(jwk.get(), false, &error);
    json out = json::parse(text);
    free(text);
    return out;
  }
  std::string sign(const json& claims, const std::string& header_kid) const {
    cjose_err error{};
    cjose_header_t* header = cjose_header_new(&error);
    cjose_header_set(header, CJOSE_HDR_ALG, alg.c_str(), &error);
    if (!header_kid.empty()) cjose_header_set(header, CJOSE_HDR_KID, header_kid.c_str(), &error);
    const std::string payload = claims.dump();
    cjose_jws_t* jws = cjose_jws_sign(jwk.get(), header, reinterpret_cast<const uint8_t*>(payload.data()), payload.size(), &error);
    const char* compact = nullptr;
    cjose_jws_export(jws, &compact, &error);
    std::string out = compact;
    cjose_jws_release(jws);
    cjose_header_release(header);
    return out;
  }
  std::string sign(const json& claims) const { return sign(claims, kid); }
};

KeySet keysOf(std::initializer_list<const Signer*> signers) {
  json jwks = {{"keys", json::array()}};
  for (const Signer* signer : signers) jwks["keys"].push_back(signer->publicJwk());
  return KeySet::parse(jwks.dump()).value();
}

json goodClaims() {
  return {{"iss", kIssuer}, {"sub", "00u1"}, {"aud", "sluice"}, {"exp", kNow + 300}, {"iat", kNow - 5},
          {"nonce", "n-123"}, {"email", "Ada@Example.com"}, {"email_verified", true}, {"groups", {"platform-admins"}}};
}

std::expected<json, TokenError> verify(const std::string& token, const KeySet& keys) {
  return verifyIdToken(token, keys, kIssuer, "sluice", "n-123", now);
}

std::string unsignedToken(const json& header, const json& claims, const std::string& signature = "") {
  return base64url(header.dump()) + "." + base64url(claims.dump()) + "." + signature;
}

catalog::OidcSettings settings() {
  catalog::OidcSettings s;
  s.issuer = kIssuer;
  s.client_id = "sluice";
  s.client_secret = "s:cret";
  s.groups_claim = "groups";
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(oidc)

BOOST_AUTO_TEST_CASE(pkce_s256_is_rfc_7636_appendix_b) {
  BOOST_TEST(codeChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk") == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
  BOOST_TEST(base64urlDecode(base64url(std::string("\xff\x00\x10", 3))).value() == std::string("\xff\x00\x10", 3));
  BOOST_TEST(!base64urlDecode("a+b/").has_value());
}

BOOST_AUTO_TEST_CASE(discovery_must_name_the_configured_issuer_and_https_endpoints) {
  json document = {{"issuer", kIssuer},
                   {"authorization_endpoint", std::string(kIssuer) + "/auth"},
                   {"token_endpoint", std::string(kIssuer) + "/token"},
                   {"jwks_uri", std::string(kIssuer) + "/certs"},
                   {"userinfo_endpoint", std::string(kIssuer) + "/userinfo"},
                   {"code_challenge_methods_supported", {"plain", "S256"}}};
  const auto provider = readDiscovery(document.dump(), kIssuer);
  BOOST_REQUIRE(provider.has_value());
  BOOST_TEST(provider->token_endpoint == std::string(kIssuer) + "/token");
  BOOST_TEST(!provider->secret_in_form);
  BOOST_TEST(discoveryUrl(std::string(kIssuer) + "/") == std::string(kIssuer) + "/.well-known/openid-configuration");

  BOOST_TEST(!readDiscovery(document.dump(), "https://login.example.com/realms/other").has_value());
  json plain_http = document;
  plain_http["token_endpoint"] = "http://attacker.example/token";
  BOOST_TEST(readDiscovery(plain_http.dump(), kIssuer).error().find("token_endpoint") != std::string::npos);
  json no_s256 = document;
  no_s256["code_challenge_methods_supported"] = {"plain"};
  BOOST_TEST(readDiscovery(no_s256.dump(), kIssuer).error().find("S256") != std::string::npos);
  json post_only = document;
  post_only["token_endpoint_auth_methods_supported"] = {"client_secret_post"};
  BOOST_TEST(readDiscovery(post_only.dump(), kIssuer)->secret_in_form);
  BOOST_TEST(!readDiscovery("[1]", kIssuer).has_value());
  BOOST_TEST(!readDiscovery(std::string(100, '[') + std::string(100, ']'), kIssuer).has_value());
  BOOST_TEST(acceptableUrl("http://127.0.0.1:8080/x"));
  BOOST_TEST(!acceptableUrl("http://127.0.0.1.attacker.example/x"));
}

BOOST_AUTO_TEST_CASE(the_token_request_sends_the_verifier_and_basic_credentials_form_encoded) {
  ProviderMetadata provider;
  provider.token_endpoint = "https://login.example.com/token";
  const auto request = tokenRequest(provider, settings(), "c0de+/", "https://gw.example/admin/oidc/callback", "v");
  BOOST_TEST(request.form ==
             "grant_type=authorization_code&code=c0de%2B%2F&redirect_uri=https%3A%2F%2Fgw.example%2Fadmin%2Foidc%2Fcallback"
             "&code_verifier=v");
  BOOST_REQUIRE(request.headers.size() == 1u);
  BOOST_TEST(request.headers[0].second == "Basic c2x1aWNlOnMlM0FjcmV0");  // sluice:s%3Acret
  provider.secret_in_form = true;
  BOOST_TEST(tokenRequest(provider, settings(), "c", "r", "v").form.ends_with("&client_id=sluice&client_secret=s%3Acret"));
  auto public_client = settings();
  public_client.client_secret.clear();
  const auto pub = tokenRequest(provider, public_client, "c", "r", "v");
  BOOST_TEST(pub.headers.empty());
  BOOST_TEST(pub.form.ends_with("&client_id=sluice"));
  ProviderMetadata with_query;
  with_query.authorization_endpoint = "https://login.example.com/auth?tenant=1";
  const std::string url = authorizationUrl(with_query, settings(), "https://gw/cb", "st", "no", "ch");
  BOOST_TEST(url.starts_with("https://login.example.com/auth?tenant=1&response_type=code&client_id=sluice"));
  BOOST_TEST(url.find("&state=st&nonce=no&code_challenge=ch&code_challenge_method=S256") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_token_answer_gives_the_id_token_or_the_error_code_never_the_body) {
  BOOST_TEST(readTokenAnswer(200, R"({"id_token":"a.b.c","access_token":"at"})")->id_token == "a.b.c");
  const auto refused = readTokenAnswer(400, R"({"error":"invalid_grant","error_description":"code a.b.c expired"})");
  BOOST_TEST(refused.error() == "the token endpoint refused the code (HTTP 400, invalid_grant)");
  BOOST_TEST(!readTokenAnswer(200, R"({"access_token":"at"})").has_value());
}

BOOST_AUTO_TEST_CASE(rs256_and_es256_tokens_verify_with_their_keys) {
  const Signer rsa = Signer::rsa("rsa-1");
  const Signer ec = Signer::ec("ec-1");
  const KeySet keys = keysOf({&rsa, &ec});
  BOOST_TEST(keys.size() == 2u);
  const auto by_rsa = verify(rsa.sign(goodClaims()), keys);
  BOOST_REQUIRE_MESSAGE(by_rsa.has_value(), by_rsa.error().message);
  BOOST_TEST((*by_rsa)["sub"] == "00u1");
  const auto by_ec = verify(ec.sign(goodClaims()), keys);
  BOOST_REQUIRE_MESSAGE(by_ec.has_value(), by_ec.error().message);
  // Without a kid, each key of the algorithm's type is tried.
  BOOST_TEST(verify(rsa.sign(goodClaims(), ""), keys).has_value());
}

BOOST_AUTO_TEST_CASE(a_token_naming_an_unknown_key_asks_for_the_jwks_again) {
  const Signer old_key = Signer::rsa("old");
  const Signer new_key = Signer::rsa("new");
  const auto result = verify(new_key.sign(goodClaims()), keysOf({&old_key}));
  BOOST_REQUIRE(!result.has_value());
  BOOST_TEST((result.error().fault == TokenFault::UnknownKey));
  BOOST_TEST(tokenKeyId(new_key.sign(goodClaims())) == "new");
  // The same kid with another key's signature is invalid, not unknown.
  const Signer impostor = Signer::rsa("old");
  const auto forged = verify(impostor.sign(goodClaims()), keysOf({&old_key}));
  BOOST_TEST((forged.error().fault == TokenFault::Invalid));
  BOOST_TEST(forged.error().message == "the ID token's signature does not verify");
}

BOOST_AUTO_TEST_CASE(none_hmac_and_mismatched_algorithms_are_refused) {
  const Signer rsa = Signer::rsa("rsa-1");
  const KeySet keys = keysOf({&rsa});
  BOOST_TEST(verify(unsignedToken({{"alg", "none"}}, goodClaims()), keys).error().message.find("'none'") != std::string::npos);
  BOOST_TEST(verify(unsignedToken({{"alg", "HS256"}, {"kid", "rsa-1"}}, goodClaims(), "c2ln"), keys).error().message.find("'HS256'") !=
             std::string::npos);
  // ES256 named over an RSA key: no key of that type.
  BOOST_TEST(!verify(unsignedToken({{"alg", "ES256"}, {"kid", "rsa-1"}}, goodClaims(), "c2ln"), keys).has_value());
  BOOST_TEST(!verify("not a token", keys).has_value());
  BOOST_TEST(!verify(std::string(20000, 'a') + ".b.c", keys).has_value());
  BOOST_TEST(!verify(unsignedToken({{"alg", "RS256"}, {"crit", {"exp"}}}, goodClaims(), "c2ln"), keys).has_value());
}

BOOST_AUTO_TEST_CASE(issuer_audience_times_and_nonce_are_checked) {
  const Signer rsa = Signer::rsa("rsa-1");
  const KeySet keys = keysOf({&rsa});
  const auto refused = [&](json changes) {
    json claims = goodClaims();
    for (auto& [name, value] : changes.items()) {
      if (value.is_null()) claims.erase(name);
      else claims[name] = value;
    }
    const auto result = verify(rsa.sign(claims), keys);
    return result.has_value() ? std::string("accepted") : result.error().message;
  };
  BOOST_TEST(refused({{"iss", "https://login.example.com/realms/other"}}) == "the ID token was issued by another issuer");
  BOOST_TEST(refused({{"aud", "another-client"}}) == "the ID token is for another audience");
  BOOST_TEST(refused({{"aud", {"sluice", "other"}}}) == "the ID token names several audiences and another authorized party");
  BOOST_TEST(refused({{"aud", {"sluice", "other"}}, {"azp", "sluice"}}) == "accepted");
  BOOST_TEST(refused({{"exp", kNow - 61}}) == "the ID token has expired");
  BOOST_TEST(refused({{"exp", kNow - 30}}) == "accepted");  // within the clock skew
  BOOST_TEST(refused({{"exp", nullptr}}) == "the ID token has no expiry");
  BOOST_TEST(refused({{"iat", kNow + 120}}) == "the ID token was issued in the future");
  BOOST_TEST(refused({{"nbf", kNow + 120}}) == "the ID token is not valid yet");
  BOOST_TEST(refused({{"nonce", "another"}}) == "the ID token's nonce is not this sign-in's");
  BOOST_TEST(refused({{"nonce", nullptr}}) == "the ID token's nonce is not this sign-in's");
  BOOST_TEST(refused({{"sub", nullptr}}) == "the ID token has no subject");
}

BOOST_AUTO_TEST_CASE(a_jwks_keeps_signing_keys_only) {
  const Signer rsa = Signer::rsa("rsa-1");
  json jwks = {{"keys", {rsa.publicJwk(), {{"kty", "oct"}, {"k", "c2VjcmV0"}, {"kid", "hmac"}}}}};
  json encryption = rsa.publicJwk();
  encryption["use"] = "enc";
  encryption["kid"] = "enc-1";
  jwks["keys"].push_back(encryption);
  const auto keys = KeySet::parse(jwks.dump());
  BOOST_REQUIRE(keys.has_value());
  BOOST_TEST(keys->size() == 1u);
  BOOST_TEST(keys->has("rsa-1"));
  BOOST_TEST(!keys->has("hmac"));
  BOOST_TEST(!KeySet::parse(R"({"keys":[{"kty":"oct","k":"c2VjcmV0"}]})").has_value());
  BOOST_TEST(!KeySet::parse("{}").has_value());
}

BOOST_AUTO_TEST_CASE(the_claims_name_a_member_with_their_groups) {
  auto s = settings();
  const auto who = signedInOf(goodClaims(), s);
  BOOST_REQUIRE(who.has_value());
  BOOST_TEST(who->member == "ada@example.com");
  BOOST_TEST(who->email.value() == "ada@example.com");
  BOOST_TEST((who->groups.value() == std::vector<std::string>{"platform-admins"}));

  json unverified = goodClaims();
  unverified["email_verified"] = false;
  BOOST_TEST(signedInOf(unverified, s).error() == "the provider says this e-mail address is not verified");
  json one_group = goodClaims();
  one_group["groups"] = "engineering";
  BOOST_TEST((signedInOf(one_group, s)->groups.value() == std::vector<std::string>{"engineering"}));
  json bad_group = goodClaims();
  bad_group["groups"] = {"ok", std::string("new\nline")};
  BOOST_TEST(!signedInOf(bad_group, s).has_value());
  json many = goodClaims();
  many["groups"] = json::array();
  for (int i = 0; i < 300; ++i) many["groups"].push_back("g" + std::to_string(i));
  BOOST_TEST(signedInOf(many, s).error() == "the groups claim lists more than 256 groups");

  s.member_claim = catalog::MemberClaim::PreferredUsername;
  BOOST_TEST(needsUserInfo(goodClaims(), s));
  json named = goodClaims();
  named["preferred_username"] = "ada lovelace";
  BOOST_TEST(signedInOf(named, s).error().find("not a valid member name") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(userinfo_adds_missing_claims_for_the_same_subject_only) {
  json claims = {{"sub", "00u1"}, {"email", "ada@example.com"}};
  const auto merged = mergeUserInfo(claims, 200, R"({"sub":"00u1","email":"other@example.com","groups":["g"]})");
  BOOST_REQUIRE(merged.has_value());
  BOOST_TEST((*merged)["email"] == "ada@example.com");
  BOOST_TEST((*merged)["groups"][0] == "g");
  BOOST_TEST(mergeUserInfo(claims, 200, R"({"sub":"someone-else"})").error() == "the UserInfo answer is for another subject");
  BOOST_TEST(!mergeUserInfo(claims, 401, "").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
