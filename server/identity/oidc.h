#pragma once
// OpenID Connect for the console's single sign-on (docs/identity.md): what the gateway reads from
// and sends to the identity provider, as text in and values out. Fetching (discovery, token, JWKS,
// UserInfo) and the sign-in flow itself are server/admin/oidc_sign_in.cc's.
//
// ID tokens are JWS compact serialisations verified with cjose (libcjose, Debian 12) against the
// provider's JWKS: RS256 and ES256 (P-256) only, the key's type matching the algorithm, so a
// token naming "none" or an HMAC algorithm is refused whatever key it names. Time is the `now`
// passed in. Nothing here logs, and no error message carries a token, a code or a secret.

#include <chrono>
#include <expected>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/console_settings.h"

namespace sluice::identity::oidc {

using TimePoint = std::chrono::system_clock::time_point;

// The most any of the provider's answers may hold (discovery, JWKS, token, UserInfo).
constexpr size_t kMaxAnswerBytes = 256 * 1024;
// The most an ID token may be.
constexpr size_t kMaxTokenBytes = 16 * 1024;
// How far the provider's clock may be from ours (exp, iat, nbf).
constexpr std::chrono::seconds kClockSkew{60};

// <issuer>/.well-known/openid-configuration (a trailing '/' of the issuer is not doubled).
std::string discoveryUrl(std::string_view issuer);

// The provider's metadata, as discovery answers it.
struct ProviderMetadata {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string jwks_uri;
  std::string userinfo_endpoint;  // "" when the provider has none
  // How the token endpoint wants the client secret: HTTP Basic (the default) or in the form.
  bool secret_in_form = false;
};

// Discovery's answer, checked: `issuer` exactly the configured one (OpenID Connect Discovery §4.3),
// the endpoints https:// (http:// only on a loopback host, as the issuer may be), S256 among the
// PKCE methods when the provider lists them.
std::expected<ProviderMetadata, std::string> readDiscovery(std::string_view body, std::string_view issuer);

// True for an https:// URL, or http:// on localhost, 127.0.0.1 or [::1].
bool acceptableUrl(std::string_view url);

// RFC 4648 §5 without padding, and back (nullopt for a byte outside the alphabet).
std::string base64url(std::string_view bytes);
std::optional<std::string> base64urlDecode(std::string_view text);
// PKCE (RFC 7636) S256: base64url(SHA-256(verifier)).
std::string codeChallenge(std::string_view verifier);

// application/x-www-form-urlencoded escaping of one value.
std::string formEncode(std::string_view value);

// Where the browser is sent to sign in: the authorization endpoint with response_type=code, the
// client, scopes, redirect_uri, state, nonce and the S256 code challenge.
std::string authorizationUrl(const ProviderMetadata& provider, const catalog::OidcSettings& settings,
                             std::string_view redirect_uri, std::string_view state, std::string_view nonce,
                             std::string_view challenge);

// The token request exchanging `code`: its form and headers (Basic authentication, or the secret
// in the form; a public client sends only client_id).
struct TokenRequest {
  std::string form;
  std::vector<std::pair<std::string, std::string>> headers;
};
TokenRequest tokenRequest(const ProviderMetadata& provider, const catalog::OidcSettings& settings,
                          std::string_view code, std::string_view redirect_uri, std::string_view verifier);

struct Tokens {
  std::string id_token;      // never logged
  std::string access_token;  // for UserInfo; never logged
};
// The token endpoint's answer: the tokens, or why not (its `error` code only; never the body).
std::expected<Tokens, std::string> readTokenAnswer(int status, std::string_view body);

// A provider's signing keys (its JWKS): RSA keys and P-256 EC keys meant for signatures; others
// are left out. Copies share the keys.
class KeySet {
 public:
  struct Key;
  static std::expected<KeySet, std::string> parse(std::string_view body);
  size_t size() const { return keys_.size(); }
  bool has(std::string_view kid) const;
  const std::vector<std::shared_ptr<const Key>>& keys() const { return keys_; }

 private:
  std::vector<std::shared_ptr<const Key>> keys_;
};

// UnknownKey: the token names a key (kid) the set lacks: fetch the JWKS again (the provider rotated
// its keys) and retry once. Invalid: anything else; the message says which check failed.
enum class TokenFault { UnknownKey, Invalid };
struct TokenError {
  TokenFault fault = TokenFault::Invalid;
  std::string message;
};

// The kid of a compact JWS's protected header ("" when it names none or is not a JWS).
std::string tokenKeyId(std::string_view token);

// The ID token's claims once its signature (RS256 or ES256, by a key of `keys` of the matching
// type), `iss` (exactly the provider's), `aud` (holds the client id; with several audiences, `azp`
// is the client id), `exp`, `iat` and `nbf` (within kClockSkew) and `nonce` all hold.
std::expected<nlohmann::json, TokenError> verifyIdToken(std::string_view token, const KeySet& keys,
                                                       std::string_view issuer, std::string_view client_id,
                                                       std::string_view nonce, TimePoint now);

// Who signed in, read from the claims (the ID token's, with UserInfo's added where the token
// lacks a claim).
struct SignedIn {
  std::string subject;                // sub
  std::string member;                 // the member name the member_claim gives
  std::optional<std::string> email;   // lower case, when the provider gives one and has not said it is unverified
  std::optional<std::string> display_name;
  std::optional<std::vector<std::string>> groups;  // nullopt: no groups_claim, or the claim is absent
};

// Claims that name a member: the member_claim must be present (email: not marked unverified; e-mails
// are compared in lower case) and a valid member name (member_store.h validName); groups, when
// groups_claim is set, a list of strings (or one string), at most 256 of at most 128 bytes each.
std::expected<SignedIn, std::string> signedInOf(const nlohmann::json& claims, const catalog::OidcSettings& settings);

// True when the claims lack what signedInOf needs from them (the member claim, or the groups claim
// when one is configured): ask UserInfo.
bool needsUserInfo(const nlohmann::json& claims, const catalog::OidcSettings& settings);

// UserInfo's answer merged under the ID token's claims: a claim the token has is kept; UserInfo's
// `sub` must equal the token's (OpenID Connect Core §5.3.2), else the answer is refused.
std::expected<nlohmann::json, std::string> mergeUserInfo(nlohmann::json claims, int status, std::string_view body);

}  // namespace sluice::identity::oidc
