#pragma once
// A Google service account's OAuth 2.0 JWT bearer grant (RFC 7523): the key file read, the
// assertion signed RS256 with its private key, and the form posted to its `token_uri` for an
// access token with the cloud-platform scope. Pure apart from OpenSSL.

#include <chrono>
#include <expected>
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

// A key file's JSON (`type: service_account`, client_email, private_key). The error names what is
// missing, never a value.
std::expected<ServiceAccount, std::string> parseServiceAccount(std::string_view json);

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
