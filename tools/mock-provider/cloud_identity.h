#pragma once
// The clouds' token endpoints, checked the way Google and Microsoft Entra ID check them:
//  - Google's OAuth 2.0 JWT bearer grant: the assertion's RS256 signature verified with the
//    service account's public key, its claims (iss, aud = the token URL it was posted to, scope
//    holding cloud-platform, iat/exp a short-lived window around now);
//  - Entra ID's client credentials grant: the tenant, client id and scope
//    (https://cognitiveservices.azure.com/.default), then the client secret or a federated
//    assertion (client_assertion equal to the federated token file's text, re-read every time);
// and the access tokens both hand out, each valid for a lifetime tests make short. Pure apart
// from OpenSSL; thread-safe where said.

#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::mock {

// An OAuth endpoint's refusal: {"error": error, "error_description": description} with `status`.
struct OAuthError {
  int status = 400;
  std::string error;
  std::string description;
};
std::string oauthErrorBody(const OAuthError& error);

// application/x-www-form-urlencoded → name: value (percent-decoded, '+' a space; the last repeat wins).
std::map<std::string, std::string> parseForm(std::string_view body);

// The access tokens one cloud's token endpoints handed out, each until it expires. Thread-safe.
class TokenRing {
 public:
  using Clock = std::chrono::system_clock;
  explicit TokenRing(std::string prefix) : prefix_(std::move(prefix)) {}

  // A new token valid for `lifetime` from `now` (the oldest are forgotten past 10,000).
  std::string issue(std::chrono::seconds lifetime, Clock::time_point now);
  enum class Found { Valid, Unknown, Expired };
  Found check(const std::string& token, Clock::time_point now) const;
  // Tokens that look like this ring's own (its prefix).
  bool owns(std::string_view token) const { return token.starts_with(prefix_); }
  std::uint64_t issuedCount() const;
  // Every token issued so far stops working (a revocation, or the cloud forgetting them).
  void revokeAll();

 private:
  const std::string prefix_;
  mutable std::mutex mutex_;
  std::map<std::string, Clock::time_point> issued_;
  std::uint64_t issued_count_ = 0;
};

// A Google service account as its token endpoint knows it: the email and the public half of its key.
struct GoogleAccount {
  std::string client_email;
  std::string private_key_id;  // the JWT's kid must match it when both are set
  std::string public_key_pem;
};
// From a service-account key file's JSON (its private_key's public half); the error says what is wrong.
std::expected<GoogleAccount, std::string> loadGoogleAccount(std::string_view key_file_json);

// nullopt when `form` is a valid JWT bearer grant for `account` posted to `token_url` at `now`.
std::optional<OAuthError> checkGoogleGrant(const std::map<std::string, std::string>& form, const GoogleAccount& account,
                                           const std::string& token_url, std::chrono::system_clock::time_point now);

// A user's application default credentials as Google's token endpoint knows them: the OAuth client
// and the refresh token it issued.
struct GoogleUser {
  std::string client_id;
  std::string client_secret;
  std::string refresh_token;
};
// From an `authorized_user` file's JSON; the error says what is missing.
std::expected<GoogleUser, std::string> loadGoogleUser(std::string_view file_json);

// nullopt when `form` is a valid refresh-token grant of `user` (RFC 6749 §6): grant_type
// refresh_token, the client's id and secret, the refresh token; Google's own errors otherwise
// (`invalid_client` "Unauthorized", `invalid_grant` "Bad Request").
std::optional<OAuthError> checkRefreshGrant(const std::map<std::string, std::string>& form, const GoogleUser& user);

// The Entra ID application the mock's tenant knows.
struct EntraApp {
  std::string tenant_id;
  std::string client_id;
  std::string client_secret;
  std::string federated_token_file;  // "" : no federated identity configured
};
inline constexpr std::string_view kCognitiveServicesScope = "https://cognitiveservices.azure.com/.default";

// nullopt when `form`, posted for `tenant`, is a client credentials grant `app` accepts. `read_file`
// reads the federated token file (nullopt when it cannot).
std::optional<OAuthError> checkEntraGrant(std::string_view tenant, const std::map<std::string, std::string>& form,
                                          const EntraApp& app,
                                          const std::function<std::optional<std::string>(const std::string&)>& read_file);

}  // namespace sluice::mock
