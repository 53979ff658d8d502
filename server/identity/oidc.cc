#include "server/identity/oidc.h"

#include <algorithm>
#include <cctype>

#include <cjose/cjose.h>
#include <openssl/evp.h>
#include <openssl/sha.h>

#include "server/identity/member_store.h"
#include "server/wire/json_parse.h"

namespace sluice::identity::oidc {

namespace {

using json = nlohmann::json;

constexpr int kMaxJsonDepth = 16;

// A JSON object from the provider, or discarded.
json parseObject(std::string_view body) {
  if (body.size() > kMaxAnswerBytes || wire::nestsDeeperThan(body, kMaxJsonDepth)) return json(json::value_t::discarded);
  json parsed = json::parse(body, nullptr, false);
  if (!parsed.is_object()) return json(json::value_t::discarded);
  return parsed;
}

std::string stringField(const json& object, const char* name) {
  const auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

// A provider's error code, safe to show: [A-Za-z0-9_.-], at most 64 characters.
std::string errorCode(const json& object) {
  std::string code = stringField(object, "error");
  if (code.size() > 64) code.resize(64);
  for (char& c : code) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') c = '?';
  }
  return code;
}

std::string withoutTrailingSlash(std::string_view text) {
  std::string out(text);
  while (!out.empty() && out.back() == '/') out.pop_back();
  return out;
}

std::optional<int64_t> numericDate(const json& claims, const char* name) {
  const auto found = claims.find(name);
  if (found == claims.end()) return std::nullopt;
  if (found->is_number_integer()) return found->get<int64_t>();
  if (found->is_number_float()) return static_cast<int64_t>(found->get<double>());
  return std::nullopt;
}

}  // namespace

std::string discoveryUrl(std::string_view issuer) {
  return withoutTrailingSlash(issuer) + "/.well-known/openid-configuration";
}

bool acceptableUrl(std::string_view url) {
  if (url.size() > 2048) return false;
  if (url.starts_with("https://") && url.size() > 8) return true;
  for (std::string_view host : {"http://localhost", "http://127.0.0.1", "http://[::1]"}) {
    if (url.starts_with(host) && (url.size() == host.size() || url[host.size()] == ':' || url[host.size()] == '/')) {
      return true;
    }
  }
  return false;
}

std::expected<ProviderMetadata, std::string> readDiscovery(std::string_view body, std::string_view issuer) {
  const json document = parseObject(body);
  if (document.is_discarded()) return std::unexpected("the discovery document is not a JSON object");
  ProviderMetadata provider;
  provider.issuer = stringField(document, "issuer");
  if (provider.issuer != issuer) {
    return std::unexpected("the discovery document names another issuer than the configured one");
  }
  provider.authorization_endpoint = stringField(document, "authorization_endpoint");
  provider.token_endpoint = stringField(document, "token_endpoint");
  provider.jwks_uri = stringField(document, "jwks_uri");
  provider.userinfo_endpoint = stringField(document, "userinfo_endpoint");
  for (const auto& [name, value] : {std::pair{"authorization_endpoint", &provider.authorization_endpoint},
                                    std::pair{"token_endpoint", &provider.token_endpoint},
                                    std::pair{"jwks_uri", &provider.jwks_uri}}) {
    if (value->empty()) return std::unexpected(std::string("the discovery document has no ") + name);
    if (!acceptableUrl(*value)) return std::unexpected(std::string("the discovery document's ") + name + " is not https://");
  }
  if (!provider.userinfo_endpoint.empty() && !acceptableUrl(provider.userinfo_endpoint)) provider.userinfo_endpoint.clear();
  if (const auto methods = document.find("code_challenge_methods_supported");
      methods != document.end() && methods->is_array()) {
    if (std::find(methods->begin(), methods->end(), json("S256")) == methods->end()) {
      return std::unexpected("the provider does not support PKCE with S256");
    }
  }
  if (const auto auth = document.find("token_endpoint_auth_methods_supported"); auth != document.end() && auth->is_array()) {
    const bool basic = std::find(auth->begin(), auth->end(), json("client_secret_basic")) != auth->end();
    const bool post = std::find(auth->begin(), auth->end(), json("client_secret_post")) != auth->end();
    provider.secret_in_form = !basic && post;
  }
  return provider;
}

std::string base64url(std::string_view bytes) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8) |
                       static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (i + 1 == bytes.size()) {
    const uint32_t n = static_cast<uint8_t>(bytes[i]) << 16;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
  } else if (i + 2 == bytes.size()) {
    const uint32_t n = (static_cast<uint8_t>(bytes[i]) << 16) | (static_cast<uint8_t>(bytes[i + 1]) << 8);
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
  }
  return out;
}

