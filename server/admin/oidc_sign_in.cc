#include "server/admin/oidc_sign_in.h"

#include <openssl/crypto.h>

#include "server/admin/session_table.h"
#include "server/log/json_log.h"

namespace sluice::admin {

namespace {

using json = nlohmann::json;
namespace oidc = identity::oidc;

constexpr std::string_view kCookiePrefix = "o1.";
constexpr std::string_view kAssociated = "sluice-console-oidc-flow";
constexpr size_t kMaxCookieBytes = 4096;
constexpr std::chrono::hours kCacheFor{1};
constexpr std::chrono::seconds kKeysRefetchAfter{10};
constexpr size_t kMaxUsedStates = 100'000;

bool safeNext(const std::string& next) {
  return next.starts_with("/admin/") && !next.starts_with("/admin/oidc/") && next.size() <= 1024 &&
         next.find_first_of("\\\r\n\t") == std::string::npos && !next.starts_with("//");
}

}  // namespace

OidcSignIn::OidcSignIn(upstream::Transport& transport)
    : transport_(transport), vault_(identity::processVault([](const std::string& why) {
        log::warn("console sign-on: the master key is unusable; a sign-in must finish on the replica that began it",
                  {{"error", why}});
      })) {}

OidcFlow OidcSignIn::begin(std::string next, Clock::time_point now) const {
  OidcFlow flow;
  flow.state = randomToken();
  flow.nonce = randomToken();
  flow.verifier = randomToken() + randomToken();  // 128 characters: RFC 7636's longest
  flow.next = safeNext(next) ? std::move(next) : "/admin/gateway";
  flow.started = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  return flow;
}

std::string OidcSignIn::seal(const OidcFlow& flow) const {
  const json value = {{"s", flow.state}, {"n", flow.nonce}, {"v", flow.verifier}, {"x", flow.next}, {"t", flow.started}};
  const identity::Sealed sealed = vault_.seal(value.dump(), kAssociated);
  return std::string(kCookiePrefix) + sealed.key_id + "." + oidc::base64url(sealed.nonce + sealed.ciphertext);
}

std::optional<OidcFlow> OidcSignIn::open(const std::string& cookie, Clock::time_point now) const {
  if (cookie.size() > kMaxCookieBytes || !cookie.starts_with(kCookiePrefix)) return std::nullopt;
  const std::string rest = cookie.substr(kCookiePrefix.size());
  const size_t dot = rest.find('.');
  if (dot == std::string::npos) return std::nullopt;
  identity::Sealed sealed;
  sealed.key_id = rest.substr(0, dot);
  const auto bytes = oidc::base64urlDecode(std::string_view(rest).substr(dot + 1));
  if (!bytes || bytes->size() < 12 + 16 || !vault_.canOpen(sealed.key_id)) return std::nullopt;
  sealed.nonce = bytes->substr(0, 12);
  sealed.ciphertext = bytes->substr(12);
  try {
    const auto opened = vault_.open(sealed, kAssociated);
    if (!opened) return std::nullopt;
    const json value = json::parse(*opened, nullptr, false);
    if (!value.is_object()) return std::nullopt;
    OidcFlow flow;
    flow.state = value.value("s", "");
    flow.nonce = value.value("n", "");
    flow.verifier = value.value("v", "");
    flow.next = value.value("x", "");
    flow.started = value.value("t", int64_t{0});
    const int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
    if (flow.state.empty() || seconds - flow.started > kFlowLifetime.count() || flow.started - seconds > 60) return std::nullopt;
    if (!safeNext(flow.next)) flow.next = "/admin/gateway";
    return flow;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool OidcSignIn::firstUse(const std::string& state, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  for (auto it = used_states_.begin(); it != used_states_.end();) {
    it = now - it->second > kFlowLifetime ? used_states_.erase(it) : std::next(it);
    if (used_states_.size() < kMaxUsedStates / 2) break;  // amortised: most calls prune little
  }
  if (used_states_.size() >= kMaxUsedStates) used_states_.erase(used_states_.begin());
  return used_states_.emplace(state, now).second;
}

std::expected<cloud::SmallAnswer, std::string> OidcSignIn::fetch(
    const std::string& url, const std::string& form, const std::vector<std::pair<std::string, std::string>>& headers) {
  auto answer = cloud::fetchSmall(transport_, url, form, headers, oidc::kMaxAnswerBytes);
  if (answer) return std::move(*answer);
  if (answer.error().too_large) return std::unexpected("its answer is larger than 256 KiB");
  return std::unexpected("it could not be reached (" + answer.error().failure + ")");
}

std::expected<oidc::ProviderMetadata, std::string> OidcSignIn::provider(const catalog::OidcSettings& settings) {
  const auto now = Clock::now();
  {
    std::lock_guard lock(mutex_);
    if (const auto found = providers_.find(settings.issuer); found != providers_.end() && now - found->second.fetched_at < kCacheFor) {
      return found->second.metadata;
    }
  }
  const auto fetched = fetch(oidc::discoveryUrl(settings.issuer), "", {});
  if (!fetched) return std::unexpected("the provider's discovery document could not be read: " + fetched.error());
  if (fetched->status != 200) {
    return std::unexpected("the provider's discovery document answered HTTP " + std::to_string(fetched->status));
  }
  auto metadata = oidc::readDiscovery(fetched->body, settings.issuer);
  if (!metadata) return std::unexpected(metadata.error());
  std::lock_guard lock(mutex_);
  providers_[settings.issuer] = CachedProvider{*metadata, now};
  return *metadata;
}

std::expected<oidc::KeySet, std::string> OidcSignIn::keys(const std::string& jwks_uri, const std::string& unknown_kid) {
  const auto now = Clock::now();
  {
    std::lock_guard lock(mutex_);
    const auto found = key_sets_.find(jwks_uri);
    if (found != key_sets_.end()) {
      if (unknown_kid.empty() && now - found->second.fetched_at < kCacheFor) return found->second.keys;
      if (!unknown_kid.empty()) {
        // A provider rotating its keys names a new kid; a flood of one unknown kid costs one fetch
        // per kKeysRefetchAfter.
        const std::string looked = jwks_uri + "\n" + unknown_kid;
        if (const auto last = kids_looked_for_.find(looked); last != kids_looked_for_.end() && now - last->second < kKeysRefetchAfter) {
          return found->second.keys;
        }
        if (kids_looked_for_.size() >= 1000) kids_looked_for_.clear();
        kids_looked_for_[looked] = now;
      }
    }
  }
  const auto fetched = fetch(jwks_uri, "", {});
  if (!fetched) return std::unexpected("the provider's JWKS could not be read: " + fetched.error());
  if (fetched->status != 200) return std::unexpected("the provider's JWKS answered HTTP " + std::to_string(fetched->status));
  auto set = oidc::KeySet::parse(fetched->body);
  if (!set) return std::unexpected(set.error());
  std::lock_guard lock(mutex_);
  key_sets_[jwks_uri] = CachedKeys{*set, now};
  return *set;
}

std::expected<json, std::string> OidcSignIn::finish(const catalog::OidcSettings& settings,
                                                    const oidc::ProviderMetadata& provider, const std::string& code,
                                                    const std::string& redirect_uri, const OidcFlow& flow,
                                                    Clock::time_point now) {
  const auto request = oidc::tokenRequest(provider, settings, code, redirect_uri, flow.verifier);
  const auto answer = fetch(provider.token_endpoint, request.form, request.headers);
  if (!answer) return std::unexpected("the provider's token endpoint failed: " + answer.error());
  auto tokens = oidc::readTokenAnswer(answer->status, answer->body);
  if (!tokens) return std::unexpected(tokens.error());
  auto set = keys(provider.jwks_uri);
  if (!set) return std::unexpected(set.error());
  auto claims = oidc::verifyIdToken(tokens->id_token, *set, provider.issuer, settings.client_id, flow.nonce, now);
  if (!claims && claims.error().fault == oidc::TokenFault::UnknownKey) {
    // The provider rotated its keys: read them again, once.
    set = keys(provider.jwks_uri, oidc::tokenKeyId(tokens->id_token));
    if (!set) return std::unexpected(set.error());
    claims = oidc::verifyIdToken(tokens->id_token, *set, provider.issuer, settings.client_id, flow.nonce, now);
  }
  OPENSSL_cleanse(tokens->id_token.data(), tokens->id_token.size());
  if (!claims) return std::unexpected(claims.error().message);
  if (oidc::needsUserInfo(*claims, settings) && !provider.userinfo_endpoint.empty() && !tokens->access_token.empty()) {
    const auto info = fetch(provider.userinfo_endpoint, "", {{"Authorization", "Bearer " + tokens->access_token}});
    if (!info) return std::unexpected("the provider's UserInfo endpoint failed: " + info.error());
    auto merged = oidc::mergeUserInfo(std::move(*claims), info->status, info->body);
    if (!merged) return std::unexpected(merged.error());
    return *merged;
  }
  return *claims;
}

}  // namespace sluice::admin
