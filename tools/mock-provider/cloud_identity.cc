#include "tools/mock-provider/cloud_identity.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>

#include <cctype>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

namespace sluice::mock {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kJwtBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer";
constexpr std::string_view kClientAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
constexpr std::string_view kCloudPlatform = "https://www.googleapis.com/auth/cloud-platform";
constexpr std::size_t kMaxTokens = 10000;

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string formDecode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hexValue(text[i + 1]) >= 0 &&
               hexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(hexValue(text[i + 1]) * 16 + hexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// RFC 4648 §5 without padding; nullopt on a character outside the alphabet.
std::optional<std::string> base64UrlDecode(std::string_view text) {
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    int value = -1;
    if (c >= 'A' && c <= 'Z') value = c - 'A';
    else if (c >= 'a' && c <= 'z') value = c - 'a' + 26;
    else if (c >= '0' && c <= '9') value = c - '0' + 52;
    else if (c == '-') value = 62;
    else if (c == '_') value = 63;
    else if (c == '=') break;
    if (value < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(value);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xFF);
    }
  }
  return out;
}

OAuthError invalidGrant(std::string description) { return {400, "invalid_grant", std::move(description)}; }

std::string randomHex(std::size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  RAND_bytes(raw.data(), static_cast<int>(raw.size()));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const unsigned char c : raw) {
    out += kHex[c >> 4];
    out += kHex[c & 0xF];
  }
  return out;
}

bool verifyRs256(const std::string& public_key_pem, std::string_view signed_part, const std::string& signature) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(public_key_pem.data(), static_cast<int>(public_key_pem.size())), BIO_free);
  if (!bio) return false;
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr),
                                                          EVP_PKEY_free);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> context(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!key || !context || EVP_DigestVerifyInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1) {
    return false;
  }
  return EVP_DigestVerify(context.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
                          reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size()) == 1;
}

std::string textOf(const Json& object, const char* name) {
  const auto found = object.find(name);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

bool hasScope(const std::string& scopes, std::string_view wanted) {
  std::size_t start = 0;
  while (start <= scopes.size()) {
    const std::size_t space = std::min(scopes.find(' ', start), scopes.size());
    if (std::string_view(scopes).substr(start, space - start) == wanted) return true;
    start = space + 1;
  }
  return false;
}

}  // namespace

std::string oauthErrorBody(const OAuthError& error) {
  return Json{{"error", error.error}, {"error_description", error.description}}.dump();
}

std::map<std::string, std::string> parseForm(std::string_view body) {
  std::map<std::string, std::string> form;
  std::size_t start = 0;
  while (start < body.size()) {
    const std::size_t amp = std::min(body.find('&', start), body.size());
    const std::string_view pair = body.substr(start, amp - start);
    const std::size_t equals = pair.find('=');
    if (equals != std::string_view::npos) form[formDecode(pair.substr(0, equals))] = formDecode(pair.substr(equals + 1));
    else if (!pair.empty()) form[formDecode(pair)] = "";
    start = amp + 1;
  }
  return form;
}

std::string TokenRing::issue(std::chrono::seconds lifetime, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  std::string token = prefix_ + std::to_string(++issued_count_) + "-" + randomHex(16);
  if (issued_.size() >= kMaxTokens) issued_.erase(issued_.begin());
  issued_[token] = now + lifetime;
  return token;
}

TokenRing::Found TokenRing::check(const std::string& token, Clock::time_point now) const {
  std::lock_guard lock(mutex_);
  const auto found = issued_.find(token);
  if (found == issued_.end()) return Found::Unknown;
  return now < found->second ? Found::Valid : Found::Expired;
}

void TokenRing::revokeAll() {
  std::lock_guard lock(mutex_);
  issued_.clear();
}

std::uint64_t TokenRing::issuedCount() const {
  std::lock_guard lock(mutex_);
  return issued_count_;
}

