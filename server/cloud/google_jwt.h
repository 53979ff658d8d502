#pragma once
// A Google service account's OAuth 2.0 JWT bearer grant (RFC 7523): the key file read, the
// assertion signed RS256 with its private key, and the form posted to its `token_uri` for an
// access token with the cloud-platform scope; and a user's `authorized_user` file, whose refresh
// token is exchanged the same way. Pure apart from OpenSSL.

#include <chrono>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::cloud {

inline constexpr std::string_view kCloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform";
inline constexpr std::string_view kGoogleTokenUri = "https://oauth2.googleapis.com/token";

struct ServiceAccount {
  std::string client_email;
  std::string private_key;     // PEM; never logged
  std::string private_key_id;  // the JWT header's kid ("" when the file has none)
  std::string token_uri;       // the file's, else kGoogleTokenUri
};

// A user's application default credentials (`gcloud auth application-default login`): an OAuth
// client and the user's refresh token, exchanged at token_uri (RFC 6749 §6).
struct AuthorizedUser {
  std::string client_id;
  std::string client_secret;  // never logged
  std::string refresh_token;  // never logged
  std::string token_uri;      // the file's, else kGoogleTokenUri
};

// A key file's JSON (`type: service_account`, client_email, private_key). The error names what is
// missing, never a value.
std::expected<ServiceAccount, std::string> parseServiceAccount(std::string_view json);

// A credentials file as GOOGLE_APPLICATION_CREDENTIALS may name it: a service account's key or an
// `authorized_user` file (client_id, client_secret, refresh_token). `external_account` (workload
// identity federation) is refused with that said. The error names what is missing, never a value.
struct GoogleCredentialsFile {
  std::optional<ServiceAccount> service_account;
  std::optional<AuthorizedUser> authorized_user;
};
std::expected<GoogleCredentialsFile, std::string> parseGoogleCredentialsFile(std::string_view json);

// grant_type=refresh_token&client_id=…&client_secret=…&refresh_token=…
std::string refreshTokenGrantForm(const AuthorizedUser& user);

// The signed assertion: header {"alg":"RS256","typ":"JWT","kid"}, claims {iss, scope, aud =
// token_uri, iat = now, exp = now + 1 h}. An error when the key cannot be read or sign.
std::expected<std::string, std::string> serviceAccountAssertion(const ServiceAccount& account,
                                                                std::chrono::system_clock::time_point now);

// grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=…
std::string jwtGrantForm(std::string_view assertion);

// RFC 4648 §5, without padding.
std::string base64Url(std::string_view bytes);
// Unreserved characters and those in `also_keep` kept, the rest %XX.
std::string percentEncode(std::string_view text, std::string_view also_keep = "");
// application/x-www-form-urlencoded: unreserved characters kept, the rest %XX.
inline std::string formEncode(std::string_view text) { return percentEncode(text); }

}  // namespace sluice::cloud