std::string codeChallenge(std::string_view verifier) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), digest);
  return base64url(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

std::string formEncode(std::string_view value) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string authorizationUrl(const ProviderMetadata& provider, const catalog::OidcSettings& settings,
                             std::string_view redirect_uri, std::string_view state, std::string_view nonce,
                             std::string_view challenge) {
  std::string scopes;
  for (const auto& scope : settings.scopes) {
    if (!scopes.empty()) scopes += ' ';
    scopes += scope;
  }
  std::string url = provider.authorization_endpoint;
  url += url.find('?') == std::string::npos ? '?' : '&';
  url += "response_type=code&client_id=" + formEncode(settings.client_id) + "&redirect_uri=" +
         formEncode(redirect_uri) + "&scope=" + formEncode(scopes) + "&state=" + formEncode(state) +
         "&nonce=" + formEncode(nonce) + "&code_challenge=" + formEncode(challenge) + "&code_challenge_method=S256";
  return url;
}

TokenRequest tokenRequest(const ProviderMetadata& provider, const catalog::OidcSettings& settings,
                          std::string_view code, std::string_view redirect_uri, std::string_view verifier) {
  TokenRequest request;
  request.form = "grant_type=authorization_code&code=" + formEncode(code) + "&redirect_uri=" + formEncode(redirect_uri) +
                 "&code_verifier=" + formEncode(verifier);
  if (settings.client_secret.empty()) {
    request.form += "&client_id=" + formEncode(settings.client_id);
  } else if (provider.secret_in_form) {
    request.form += "&client_id=" + formEncode(settings.client_id) + "&client_secret=" + formEncode(settings.client_secret);
  } else {
    // RFC 6749 §2.3.1: both form-encoded before Basic.
    const std::string pair = formEncode(settings.client_id) + ":" + formEncode(settings.client_secret);
    std::string encoded(4 * ((pair.size() + 2) / 3) + 1, '\0');
    const int length = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                       reinterpret_cast<const unsigned char*>(pair.data()), static_cast<int>(pair.size()));
    encoded.resize(static_cast<size_t>(length));
    request.headers.emplace_back("Authorization", "Basic " + encoded);
  }
  return request;
}

std::expected<Tokens, std::string> readTokenAnswer(int status, std::string_view body) {
  const json answer = parseObject(body);
  if (status != 200) {
    const std::string code = answer.is_discarded() ? std::string() : errorCode(answer);
    return std::unexpected("the token endpoint refused the code (HTTP " + std::to_string(status) +
                           (code.empty() ? std::string(")") : ", " + code + ")"));
  }
  if (answer.is_discarded()) return std::unexpected("the token endpoint's answer is not a JSON object");
  Tokens tokens;
  tokens.id_token = stringField(answer, "id_token");
  tokens.access_token = stringField(answer, "access_token");
  if (tokens.id_token.empty()) return std::unexpected("the token endpoint's answer holds no id_token (is openid among the scopes?)");
  return tokens;
}

// One signing key of a JWKS.
struct KeySet::Key {
  std::string kid;
  cjose_jwk_kty_t kty = CJOSE_JWK_KTY_RSA;
  std::string alg;  // as the JWKS states it, or ""
  std::shared_ptr<cjose_jwk_t> jwk;
};

std::expected<KeySet, std::string> KeySet::parse(std::string_view body) {
  const json document = parseObject(body);
  if (document.is_discarded()) return std::unexpected("the JWKS is not a JSON object");
  const auto keys = document.find("keys");
  if (keys == document.end() || !keys->is_array()) return std::unexpected("the JWKS has no keys list");
  KeySet set;
  for (const json& entry : *keys) {
    if (set.keys_.size() >= 64) break;
    if (!entry.is_object()) continue;
    const std::string kty = stringField(entry, "kty");
    const std::string use = stringField(entry, "use");
    if ((kty != "RSA" && kty != "EC") || (!use.empty() && use != "sig")) continue;
    if (kty == "EC" && stringField(entry, "crv") != "P-256") continue;
    // Only the public members go to cjose: a JWKS never needs private ones, and d would make cjose
    // hold a private key.
    json public_part = json::object();
    for (const char* name : {"kty", "kid", "n", "e", "crv", "x", "y"}) {
      if (entry.contains(name) && entry[name].is_string()) public_part[name] = entry[name];
    }
    const std::string text = public_part.dump();
    cjose_err error{};
    cjose_jwk_t* jwk = cjose_jwk_import(text.data(), text.size(), &error);
    if (jwk == nullptr) continue;
    auto key = std::make_shared<Key>();
    key->kid = stringField(entry, "kid");
    key->kty = kty == "RSA" ? CJOSE_JWK_KTY_RSA : CJOSE_JWK_KTY_EC;
    key->alg = stringField(entry, "alg");
    key->jwk = std::shared_ptr<cjose_jwk_t>(jwk, [](cjose_jwk_t* k) { cjose_jwk_release(k); });
    set.keys_.push_back(std::move(key));
  }
  if (set.keys_.empty()) return std::unexpected("the JWKS holds no RSA or P-256 signing key");
  return set;
}