std::expected<GoogleAccount, std::string> loadGoogleAccount(std::string_view key_file_json) {
  const Json parsed = Json::parse(key_file_json, nullptr, false);
  if (!parsed.is_object()) return std::unexpected("the service-account file is not a JSON object");
  GoogleAccount account{textOf(parsed, "client_email"), textOf(parsed, "private_key_id"), ""};
  const std::string private_key = textOf(parsed, "private_key");
  if (account.client_email.empty() || private_key.empty()) {
    return std::unexpected("the service-account file lacks client_email or private_key");
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> in(BIO_new_mem_buf(private_key.data(), static_cast<int>(private_key.size())),
                                               BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      in ? PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
  if (!key || EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA) return std::unexpected("private_key is not a PEM RSA key");
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), BIO_free);
  if (!out || PEM_write_bio_PUBKEY(out.get(), key.get()) != 1) return std::unexpected("the public key cannot be written");
  char* data = nullptr;
  const long length = BIO_get_mem_data(out.get(), &data);
  account.public_key_pem.assign(data, static_cast<std::size_t>(length));
  return account;
}

std::expected<GoogleUser, std::string> loadGoogleUser(std::string_view file_json) {
  const Json parsed = Json::parse(file_json, nullptr, false);
  if (!parsed.is_object() || parsed.value("type", "") != "authorized_user") {
    return std::unexpected("not an authorized_user file");
  }
  GoogleUser user{parsed.value("client_id", ""), parsed.value("client_secret", ""), parsed.value("refresh_token", "")};
  if (user.client_id.empty() || user.client_secret.empty() || user.refresh_token.empty()) {
    return std::unexpected("client_id, client_secret and refresh_token are required");
  }
  return user;
}

std::optional<OAuthError> checkRefreshGrant(const std::map<std::string, std::string>& form, const GoogleUser& user) {
  const auto value = [&](const char* name) {
    const auto found = form.find(name);
    return found == form.end() ? std::string() : found->second;
  };
  if (value("grant_type") != "refresh_token") {
    return OAuthError{400, "unsupported_grant_type", "Invalid grant_type: " + value("grant_type")};
  }
  if (value("client_id") != user.client_id || value("client_secret") != user.client_secret) {
    return OAuthError{401, "invalid_client", "Unauthorized"};
  }
  if (value("refresh_token") != user.refresh_token) return OAuthError{400, "invalid_grant", "Bad Request"};
  return std::nullopt;
}

