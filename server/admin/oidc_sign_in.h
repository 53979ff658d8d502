#pragma once
// The console's single sign-on (docs/identity.md): the OpenID Connect authorization code flow with
// PKCE, state and nonce, against the provider gateway.console.oidc names.
//
// GET /admin/oidc/start sends the browser to the provider with a fresh state, nonce and PKCE
// verifier, which travel sealed (AES-256-GCM, identity::processVault) in a cookie of their own,
// `sluice_oidc` (Path=/admin/oidc, HttpOnly, SameSite=Lax, 10 minutes): the callback is bound to the
// browser that started it, any replica with the fleet's master key can finish it, and no table is
// needed. GET /admin/oidc/callback takes that cookie (once: a state seen before is refused on this
// replica, and the cookie is cleared), exchanges the code, verifies the ID token against the
// provider's JWKS (fetched again when a token names a key it lacks, once per such key every 10 s) and asks
// UserInfo for a claim the token lacks. Discovery and the JWKS are cached an hour.
//
// Fetches go through the gateway's upstream transport (a fiber parks; the event loop never
// blocks), 5 s to connect, 10 s to answer, 256 KiB at most. Nothing of a token, code or secret is
// logged or shown; refusals say which check failed.

#include <chrono>
#include <expected>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog/console_settings.h"
#include "server/cloud/access_token.h"
#include "server/identity/oidc.h"
#include "server/identity/vault.h"
#include "server/upstream/transport.h"

namespace sluice::admin {

// One sign-in under way, as its cookie carries it.
struct OidcFlow {
  std::string state;
  std::string nonce;
  std::string verifier;
  std::string next;       // where to go once signed in: a /admin/ path
  int64_t started = 0;    // seconds since the epoch
};

class OidcSignIn {
 public:
  using Clock = std::chrono::system_clock;
  static constexpr std::chrono::seconds kFlowLifetime{600};

  explicit OidcSignIn(upstream::Transport& transport);

  // A new flow to `next` (a /admin/ path; anything else becomes /admin/gateway).
  OidcFlow begin(std::string next, Clock::time_point now) const;
  // The cookie value carrying `flow`, and the flow a cookie value carries (nullopt when it was not
  // sealed by this fleet's key, is malformed or is older than kFlowLifetime).
  std::string seal(const OidcFlow& flow) const;
  std::optional<OidcFlow> open(const std::string& cookie, Clock::time_point now) const;
  // True the first time `state` is presented (remembered kFlowLifetime): a replayed callback is refused.
  bool firstUse(const std::string& state, Clock::time_point now);

  // The provider's metadata (cached an hour; an error names what failed, never a body).
  std::expected<identity::oidc::ProviderMetadata, std::string> provider(const catalog::OidcSettings& settings);
  // Exchanges `code` and verifies the ID token; asks UserInfo when a needed claim is missing. The
  // claims, or why the sign-in is refused.
  std::expected<nlohmann::json, std::string> finish(const catalog::OidcSettings& settings,
                                                    const identity::oidc::ProviderMetadata& provider,
                                                    const std::string& code, const std::string& redirect_uri,
                                                    const OidcFlow& flow, Clock::time_point now);

 private:
  std::expected<cloud::SmallAnswer, std::string> fetch(const std::string& url, const std::string& form,
                                            const std::vector<std::pair<std::string, std::string>>& headers);
  // The provider's keys: cached an hour; read again for `unknown_kid` (a key the cached set lacks)
  // unless that kid was already looked for in the last 10 s.
  std::expected<identity::oidc::KeySet, std::string> keys(const std::string& jwks_uri, const std::string& unknown_kid = "");

  upstream::Transport& transport_;
  identity::Vault vault_;
  std::mutex mutex_;
  struct CachedProvider {
    identity::oidc::ProviderMetadata metadata;
    Clock::time_point fetched_at;
  };
  std::map<std::string, CachedProvider> providers_;  // by issuer
  struct CachedKeys {
    identity::oidc::KeySet keys;
    Clock::time_point fetched_at;
  };
  std::map<std::string, CachedKeys> key_sets_;       // by jwks_uri
  std::map<std::string, Clock::time_point> used_states_;
  std::map<std::string, Clock::time_point> kids_looked_for_;  // jwks_uri + kid → when
};

}  // namespace sluice::admin