bool KeySet::has(std::string_view kid) const {
  return std::any_of(keys_.begin(), keys_.end(), [&](const auto& key) { return key->kid == kid; });
}

std::optional<std::string> base64urlDecode(std::string_view text) {
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (const char c : text) {
    int value;
    if (c >= 'A' && c <= 'Z') value = c - 'A';
    else if (c >= 'a' && c <= 'z') value = c - 'a' + 26;
    else if (c >= '0' && c <= '9') value = c - '0' + 52;
    else if (c == '-') value = 62;
    else if (c == '_') value = 63;
    else return std::nullopt;
    buffer = (buffer << 6) | static_cast<uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xff);
    }
  }
  return out;
}

namespace {

// The protected header of a compact JWS, or discarded.
json protectedHeader(std::string_view token) {
  const size_t dot = token.find('.');
  if (dot == std::string_view::npos || dot > 4096) return json(json::value_t::discarded);
  const auto decoded = base64urlDecode(token.substr(0, dot));
  if (!decoded) return json(json::value_t::discarded);
  return parseObject(*decoded);
}

bool audienceHolds(const json& aud, std::string_view client_id) {
  if (aud.is_string()) return aud.get<std::string>() == client_id;
  if (!aud.is_array()) return false;
  return std::any_of(aud.begin(), aud.end(), [&](const json& item) { return item.is_string() && item.get<std::string>() == client_id; });
}

}  // namespace

std::string tokenKeyId(std::string_view token) {
  const json header = protectedHeader(token);
  return header.is_discarded() ? std::string() : stringField(header, "kid");
}

std::expected<json, TokenError> verifyIdToken(std::string_view token, const KeySet& keys, std::string_view issuer,
                                              std::string_view client_id, std::string_view nonce, TimePoint now) {
  const auto invalid = [](std::string message) { return std::unexpected(TokenError{TokenFault::Invalid, std::move(message)}); };
  if (token.empty() || token.size() > kMaxTokenBytes) return invalid("the ID token is empty or larger than 16 KiB");
  if (std::count(token.begin(), token.end(), '.') != 2) return invalid("the ID token is not a signed JWT");
  const json header = protectedHeader(token);
  if (header.is_discarded()) return invalid("the ID token's header is not JSON");
  const std::string alg = stringField(header, "alg");
  cjose_jwk_kty_t wanted;
  if (alg == "RS256") wanted = CJOSE_JWK_KTY_RSA;
  else if (alg == "ES256") wanted = CJOSE_JWK_KTY_EC;
  else return invalid("the ID token is signed with " + (alg.empty() ? std::string("no algorithm") : "'" + alg.substr(0, 16) + "'") +
                      "; RS256 and ES256 are accepted");
  if (header.contains("crit")) return invalid("the ID token's header has critical extensions");
  const std::string kid = stringField(header, "kid");
  std::vector<const KeySet::Key*> candidates;
  for (const auto& key : keys.keys()) {
    if (key->kty != wanted || (!key->alg.empty() && key->alg != alg)) continue;
    if (!kid.empty() && key->kid != kid) continue;
    candidates.push_back(key.get());
  }
  if (candidates.empty()) {
    if (!kid.empty()) return std::unexpected(TokenError{TokenFault::UnknownKey, "the ID token is signed by a key the provider's JWKS does not hold"});
    return invalid("the provider's JWKS holds no " + alg + " key");
  }
  cjose_err error{};
  const std::string compact(token);
  std::unique_ptr<cjose_jws_t, void (*)(cjose_jws_t*)> jws(cjose_jws_import(compact.data(), compact.size(), &error),
                                                            cjose_jws_release);
  if (!jws) return invalid("the ID token is not a JWS");
  bool verified = false;
  for (const KeySet::Key* key : candidates) {
    if (cjose_jws_verify(jws.get(), key->jwk.get(), &error)) {
      verified = true;
      break;
    }
  }
  if (!verified) return invalid("the ID token's signature does not verify");
  uint8_t* plaintext = nullptr;
  size_t length = 0;
  if (!cjose_jws_get_plaintext(jws.get(), &plaintext, &length, &error)) return invalid("the ID token has no payload");
  const json claims = parseObject(std::string_view(reinterpret_cast<const char*>(plaintext), length));
  if (claims.is_discarded()) return invalid("the ID token's claims are not a JSON object");
  if (stringField(claims, "iss") != issuer) return invalid("the ID token was issued by another issuer");
  const auto aud = claims.find("aud");
  if (aud == claims.end() || !audienceHolds(*aud, client_id)) return invalid("the ID token is for another audience");
  if (aud->is_array() && aud->size() > 1 && stringField(claims, "azp") != client_id) {
    return invalid("the ID token names several audiences and another authorized party");
  }
  const int64_t seconds = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const auto exp = numericDate(claims, "exp");
  if (!exp) return invalid("the ID token has no expiry");
  if (*exp + kClockSkew.count() <= seconds) return invalid("the ID token has expired");
  const auto iat = numericDate(claims, "iat");
  if (!iat) return invalid("the ID token has no issue time");
  if (*iat - kClockSkew.count() > seconds) return invalid("the ID token was issued in the future");
  if (const auto nbf = numericDate(claims, "nbf"); nbf && *nbf - kClockSkew.count() > seconds) {
    return invalid("the ID token is not valid yet");
  }
  if (nonce.empty() || stringField(claims, "nonce") != nonce) return invalid("the ID token's nonce is not this sign-in's");
  if (stringField(claims, "sub").empty()) return invalid("the ID token has no subject");
  return claims;
}