std::optional<OAuthError> checkGoogleGrant(const std::map<std::string, std::string>& form, const GoogleAccount& account,
                                           const std::string& token_url, std::chrono::system_clock::time_point now) {
  const auto grant = form.find("grant_type");
  if (grant == form.end() || grant->second != kJwtBearer) {
    return OAuthError{400, "unsupported_grant_type",
                      "Invalid grant_type: " + (grant == form.end() ? std::string() : grant->second)};
  }
  const auto assertion = form.find("assertion");
  if (assertion == form.end()) return OAuthError{400, "invalid_request", "Missing required parameter: assertion"};
  const std::string& jwt = assertion->second;
  const std::size_t first = jwt.find('.');
  const std::size_t second = first == std::string::npos ? first : jwt.find('.', first + 1);
  if (second == std::string::npos || jwt.find('.', second + 1) != std::string::npos) {
    return invalidGrant("Invalid JWT: the assertion is not header.claims.signature");
  }
  const auto header_text = base64UrlDecode(std::string_view(jwt).substr(0, first));
  const auto claims_text = base64UrlDecode(std::string_view(jwt).substr(first + 1, second - first - 1));
  const auto signature = base64UrlDecode(std::string_view(jwt).substr(second + 1));
  if (!header_text || !claims_text || !signature) return invalidGrant("Invalid JWT: a part is not base64url");
  const Json header = Json::parse(*header_text, nullptr, false);
  const Json claims = Json::parse(*claims_text, nullptr, false);
  if (!header.is_object() || !claims.is_object()) return invalidGrant("Invalid JWT: a part is not a JSON object");
  if (textOf(header, "alg") != "RS256") return invalidGrant("Invalid JWT: alg must be RS256");
  const std::string kid = textOf(header, "kid");
  if (!kid.empty() && !account.private_key_id.empty() && kid != account.private_key_id) {
    return invalidGrant("Invalid JWT Signature.");
  }
  if (!verifyRs256(account.public_key_pem, std::string_view(jwt).substr(0, second), *signature)) {
    return invalidGrant("Invalid JWT Signature.");
  }
  if (textOf(claims, "iss") != account.client_email) return invalidGrant("Invalid grant: account not found");
  if (textOf(claims, "aud") != token_url) return invalidGrant("Invalid JWT: Failed audience check.");
  if (!claims.contains("iat") || !claims["iat"].is_number_integer() || !claims.contains("exp") ||
      !claims["exp"].is_number_integer()) {
    return invalidGrant("Invalid JWT: iat and exp must be integers.");
  }
  const std::int64_t at = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const auto iat = claims["iat"].get<std::int64_t>();
  const auto exp = claims["exp"].get<std::int64_t>();
  if (iat > at + 300 || exp <= at || exp <= iat || exp - iat > 3600) {
    return invalidGrant("Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. "
                        "Check your iat and exp values in the JWT claim.");
  }
  if (!hasScope(textOf(claims, "scope"), kCloudPlatform)) {
    return OAuthError{400, "invalid_scope", "Invalid OAuth scope or ID token audience provided."};
  }
  return std::nullopt;
}

std::optional<OAuthError> checkEntraGrant(std::string_view tenant, const std::map<std::string, std::string>& form,
                                          const EntraApp& app,
                                          const std::function<std::optional<std::string>(const std::string&)>& read_file) {
  const auto value = [&](const char* name) {
    const auto found = form.find(name);
    return found == form.end() ? std::optional<std::string>() : std::optional(found->second);
  };
  if (tenant != app.tenant_id) {
    return OAuthError{400, "invalid_request", "AADSTS90002: Tenant '" + std::string(tenant) + "' not found."};
  }
  if (value("grant_type") != "client_credentials") {
    return OAuthError{400, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type."};
  }
  if (value("scope") != std::string(kCognitiveServicesScope)) {
    return OAuthError{400, "invalid_scope", "AADSTS1002012: The provided value for scope is not valid."};
  }
  if (value("client_id") != app.client_id) {
    return OAuthError{400, "unauthorized_client",
                      "AADSTS700016: Application with identifier '" + value("client_id").value_or("") +
                          "' was not found in the directory."};
  }
  if (const auto secret = value("client_secret")) {
    if (*secret != app.client_secret || app.client_secret.empty()) {
      return OAuthError{401, "invalid_client", "AADSTS7000215: Invalid client secret provided."};
    }
    return std::nullopt;
  }
  const auto assertion = value("client_assertion");
  if (!assertion) {
    return OAuthError{401, "invalid_client",
                      "AADSTS7000218: The request body must contain the following parameter: 'client_assertion' or "
                      "'client_secret'."};
  }
  if (value("client_assertion_type") != std::string(kClientAssertionType)) {
    return OAuthError{400, "invalid_request", "AADSTS50027: Invalid client_assertion_type."};
  }
  std::optional<std::string> expected = app.federated_token_file.empty() ? std::nullopt : read_file(app.federated_token_file);
  while (expected && !expected->empty() && std::isspace(static_cast<unsigned char>(expected->back()))) expected->pop_back();
  if (!expected || expected->empty() || *assertion != *expected) {
    return OAuthError{401, "invalid_client",
                      "AADSTS700211: No matching federated identity record found for presented assertion."};
  }
  return std::nullopt;
}

}  // namespace sluice::mock
