#pragma once
// gateway.console of the catalog (docs/identity.md): how people sign in to the console. Plain
// values; see catalog/catalog.h.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sluice::catalog {

// Which ID token claim names the member a person signs in as.
enum class MemberClaim { Email, PreferredUsername, Sub };

// gateway.console.oidc: single sign-on through an OpenID Connect provider (authorization code flow
// with PKCE). Discovery is read from <issuer>/.well-known/openid-configuration.
struct OidcSettings {
  std::string issuer;     // an https:// URL (http:// only for a loopback host), without a trailing '/'
  std::string client_id;
  std::string client_secret_ref;   // env:NAME or file:PATH; "" for a public client (PKCE alone)
  std::string client_secret;       // resolved from client_secret_ref; never shown or logged
  // Why sign-on cannot work with this catalog ("" when it can): the client secret's variable or
  // file is unset or empty (a warning at load, as for a provider credential; the sign-in page says it).
  std::string unavailable;
  std::vector<std::string> scopes{"openid", "email", "profile"};
  MemberClaim member_claim = MemberClaim::Email;
  std::string groups_claim;                // "" = groups are not taken from the token
  std::vector<std::string> admin_groups;   // a member in one of them signs in as an admin
  bool provision = false;                  // a first sign-in creates the member
  std::string display_name;                // "Sign in with <display_name>"; default: the issuer's host
};

struct ConsoleSettings {
  std::optional<OidcSettings> oidc;
  bool key_sign_in = true;  // the API-key sign-in (break-glass); false turns it off
};

std::string_view toString(MemberClaim claim);

}  // namespace sluice::catalog