namespace {

const char* memberClaimName(catalog::MemberClaim claim) {
  switch (claim) {
    case catalog::MemberClaim::Email: return "email";
    case catalog::MemberClaim::PreferredUsername: return "preferred_username";
    case catalog::MemberClaim::Sub: return "sub";
  }
  return "email";
}

std::string lowered(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

bool emailUnverified(const json& claims) {
  const auto verified = claims.find("email_verified");
  if (verified == claims.end()) return false;
  if (verified->is_boolean()) return !verified->get<bool>();
  if (verified->is_string()) return verified->get<std::string>() == "false";
  return false;
}

}  // namespace

bool needsUserInfo(const json& claims, const catalog::OidcSettings& settings) {
  if (!claims.contains(memberClaimName(settings.member_claim))) return true;
  return !settings.groups_claim.empty() && !claims.contains(settings.groups_claim);
}

std::expected<SignedIn, std::string> signedInOf(const json& claims, const catalog::OidcSettings& settings) {
  SignedIn who;
  who.subject = stringField(claims, "sub");
  const char* claim = memberClaimName(settings.member_claim);
  std::string member = stringField(claims, claim);
  if (member.empty()) return std::unexpected(std::string("the provider did not give the ") + claim + " claim that names a member");
  const std::string email = stringField(claims, "email");
  if (!email.empty() && email.size() <= 320 && !emailUnverified(claims)) who.email = lowered(email);
  if (settings.member_claim == catalog::MemberClaim::Email) {
    if (emailUnverified(claims)) return std::unexpected("the provider says this e-mail address is not verified");
    member = lowered(member);
  }
  if (!validName(member)) {
    return std::unexpected(std::string("the ") + claim + " claim is not a valid member name (letters, digits and . _ @ + -, at most 128)");
  }
  who.member = member;
  const std::string name = stringField(claims, "name");
  if (!name.empty() && name.size() <= 512) who.display_name = name;
  if (!settings.groups_claim.empty()) {
    const auto groups = claims.find(settings.groups_claim);
    if (groups != claims.end()) {
      std::vector<std::string> list;
      const auto add = [&](const json& item) -> bool {
        if (!item.is_string()) return false;
        const std::string group = item.get<std::string>();
        if (group.empty() || group.size() > 128) return false;
        if (std::any_of(group.begin(), group.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; })) return false;
        if (std::find(list.begin(), list.end(), group) == list.end()) list.push_back(group);
        return true;
      };
      if (groups->is_string()) {
        if (!add(*groups)) return std::unexpected("the groups claim holds a group name that is empty, too long or has control characters");
      } else if (groups->is_array()) {
        if (groups->size() > 256) return std::unexpected("the groups claim lists more than 256 groups");
        for (const json& item : *groups) {
          if (!add(item)) return std::unexpected("the groups claim holds a group name that is empty, too long or has control characters");
        }
      } else {
        return std::unexpected("the groups claim is not a list of names");
      }
      who.groups = std::move(list);
    }
  }
  return who;
}

std::expected<json, std::string> mergeUserInfo(json claims, int status, std::string_view body) {
  if (status != 200) return std::unexpected("the UserInfo endpoint answered HTTP " + std::to_string(status));
  const json info = parseObject(body);
  if (info.is_discarded()) return std::unexpected("the UserInfo answer is not a JSON object (signed UserInfo is not supported)");
  if (stringField(info, "sub") != stringField(claims, "sub")) return std::unexpected("the UserInfo answer is for another subject");
  for (const auto& [name, value] : info.items()) {
    if (!claims.contains(name)) claims[name] = value;
  }
  return claims;
}

}  // namespace sluice::identity::oidc
